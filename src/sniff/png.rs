//! PNG: the chunk walk behind the structural check, and the repaired copy of
//! a PNG whose only damage is bad CRCs on ancillary chunks.
//!
//! A chunk whose type starts with a lower-case letter is ancillary: a decoder
//! may skip it and still show the image (iCCP, tEXt, pHYs, eXIf, ...).
//! libpng and browsers skip such a chunk when its CRC is wrong, but Pillow
//! refuses the whole file, and a refused attachment breaks the session. So a
//! damaged ancillary chunk is dropped from a copy, which is what gets sent.
//! A bad CRC on a critical chunk (IHDR, PLTE, IDAT, IEND, any upper-case
//! type) is damage to the image itself: refused.

use std::collections::HashSet;
use std::ops::Range;

use memchr::memmem;

use super::crc::{crc32, Crc32};
use super::{array, be32, bytes, has_at, ReadAt, Soundness, Window};

pub(super) const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// The whole IEND chunk: zero length, type, and its fixed CRC.
const IEND: &[u8] = b"\0\0\0\0IEND\xae\x42\x60\x82";
/// Largest chunk length and image side the PNG spec allows (2^31 - 1).
const MAX: u32 = 0x7FFF_FFFF;
/// The chunks of an animated PNG (APNG). Frames are numbered across fcTL
/// and fdAT chunks, so one cannot go without the others: a decoder that
/// checks the numbers (Pillow) refuses a gap.
const ANIMATION: [&[u8; 4]; 3] = [b"acTL", b"fcTL", b"fdAT"];
/// How many chunk types the repair note names before it counts the rest.
const NAMED_KINDS: usize = 4;

/// Bytes up to the end of IHDR's width and height.
pub(super) const DIMENSIONS_LEN: usize = 24;
/// Bytes up to the end of IHDR's CRC: what the walk reads before any chunk.
const HEADER_LEN: usize = 33;

/// Width and height from IHDR, when `head` holds it.
pub(super) fn dimensions(head: &[u8]) -> Option<(u32, u32)> {
    if !head.starts_with(SIGNATURE) || !has_at(head, 12, b"IHDR") {
        return None;
    }
    Some((be32(head, 16)?, be32(head, 20)?))
}

/// Signature, a sane IHDR first, every chunk within the data with a valid
/// type and a matching CRC, an IDAT, and an IEND: libpng refuses a bad CRC
/// on a critical chunk wherever it is. With only a head and tail (data over
/// `WHOLE_CHECK_LEN`) the chunks within the head. `Repairable` when the
/// only bad CRCs are on ancillary chunks.
pub(super) fn check(window: &Window) -> Result<Soundness, String> {
    let rest = if window.is_whole() {
        Rest::Nothing
    } else {
        Rest::Tail(window.tail)
    };
    soundness(walk(window.head, window.len, rest)?)
}

/// `check` on all of the data read through `data`, a chunk at a time.
pub(super) fn check_sparse(len: usize, data: &mut dyn ReadAt) -> Result<Soundness, String> {
    let mut header = [0; HEADER_LEN];
    let header: &[u8] = if data.read_at(0, &mut header) {
        &header
    } else {
        &[] // shorter than a header: refused as such
    };
    soundness(walk(header, len, Rest::ReadAt(data))?)
}

fn soundness(damaged: Vec<Damaged>) -> Result<Soundness, String> {
    Ok(if damaged.is_empty() {
        Soundness::Sound
    } else {
        Soundness::Repairable
    })
}

/// What the copy sent for a repairable PNG leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PngRepair {
    /// Byte ranges of the chunks left out (length to CRC), in file order.
    dropped: Vec<Range<usize>>,
    /// In words, for the classification: `dropped ancillary chunk iCCP with
    /// a bad CRC`.
    pub words: String,
}

impl PngRepair {
    /// The copy: `data` (the bytes `repair` was given) without the dropped
    /// chunks; everything else byte for byte.
    pub fn apply(&self, data: &[u8]) -> Vec<u8> {
        let removed: usize = self.dropped.iter().map(|r| r.len()).sum();
        let mut copy = Vec::with_capacity(data.len().saturating_sub(removed));
        let mut at = 0;
        for range in &self.dropped {
            copy.extend_from_slice(data.get(at..range.start).unwrap_or_default());
            at = range.end;
        }
        copy.extend_from_slice(data.get(at..).unwrap_or_default());
        copy
    }
}

