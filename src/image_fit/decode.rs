//! Decoding with the size checked first, the EXIF orientation applied, and
//! every layout (palette, grey, 16-bit, alpha) brought to 8 bits a channel.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

use super::FitError;

/// Most pixels decoded: 8000 x 8000, the largest image any provider with a
/// side limit takes, so every image such a provider would take decodes.
pub const MAX_PIXELS: u64 = 64_000_000;

/// Most bytes the decoded image may take (8000 x 8000 RGBA at 8 bits fits;
/// a 16-bit RGBA image up to 32 megapixels).
pub const MAX_DECODED_BYTES: u64 = 256 * 1024 * 1024;

/// Pixels at 8 bits a channel: 1 (grey), 2 (grey, alpha), 3 (RGB) or 4
/// (RGBA) channels, rows top to bottom, no padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pixels {
    pub width: u32,
    pub height: u32,
    pub channels: u8,
    pub data: Vec<u8>,
}

impl Pixels {
    /// Grey+alpha or RGBA: the last channel is alpha.
    pub fn has_alpha(&self) -> bool {
        matches!(self.channels, 2 | 4)
    }
}

/// A decoded image and what the decoding found.
pub struct Decoded {
    pub pixels: Pixels,
    pub format: ImageFormat,
    /// An animation, of which `pixels` is the first frame.
    pub animated: bool,
}

fn decode_error(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(error.to_string())
}

/// Decode `bytes`: the header's size is checked against [`MAX_PIXELS`]
/// before any pixel is read.
pub fn decode(bytes: &[u8]) -> Result<Decoded, FitError> {
    // The sniffer reads the size from the head alone, before a decoder
    // reads further (PNG's reads on to the first image data).
    if let Some(sniffed) = crate::sniff::sniff(bytes) {
        if let Some((width, height)) = crate::sniff::image_dimensions(sniffed.media_type, bytes) {
            check_pixels(width, height)?;
        }
    }
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(decode_error)?;
    let format = reader
        .format()
        .ok_or_else(|| decode_error("not an image format read here"))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    let mut animated = false;
    let mut decoder: Box<dyn ImageDecoder> = if format == ImageFormat::WebP {
        let webp =
            image::codecs::webp::WebPDecoder::new(Cursor::new(bytes)).map_err(decode_error)?;
        animated = webp.has_animation();
        Box::new(webp)
    } else {
        let mut reader = reader;
        reader.limits(limits.clone());
        Box::new(reader.into_decoder().map_err(decode_error)?)
    };
    let (width, height) = decoder.dimensions();
    check_pixels(width, height)?;
    decoder.set_limits(limits).map_err(decode_error)?;
    // An orientation that cannot be read leaves the image as stored.
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(decode_error)?;
    image.apply_orientation(orientation);
    Ok(Decoded {
        pixels: eight_bit(image),
        format,
        animated,
    })
}

fn check_pixels(width: u32, height: u32) -> Result<(), FitError> {
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(FitError::TooManyPixels { width, height });
    }
    Ok(())
}

/// The image at 8 bits a channel, alpha dropped when every pixel is opaque
/// (smaller to resize and encode, and JPEG needs none).
fn eight_bit(image: DynamicImage) -> Pixels {
    let (width, height) = (image.width(), image.height());
    let (channels, data) = match image {
        DynamicImage::ImageLuma8(i) => (1, i.into_raw()),
        DynamicImage::ImageRgb8(i) => (3, i.into_raw()),
        DynamicImage::ImageLumaA8(i) => (2, i.into_raw()),
        DynamicImage::ImageRgba8(i) => (4, i.into_raw()),
        DynamicImage::ImageLuma16(_) => (1, image.to_luma8().into_raw()),
        DynamicImage::ImageLumaA16(_) => (2, image.to_luma_alpha8().into_raw()),
        other if other.color().has_alpha() => (4, other.to_rgba8().into_raw()),
        other => (3, other.to_rgb8().into_raw()),
    };
    let pixels = Pixels {
        width,
        height,
        channels,
        data,
    };
    if pixels.has_alpha() && is_opaque(&pixels) {
        without_alpha(&pixels)
    } else {
        pixels
    }
}

fn is_opaque(p: &Pixels) -> bool {
    let n = usize::from(p.channels);
    p.data.chunks_exact(n).all(|px| px[n - 1] == 255)
}

/// The colour channels of a grey+alpha or RGBA image.
fn without_alpha(p: &Pixels) -> Pixels {
    let n = usize::from(p.channels);
    let mut data = Vec::with_capacity(p.data.len() / n * (n - 1));
    for px in p.data.chunks_exact(n) {
        data.extend_from_slice(&px[..n - 1]);
    }
    Pixels {
        width: p.width,
        height: p.height,
        channels: p.channels - 1,
        data,
    }
}

/// The image flattened on white: what a JPEG (no alpha) shows of it.
pub fn on_white(p: &Pixels) -> Pixels {
    if !p.has_alpha() {
        return p.clone();
    }
    let n = usize::from(p.channels);
    let mut data = Vec::with_capacity(p.data.len() / n * (n - 1));
    for px in p.data.chunks_exact(n) {
        let alpha = u32::from(px[n - 1]);
        for &c in &px[..n - 1] {
            // c * a + 255 * (255 - a), over 255, rounded.
            let v = u32::from(c) * alpha + 255 * (255 - alpha);
            data.push(((v + 127) / 255) as u8);
        }
    }
    Pixels {
        width: p.width,
        height: p.height,
        channels: p.channels - 1,
        data,
    }
}
