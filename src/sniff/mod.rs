//! Magic-byte sniffing, image dimensions and structural checks.
//!
//! Everything here reads a [`Window`] on the bytes: either the whole data or,
//! when the caller decoded only part of a base64 string, its first and last
//! bytes; a PNG's chunk walk can also read the chunk headers past the head
//! through a [`ReadAt`]. One submodule per family of formats.
//!
//! Nothing here panics on any input: every read goes through the `get`-based
//! helpers at the bottom of this file and lengths read from the data are
//! added with checked arithmetic.

/// A sniffer's answer: `media_type` as the table in `formats.rs` spells it,
/// looked up while the crate compiles, so an answer without a row (and so
/// without an extension) does not build.
macro_rules! mt {
    ($media_type:literal) => {
        const { $crate::sniff::formats::known($media_type) }
    };
}

mod archive;
mod binary;
mod crc;
mod document;
pub mod formats;
mod image;
mod media;
mod png;
mod text;

pub use document::pdf_page_count;
pub use media::id3_tag_len;
pub use png::{repair as repair_png, PngRepair};

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
pub(crate) use png::tests as png_tests;

/// What the magic bytes say the data is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    /// IANA media type of the format, e.g. `image/png`.
    pub media_type: &'static str,
    pub family: Family,
}

/// Broad family of a sniffed format; the router decides per family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Image,
    Pdf,
    Audio,
    Video,
    /// Text-based formats recognised by their content (svg, xml, ...).
    Text,
    /// Archives and containers (zip, gzip, 7z, tar, office files, ...).
    Archive,
    /// Other binary formats (sqlite, parquet, wasm, elf, ...).
    Binary,
}

/// A view of the data: its first `head` bytes, its last `tail` bytes and the
/// total length. When the whole data is available `head` and `tail` are the
/// same slice as the data.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    pub head: &'a [u8],
    pub tail: &'a [u8],
    pub len: usize,
}

impl<'a> Window<'a> {
    pub fn whole(data: &'a [u8]) -> Self {
        Window {
            head: data,
            tail: data,
            len: data.len(),
        }
    }

    /// True when `head` holds all of the data.
    pub fn is_whole(&self) -> bool {
        self.head.len() == self.len
    }
}

/// The data, read a few bytes at a time anywhere: what a PNG's chunk walk
/// needs of base64 it need not decode whole (`Data::sparse`).
pub trait ReadAt {
    /// Fill `out` with the bytes from `at`; false when they run past the end.
    fn read_at(&mut self, at: usize, out: &mut [u8]) -> bool;
}

/// How many leading bytes a caller decodes to sniff and size an image.
pub const HEAD_LEN: usize = 64 * 1024;
/// How many trailing bytes a caller decodes for end-of-data checks.
pub const TAIL_LEN: usize = 1024;

/// Identify the format from its leading bytes.
pub fn sniff(head: &[u8]) -> Option<Sniffed> {
    // Strong magics first; media last because it ends with the weak MPEG
    // frame-sync checks, and text last of all because it only looks at
    // markup.
    image::sniff(head)
        .or_else(|| document::sniff(head))
        .or_else(|| archive::sniff(head))
        .or_else(|| binary::sniff(head))
        .or_else(|| media::sniff(head))
        .or_else(|| text::sniff(head))
}

/// Width and height in pixels from the image header, without decoding
/// pixels. `None` when the header is not within `head` or is unreadable.
pub fn image_dimensions(media_type: &str, head: &[u8]) -> Option<(u32, u32)> {
    image::dimensions(media_type, head)
}

/// What a structural check found, short of a defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Soundness {
    Sound,
    /// A PNG whose only damage seen is bad CRCs on ancillary chunks: sound
    /// once they are dropped, which [`repair_png`] on all the data confirms.
    Repairable,
}

/// Check that data sniffed as `media_type` is complete and consistent enough
/// for a provider to accept it. `Err` carries a short reason for the model,
/// e.g. "truncated PNG: IEND chunk missing".
pub fn check_structure(media_type: &str, window: &Window) -> Result<Soundness, String> {
    let sound = |result: Result<(), String>| result.map(|()| Soundness::Sound);
    match media_type {
        "image/png" => png::check(window),
        "image/jpeg" => sound(image::check_jpeg(window)),
        "image/gif" => sound(image::check_gif(window)),
        "image/webp" => sound(image::check_webp(window)),
        "application/pdf" => sound(document::check_pdf(window)),
        _ => Ok(Soundness::Sound),
    }
}

