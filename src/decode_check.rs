//! Every byte of an image read as a decoder reads it, its pixels dropped
//! as they come (a GIF's not even made): the check that what is attached
//! as it is decodes in a provider's decoder, where the structural walks
//! (`sniff`) see only chunk and block layout.
//!
//! Measured against libvips (sharp, `failOn: 'error'`) on images damaged at
//! random (`__test__/decoder-agreement.test.mjs`): a PNG whose deflate data
//! is broken under right CRCs, a GIF whose LZW codes are, a WebP whose
//! entropy-coded data is, all pass the walks and are refused there. A JPEG
//! is left to its walk: libjpeg-turbo decodes broken entropy-coded data with
//! a warning, never an error, and the walk catches the rest.
//!
//! Memory: a PNG's image data is inflated through a window of at most 256
//! KiB, its rows walked, not unfiltered (`png`), and a GIF's codes are
//! walked without decoding them (`gif`, `lzw`), so neither holds its
//! pixels. A still lossless WebP's stream is walked too (`vp8l`),
//! holding the stream, its entropy image and its codes; a lossy or
//! animated one, or a lossless one whose walk would hold more than its
//! decoding, is decoded whole, its buffer taken from the fit budget
//! (`image_fit::memory`) like a fit's, 4 bytes a pixel for a lossless one
//! (`alpha_flag_at`). Base64 is read as it is decoded (`Data::reader`), so
//! the decoded bytes are not held besides.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use crate::image_fit::memory;

mod gif;
mod lzw;
mod png;
mod vp8l;

#[cfg(fuzzing)]
pub use gif::{decodes_every_pixel as gif_decodes_every_pixel, gif_reads_blocks};
#[cfg(fuzzing)]
pub use png::reader_decodes as png_reader_decodes;
#[cfg(fuzzing)]
pub use vp8l::Walked as WebpWalked;

/// Whether this check reads images of this media type.
pub fn checks(media_type: &str) -> bool {
    matches!(media_type, "image/png" | "image/gif" | "image/webp")
}

/// Decode all of the image in `data` (sniffed as `media_type`). `Err`
/// carries the reason for the model, e.g. "corrupt PNG: its image data
/// does not decode". `data` has passed its structural walk whole (`sniff`),
/// which checked every PNG chunk's CRC: the decoder does not check them
/// again.
pub fn decode_all(media_type: &str, data: impl BufRead + Seek) -> Result<(), String> {
    match media_type {
        "image/png" => {
            png::check(data).map_err(|()| "corrupt PNG: its image data does not decode".into())
        }
        "image/gif" => {
            gif::check(data).map_err(|()| "corrupt GIF: its image data does not decode".into())
        }
        "image/webp" => webp(data),
        _ => Ok(()),
    }
}

const WEBP_CORRUPT: &str = "corrupt WebP: its image data does not decode";

fn webp(mut data: impl BufRead + Seek) -> Result<(), String> {
    let corrupt = |_| WEBP_CORRUPT.to_string();
    let (lossless_still, has_alpha, (width, height)) = {
        let mut decoder = image_webp::WebPDecoder::new(&mut data).map_err(corrupt)?;
        let still = !decoder.is_lossy() && !decoder.is_animated();
        (still, decoder.has_alpha(), decoder.dimensions())
    };
    if lossless_still {
        if let Some(verdict) = walk_lossless(&mut data, width, height) {
            return verdict;
        }
    }
    let alpha_flag = (lossless_still && !has_alpha)
        .then_some(())
        .and_then(|()| alpha_flag_at(&mut data));
    data.seek(SeekFrom::Start(0))
        .map_err(|_| WEBP_CORRUPT.to_string())?;
    match alpha_flag {
        Some(at) => webp_pixels(BufReader::new(AlphaSet { data, at, pos: 0 })),
        None => webp_pixels(data),
    }
}

