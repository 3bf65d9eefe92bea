//! Decoding with the size checked first, the EXIF orientation applied, and
//! every layout (palette, grey, 16-bit, float, alpha) brought to 8 bits a
//! channel. The decoder writes into a buffer allocated here, fallibly,
//! after its size is checked against [`MAX_DECODED_BYTES`] (the `image`
//! crate's own `DynamicImage::from_decoder` allocates without checking).

use std::io::Cursor;

use image::metadata::Orientation;
use image::{ColorType, ImageDecoder, ImageFormat, ImageReader, Limits};

use super::memory;
use super::FitError;

/// Most pixels a source may have: 16383 x 16383, libvips' default
/// (`limitInputPixels` in sharp). Checked from the header before any pixel
/// is decoded; what a fit holds follows its output, not this (see
/// `source`), and an image decoded whole is bounded by
/// [`MAX_DECODED_BYTES`] besides.
pub const MAX_PIXELS: u64 = 16_383 * 16_383;

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

/// An image whose header is read and checked, its pixels not yet decoded.
pub struct Opened<'a> {
    decoder: Box<dyn ImageDecoder + 'a>,
    pub format: ImageFormat,
    animated: bool,
    /// How the image is to be turned (EXIF), read from the header.
    pub orientation: Orientation,
    /// Bytes the decoder writes (the image in its own layout).
    decoded_bytes: u64,
    /// Bytes the decoder holds besides (see [`working_bytes`]).
    working_bytes: u64,
}

/// Open `bytes`: the header's size is checked against [`MAX_PIXELS`], and
/// the decoded size against [`MAX_DECODED_BYTES`], before any pixel is
/// read.
pub fn open(bytes: &[u8]) -> Result<Opened<'_>, FitError> {
    check_sniffed(bytes)?;
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(decode_error)?;
    let format = reader
        .format()
        .ok_or_else(|| decode_error("not an image format read here"))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    let mut animated = false;
    // A JPEG-compressed TIFF's decoder holds one strip's samples besides.
    let mut tiff_strip_bytes = 0;
    let mut ycbcr_tiff = None;
    if format == ImageFormat::Tiff {
        tiff_strip_bytes = super::tiff::jpeg_chunk_bytes(bytes)?;
        ycbcr_tiff = super::tiff::ycbcr(bytes)?;
    }
    // YCbCr TIFF is decoded straight into the image's buffer, in place.
    let in_place = ycbcr_tiff.is_some();
    let mut decoder: Box<dyn ImageDecoder> = if let Some(tiff) = ycbcr_tiff {
        Box::new(tiff)
    } else if format == ImageFormat::WebP {
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
    let decoded_bytes = decoder.total_bytes();
    if decoded_bytes > MAX_DECODED_BYTES {
        return Err(FitError::TooManyBytes {
            bytes: decoded_bytes,
        });
    }
    // The limits still bound what a decoder allocates for itself where it
    // reads them (PNG's and TIFF's chunks, GIF's frames).
    decoder.set_limits(limits).map_err(decode_error)?;
    let working_bytes = tiff_strip_bytes
        + if in_place {
            0
        } else {
            working_bytes(format, bytes, width, height, decoded_bytes)
        };
    // An orientation that cannot be read leaves the image as stored.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    Ok(Opened {
        decoder,
        format,
        animated,
        orientation,
        decoded_bytes,
        working_bytes,
    })
}

/// The size the sniffer reads from the head alone checked against
/// [`MAX_PIXELS`], before a decoder reads further (PNG's reads on to the
/// first image data).
pub fn check_sniffed(bytes: &[u8]) -> Result<(), FitError> {
    if let Some(sniffed) = crate::sniff::sniff(bytes) {
        if let Some((width, height)) = crate::sniff::image_dimensions(sniffed.media_type, bytes) {
            check_pixels(width, height)?;
        }
    }
    Ok(())
}

