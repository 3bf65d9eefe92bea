//! Raster images: magic bytes, pixel dimensions from the headers, and the
//! structural checks for the formats a provider accepts (jpeg, gif, webp;
//! png's chunk walk is in png.rs).
//!
//! APNG is reported as `image/png`: it is a valid PNG whose first frame every
//! PNG decoder shows, so a provider that takes PNG takes it too.

use memchr::memmem;

use super::{
    array, be16, be32, bytes, found, ftyp, has_at, has_brand, le16, le32, png, Family, ReadAt,
    Sniffed, Window,
};

pub(super) fn sniff(head: &[u8]) -> Option<Sniffed> {
    let image = |media_type| found(media_type, Family::Image);
    if head.starts_with(png::SIGNATURE) {
        return image(mt!("image/png"));
    }
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        // FF D8 FF F7 opens JPEG-LS, which ordinary JPEG decoders reject.
        return match head.get(3) {
            Some(0xF7) => image(mt!("image/jls")),
            _ => image(mt!("image/jpeg")),
        };
    }
    if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        return image(mt!("image/gif"));
    }
    if head.starts_with(b"RIFF") && has_at(head, 8, b"WEBP") {
        return image(mt!("image/webp"));
    }
    if is_bmp(head) {
        return image(mt!("image/bmp"));
    }
    if let Some(sniffed) = sniff_tiff(head) {
        return Some(sniffed);
    }
    if is_ico(head) {
        // A .cur cursor is an icon file with hotspots: same media type.
        return image(mt!("image/vnd.microsoft.icon"));
    }
    if let Some(sniffed) = sniff_iso_image(head) {
        return Some(sniffed);
    }
    let table: &[(&[u8], &'static str)] = &[
        (b"8BPS", mt!("image/vnd.adobe.photoshop")),
        (b"gimp xcf ", mt!("image/x-xcf")),
        (b"BPG\xFB", mt!("image/bpg")),
        (b"\xFF\x0A", mt!("image/jxl")),
        (b"\0\0\0\x0CJXL \x0D\x0A\x87\x0A", mt!("image/jxl")),
        (b"\xFF\x4F\xFF\x51", mt!("image/x-jp2-codestream")),
        (b"\xABKTX 11\xBB\x0D\x0A\x1A\x0A", mt!("image/ktx")),
        (b"icns", mt!("image/icns")),
        (b"FUJIFILMCCD-RAW", mt!("image/x-fujifilm-raf")),
    ];
    table
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .and_then(|&(_, media_type)| image(media_type))
}

/// "BM" is only two bytes, so also require a known DIB header size.
fn is_bmp(head: &[u8]) -> bool {
    head.starts_with(b"BM") && matches!(le32(head, 14), Some(12 | 40 | 52 | 56 | 64 | 108 | 124))
}

/// Icon directory: reserved 0, type 1 (icon) or 2 (cursor), at least one
/// entry whose reserved byte is 0.
fn is_ico(head: &[u8]) -> bool {
    (head.starts_with(&[0, 0, 1, 0]) || head.starts_with(&[0, 0, 2, 0]))
        && matches!(le16(head, 4), Some(1..))
        && head.get(9) == Some(&0)
}

/// TIFF and the camera raw formats built on a TIFF-like header. Raw formats
/// that are plain TIFF inside (dng, nef, arw) are reported as TIFF.
fn sniff_tiff(head: &[u8]) -> Option<Sniffed> {
    let media_type = if head.starts_with(b"II*\0") && has_at(head, 8, b"CR") {
        mt!("image/x-canon-cr2")
    } else if head.starts_with(b"II*\0") || head.starts_with(b"MM\0*") {
        mt!("image/tiff")
    } else if head.starts_with(b"IIRO") || head.starts_with(b"IIRS") {
        mt!("image/x-olympus-orf")
    } else if head.starts_with(b"IIU\0") {
        mt!("image/x-panasonic-rw2")
    } else if head.starts_with(b"II\xBC") {
        mt!("image/vnd.ms-photo")
    } else {
        return None;
    };
    found(media_type, Family::Image)
}