/// A still lossless WebP's verdict from a walk of its image stream
/// (`vp8l`), in no more memory than decoding it takes from the budget;
/// `None` when the walk would need more (a stream of many prefix codes
/// for its pixels), left to the decoder.
fn walk_lossless(
    data: &mut (impl BufRead + Seek),
    width: u32,
    height: u32,
) -> Option<Result<(), String>> {
    let allowance = lossless_allowance(width, height);
    let Ok(_permit) = memory::global().acquire(allowance) else {
        return Some(Ok(()));
    };
    let chunk = vp8l_chunk(data)?;
    data.seek(SeekFrom::Start(chunk.start)).ok()?;
    let size = usize::try_from(chunk.end - chunk.start).ok()?;
    let allowance = usize::try_from(allowance).ok()?;
    let copy;
    // Data held in memory (decoded from base64 at once) is walked where it
    // is; other readers' bytes are copied out first, into no more than the
    // allowance reserved (a chunk's size is what the file claims).
    let stream = match data.fill_buf().ok()?.get(..size) {
        Some(held) => held,
        None => {
            let mut stream = Vec::new();
            stream.try_reserve_exact(size.min(allowance)).ok()?;
            data.take(chunk.end - chunk.start)
                .read_to_end(&mut stream)
                .ok()?;
            copy = stream;
            &copy
        }
    };
    // Charged for a copy of the stream whether or not one was made: the
    // verdict does not depend on the reader.
    let allowance = allowance.checked_sub(stream.len())?;
    match vp8l::walk(stream, width, height, allowance) {
        vp8l::Walked::Decodes => Some(Ok(())),
        vp8l::Walked::Corrupt | vp8l::Walked::Oversubscribed => Some(Err(WEBP_CORRUPT.to_string())),
        vp8l::Walked::OverAllowance => None,
    }
}

/// What checking a still lossless WebP takes from the budget, walked or
/// decoded (`webp_pixels`): its RGBA buffer and as much again.
fn lossless_allowance(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height) * 4).saturating_mul(2)
}

/// Whether the check of a still lossless WebP fits in the memory budget;
/// over it, `decode_all` passes the image unchecked.
#[cfg(any(test, fuzzing))]
pub fn webp_within_budget(webp: &[u8]) -> bool {
    let Ok(decoder) = image_webp::WebPDecoder::new(io::Cursor::new(webp)) else {
        return true;
    };
    let (width, height) = decoder.dimensions();
    memory::global()
        .acquire(lossless_allowance(width, height))
        .is_ok()
}

/// The walk's verdict on a still lossless WebP, allowed as much memory as
/// it needs (`None` for any other WebP): what the tests and the `webp`
/// fuzz target hold against the decoder.
#[cfg(any(test, fuzzing))]
pub fn webp_walked(webp: &[u8]) -> Option<vp8l::Walked> {
    let mut data = io::Cursor::new(webp);
    let mut decoder = image_webp::WebPDecoder::new(&mut data).ok()?;
    if decoder.is_lossy() || decoder.is_animated() {
        return None;
    }
    let (width, height) = decoder.dimensions();
    let chunk = vp8l_chunk(&mut data)?;
    let end = usize::try_from(chunk.end).ok()?.min(webp.len());
    let start = usize::try_from(chunk.start).ok()?.min(end);
    Some(vp8l::walk(&webp[start..end], width, height, usize::MAX))
}

/// Whether `image-webp` decodes every pixel of the WebP (every frame).
#[cfg(any(test, fuzzing))]
pub fn webp_decodes_every_pixel(webp: &[u8]) -> bool {
    webp_pixels(io::Cursor::new(webp)).is_ok()
}

/// Where the payload of the VP8L chunk the decoder decodes is: the first
/// chunk of a simple file, or the first VP8L chunk after an extended
/// file's VP8X header, found as `image-webp` finds it.
fn vp8l_chunk(data: &mut (impl Read + Seek)) -> Option<std::ops::Range<u64>> {
    let rounded = |size: u64| size + (size & 1);
    let (riff, riff_size) = header(data, 0)?;
    let (first, first_size) = header(data, 12)?;
    match (&riff, &first) {
        (b"RIFF", b"VP8L") => Some(20..20 + first_size),
        (b"RIFF", b"VP8X") => {
            let mut at = 20 + rounded(first_size);
            let end = at + riff_size.saturating_sub(12);
            while at < end {
                let (kind, size) = header(data, at)?;
                if &kind == b"VP8L" {
                    return Some(at + 8..at + 8 + size);
                }
                at += 8 + rounded(size);
            }
            None
        }
        _ => None,
    }
}

/// The type and size of the RIFF chunk at `at`.
fn header(data: &mut (impl Read + Seek), at: u64) -> Option<([u8; 4], u64)> {
    let mut bytes = [0; 8];
    data.seek(SeekFrom::Start(at)).ok()?;
    data.read_exact(&mut bytes).ok()?;
    let [k0, k1, k2, k3, s0, s1, s2, s3] = bytes;
    Some((
        [k0, k1, k2, k3],
        u64::from(u32::from_le_bytes([s0, s1, s2, s3])),
    ))
}