impl Opened<'_> {
    /// Width and height as stored (before the EXIF orientation).
    pub fn dimensions(&self) -> (u32, u32) {
        self.decoder.dimensions()
    }

    /// Channels of the image at 8 bits a channel.
    pub fn channels(&self) -> u8 {
        self.decoder.color_type().channel_count()
    }

    /// Bytes held while decoding: the decoder's output and its working
    /// memory, or the output and its 8-bit copy, whichever is more.
    pub fn decoding_bytes(&self) -> u64 {
        let (width, height) = self.dimensions();
        let eight_bit = u64::from(width) * u64::from(height) * u64::from(self.channels());
        // Wider samples are brought to 8 bits in place, then the buffer is
        // shrunk: a copy of the 8-bit image beside it for a moment.
        let shrunk = if self.decoded_bytes > eight_bit {
            eight_bit
        } else {
            0
        };
        self.decoded_bytes + self.working_bytes.max(shrunk)
    }

    /// An animation (animated WebP), of which the first frame is decoded.
    pub fn animated(&self) -> bool {
        self.animated
    }

    /// Decode the pixels into a buffer allocated here (an allocation that
    /// fails is an error), then bring them to 8 bits a channel in place and
    /// apply the EXIF orientation.
    #[cfg(test)]
    pub fn read(self) -> Result<Decoded, FitError> {
        let (format, animated) = (self.format, self.animated);
        let (pixels, orientation) = self.read_stored()?;
        let pixels = oriented(pixels, orientation)?;
        Ok(Decoded {
            pixels: without_opaque_alpha(pixels),
            format,
            animated,
        })
    }

    /// The pixels at 8 bits a channel as stored, and the orientation they
    /// are to be shown in.
    pub fn read_stored(self) -> Result<(Pixels, Orientation), FitError> {
        let decoder = self.decoder;
        let (width, height) = decoder.dimensions();
        let color = decoder.color_type();
        let orientation = self.orientation;
        let len = usize::try_from(self.decoded_bytes).map_err(|_| FitError::TooManyBytes {
            bytes: self.decoded_bytes,
        })?;
        let mut data = memory::zeroed(len)?;
        decoder.read_image(&mut data).map_err(decode_error)?;
        Ok((eight_bit(data, width, height, color)?, orientation))
    }
}

/// Open and read `bytes` (see [`open`] and [`Opened::read`]).
#[cfg(test)]
pub fn decode(bytes: &[u8]) -> Result<Decoded, FitError> {
    open(bytes)?.read()
}

/// The memory a decoder holds besides the image it writes, from what is
/// known of its working: PNG, BMP and baseline JPEG decode a few rows at a
/// time (left to the 1 MiB of [`super::memory::fit_peak`]); a progressive JPEG
/// keeps every coefficient (2 bytes a sample, each component); lossy WebP
/// its YUV frame (1.5 bytes a pixel), lossless WebP without alpha an RGBA
/// frame, WebP with alpha or animation up to 8 bytes a pixel (a frame and
/// a canvas, or a lossy frame and its decoded alpha); GIF a frame smaller
/// than the screen (4 bytes a pixel); TIFF the whole image in its stored
/// layout (CMYK is 4/3 of the RGB written).
fn working_bytes(format: ImageFormat, bytes: &[u8], width: u32, height: u32, decoded: u64) -> u64 {
    // Sides padded to whole 32-pixel blocks (JPEG's largest MCU, WebP's
    // macroblocks are 16).
    let padded = |side: u32| u64::from(side).div_ceil(32) * 32;
    let padded_pixels = padded(width) * padded(height);
    match format {
        // At the decoder's sides: a frame may give its height only later
        // (in a DNL segment).
        ImageFormat::Jpeg => jpeg_frame(bytes).map_or(0, |frame| {
            JpegFrame {
                width,
                height,
                ..frame
            }
            .coefficient_bytes()
        }),
        ImageFormat::WebP => match bytes.get(12..16) {
            Some(b"VP8 ") => padded_pixels * 3 / 2,
            Some(b"VP8L") => padded_pixels * 4,
            _ => padded_pixels * 8,
        },
        ImageFormat::Gif => u64::from(width) * u64::from(height) * 4,
        ImageFormat::Tiff => (decoded * 4).div_ceil(3),
        ImageFormat::Ico => decoded,
        _ => 0,
    }
}

/// What a JPEG's frame header says.
pub(super) struct JpegFrame {
    pub progressive: bool,
    /// Huffman-coded (baseline, extended or progressive) at 8 bits: what
    /// `jpeg-decoder` decodes, and at a scale.
    pub scalable: bool,
    pub components: u8,
    pub width: u32,
    pub height: u32,
}

impl JpegFrame {
    /// The decoded samples: a byte each, every component at full size.
    pub fn sample_bytes(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * u64::from(self.components)
    }

    /// What a progressive frame's decoder keeps besides: every coefficient
    /// (2 bytes a sample, sides padded to whole 32-pixel blocks, the
    /// largest MCU); a baseline one decodes a few rows at a time.
    pub fn coefficient_bytes(&self) -> u64 {
        if !self.progressive {
            return 0;
        }
        let padded = |side: u32| u64::from(side).div_ceil(32) * 32;
        2 * u64::from(self.components) * padded(self.width) * padded(self.height)
    }
}

/// The first frame header (SOFn) of a JPEG, found by walking its marker
/// segments from the start.
pub(super) fn jpeg_frame(bytes: &[u8]) -> Option<JpegFrame> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut at = 2; // after SOI
    loop {
        // Fill bytes (0xFF) may come before a marker.
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        let (&0xFF, &marker) = (bytes.get(at)?, bytes.get(at + 1)?) else {
            return None;
        };
        let length = usize::from(u16::from_be_bytes([
            *bytes.get(at + 2)?,
            *bytes.get(at + 3)?,
        ]));
        match marker {
            // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC).
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                let word =
                    |i: usize| Some(u16::from_be_bytes([*bytes.get(i)?, *bytes.get(i + 1)?]));
                return Some(JpegFrame {
                    progressive: matches!(marker, 0xC2 | 0xC6 | 0xCA | 0xCE),
                    scalable: matches!(marker, 0xC0..=0xC2) && bytes.get(at + 4) == Some(&8),
                    components: *bytes.get(at + 9)?,
                    height: u32::from(word(at + 5)?),
                    width: u32::from(word(at + 7)?),
                });
            }
            // Start of scan before any frame header: not a JPEG read here.
            0xDA => return None,
            _ => at += 2 + length,
        }
    }
}