/// Images in ISO base media files (ftyp brands) and JPEG 2000 files.
fn sniff_iso_image(head: &[u8]) -> Option<Sniffed> {
    if head.starts_with(b"\0\0\0\x0CjP  \x0D\x0A\x87\x0A") {
        // JPEG 2000 signature box, then an ftyp box whose brand tells which.
        let (media_type, family) = match array(head, 20)? {
            [b'j', b'p', b'2', b' '] => (mt!("image/jp2"), Family::Image),
            [b'j', b'p', b'x', b' '] => (mt!("image/jpx"), Family::Image),
            [b'j', b'p', b'm', b' '] => (mt!("image/jpm"), Family::Image),
            [b'm', b'j', b'p', b'2'] => (mt!("video/mj2"), Family::Video),
            _ => (mt!("image/jp2"), Family::Image),
        };
        return found(media_type, family);
    }
    let (major, compatible) = ftyp(head)?;
    let has = |brand| has_brand(major, compatible, brand);
    let media_type = match &major {
        b"avif" | b"avis" => mt!("image/avif"),
        b"mif1" | b"msf1" | b"miaf" if has(b"avif") || has(b"avis") => mt!("image/avif"),
        b"heic" | b"heix" | b"heim" | b"heis" => mt!("image/heic"),
        b"hevc" | b"hevx" => mt!("image/heic-sequence"),
        b"mif1" => mt!("image/heif"),
        b"msf1" => mt!("image/heif-sequence"),
        b"crx " => mt!("image/x-canon-cr3"),
        _ => return None,
    };
    found(media_type, Family::Image)
}

/// Width and height from the image header; `None` when not in `head`.
pub(super) fn dimensions(media_type: &str, head: &[u8]) -> Option<(u32, u32)> {
    let (width, height) = match media_type {
        "image/png" | "image/apng" => png::dimensions(head),
        "image/jpeg" => jpeg_walk(head, true).frame,
        "image/gif" if head.len() >= 10 => Some((le16(head, 6)?.into(), le16(head, 8)?.into())),
        "image/webp" => webp_dimensions(head),
        "image/bmp" => bmp_dimensions(head),
        "image/vnd.microsoft.icon" => ico_dimensions(head),
        "image/tiff" => tiff_dimensions(head),
        "image/avif" | "image/heic" | "image/heif" => ispe_dimensions(head),
        _ => None,
    }?;
    (width > 0 && height > 0).then_some((width, height))
}

fn webp_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    match &array::<4>(head, 12)? {
        // Lossy: 14-bit sizes after the frame tag and start code.
        b"VP8 " => Some((
            u32::from(le16(head, 26)? & 0x3FFF),
            u32::from(le16(head, 28)? & 0x3FFF),
        )),
        // Lossless: after the 0x2F signature, 14 bits each of size - 1.
        b"VP8L" if head.get(20) == Some(&0x2F) => {
            let bits = le32(head, 21)?;
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        // Extended: 24-bit canvas size - 1.
        b"VP8X" => {
            let le24 = |at| {
                Some(u32::from_le_bytes([
                    *head.get(at)?,
                    *head.get(at + 1)?,
                    *head.get(at + 2)?,
                    0,
                ]))
            };
            Some((le24(24)? + 1, le24(27)? + 1))
        }
        _ => None,
    }
}

fn bmp_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    if le32(head, 14)? == 12 {
        // OS/2 BITMAPCOREHEADER: 16-bit sizes.
        return Some((le16(head, 18)?.into(), le16(head, 20)?.into()));
    }
    let width = i32::from_le_bytes(array(head, 18)?);
    // A negative height means the rows are stored top-down.
    let height = i32::from_le_bytes(array(head, 22)?);
    Some((u32::try_from(width).ok()?, height.unsigned_abs()))
}

/// The largest entry of the icon directory; a size byte of 0 means 256.
fn ico_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    let count = usize::from(le16(head, 4)?);
    (0..count)
        .map_while(|i| {
            let entry = bytes(head, 6 + 16 * i, 2)?;
            let side = |b: u8| if b == 0 { 256 } else { u32::from(b) };
            Some((side(*entry.first()?), side(*entry.get(1)?)))
        })
        .max_by_key(|&(w, h)| u64::from(w) * u64::from(h))
}