/// Walk all of `data` with every CRC checked. `None` when no CRC is bad; an error when a critical chunk's
/// is, or when anything else is wrong.
pub fn repair(data: &[u8]) -> Result<Option<PngRepair>, String> {
    let damaged = walk(data, data.len(), Rest::Nothing)?;
    if damaged.is_empty() {
        return Ok(None);
    }
    let animation = damaged.iter().any(|d| ANIMATION.contains(&&d.kind));
    let dropped = if animation {
        // The still image (IHDR, IDAT) is a whole PNG without them. Both
        // lists are in file order: one pass over each.
        let mut next = damaged.iter().peekable();
        chunks(data)
            .filter(|(kind, range)| {
                let is_damaged = next.next_if(|d| d.range == *range).is_some();
                is_damaged || ANIMATION.contains(kind)
            })
            .map(|(_, range)| range)
            .collect()
    } else {
        damaged.iter().map(|d| d.range.clone()).collect()
    };
    Ok(Some(PngRepair {
        dropped,
        words: words(&damaged, animation),
    }))
}

/// `dropped ancillary chunk iCCP with a bad CRC`, `dropped ancillary chunks
/// iCCP, tEXt with bad CRCs`, the animation named when it went too.
fn words(damaged: &[Damaged], animation: bool) -> String {
    let mut kinds = HashSet::new();
    let mut names = Vec::new();
    for d in damaged {
        if kinds.insert(d.kind) && names.len() < NAMED_KINDS {
            names.push(String::from_utf8_lossy(&d.kind).into_owned());
        }
    }
    if kinds.len() > names.len() {
        names.push(format!("{} more kinds", kinds.len() - names.len()));
    }
    let mut text = if damaged.len() == 1 {
        format!(
            "dropped ancillary chunk {} with a bad CRC",
            names.join(", ")
        )
    } else {
        format!(
            "dropped ancillary chunks {} with bad CRCs",
            names.join(", ")
        )
    };
    if animation {
        text.push_str(", and with it the animation (every acTL, fcTL and fdAT chunk)");
    }
    text
}

/// A chunk whose CRC does not match.
struct Damaged {
    kind: [u8; 4],
    /// From its length field to the end of its CRC.
    range: Range<usize>,
}

/// Ancillary chunks have bit 5 set in their first type byte (lower case).
fn is_ancillary(kind: &[u8]) -> bool {
    kind.first().is_some_and(|b| b & 0x20 != 0)
}

