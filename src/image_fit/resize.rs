//! Downscaling with fast_image_resize (SIMD convolution; Lanczos3, as
//! sharp uses by default). Alpha is premultiplied while filtering, so
//! transparent pixels' colours do not bleed into the edges.
//!
//! Every buffer is allocated here, fallibly: the premultiplied copy, the
//! vertical pass's output and the result. The two passes are the ones the
//! resizer makes itself for 8-bit pixels (vertical, then horizontal, each
//! rounded to 8 bits), run one at a time so it needs no buffer of its own.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, MulDiv, PixelType, ResizeAlg, ResizeOptions, Resizer};

use super::decode::Pixels;
use super::memory;
use super::FitError;

fn pixel_type(channels: u8) -> PixelType {
    match channels {
        1 => PixelType::U8,
        2 => PixelType::U8x2,
        3 => PixelType::U8x3,
        _ => PixelType::U8x4,
    }
}

fn fail(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(format!("resizing failed: {error}"))
}

/// `source` resized to `width` x `height` (no larger than it).
pub fn resize(source: &Pixels, width: u32, height: u32) -> Result<Pixels, FitError> {
    let kind = pixel_type(source.channels);
    let src = ImageRef::new(source.width, source.height, &source.data, kind).map_err(fail)?;
    let tall = if source.has_alpha() {
        let mut premultiplied = blank(source.width, source.height, kind)?;
        MulDiv::default()
            .multiply_alpha(&src, &mut premultiplied)
            .map_err(fail)?;
        pass(&premultiplied, source.width, height, kind)?
    } else {
        pass(&src, source.width, height, kind)?
    };
    let mut out = pass(&tall, width, height, kind)?;
    drop(tall);
    if source.has_alpha() {
        MulDiv::default()
            .divide_alpha_inplace(&mut out)
            .map_err(fail)?;
    }
    Ok(Pixels {
        width,
        height,
        channels: source.channels,
        data: out.into_vec(),
    })
}

/// An image of `width` x `height`, allocated fallibly.
fn blank(width: u32, height: u32, kind: PixelType) -> Result<Image<'static>, FitError> {
    let len = width as usize * height as usize * kind.size();
    Image::from_vec_u8(width, height, memory::zeroed(len)?, kind).map_err(fail)
}

/// `src` resized to `width` x `height` where only one side changes: one
/// convolution pass, straight into the output.
fn pass(
    src: &impl fast_image_resize::IntoImageView,
    width: u32,
    height: u32,
    kind: PixelType,
) -> Result<Image<'static>, FitError> {
    let mut dst = blank(width, height, kind)?;
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3))
        .use_alpha(false);
    Resizer::new()
        .resize(src, &mut dst, &options)
        .map_err(fail)?;
    Ok(dst)
}