/// ImageWidth (256) and ImageLength (257) from the first IFD.
fn tiff_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    let little = head.starts_with(b"II");
    let u16_at = |at| {
        if little {
            le16(head, at)
        } else {
            be16(head, at)
        }
    };
    let u32_at = |at| {
        if little {
            le32(head, at)
        } else {
            be32(head, at)
        }
    };
    let ifd = usize::try_from(u32_at(4)?).ok()?;
    let count = usize::from(u16_at(ifd)?);
    let (mut width, mut height) = (None, None);
    for i in 0..count {
        let entry = ifd.checked_add(2 + 12 * i)?;
        let value_at = entry.checked_add(8)?;
        // SHORT (3) values sit in the first two bytes of the value field.
        let value = match u16_at(entry.checked_add(2)?)? {
            3 => u32::from(u16_at(value_at)?),
            4 => u32_at(value_at)?,
            _ => continue,
        };
        match u16_at(entry)? {
            256 => width = Some(value),
            257 => height = Some(value),
            _ => {}
        }
    }
    Some((width?, height?))
}

/// ISO boxes in `data` as (type, body). A box that claims more than `data`
/// holds is cut short; iteration stops at the first malformed header.
fn boxes(mut data: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    std::iter::from_fn(move || {
        let kind = array(data, 4)?;
        let (header, size) = match be32(data, 0)? {
            0 => (8, data.len()),
            1 => (
                16,
                usize::try_from(u64::from_be_bytes(array(data, 8)?)).ok()?,
            ),
            n => (8, usize::try_from(n).ok()?),
        };
        let end = size.min(data.len());
        let body = data.get(header..end)?;
        data = data.get(end..).unwrap_or_default();
        Some((kind, body))
    })
}

/// AVIF/HEIF: the largest `ispe` (image spatial extent) property in
/// meta/iprp/ipco. The largest is the primary image in practice: the others
/// are thumbnails and grid tiles.
fn ispe_dimensions(head: &[u8]) -> Option<(u32, u32)> {
    let child = |data, name: &[u8; 4]| {
        boxes(data)
            .find(|(kind, _)| kind == name)
            .map(|(_, body)| body)
    };
    // meta is a full box: 4 bytes of version and flags before its children.
    let meta = child(head, b"meta")?.get(4..)?;
    let ipco = child(child(meta, b"iprp")?, b"ipco")?;
    boxes(ipco)
        .filter(|(kind, _)| kind == b"ispe")
        .filter_map(|(_, body)| Some((be32(body, 4)?, be32(body, 8)?)))
        .max_by_key(|&(w, h)| u64::from(w) * u64::from(h))
}

/// How a JPEG marker walk ended.
#[derive(Debug, PartialEq)]
enum JpegEnd {
    /// Met the end-of-image marker.
    Eoi,
    /// Ran off the end of the bytes it was given.
    OutOfData,
    /// Found bytes that cannot be there.
    Corrupt(String),
}

#[derive(Debug)]
struct JpegWalk {
    /// Width and height from the first SOFn segment.
    frame: Option<(u32, u32)>,
    end: JpegEnd,
}

/// SOF0..SOF15 less DHT (C4), JPG (C8) and DAC (CC), which share the range.
fn is_sof(marker: u8) -> bool {
    matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC)
}