pub(super) fn check_pixels(width: u32, height: u32) -> Result<(), FitError> {
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(FitError::TooManyPixels { width, height });
    }
    Ok(())
}

/// The decoder's output (`color`'s layout, samples in native byte order)
/// at 8 bits a channel, converted in place: each 8-bit sample is written
/// at or before where its wider source sample was read.
pub(super) fn eight_bit(
    mut data: Vec<u8>,
    width: u32,
    height: u32,
    color: ColorType,
) -> Result<Pixels, FitError> {
    let channels = color.channel_count();
    let sample_bytes = usize::from(color.bytes_per_pixel() / channels);
    let samples = data.len() / sample_bytes;
    match (sample_bytes, color) {
        (1, _) => {}
        (2, _) => {
            for i in 0..samples {
                let v = u16::from_ne_bytes([data[2 * i], data[2 * i + 1]]);
                // Rounded, as `image` converts 16 bits to 8.
                data[i] = ((u32::from(v) + 128) / 257) as u8;
            }
        }
        (4, ColorType::Rgb32F | ColorType::Rgba32F) => {
            for i in 0..samples {
                let at = 4 * i;
                let v = f32::from_ne_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                data[i] = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
            }
        }
        _ => return Err(decode_error(format!("{color:?} pixels are not read here"))),
    }
    // Shrinking gives the rest back (a large buffer is its own mapping).
    data.truncate(samples);
    data.shrink_to_fit();
    Ok(Pixels {
        width,
        height,
        channels,
        data,
    })
}

/// Where an output pixel (x, y) comes from in a `w` x `h` source.
type SourceOf = fn(x: usize, y: usize, w: usize, h: usize) -> (usize, usize);

/// `p` turned as its EXIF orientation says (a copy, allocated fallibly).
pub(super) fn oriented(p: Pixels, orientation: Orientation) -> Result<Pixels, FitError> {
    let (w, h) = (p.width as usize, p.height as usize);
    // Where each output pixel comes from, given its place (x, y) in the
    // output; rotations swap the sides.
    let (swapped, from): (bool, SourceOf) = match orientation {
        Orientation::NoTransforms => return Ok(p),
        Orientation::Rotate90 => (true, |x, y, _, h| (y, h - 1 - x)),
        Orientation::Rotate180 => (false, |x, y, w, h| (w - 1 - x, h - 1 - y)),
        Orientation::Rotate270 => (true, |x, y, w, _| (w - 1 - y, x)),
        Orientation::FlipHorizontal => (false, |x, y, w, _| (w - 1 - x, y)),
        Orientation::FlipVertical => (false, |x, y, _, h| (x, h - 1 - y)),
        Orientation::Rotate90FlipH => (true, |x, y, _, _| (y, x)),
        Orientation::Rotate270FlipH => (true, |x, y, w, h| (w - 1 - y, h - 1 - x)),
    };
    let (out_w, out_h) = if swapped { (h, w) } else { (w, h) };
    let n = usize::from(p.channels);
    let mut data = memory::with_capacity(p.data.len())?;
    for y in 0..out_h {
        for x in 0..out_w {
            let (sx, sy) = from(x, y, w, h);
            let at = (sy * w + sx) * n;
            data.extend_from_slice(&p.data[at..at + n]);
        }
    }
    Ok(Pixels {
        width: out_w as u32,
        height: out_h as u32,
        channels: p.channels,
        data,
    })
}

/// `p` without its alpha channel when every pixel is opaque (smaller to
/// resize and encode, and JPEG needs none).
#[cfg(test)]
fn without_opaque_alpha(p: Pixels) -> Pixels {
    if !p.has_alpha() || !is_opaque(&p) {
        return p;
    }
    without_alpha(p)
}

/// `p` with its alpha channel dropped, in place.
pub(super) fn without_alpha(mut p: Pixels) -> Pixels {
    if !p.has_alpha() {
        return p;
    }
    let n = usize::from(p.channels);
    let pixels = p.data.len() / n;
    for i in 0..pixels {
        p.data.copy_within(i * n..i * n + n - 1, i * (n - 1));
    }
    p.data.truncate(pixels * (n - 1));
    p.data.shrink_to_fit();
    p.channels -= 1;
    p
}

#[cfg(test)]
fn is_opaque(p: &Pixels) -> bool {
    let n = usize::from(p.channels);
    p.data.chunks_exact(n).all(|px| px[n - 1] == 255)
}