/// Where the walk finds the data past the head it is given.
enum Rest<'a> {
    /// Nowhere: the head is all of the data.
    Nothing,
    /// Only the last bytes are known.
    Tail(&'a [u8]),
    /// Anywhere, a few bytes at a time.
    ReadAt(&'a mut dyn ReadAt),
}

/// Walk the chunks from `head` on, up to IEND, reading what lies past it
/// from `rest` when it can, every chunk's CRC summed (with only a tail, the
/// walk stops at the first chunk past the head). Returns the ancillary
/// chunks whose CRC is bad; any other defect is an error.
fn walk(head: &[u8], len: usize, mut rest: Rest) -> Result<Vec<Damaged>, String> {
    let whole = !matches!(rest, Rest::Tail(_));
    if !head.starts_with(SIGNATURE) {
        return Err("corrupt PNG: bad signature".into());
    }
    if head.len() < 33 {
        return Err("truncated PNG: header incomplete".into());
    }
    if be32(head, 8) != Some(13) || !has_at(head, 12, b"IHDR") {
        return Err("corrupt PNG: first chunk is not a 13-byte IHDR".into());
    }
    let (width, height) = dimensions(head).unwrap_or_default();
    if width == 0 || height == 0 || width > MAX || height > MAX {
        return Err(format!("corrupt PNG: invalid image size {width}x{height}"));
    }
    // Deflate shrinks data at most 1032 times: a file far too short for the
    // pixels its header claims is not that image (a decompression-bomb shape).
    if let Some(raw) = raw_size(head, width, height) {
        if (len as u64).saturating_mul(MAX_DEFLATE_RATIO) < raw {
            return Err(format!(
                "corrupt PNG: {len} bytes cannot hold {width}x{height} pixels"
            ));
        }
    }

    let mut damaged = Vec::new();
    let mut pos = 8;
    let mut seen_idat = false;
    let mut crc_block = Vec::new();
    while let Some(header) = chunk_header(head, &mut rest, pos) {
        let [l0, l1, l2, l3, k0, k1, k2, k3] = header;
        let (length, kind) = (u32::from_be_bytes([l0, l1, l2, l3]), [k0, k1, k2, k3]);
        if !kind.iter().all(u8::is_ascii_alphabetic) {
            return Err(format!("corrupt PNG: invalid chunk type at byte {pos}"));
        }
        let name = String::from_utf8_lossy(&kind);
        if length > MAX {
            return Err(format!("corrupt PNG: {name} chunk length out of range"));
        }
        // Type, data and CRC; `length` fits in usize on every target we build.
        let end = usize::try_from(length)
            .ok()
            .and_then(|n| n.checked_add(pos + 12))
            .filter(|&end| end <= len)
            .ok_or_else(|| format!("truncated PNG: {name} chunk runs past the end of the data"))?;
        if head.len() < end && matches!(rest, Rest::Tail(_)) {
            break; // The chunk goes on past the head: nothing more to see.
        }
        if !crc_matches(head, &mut rest, pos..end, &mut crc_block) {
            if !is_ancillary(&kind) {
                return Err(format!("corrupt PNG: CRC mismatch in {name} chunk"));
            }
            damaged.push(Damaged {
                kind,
                range: pos..end,
            });
        }
        match &kind {
            b"IDAT" => seen_idat = true,
            b"IEND" if whole && !seen_idat => {
                return Err("corrupt PNG: no IDAT chunk".into());
            }
            b"IEND" => return Ok(damaged),
            _ => {}
        }
        pos = end;
    }
    // The walk left the head without meeting IEND: only the tail can hold it.
    match rest {
        Rest::Tail(tail) if memmem::find(tail, IEND).is_some() => Ok(damaged),
        _ => Err("truncated PNG: IEND chunk missing".into()),
    }
}

/// Whether the CRC of the chunk at `range` (length field to CRC) matches,
/// read from the head or past it.
/// `block` is where data past the head is read to, one buffer for every
/// chunk of a walk.
fn crc_matches(head: &[u8], rest: &mut Rest, range: Range<usize>, block: &mut Vec<u8>) -> bool {
    // Type and data, then the CRC.
    let (body, crc_at) = (range.start + 4..range.end - 4, range.end - 4);
    if let Some(chunk) = head.get(range) {
        return be32(chunk, chunk.len() - 4) == Some(crc32(&chunk[4..chunk.len() - 4]));
    }
    // Past the head: read through `rest` a block at a time, so a large
    // IDAT is never held whole.
    let Rest::ReadAt(reader) = rest else {
        // Not reached: with no reader the head holds every chunk the walk
        // checks (all of the data, or a tail walk stops before). Unreadable
        // bytes never pass as a matching CRC.
        return false;
    };
    let mut hasher = Crc32::new();
    block.resize(body.len().min(CRC_BLOCK).max(block.len()), 0);
    let mut at = body.start;
    while at < body.end {
        let n = (body.end - at).min(CRC_BLOCK);
        if !reader.read_at(at, &mut block[..n]) {
            return false;
        }
        hasher.update(&block[..n]);
        at += n;
    }
    let mut crc = [0; 4];
    reader.read_at(crc_at, &mut crc) && u32::from_be_bytes(crc) == hasher.finalize()
}

/// Bytes read at a time for a CRC past the head.
const CRC_BLOCK: usize = 64 * 1024;

/// The length and type of the chunk at `pos`, from the head or past it.
fn chunk_header(head: &[u8], rest: &mut Rest, pos: usize) -> Option<[u8; 8]> {
    if let Some(header) = array(head, pos) {
        return Some(header);
    }
    let mut header = [0; 8];
    match rest {
        Rest::ReadAt(reader) => reader.read_at(pos, &mut header).then_some(header),
        _ => None,
    }
}

/// The most deflate can shrink data: 258-byte matches coded in 2 bits.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// Bytes of filtered pixel data the IHDR in `head` calls for (not
/// interlaced, the smaller of the two); `None` for an unknown colour type.
fn raw_size(head: &[u8], width: u32, height: u32) -> Option<u64> {
    let depth = u64::from(*head.get(24)?);
    let channels = match head.get(25)? {
        0 | 3 => 1,
        4 => 2,
        2 => 3,
        6 => 4,
        _ => return None,
    };
    let row = 1 + (u64::from(width) * channels * depth).div_ceil(8);
    Some(row.saturating_mul(u64::from(height)))
}

/// The chunks of a PNG that passed `walk`: type and byte range, up to IEND.
fn chunks(data: &[u8]) -> impl Iterator<Item = (&[u8; 4], Range<usize>)> {
    let mut pos = Some(SIGNATURE.len());
    std::iter::from_fn(move || {
        let at = pos?;
        let length = usize::try_from(be32(data, at)?).ok()?;
        let kind: &[u8; 4] = bytes(data, at + 4, 4)?.try_into().ok()?;
        let end = at.checked_add(length)?.checked_add(12)?;
        pos = (kind != b"IEND").then_some(end);
        Some((kind, at..end))
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A PNG chunk with its real CRC.
    pub(crate) fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut out = (data.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[4..]);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// The same chunk with its CRC off by one bit.
    pub(crate) fn bad(mut chunk: Vec<u8>) -> Vec<u8> {
        let last = chunk.len() - 1;
        chunk[last] ^= 1;
        chunk
    }

    fn ihdr() -> Vec<u8> {
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&3u32.to_be_bytes());
        ihdr.extend_from_slice(&2u32.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        chunk(b"IHDR", &ihdr)
    }

    fn idat() -> Vec<u8> {
        chunk(
            b"IDAT",
            &[0x78, 0xDA, 0x63, 0x60, 0xC0, 0x04, 0, 0, 0x14, 0, 0x01],
        )
    }

    /// A PNG made of these chunks after the signature.
    pub(crate) fn png(chunks: &[Vec<u8>]) -> Vec<u8> {
        let mut png = SIGNATURE.to_vec();
        for chunk in chunks {
            png.extend_from_slice(chunk);
        }
        png
    }

    pub(crate) fn tiny_png() -> Vec<u8> {
        png(&[ihdr(), idat(), chunk(b"IEND", &[])])
    }

    #[test]
    fn crc32_known_value() {
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn sound_png() {
        let png = tiny_png();
        assert_eq!(dimensions(&png), Some((3, 2)));
        assert_eq!(check(&Window::whole(&png)), Ok(Soundness::Sound));
        // Partial window: head of 40 bytes, tail with IEND.
        let window = Window {
            head: &png[..40],
            tail: &png[png.len() - 20..],
            len: png.len(),
        };
        assert_eq!(check(&window), Ok(Soundness::Sound));
        assert_eq!(repair(&png), Ok(None));
    }

    #[test]
    fn defects_are_caught() {
        let png = tiny_png();
        for cut in [7, 20, 40, png.len() - 1] {
            assert!(check(&Window::whole(&png[..cut])).is_err(), "cut at {cut}");
        }
        let mut bad_idat = png.clone();
        bad_idat[43] ^= 1; // inside IDAT data
        let err = "corrupt PNG: CRC mismatch in IDAT chunk".to_string();
        assert_eq!(check(&Window::whole(&bad_idat)), Err(err.clone()));
        assert_eq!(repair(&bad_idat), Err(err));
        let mut zero = png.clone();
        zero[16..20].copy_from_slice(&[0; 4]);
        assert!(check(&Window::whole(&zero)).is_err());
        // Partial window whose tail lacks IEND.
        let window = Window {
            head: &png[..40],
            tail: &png[40..50],
            len: png.len(),
        };
        assert_eq!(
            check(&window).unwrap_err(),
            "truncated PNG: IEND chunk missing"
        );
    }

    #[test]
    fn bad_crc_on_a_critical_chunk_is_refused() {
        let iend = chunk(b"IEND", &[]);
        let plte = chunk(b"PLTE", &[0, 0, 0]);
        for (name, chunks) in [
            ("IHDR", vec![bad(ihdr()), idat(), iend.clone()]),
            ("IDAT", vec![ihdr(), bad(idat()), iend.clone()]),
            ("PLTE", vec![ihdr(), bad(plte), idat(), iend.clone()]),
            ("IEND", vec![ihdr(), idat(), bad(iend.clone())]),
            // A damaged ancillary chunk first does not excuse the rest.
            (
                "IDAT",
                vec![ihdr(), bad(chunk(b"tEXt", b"a\0b")), bad(idat()), iend],
            ),
        ] {
            let png = png(&chunks);
            let want = Err(format!("corrupt PNG: CRC mismatch in {name} chunk"));
            assert_eq!(
                check(&Window::whole(&png)),
                want.clone().map(|()| Soundness::Sound)
            );
            assert_eq!(repair(&png).map(|_| ()), want);
        }
    }

    #[test]
    fn damaged_ancillary_chunks_are_dropped_from_the_copy() {
        let iccp = bad(chunk(b"iCCP", b"icc\0\0\x78\x9c\x03\0\0\0\0\x01"));
        let text = chunk(b"tEXt", b"Comment\0hello");
        let phys = bad(chunk(b"pHYs", &[0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x13, 1]));
        let png = png(&[
            ihdr(),
            iccp,
            text.clone(),
            phys,
            idat(),
            chunk(b"IEND", &[]),
        ]);
        assert_eq!(check(&Window::whole(&png)), Ok(Soundness::Repairable));
        let repair = repair(&png).unwrap().unwrap();
        assert_eq!(
            repair.words,
            "dropped ancillary chunks iCCP, pHYs with bad CRCs"
        );
        assert_eq!(
            repair.apply(&png),
            self::png(&[ihdr(), text, idat(), chunk(b"IEND", &[])])
        );

        let one = self::png(&[
            ihdr(),
            bad(chunk(b"gAMA", &[0, 1, 0x86, 0xA0])),
            idat(),
            chunk(b"IEND", &[]),
        ]);
        let repair = super::repair(&one).unwrap().unwrap();
        assert_eq!(repair.words, "dropped ancillary chunk gAMA with a bad CRC");
        assert_eq!(repair.apply(&one), tiny_png());
    }

    #[test]
    fn the_repair_note_names_four_kinds_then_counts() {
        let mut chunks = vec![ihdr()];
        for kind in [
            b"aaAa", b"bbBb", b"ccCc", b"ddDd", b"eeEe", b"ffFf", b"aaAa",
        ] {
            chunks.push(bad(chunk(kind, b"x")));
        }
        chunks.extend([idat(), chunk(b"IEND", &[])]);
        let png = png(&chunks);
        let repair = repair(&png).unwrap().unwrap();
        assert_eq!(
            repair.words,
            "dropped ancillary chunks aaAa, bbBb, ccCc, ddDd, 2 more kinds with bad CRCs"
        );
        assert_eq!(repair.apply(&png), tiny_png());
    }

    #[test]
    fn a_damaged_animation_chunk_takes_the_animation_with_it() {
        let actl = chunk(b"acTL", &[0, 0, 0, 2, 0, 0, 0, 0]);
        let fctl = |seq: u8| {
            chunk(
                b"fcTL",
                &[
                    0, 0, 0, seq, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0,
                ],
            )
        };
        let fdat = chunk(
            b"fdAT",
            &[
                0, 0, 0, 2, 0x78, 0xDA, 0x63, 0x60, 0xC0, 0x04, 0, 0, 0x14, 0, 0x01,
            ],
        );
        let text = chunk(b"tEXt", b"k\0v");
        let apng = png(&[
            ihdr(),
            actl,
            fctl(0),
            idat(),
            text.clone(),
            bad(fctl(1)),
            fdat,
            chunk(b"IEND", &[]),
        ]);
        let repair = repair(&apng).unwrap().unwrap();
        assert_eq!(
            repair.words,
            "dropped ancillary chunk fcTL with a bad CRC, and with it the animation (every acTL, fcTL and fdAT chunk)"
        );
        assert_eq!(
            repair.apply(&apng),
            png(&[ihdr(), idat(), text, chunk(b"IEND", &[])])
        );
    }

    /// Reads a slice, the way `Data::sparse` reads base64.
    struct Slice<'a>(&'a [u8]);

    impl ReadAt for Slice<'_> {
        fn read_at(&mut self, at: usize, out: &mut [u8]) -> bool {
            match self.0.get(at..at + out.len()) {
                Some(bytes) => {
                    out.copy_from_slice(bytes);
                    true
                }
                None => false,
            }
        }
    }

    #[test]
    fn crcs_are_checked_to_the_last_chunk_in_every_form() {
        // A filler past the first 64 KiB, then an IDAT with a bad CRC, in
        // one chunk larger than the block a CRC is read in.
        let filler = chunk(b"tEXt", &vec![b'a'; 64 * 1024]);
        let big_idat = |damage: bool| {
            let mut data = vec![0x78, 0x01];
            data.extend(std::iter::repeat_n(7, 3 * CRC_BLOCK + 5));
            let mut idat = chunk(b"IDAT", &data);
            if damage {
                idat[CRC_BLOCK * 2] ^= 1;
            }
            idat
        };
        let idat_error = Err("corrupt PNG: CRC mismatch in IDAT chunk".to_string());
        for (png, want) in [
            (
                png(&[ihdr(), filler.clone(), bad(idat()), chunk(b"IEND", &[])]),
                idat_error.clone(),
            ),
            (
                png(&[ihdr(), filler.clone(), big_idat(true), chunk(b"IEND", &[])]),
                idat_error.clone(),
            ),
            (
                png(&[ihdr(), filler.clone(), big_idat(false), chunk(b"IEND", &[])]),
                Ok(Soundness::Sound),
            ),
            // A damaged tEXt in the head does not excuse the IDAT past it.
            (
                png(&[
                    ihdr(),
                    bad(chunk(b"tEXt", b"k\0v")),
                    filler.clone(),
                    bad(idat()),
                    chunk(b"IEND", &[]),
                ]),
                idat_error.clone(),
            ),
            // A damaged ancillary chunk past the head is repairable.
            (
                png(&[
                    ihdr(),
                    filler.clone(),
                    bad(chunk(b"tEXt", b"k\0v")),
                    idat(),
                    chunk(b"IEND", &[]),
                ]),
                Ok(Soundness::Repairable),
            ),
        ] {
            assert_eq!(check(&Window::whole(&png)), want);
            assert_eq!(check_sparse(png.len(), &mut Slice(&png)), want);
            let repaired = repair(&png).map(|r| r.is_some());
            assert_eq!(repaired, want.map(|s| s == Soundness::Repairable));
        }
    }

    #[test]
    fn damage_besides_the_crc_is_still_a_defect() {
        // A damaged ancillary chunk, then the data cut short.
        let png = png(&[ihdr(), bad(chunk(b"tEXt", b"k\0v")), idat()]);
        assert_eq!(
            check(&Window::whole(&png)),
            Err("truncated PNG: IEND chunk missing".into())
        );
    }

    #[test]
    fn a_header_claiming_more_pixels_than_the_data_can_hold_is_corrupt() {
        let mut ihdr = [0u8; 13];
        ihdr[..4].copy_from_slice(&8000u32.to_be_bytes());
        ihdr[4..8].copy_from_slice(&8000u32.to_be_bytes());
        ihdr[8..10].copy_from_slice(&[8, 2]);
        let bomb = png(&[chunk(b"IHDR", &ihdr), idat(), chunk(b"IEND", &[])]);
        assert!(bomb.len() < 100);
        assert_eq!(
            check(&Window::whole(&bomb)),
            Err(format!(
                "corrupt PNG: {} bytes cannot hold 8000x8000 pixels",
                bomb.len()
            ))
        );
        assert_eq!(check(&Window::whole(&tiny_png())), Ok(Soundness::Sound));
    }
}