fn webp_pixels(data: impl BufRead + Seek) -> Result<(), String> {
    let corrupt = |_| WEBP_CORRUPT.to_string();
    let mut decoder = image_webp::WebPDecoder::new(data).map_err(corrupt)?;
    let (width, height) = decoder.dimensions();
    let too_large = || format!("WebP of {width}x{height} pixels too large to check");
    let len = decoder.output_buffer_size().ok_or_else(too_large)?;
    // The decoder holds about as much again while it works (a lossy
    // image's YUV frame, a lossless one's transform data).
    // Over the budget, the image is not checked: the fit refuses it with
    // its own reason when it is over a provider's limits (8001x7999 under a
    // 256 MiB budget); within them, a budget set this small leaves it to
    // its walk.
    let Ok(_permit) = memory::global().acquire((len as u64).saturating_mul(2)) else {
        return Ok(());
    };
    let mut pixels = memory::zeroed(len).map_err(|_| too_large())?;
    if decoder.is_animated() {
        for _ in 0..decoder.num_frames() {
            decoder.read_frame(&mut pixels).map_err(corrupt)?;
        }
        Ok(())
    } else {
        decoder.read_image(&mut pixels).map_err(corrupt)
    }
}

/// The alpha bit a lossless WebP's header carries: in a simple file's VP8L
/// header, or in a VP8X header's flags.
const ALPHA_BIT: u8 = 0x10;

/// Where the alpha bit of a still lossless WebP is: byte 24 (the VP8L
/// header's last byte) or 20 (the VP8X flags).
///
/// The decoder decodes a lossless image as RGBA whatever that bit says;
/// without it, it decodes into an RGBA buffer of its own and copies RGB
/// out into the caller's, 7 bytes a pixel held instead of 4. The bit
/// changes nothing else of the decoding (the VP8L header's bit is a hint
/// the decoder reads past; in VP8X it picks RGBA output, and only a lossy
/// image also needs an ALPH chunk for it), so with it set the verdict is
/// the same, from less memory.
fn alpha_flag_at(data: &mut (impl Read + Seek)) -> Option<u64> {
    let mut start = [0; 16];
    data.seek(SeekFrom::Start(0)).ok()?;
    data.read_exact(&mut start).ok()?;
    match &start[12..] {
        b"VP8L" => Some(24),
        b"VP8X" => Some(20),
        _ => None,
    }
}

/// `data` read with `ALPHA_BIT` set in the byte at `at` (`alpha_flag_at`).
struct AlphaSet<R> {
    data: R,
    at: u64,
    /// Where the next read starts.
    pos: u64,
}

