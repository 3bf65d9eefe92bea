//! PNG (the `png` crate, which `image`'s PNG encoder wraps) and JPEG
//! (`jpeg-encoder`: 3.5x faster than `image`'s own JPEG encoder on a
//! 12-megapixel image here, and smaller output at the same quality). Both
//! write into an [`Output`] that grows fallibly; PNG is streamed into it
//! (the whole-image call first compresses into a buffer of its own).

use std::io::Write;

use super::decode::{on_white, Pixels};
use super::memory::Output;
use super::FitError;

fn encode_error(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(format!("encoding failed: {error}"))
}

/// The output, or the error that stopped it: running out of memory for it
/// is told apart from the encoder's own errors.
fn finish<E: std::fmt::Display>(out: Output, result: Result<(), E>) -> Result<Vec<u8>, FitError> {
    match (result, out.failed) {
        (_, Some(failed)) => Err(failed),
        (Err(error), None) => Err(encode_error(error)),
        (Ok(()), None) => Ok(out.bytes),
    }
}

/// zlib level 3: on a 1568x1176 screenshot here, 62 ms and 495 KB, where
/// the `Default` setting took 322 ms for 484 KB and `Fast` 35 ms for 4.1 MB.
const PNG_COMPRESSION: png::DeflateCompression = png::DeflateCompression::Level(3);

/// IDAT chunks of at most this many bytes, buffered by the stream writer.
const PNG_CHUNK: usize = 256 * 1024;

/// Lossless PNG of the pixels, alpha kept.
pub fn png(p: &Pixels) -> Result<Vec<u8>, FitError> {
    let color = match p.channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    };
    let mut out = Output::default();
    let result = write_png(&mut out, p, color);
    finish(out, result)
}

fn write_png(
    out: &mut Output,
    p: &Pixels,
    color: png::ColorType,
) -> Result<(), png::EncodingError> {
    let mut encoder = png::Encoder::new(out, p.width, p.height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_deflate_compression(PNG_COMPRESSION);
    encoder.set_filter(png::Filter::Adaptive);
    let mut writer = encoder.write_header()?;
    let mut stream = writer.stream_writer_with_size(PNG_CHUNK)?;
    stream.write_all(&p.data)?;
    stream.finish()?;
    writer.finish()
}

/// Baseline JPEG at `quality`; an image with alpha is flattened on white
/// first (JPEG has no alpha, and dropping it would show black).
pub fn jpeg(p: &Pixels, quality: u8) -> Result<Vec<u8>, FitError> {
    let flat;
    let p = if p.has_alpha() {
        flat = on_white(p)?;
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
    let mut out = Output::default();
    let result =
        jpeg_encoder::Encoder::new(&mut out, quality).encode(&p.data, width, height, color);
    finish(out, result)
}