/// Walk JPEG segments from after SOI, through the entropy-coded data after
/// each SOS, up to EOI. With `until_frame` it stops at the first SOF.
fn jpeg_walk(data: &[u8], until_frame: bool) -> JpegWalk {
    let mut frame = None;
    let mut pos = 2;
    let end = loop {
        match data.get(pos) {
            None => break JpegEnd::OutOfData,
            Some(0xFF) => {}
            Some(_) => {
                break JpegEnd::Corrupt(format!("corrupt JPEG: expected a marker at byte {pos}"))
            }
        }
        // Any number of 0xFF fill bytes may come before the marker code.
        while data.get(pos) == Some(&0xFF) {
            pos += 1;
        }
        let Some(&marker) = data.get(pos) else {
            break JpegEnd::OutOfData;
        };
        pos += 1;
        match marker {
            0xD9 => break JpegEnd::Eoi,
            // Markers without a length field.
            0x01 | 0xD0..=0xD7 => continue,
            0x00 | 0xD8 => {
                break JpegEnd::Corrupt(format!("corrupt JPEG: unexpected marker at byte {pos}"))
            }
            _ => {}
        }
        let Some(length) = be16(data, pos) else {
            break JpegEnd::OutOfData;
        };
        if length < 2 {
            break JpegEnd::Corrupt(format!("corrupt JPEG: bad segment length at byte {pos}"));
        }
        if is_sof(marker) {
            // Length, precision, then height and width.
            let (Some(height), Some(width)) = (be16(data, pos + 3), be16(data, pos + 5)) else {
                break JpegEnd::OutOfData;
            };
            frame = frame.or(Some((u32::from(width), u32::from(height))));
            if until_frame {
                break JpegEnd::OutOfData;
            }
        }
        pos += usize::from(length);
        if marker == 0xDA {
            match next_marker(data, pos) {
                Some(next) => pos = next,
                None => break JpegEnd::OutOfData,
            }
        }
    };
    JpegWalk { frame, end }
}

/// Skip entropy-coded data: it ends at the first 0xFF that is not stuffing
/// (FF 00), a restart marker (FF D0..D7) or fill before a marker.
fn next_marker(data: &[u8], mut pos: usize) -> Option<usize> {
    loop {
        let ff = pos + memchr::memchr(0xFF, data.get(pos..)?)?;
        match data.get(ff + 1)? {
            0x00 | 0xD0..=0xD7 | 0xFF => pos = ff + 1,
            _ => return Some(ff),
        }
    }
}

/// JPEG: SOI, well-formed segments, a frame header with a non-zero size and
/// an EOI marker. With the whole data the walk goes through the scans to EOI,
/// so bytes after EOI are tolerated. With a partial window EOI must be in
/// the tail (the last `TAIL_LEN` bytes), so at most that much trailing data
/// is tolerated.
pub(super) fn check_jpeg(window: &Window) -> Result<(), String> {
    if !window.head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Err("corrupt JPEG: start-of-image marker missing".into());
    }
    let walk = jpeg_walk(window.head, false);
    match walk.end {
        JpegEnd::Corrupt(reason) => return Err(reason),
        JpegEnd::Eoi => {}
        JpegEnd::OutOfData if window.is_whole() => {
            return Err("truncated JPEG: data ends before the end-of-image marker".into());
        }
        JpegEnd::OutOfData => {
            if memmem::find(window.tail, &[0xFF, 0xD9]).is_none() {
                return Err("truncated JPEG: end-of-image marker missing".into());
            }
        }
    }
    match walk.frame {
        Some((width, height)) if width == 0 || height == 0 => {
            Err("corrupt JPEG: frame header has a zero width or height".into())
        }
        Some(_) => Ok(()),
        // A partial head may stop before the frame header: cannot tell.
        None if !window.is_whole() && walk.end == JpegEnd::OutOfData => Ok(()),
        None => Err("JPEG has no frame header (SOF)".into()),
    }
}

/// How a GIF block walk ended.
enum GifEnd {
    Trailer { images: usize },
    OutOfData { images: usize },
    Corrupt(String),
}

/// Size of a color table from a packed flags byte, 0 when there is none.
fn gif_color_table(flags: u8) -> usize {
    if flags & 0x80 == 0 {
        0
    } else {
        3 << ((flags & 7) + 1)
    }
}

/// Walk the GIF blocks after the header and global color table.
fn gif_walk(data: &[u8]) -> GifEnd {
    // Data sub-blocks: a length byte and that many bytes, until a 0 length.
    let skip_sub_blocks = |mut pos: usize| loop {
        let n = usize::from(*data.get(pos)?);
        pos += 1 + n;
        if n == 0 {
            return Some(pos);
        }
    };
    let Some(&flags) = data.get(10) else {
        return GifEnd::OutOfData { images: 0 };
    };
    let mut pos = 13 + gif_color_table(flags);
    let mut images = 0;
    loop {
        let next = match data.get(pos) {
            None => return GifEnd::OutOfData { images },
            Some(0x3B) => return GifEnd::Trailer { images },
            // Extension: introducer, label, sub-blocks.
            Some(0x21) => skip_sub_blocks(pos + 2),
            // Image: descriptor, local color table, LZW code size, sub-blocks.
            Some(0x2C) => {
                images += 1;
                data.get(pos + 9)
                    .and_then(|&flags| skip_sub_blocks(pos + 11 + gif_color_table(flags)))
            }
            Some(other) => {
                return GifEnd::Corrupt(format!(
                    "corrupt GIF: unknown block 0x{other:02X} at byte {pos}"
                ))
            }
        };
        match next {
            Some(next) => pos = next,
            None => return GifEnd::OutOfData { images },
        }
    }
}

