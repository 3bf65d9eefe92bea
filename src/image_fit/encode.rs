//! PNG (the `image` crate's encoder, over the `png` crate) and JPEG
//! (`jpeg-encoder`: 3.5x faster than `image`'s own JPEG encoder on a
//! 12-megapixel image here, and smaller output at the same quality).

use std::collections::HashSet;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};

use super::decode::{on_white, Pixels};
use super::FitError;

fn encode_error(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(format!("encoding failed: {error}"))
}

/// zlib level 3: on a 1568x1176 screenshot here, 62 ms and 495 KB, where
/// the `Default` setting took 322 ms for 484 KB and `Fast` 35 ms for 4.1 MB.
const PNG_COMPRESSION: CompressionType = CompressionType::Level(3);

/// Lossless PNG of the pixels, alpha kept.
pub fn png(p: &Pixels) -> Result<Vec<u8>, FitError> {
    let color = match p.channels {
        1 => ExtendedColorType::L8,
        2 => ExtendedColorType::La8,
        3 => ExtendedColorType::Rgb8,
        _ => ExtendedColorType::Rgba8,
    };
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, PNG_COMPRESSION, FilterType::Adaptive)
        .write_image(&p.data, p.width, p.height, color)
        .map_err(encode_error)?;
    Ok(out)
}

/// Baseline JPEG at `quality`; an image with alpha is flattened on white
/// first (JPEG has no alpha, and dropping it would show black).
pub fn jpeg(p: &Pixels, quality: u8) -> Result<Vec<u8>, FitError> {
    let flat;
    let p = if p.has_alpha() {
        flat = on_white(p);
        &flat
    } else {
        p
    };
    let color = if p.channels == 1 {
        jpeg_encoder::ColorType::Luma
    } else {
        jpeg_encoder::ColorType::Rgb
    };
    let (width, height) = (
        u16::try_from(p.width).map_err(encode_error)?,
        u16::try_from(p.height).map_err(encode_error)?,
    );
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, quality)
        .encode(&p.data, width, height, color)
        .map_err(encode_error)?;
    Ok(out)
}

/// Pixels sampled to tell a photo from a screenshot or drawing.
const SAMPLES: usize = 4096;

/// A photo (or anything like one) has many distinct colours even among a
/// few thousand pixels; a screenshot, a chart or a drawing repeats a few.
/// Such an image compresses far better as JPEG than as PNG.
pub fn looks_like_photo(p: &Pixels) -> bool {
    let n = usize::from(p.channels);
    let count = p.data.len() / n;
    if count == 0 {
        return false;
    }
    let step = (count / SAMPLES).max(1);
    let mut seen = HashSet::with_capacity(SAMPLES);
    let mut sampled = 0usize;
    for px in p.data.chunks_exact(n).step_by(step) {
        let mut key = 0u32;
        for &c in px {
            key = (key << 8) | u32::from(c);
        }
        seen.insert(key);
        sampled += 1;
    }
    seen.len() * 2 > sampled
}
