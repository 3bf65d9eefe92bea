//! Every byte of an image decoded, its pixels dropped as they come: the
//! check that what is attached as it is decodes in a provider's decoder,
//! where the structural walks (`sniff`) see only chunk and block layout.
//!
//! Measured against libvips (sharp, `failOn: 'error'`) on images damaged at
//! random (`__test__/decoder-agreement.test.mjs`): a PNG whose deflate data
//! is broken under right CRCs, a GIF whose LZW codes are, a WebP whose
//! entropy-coded data is, all pass the walks and are refused there. A JPEG
//! is left to its walk: libjpeg-turbo decodes broken entropy-coded data with
//! a warning, never an error, and the walk catches the rest.
//!
//! Memory: a PNG is read a row at a time and a GIF frame through a small
//! buffer, so neither holds its pixels; a WebP has no such decoder and is
//! decoded whole, its buffer taken from the fit budget
//! (`image_fit::memory`) like a fit's.

use std::io::{BufRead, Seek};

use crate::image_fit::memory;

/// Whether this check reads images of this media type.
pub fn checks(media_type: &str) -> bool {
    matches!(media_type, "image/png" | "image/gif" | "image/webp")
}

/// Decode all of the image in `data` (sniffed as `media_type`). `Err`
/// carries the reason for the model, e.g. "corrupt PNG: its image data
/// does not decode".
pub fn decode_all(media_type: &str, data: impl BufRead + Seek) -> Result<(), String> {
    match media_type {
        "image/png" => png(data).map_err(|_| "corrupt PNG: its image data does not decode".into()),
        "image/gif" => gif(data).map_err(|_| "corrupt GIF: its image data does not decode".into()),
        "image/webp" => webp(data),
        _ => Ok(()),
    }
}

fn png(data: impl BufRead + Seek) -> Result<(), png::DecodingError> {
    let mut options = png::DecodeOptions::default();
    // libpng checks zlib's Adler-32 too; text and ICC profiles it only
    // warns about.
    options.set_ignore_adler32(false);
    options.set_ignore_text_chunk(true);
    options.set_ignore_iccp_chunk(true);
    let mut reader = png::Decoder::new_with_options(data, options).read_info()?;
    while reader.next_row()?.is_some() {}
    // The chunks after the image data, up to IEND.
    reader.finish()
}

/// Pixels a GIF frame is decoded into at a time.
const GIF_BLOCK: usize = 16 * 1024;

/// `Err` when any frame does not decode whole (the error's words are not
/// shown: `decode_all` says it in its own).
fn gif(data: impl BufRead + Seek) -> Result<(), ()> {
    gif_frames(data).map_err(drop)?.then_some(()).ok_or(())
}

/// Whether every frame held all its pixels; `Err` on a decoding error.
fn gif_frames(data: impl BufRead + Seek) -> Result<bool, gif::DecodingError> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(data)?;
    let mut block = vec![0; GIF_BLOCK];
    while decoder.next_frame_info()?.is_some() {
        // Every pixel of the frame, as a decoder that fills a frame buffer
        // reads it: data that ends early is a truncated image.
        let mut left = decoder.buffer_size();
        while left > 0 {
            let n = left.min(GIF_BLOCK);
            if !decoder.fill_buffer(&mut block[..n])? {
                return Ok(false);
            }
            left -= n;
        }
    }
    Ok(true)
}

fn webp(data: impl BufRead + Seek) -> Result<(), String> {
    let corrupt = |_| "corrupt WebP: its image data does not decode".to_string();
    let mut decoder = image_webp::WebPDecoder::new(data).map_err(corrupt)?;
    let (width, height) = decoder.dimensions();
    let too_large = || format!("WebP of {width}x{height} pixels too large to check");
    let len = decoder.output_buffer_size().ok_or_else(too_large)?;
    // The decoder holds about as much again while it works (a lossless
    // image's ARGB planes, a lossy one's YUV frame).
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

#[cfg(test)]
mod tests {
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