/// GIF: header, non-zero screen size, well-formed blocks, at least one
/// image, and the 0x3B trailer (the last byte when only the tail is known).
pub(super) fn check_gif(window: &Window) -> Result<(), String> {
    let head = window.head;
    if !head.starts_with(b"GIF87a") && !head.starts_with(b"GIF89a") {
        return Err("corrupt GIF: bad header".into());
    }
    match (le16(head, 6), le16(head, 8)) {
        (Some(w), Some(h)) if w > 0 && h > 0 => {}
        (Some(_), Some(_)) => return Err("corrupt GIF: zero width or height".into()),
        _ => return Err("truncated GIF: header incomplete".into()),
    }
    match gif_walk(head) {
        GifEnd::Corrupt(reason) => Err(reason),
        GifEnd::Trailer { images: 0 } => Err("corrupt GIF: no image in the file".into()),
        GifEnd::Trailer { .. } => Ok(()),
        GifEnd::OutOfData { .. } if window.is_whole() => {
            Err("truncated GIF: data ends before the trailer".into())
        }
        GifEnd::OutOfData { .. } if window.tail.last() != Some(&0x3B) => {
            Err("truncated GIF: trailer byte missing at the end".into())
        }
        GifEnd::OutOfData { .. } => Ok(()),
    }
}

/// Whether a GIF is an animation: more than one image descriptor. `None`
/// when `head` is not all of the data and ends before a second image or the
/// trailer is seen.
pub(super) fn gif_is_animated(head: &[u8], whole: bool) -> Option<bool> {
    match gif_walk(head) {
        GifEnd::Trailer { images } => Some(images > 1),
        GifEnd::OutOfData { images } if images > 1 => Some(true),
        GifEnd::OutOfData { .. } if !whole => None,
        // Truncated or corrupt: refused for that reason anyway.
        GifEnd::OutOfData { .. } | GifEnd::Corrupt(_) => Some(false),
    }
}

/// WebP: RIFF size consistent with the data length (one pad byte allowed),
/// a known first chunk with a valid frame header, and chunks that fit.
pub(super) fn check_webp(window: &Window) -> Result<(), String> {
    let head = window.head;
    walk_webp(head, window.len, window.is_whole(), |pos| array(head, pos))
}

/// How many first bytes hold a WebP's header and frame size (a VP8X
/// canvas size ends at byte 30).
const WEBP_HEADER_LEN: usize = 30;

/// `check_webp` on all of a WebP of `len` bytes read through `data`: its
/// header and the chunk headers, not the bytes between them.
pub(super) fn check_webp_sparse(len: usize, data: &mut dyn ReadAt) -> Result<(), String> {
    let mut header = [0; WEBP_HEADER_LEN];
    let header = &mut header[..len.min(WEBP_HEADER_LEN)];
    if !data.read_at(0, header) {
        return Err("truncated WebP: header incomplete".into());
    }
    walk_webp(header, len, true, |pos| {
        let mut chunk = [0; 8];
        data.read_at(pos, &mut chunk).then_some(chunk)
    })
}