/// `check_structure` for a PNG of `len` bytes read through `data`: the
/// same verdict as on all of its bytes, from the chunks within the first
/// `HEAD_LEN` bytes (their CRCs) and the chunk headers past them.
pub fn check_png_sparse(len: usize, data: &mut dyn ReadAt) -> Result<Soundness, String> {
    png::check_sparse(len, data)
}

/// `check_structure` for a WebP of `len` bytes read through `data`: the
/// same verdict as on all of its bytes, from its header and chunk headers.
pub fn check_webp_sparse(len: usize, data: &mut dyn ReadAt) -> Result<Soundness, String> {
    image::check_webp_sparse(len, data).map(|()| Soundness::Sound)
}

/// How many first bytes `sniff_start` reads.
pub const START_LEN: usize = png::SIGNATURE.len();

/// What `sniff` says of any data that starts with `start` (its first
/// `START_LEN` bytes), when those bytes decide it whatever follows: a PNG
/// signature, the first magic tried. A PNG is then sniffed without
/// decoding a base64 head.
pub fn sniff_start(start: &[u8]) -> Option<Sniffed> {
    if start.starts_with(png::SIGNATURE) {
        return found(mt!("image/png"), Family::Image);
    }
    None
}

/// How many leading bytes hold an image's width and height whatever follows
/// (a PNG's IHDR), when that is fixed.
pub fn dimensions_len(media_type: &str) -> Option<usize> {
    (media_type == "image/png").then_some(png::DIMENSIONS_LEN)
}

/// How many first bytes hold the flag `is_animated` reads, when that is
/// fixed (a WebP's VP8X flags byte).
pub fn animation_flag_len(media_type: &str) -> Option<usize> {
    (media_type == "image/webp").then_some(21)
}

/// Whether `is_animated` can say yes for this format (it reads the data).
pub fn can_animate(media_type: &str) -> bool {
    matches!(media_type, "image/gif" | "image/webp")
}

/// Whether an image is an animation (a GIF with more than one image, a
/// WebP whose VP8X header sets the animation flag). `None` when the window
/// does not show enough of the data to tell.
pub fn is_animated(media_type: &str, window: &Window) -> Option<bool> {
    match media_type {
        "image/gif" => image::gif_is_animated(window.head, window.is_whole()),
        // RIFF, size, WEBP, then the first chunk: VP8X carries the flags
        // byte right after its size; 0x02 is "animation".
        "image/webp" => Some(
            bytes(window.head, 12, 4) == Some(b"VP8X")
                && bytes(window.head, 20, 1).is_some_and(|flags| flags[0] & 0x02 != 0),
        ),
        _ => Some(false),
    }
}

const fn found(media_type: &'static str, family: Family) -> Option<Sniffed> {
    Some(Sniffed { media_type, family })
}

/// `n` bytes at `at`, or `None` past the end.
fn bytes(data: &[u8], at: usize, n: usize) -> Option<&[u8]> {
    data.get(at..at.checked_add(n)?)
}

fn array<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    bytes(data, at, N)?.try_into().ok()
}

fn be16(data: &[u8], at: usize) -> Option<u16> {
    array(data, at).map(u16::from_be_bytes)
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    array(data, at).map(u32::from_be_bytes)
}

fn le16(data: &[u8], at: usize) -> Option<u16> {
    array(data, at).map(u16::from_le_bytes)
}

fn le32(data: &[u8], at: usize) -> Option<u32> {
    array(data, at).map(u32::from_le_bytes)
}

/// True when `data` has `magic` at offset `at`.
fn has_at(data: &[u8], at: usize, magic: &[u8]) -> bool {
    bytes(data, at, magic.len()) == Some(magic)
}

/// ISO base media file (mp4, heic, avif, ...): the major brand and the list
/// of compatible brands from a leading `ftyp` box.
fn ftyp(head: &[u8]) -> Option<([u8; 4], &[u8])> {
    if !has_at(head, 4, b"ftyp") {
        return None;
    }
    let size = usize::try_from(be32(head, 0)?).ok()?;
    let major = array(head, 8)?;
    // Compatible brands follow the major brand and minor version; a box
    // that claims more than the head holds is cut to what is there.
    let end = size.clamp(16, head.len().max(16));
    let compatible = head.get(16..end).unwrap_or(&[]);
    Some((major, compatible))
}

/// True when `brand` is the major brand or one of the compatible brands.
fn has_brand(major: [u8; 4], compatible: &[u8], brand: &[u8; 4]) -> bool {
    &major == brand || compatible.chunks_exact(4).any(|b| b == brand)
}
