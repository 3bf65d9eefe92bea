//! Downscaling with fast_image_resize (SIMD convolution; Lanczos3, as
//! sharp uses by default). Alpha is premultiplied while filtering, so
//! transparent pixels' colours do not bleed into the edges.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};

use super::decode::Pixels;
use super::FitError;

fn pixel_type(channels: u8) -> PixelType {
    match channels {
        1 => PixelType::U8,
        2 => PixelType::U8x2,
        3 => PixelType::U8x3,
        _ => PixelType::U8x4,
    }
}

/// `source` resized to `width` x `height`.
pub fn resize(source: &Pixels, width: u32, height: u32) -> Result<Pixels, FitError> {
    let fail = |e: &dyn std::fmt::Display| FitError::Decode(format!("resizing failed: {e}"));
    let kind = pixel_type(source.channels);
    let src =
        ImageRef::new(source.width, source.height, &source.data, kind).map_err(|e| fail(&e))?;
    let mut dst = Image::new(width, height, kind);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
    Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| fail(&e))?;
    Ok(Pixels {
        width,
        height,
        channels: source.channels,
        data: dst.into_vec(),
    })
}