impl<R: Read> Read for AlphaSet<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.data.read(out)?;
        let read = &mut out[..n];
        let at = self
            .at
            .checked_sub(self.pos)
            .and_then(|i| usize::try_from(i).ok());
        if let Some(byte) = at.and_then(|i| read.get_mut(i)) {
            *byte |= ALPHA_BIT;
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for AlphaSet<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.data.seek(to)?;
        Ok(self.pos)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Cursor;

    use super::*;

    fn encoded(format: image::ImageFormat) -> Vec<u8> {
        let pixels =
            image::RgbImage::from_fn(40, 30, |x, y| image::Rgb([x as u8 * 6, y as u8 * 8, 90]));
        let mut out = Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(pixels)
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn sound_images_decode_and_damaged_data_does_not() {
        for (media_type, format) in [
            ("image/png", image::ImageFormat::Png),
            ("image/gif", image::ImageFormat::Gif),
        ] {
            let bytes = encoded(format);
            assert_eq!(
                decode_all(media_type, Cursor::new(&bytes)),
                Ok(()),
                "{media_type}"
            );
            let cut = &bytes[..bytes.len() * 2 / 3];
            assert!(
                decode_all(media_type, Cursor::new(cut)).is_err(),
                "{media_type} cut"
            );
        }
    }

    /// A lossless WebP of noise-like pixels, opaque or not, simple or
    /// (with an ICC profile) extended.
    pub(crate) fn lossless_webp(width: u32, height: u32, alpha: bool, extended: bool) -> Vec<u8> {
        let channels = if alpha { 4 } else { 3 };
        let mut seed = 7u32;
        let pixels: Vec<u8> = (0..width * height * channels)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (seed >> 24) as u8
            })
            .collect();
        let mut out = Vec::new();
        let mut encoder = image_webp::WebPEncoder::new(&mut out);
        if extended {
            encoder.set_icc_profile(vec![0; 16]);
        }
        let color = if alpha {
            image_webp::ColorType::Rgba8
        } else {
            image_webp::ColorType::Rgb8
        };
        encoder.encode(&pixels, width, height, color).unwrap();
        out
    }

    /// `webp` with the second half of its image data chunk (the last
    /// chunk) cut off, its chunk and RIFF sizes made to match: sound in
    /// structure, it does not decode.
    pub(crate) fn webp_image_data_cut(webp: &[u8]) -> Vec<u8> {
        let mut pos = 12;
        loop {
            let size = u32::from_le_bytes(webp[pos + 4..pos + 8].try_into().unwrap()) as usize;
            let end = pos + 8 + size + size % 2;
            if end >= webp.len() {
                let cut = (size / 2) & !1;
                let mut out = webp[..pos + 8 + cut].to_vec();
                out[pos + 4..pos + 8].copy_from_slice(&(cut as u32).to_le_bytes());
                let riff = (out.len() - 8) as u32;
                out[4..8].copy_from_slice(&riff.to_le_bytes());
                return out;
            }
            pos = end;
        }
    }

    #[test]
    fn lossless_webp_verdicts_are_those_of_the_decoder_with_alpha_set_or_not() {
        // An opaque lossless WebP is decoded with its alpha bit set
        // (`alpha_flag_at`): sound ones still decode, damaged ones still
        // do not, in a simple file and in an extended one.
        for (alpha, extended) in [(false, false), (false, true), (true, false), (true, true)] {
            let webp = lossless_webp(40, 30, alpha, extended);
            let kind = &webp[12..16];
            assert_eq!(kind, if extended { b"VP8X" } else { b"VP8L" });
            let case = format!("alpha {alpha}, extended {extended}");
            assert_eq!(
                decode_all("image/webp", Cursor::new(&webp)),
                Ok(()),
                "{case}"
            );
            // Noise decodes from garbage bits too (every code is used):
            // the image data cut short.
            let damaged = webp_image_data_cut(&webp);
            assert_eq!(
                decode_all("image/webp", Cursor::new(&damaged)),
                Err(WEBP_CORRUPT.into()),
                "{case}"
            );
            // The input is read, never changed: the bit is set in what the
            // decoder is handed.
            let mut reader = AlphaSet {
                data: Cursor::new(&webp),
                at: 24,
                pos: 0,
            };
            let mut seen = Vec::new();
            reader.read_to_end(&mut seen).unwrap();
            assert_eq!(seen[24], webp[24] | ALPHA_BIT);
            assert_eq!((&seen[..24], &seen[25..]), (&webp[..24], &webp[25..]));
        }
    }

    #[test]
    fn a_gif_frame_whose_data_ends_before_its_pixels_is_truncated() {
        // 4x4, two colours; the frame's LZW data is a clear code and the
        // end code (3 bits each, 0x2C): no pixel at all. Found by the route
        // fuzz target (`fuzz/regressions/route/gif-frame-data-ends-before-its-pixels`):
        // the `image` crate refuses it as "image truncated".
        let mut gif = b"GIF89a\x04\x00\x04\x00\x80\x00\x00".to_vec();
        gif.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
        gif.extend_from_slice(b"\x2C\x00\x00\x00\x00\x04\x00\x04\x00\x00");
        gif.extend_from_slice(&[2, 1, 0x2C, 0, 0x3B]);
        assert_eq!(
            decode_all("image/gif", Cursor::new(&gif)),
            Err("corrupt GIF: its image data does not decode".into())
        );
    }

    #[test]
    fn a_png_with_right_crcs_over_broken_deflate_data_does_not_decode() {
        let mut png = encoded(image::ImageFormat::Png);
        // The IDAT chunk after signature and IHDR: damage its zlib data
        // and write its CRC anew.
        let at = 33;
        assert_eq!(&png[at + 4..at + 8], b"IDAT");
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        for byte in &mut png[at + 8 + len / 2..at + 8 + len / 2 + 4] {
            *byte ^= 0x5a;
        }
        let crc = crc32fast::hash(&png[at + 4..at + 8 + len]);
        png[at + 8 + len..at + 12 + len].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(
            crate::sniff::check_structure("image/png", &crate::sniff::Window::whole(&png)),
            Ok(crate::sniff::Soundness::Sound)
        );
        assert_eq!(
            decode_all("image/png", Cursor::new(&png)),
            Err("corrupt PNG: its image data does not decode".into())
        );
    }
}
