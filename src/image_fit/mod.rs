//! Images made to fit a provider: decoded, turned upright, resized and
//! re-encoded until they are within its pixel and byte limits, instead of
//! being held back. Pure Rust, no Node-API: `content` calls [`fit`] and
//! words the note.
//!
//! Memory is bounded before any pixel is decoded: the header's pixel count
//! must be at most [`MAX_PIXELS`] and the decoded image at most
//! [`MAX_DECODED_BYTES`]; each fit's peak is estimated from the header
//! and taken from a process-wide budget ([`memory::global`]) for as long
//! as the fit runs; see [`fit`].

mod across;
mod colours;
mod decode;
mod encode;
mod jpeg;
pub(crate) mod memory;
mod relay;
mod shrink;
mod source;
mod tiff;

use image::metadata::Orientation;

pub use decode::{Decoded, MAX_DECODED_BYTES, MAX_PIXELS};
pub use memory::{set_give_back_freed, Budget, BUDGET_VARIABLE, DEFAULT_BUDGET, MAPPED_FROM};

/// Whether images are made to fit (`fitImages`, default on) and the
/// longest side wanted (`maxLongSide`), whatever the provider takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitImages {
    pub enabled: bool,
    pub max_long_side: Option<u32>,
}

impl FitImages {
    /// Images over a limit are saved, not fitted.
    pub const OFF: FitImages = FitImages {
        enabled: false,
        max_long_side: None,
    };
    pub const ON: FitImages = FitImages {
        enabled: true,
        max_long_side: None,
    };
}

/// What the fitted image must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// Longest side allowed, in pixels.
    pub max_side: Option<u32>,
    /// Most decoded bytes allowed.
    pub max_bytes: u64,
    /// Output formats the provider takes.
    pub png: bool,
    pub jpeg: bool,
}

/// An image in a form the target takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// `image/png` or `image/jpeg`.
    pub media_type: &'static str,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// The source's size as shown (after its EXIF orientation).
    pub source_width: u32,
    pub source_height: u32,
    /// The source was an animation: this is its first frame.
    pub first_frame: bool,
    /// The source was decoded to its end as `decode_check` decodes it:
    /// that check would have passed it.
    pub checked: bool,
}

/// Why an image could not be made to fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FitError {
    /// The header claims more pixels than are ever decoded.
    TooManyPixels { width: u32, height: u32 },
    /// The bytes did not decode.
    Decode(String),
    /// Decoded, the image would take more than [`MAX_DECODED_BYTES`].
    TooManyBytes { bytes: u64 },
    /// Fitting it needs more than the whole budget for fits in progress.
    OverBudget { needs: u64, budget: u64 },
    /// Memory for it could not be allocated.
    OutOfMemory { bytes: u64 },
    /// No size tried came within the byte limit.
    TooLarge,
    /// The target takes neither PNG nor JPEG.
    NoOutputFormat,
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::TooManyPixels { width, height } => write!(
                f,
                "{width}x{height} is more than the {MAX_PIXELS} pixels decoded at most"
            ),
            FitError::Decode(problem) => write!(f, "it did not decode ({problem})"),
            FitError::TooManyBytes { bytes } => write!(
                f,
                "decoded it would take {} MiB, more than the {} MiB decoded at most",
                mib(*bytes),
                mib(MAX_DECODED_BYTES)
            ),
            FitError::OverBudget { needs, budget } => write!(
                f,
                "fitting it needs about {} MiB, more than the {} MiB all images being fitted may hold",
                mib(*needs),
                mib(*budget)
            ),
            FitError::OutOfMemory { bytes } => {
                write!(f, "{} MiB of memory for it could not be allocated", mib(*bytes))
            }
            FitError::TooLarge => f.write_str("no smaller size came within the byte limit"),
            FitError::NoOutputFormat => f.write_str("the provider takes neither PNG nor JPEG"),
        }
    }
}

/// Bytes in whole MiB, rounded up (so a need is never understated).
fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1024 * 1024)
}

/// Tries at most this many encodings before giving up.
const MAX_ATTEMPTS: usize = 10;
/// JPEG quality: first try, and the one tried before shrinking further.
const JPEG_QUALITY: u8 = 85;
const JPEG_QUALITY_LOW: u8 = 70;

/// Fit `bytes` (any format the decoders read) to `target`, keeping the
/// aspect ratio: first the sides, then the bytes (a photo-like image may
/// become JPEG where PNG is too large; then it is made smaller).
///
/// Memory: the fit's peak beyond the input, estimated from the header,
/// the output's size and the byte limit ([`source::Source::peak_bytes`]),
/// is taken from the process-wide budget before any pixel is decoded, and
/// given back when the fit ends; a fit waits for room, and one larger than
/// the whole budget is refused. The output's rows go into the encoder as
/// they are made, unless the image is to be turned (its EXIF
/// orientation): then the output is made whole, turned, and kept for the
/// next try at its size. Every large buffer is allocated fallibly: memory
/// that runs out is an error, not an abort.
pub fn fit(bytes: &[u8], target: &Target, animated: bool) -> Result<Fitted, FitError> {
    fit_within(bytes, target, animated, memory::global())
}

/// [`fit`], its memory taken from `budget`.
pub fn fit_within(
    bytes: &[u8],
    target: &Target,
    animated: bool,
    budget: &Budget,
) -> Result<Fitted, FitError> {
    let fitted = fit_holding(bytes, target, animated, budget);
    // Everything the fit held is freed now.
    memory::give_back_freed();
    fitted
}