/// The WebP check on `head`, the first bytes of data of `len` bytes
/// (`whole` when it is all of them), and the 8-byte chunk headers
/// `chunk_at` reads (`None` past the bytes it sees).
fn walk_webp(
    head: &[u8],
    len: usize,
    whole: bool,
    mut chunk_at: impl FnMut(usize) -> Option<[u8; 8]>,
) -> Result<(), String> {
    if !head.starts_with(b"RIFF") || !has_at(head, 8, b"WEBP") {
        return Err("corrupt WebP: bad RIFF header".into());
    }
    let riff_end = le32(head, 4)
        .and_then(|size| usize::try_from(size).ok())
        .and_then(|size| size.checked_add(8))
        .ok_or("truncated WebP: header incomplete")?;
    if riff_end > len {
        return Err(format!(
            "truncated WebP: RIFF header says {riff_end} bytes, data has {len}"
        ));
    }
    if len > riff_end + 1 {
        return Err("corrupt WebP: data is longer than its RIFF size".into());
    }
    let frame_ok = match array::<4>(head, 12) {
        Some(kind) if &kind == b"VP8 " => has_at(head, 23, &[0x9D, 0x01, 0x2A]),
        Some(kind) if &kind == b"VP8L" => head.get(20) == Some(&0x2F),
        Some(kind) if &kind == b"VP8X" => true,
        Some(kind) => {
            let name = String::from_utf8_lossy(&kind);
            return Err(format!(
                "corrupt WebP: unknown first chunk \"{}\"",
                crate::note::server(&name)
            ));
        }
        None => return Err("truncated WebP: header incomplete".into()),
    };
    if !frame_ok || dimensions(mt!("image/webp"), head).is_none() {
        return Err("corrupt WebP: bad frame header".into());
    }
    // Chunks: fourcc, little-endian size, data padded to an even length.
    let mut pos = 12;
    while let Some(chunk) = chunk_at(pos) {
        let size = u32::from_le_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]);
        let end = usize::try_from(size)
            .ok()
            .and_then(|n| n.checked_add(n & 1))
            .and_then(|n| n.checked_add(pos + 8));
        // The pad byte of the last chunk may be missing.
        if end.is_none_or(|end| end > riff_end + 1) {
            let name = String::from_utf8_lossy(&chunk[..4]);
            return Err(format!(
                "truncated WebP: {name} chunk runs past the end of the data"
            ));
        }
        pos = end.unwrap_or(riff_end);
    }
    if whole && pos < riff_end {
        return Err("corrupt WebP: stray bytes after the last chunk".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_jpeg(app_len: usize) -> Vec<u8> {
        let mut jpeg = vec![0xFF, 0xD8];
        // An APP1 segment before the frame header, as EXIF puts it.
        jpeg.extend_from_slice(&[0xFF, 0xE1]);
        jpeg.extend_from_slice(&((app_len + 2) as u16).to_be_bytes());
        jpeg.extend(std::iter::repeat_n(0xAB, app_len));
        // A DHT segment: C4 is in the SOF range but is not a frame header.
        jpeg.extend_from_slice(&[0xFF, 0xC4, 0x00, 0x04, 0x00, 0x00]);
        jpeg.extend_from_slice(&[
            0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x21, 0x00, 0x2C, 0x01, 0x01, 0x11, 0x00,
        ]);
        jpeg.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]);
        // Entropy data with stuffing and a restart marker.
        jpeg.extend_from_slice(&[0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xD9]);
        jpeg
    }

    #[test]
    fn jpeg_dimensions_after_app_segments() {
        let jpeg = tiny_jpeg(100);
        assert_eq!(sniff(&jpeg).map(|s| s.media_type), Some("image/jpeg"));
        assert_eq!(dimensions("image/jpeg", &jpeg), Some((44, 33)));
        // The frame header is past the head: no answer, so the caller retries.
        assert_eq!(dimensions("image/jpeg", &jpeg[..50]), None);
        assert_eq!(check_jpeg(&Window::whole(&jpeg)), Ok(()));
    }

    #[test]
    fn jpeg_defects_are_caught() {
        let jpeg = tiny_jpeg(10);
        for cut in 3..jpeg.len() - 1 {
            assert!(
                check_jpeg(&Window::whole(&jpeg[..cut])).is_err(),
                "cut at {cut}"
            );
        }
        // No frame header at all.
        let no_sof = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0xFF, 0xD9];
        assert_eq!(
            check_jpeg(&Window::whole(&no_sof)).unwrap_err(),
            "JPEG has no frame header (SOF)"
        );
        // Trailing garbage after EOI is fine.
        let mut padded = jpeg.clone();
        padded.extend_from_slice(&[0; 10]);
        assert_eq!(check_jpeg(&Window::whole(&padded)), Ok(()));
        // JPEG-LS is not JPEG.
        assert_eq!(
            sniff(&[0xFF, 0xD8, 0xFF, 0xF7, 0, 0]).map(|s| s.media_type),
            Some("image/jls")
        );
    }

    #[test]
    fn gif_animation_is_more_than_one_image() {
        let still = tiny_gif();
        assert_eq!(gif_is_animated(&still, true), Some(false));
        // A second graphic control extension and image before the trailer.
        let frame = &still[19..still.len() - 1];
        let mut animated = still[..still.len() - 1].to_vec();
        animated.extend_from_slice(frame);
        animated.push(0x3B);
        assert_eq!(check_gif(&Window::whole(&animated)), Ok(()));
        assert_eq!(gif_is_animated(&animated, true), Some(true));
        // Two images seen before a cut: animated whatever follows.
        assert_eq!(
            gif_is_animated(&animated[..animated.len() - 1], false),
            Some(true)
        );
        // One image seen, then the head ends: unknown unless it is all.
        let cut = &still[..still.len() - 1];
        assert_eq!(gif_is_animated(cut, false), None);
        assert_eq!(gif_is_animated(cut, true), Some(false));
    }

    fn tiny_gif() -> Vec<u8> {
        let mut gif = b"GIF89a".to_vec();
        gif.extend_from_slice(&[5, 0, 7, 0, 0x80, 0, 0]); // 2-entry global table
        gif.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
        gif.extend_from_slice(&[0x21, 0xF9, 4, 0, 0, 0, 0, 0]);
        gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 5, 0, 7, 0, 0, 2, 2, 0x44, 0x01, 0]);
        gif.push(0x3B);
        gif
    }

    #[test]
    fn gif_size_and_check() {
        let gif = tiny_gif();
        assert_eq!(sniff(&gif).map(|s| s.media_type), Some("image/gif"));
        assert_eq!(dimensions("image/gif", &gif), Some((5, 7)));
        assert_eq!(check_gif(&Window::whole(&gif)), Ok(()));
        for cut in 6..gif.len() {
            assert!(
                check_gif(&Window::whole(&gif[..cut])).is_err(),
                "cut at {cut}"
            );
        }
    }

    fn webp(kind: &[u8; 4], payload: &[u8]) -> Vec<u8> {
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&((12 + payload.len() + payload.len() % 2) as u32).to_le_bytes());
        out.extend_from_slice(b"WEBP");
        out.extend_from_slice(kind);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(payload);
        if payload.len() % 2 == 1 {
            out.push(0);
        }
        out
    }

    #[test]
    fn webp_variants() {
        let lossy = webp(b"VP8 ", &[0, 0, 0, 0x9D, 0x01, 0x2A, 10, 0, 20, 0]);
        assert_eq!(sniff(&lossy).map(|s| s.media_type), Some("image/webp"));
        assert_eq!(dimensions("image/webp", &lossy), Some((10, 20)));
        assert_eq!(check_webp(&Window::whole(&lossy)), Ok(()));
        // 14 bits width-1 = 9, height-1 = 19.
        let bits: u32 = 9 | (19 << 14);
        let mut lossless = vec![0x2F];
        lossless.extend_from_slice(&bits.to_le_bytes());
        let lossless = webp(b"VP8L", &lossless);
        assert_eq!(dimensions("image/webp", &lossless), Some((10, 20)));
        assert_eq!(check_webp(&Window::whole(&lossless)), Ok(()));
        let extended = webp(b"VP8X", &[0, 0, 0, 0, 9, 0, 0, 19, 0, 0]);
        assert_eq!(dimensions("image/webp", &extended), Some((10, 20)));
        assert!(check_webp(&Window::whole(&lossy[..lossy.len() - 2])).is_err());
        let mut longer = lossy.clone();
        longer.extend_from_slice(&[0; 4]);
        assert!(check_webp(&Window::whole(&longer)).is_err());
        let unknown = webp(b"ABCD", &[0; 10]);
        assert_eq!(
            check_webp(&Window::whole(&unknown)),
            Err("corrupt WebP: unknown first chunk \"ABCD\"".into())
        );
        // The file's four bytes are escaped as every server string in a note.
        let hostile = webp(b"](\n\x1b", &[0; 10]);
        assert_eq!(
            check_webp(&Window::whole(&hostile)),
            Err("corrupt WebP: unknown first chunk \"%5D%28%0A%1B\"".into())
        );
    }

    #[test]
    fn bmp_ico_tiff_sizes() {
        let mut bmp = b"BM".to_vec();
        bmp.extend_from_slice(&[0; 12]);
        bmp.extend_from_slice(&40u32.to_le_bytes());
        bmp.extend_from_slice(&7i32.to_le_bytes());
        bmp.extend_from_slice(&(-9i32).to_le_bytes());
        assert_eq!(sniff(&bmp).map(|s| s.media_type), Some("image/bmp"));
        assert_eq!(dimensions("image/bmp", &bmp), Some((7, 9)));

        let mut ico = vec![0, 0, 1, 0, 2, 0];
        ico.extend_from_slice(&[16, 16, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        ico.extend_from_slice(&[0, 0, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            sniff(&ico).map(|s| s.media_type),
            Some("image/vnd.microsoft.icon")
        );
        assert_eq!(
            dimensions("image/vnd.microsoft.icon", &ico),
            Some((256, 256))
        );

        // Big-endian TIFF, IFD at 8 with width (SHORT) and height (LONG).
        let mut tiff = b"MM\0*\0\0\0\x08\0\x02".to_vec();
        tiff.extend_from_slice(&[1, 0, 0, 3, 0, 0, 0, 1, 0, 5, 0, 0]);
        tiff.extend_from_slice(&[1, 1, 0, 4, 0, 0, 0, 1, 0, 0, 0, 6]);
        assert_eq!(sniff(&tiff).map(|s| s.media_type), Some("image/tiff"));
        assert_eq!(dimensions("image/tiff", &tiff), Some((5, 6)));
    }

    #[test]
    fn avif_ispe() {
        let boxed = |kind: &[u8; 4], body: &[u8]| {
            let mut out = ((body.len() + 8) as u32).to_be_bytes().to_vec();
            out.extend_from_slice(kind);
            out.extend_from_slice(body);
            out
        };
        let ispe = |w: u32, h: u32| {
            let mut body = vec![0; 4];
            body.extend_from_slice(&w.to_be_bytes());
            body.extend_from_slice(&h.to_be_bytes());
            boxed(b"ispe", &body)
        };
        let mut ipco = ispe(64, 64);
        ipco.extend(ispe(640, 480));
        let mut meta = vec![0; 4];
        meta.extend(boxed(b"iprp", &boxed(b"ipco", &ipco)));
        let mut file = boxed(b"ftyp", b"avif\0\0\0\0mif1");
        file.extend(boxed(b"meta", &meta));
        assert_eq!(sniff(&file).map(|s| s.media_type), Some("image/avif"));
        assert_eq!(dimensions("image/avif", &file), Some((640, 480)));
    }

    #[test]
    fn short_and_hostile_input_never_panics() {
        let mut data = png::tests::tiny_png();
        data.extend(tiny_jpeg(3));
        data.extend(tiny_gif());
        for start in 0..data.len() {
            for end in start..data.len().min(start + 64) {
                let part = &data[start..end];
                let _ = sniff(part);
                for media_type in [
                    "image/png",
                    "image/jpeg",
                    "image/gif",
                    "image/webp",
                    "image/bmp",
                    "image/tiff",
                    "image/avif",
                    "image/vnd.microsoft.icon",
                ] {
                    let _ = dimensions(media_type, part);
                }
                let window = Window::whole(part);
                let _ = (
                    png::check(&window),
                    check_jpeg(&window),
                    check_gif(&window),
                    check_webp(&window),
                );
            }
        }
        let huge = [0xFF; 40];
        let _ = (
            png::check(&Window {
                head: &huge,
                tail: &huge,
                len: usize::MAX,
            }),
            check_webp(&Window {
                head: &huge,
                tail: &huge,
                len: usize::MAX,
            }),
        );
    }
}