/// [`fit_within`], before what it freed is given back.
fn fit_holding(
    bytes: &[u8],
    target: &Target,
    animated: bool,
    budget: &Budget,
) -> Result<Fitted, FitError> {
    if !target.png && !target.jpeg {
        return Err(FitError::NoOutputFormat);
    }
    let mut source = source::open(bytes)?;
    // Rotated a quarter turn, the image is made as stored with its sides
    // swapped, then turned.
    let (source_width, source_height) = as_stored(&source, source.width, source.height);
    let (mut width, mut height) = scaled(source_width, source_height, target.max_side);
    let (out_width, out_height) = as_stored(&source, width, height);
    let peak = source.peak_bytes(out_width, out_height, target.max_bytes);
    let _permit = budget.acquire(peak)?;
    // Decoders allocate their working memory infallibly: a process that
    // cannot hold the whole peak now is told before they start.
    memory::probe(peak)?;
    let from_jpeg = source.format == image::ImageFormat::Jpeg;
    // A JPEG source stays JPEG; others start as PNG (lossless) where taken.
    let mut jpeg = (from_jpeg && target.jpeg) || !target.png;
    let mut quality = JPEG_QUALITY;
    // A turned output, kept for the next try at its size.
    let mut turned: Option<decode::Pixels> = None;
    for _ in 0..MAX_ATTEMPTS {
        // JPEG cannot hold more than 65,535 pixels a side.
        let as_jpeg = jpeg && width <= 65_535 && height <= 65_535;
        let how = if as_jpeg {
            encode::Encoding::Jpeg(quality)
        } else {
            encode::Encoding::Png
        };
        let (w, h) = as_stored(&source, width, height);
        let out = if source.turned() {
            // A smaller size is made from the source again, the larger one
            // let go first: memory follows the output.
            let pixels = match turned.take() {
                Some(p) if (p.width, p.height) == (width, height) => p,
                other => {
                    drop(other);
                    source.render(w, h)?
                }
            };
            let out = encode::encode(
                &mut encode::WholeRows::new(&pixels),
                how,
                target.max_bytes,
                false,
            )?;
            turned = Some(pixels);
            out
        } else {
            source.encode(w, h, how, target.max_bytes)?
        };
        if let Some(bytes) = out.bytes {
            return Ok(Fitted {
                media_type: if as_jpeg { "image/jpeg" } else { "image/png" },
                bytes,
                width,
                height,
                source_width,
                source_height,
                first_frame: animated || source.animated,
                checked: source.checks_as_decoded(),
            });
        }
        if !as_jpeg && target.jpeg && source.photo {
            jpeg = true;
            continue;
        }
        if as_jpeg && quality > JPEG_QUALITY_LOW {
            quality = JPEG_QUALITY_LOW;
            continue;
        }
        // Bytes grow with the pixel count: shrink both sides by the root of
        // the excess, a little more to land under it.
        let ratio = (target.max_bytes as f64 / out.len as f64).sqrt() * 0.9;
        let ratio = ratio.clamp(0.25, 0.9);
        if width == 1 && height == 1 {
            break;
        }
        width = ((f64::from(width) * ratio).round() as u32).max(1);
        height = ((f64::from(height) * ratio).round() as u32).max(1);
    }
    Err(FitError::TooLarge)
}

/// `width` x `height` as shown, as the source stores it, or the other way
/// round (sides swapped for a quarter turn).
fn as_stored(source: &source::Source, width: u32, height: u32) -> (u32, u32) {
    match source.orientation {
        Orientation::Rotate90
        | Orientation::Rotate270
        | Orientation::Rotate90FlipH
        | Orientation::Rotate270FlipH => (height, width),
        _ => (width, height),
    }
}

/// The size within `max_side` a side, aspect ratio kept, sides at least 1.
pub fn scaled(width: u32, height: u32, max_side: Option<u32>) -> (u32, u32) {
    let long = width.max(height);
    match max_side {
        Some(max) if long > max && max > 0 => {
            let scale = f64::from(max) / f64::from(long);
            let side = |s: u32| ((f64::from(s) * scale).round() as u32).clamp(1, max);
            (side(width), side(height))
        }
        _ => (width, height),
    }
}

/// Whether the decoders here read `media_type` (a sniffed type).
pub fn decodes(media_type: &str) -> bool {
    matches!(
        media_type,
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "image/bmp"
            | "image/tiff"
            | "image/vnd.microsoft.icon"
    )
}

/// For the `jpeg` fuzz target: every row of `bytes` decoded a row of
/// units at a time at `eighths` of its size, the rows counted and measured
/// against its header (`None`: not a JPEG decoded so).
#[cfg(fuzzing)]
pub fn jpeg_rows_decoded(bytes: &[u8], eighths: u32) -> Option<Result<Vec<u8>, FitError>> {
    let header = jpeg::read(bytes)?;
    if !jpeg::decodes_at(&header, eighths) {
        return None;
    }
    let side = |s: u32| (s * eighths).div_ceil(8) as usize;
    let row_len = side(header.width) * header.components.len();
    let mut rows = match jpeg::JpegRows::new(bytes, &header, eighths) {
        Ok(rows) => rows,
        Err(error) => return Some(Err(error)),
    };
    let mut out = Vec::new();
    loop {
        match rows.next_row() {
            Ok(Some(row)) => {
                assert_eq!(row.len(), row_len);
                out.extend_from_slice(row);
            }
            Ok(None) => break,
            Err(error) => return Some(Err(error)),
        }
    }
    assert_eq!(out.len(), row_len * side(header.height));
    Some(Ok(out))
}

#[cfg(test)]
mod tests;
