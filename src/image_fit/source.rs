//! Where a fit's pixels come from, decoded no more than the output needs:
//! a PNG not interlaced is read a row at a time (`png`), a JPEG of grey or
//! YCbCr samples is decoded at 1/2, 1/4 or 1/8 of its size when the output
//! is no larger (`jpeg-decoder`'s DCT scaling), anything else is decoded
//! whole ([`decode::open`]). Either way the rows go through a [`Shrink`],
//! so what is held besides is the output and a few strips (and the JPEG
//! decoded at its scale, or the image decoded whole).

use std::collections::HashSet;
use std::io::Cursor;

use image::metadata::Orientation;
use image::ImageFormat;

use super::decode::{self, check_pixels, jpeg_frame, JpegFrame, Opened, Pixels, MAX_DECODED_BYTES};
use super::shrink::{strip_bytes, Shrink};
use super::{memory, FitError};

fn decode_error(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(error.to_string())
}

/// An image opened for fitting, its size checked, no pixel decoded yet.
pub struct Source<'a> {
    bytes: &'a [u8],
    kind: Kind<'a>,
    /// Width and height as stored.
    pub width: u32,
    pub height: u32,
    pub orientation: Orientation,
    pub format: ImageFormat,
    /// An animation, of which the first frame is fitted.
    pub animated: bool,
}

enum Kind<'a> {
    /// Read a row at a time: the channels of its rows at 8 bits, and the
    /// bytes of a row as stored (the decoder holds a few).
    PngRows { channels: u8, row_bytes: u64 },
    /// Decoded at a scale (1 when the output is not that small: decoded
    /// whole, as any other image).
    Jpeg(JpegFrame),
    /// Decoded whole, once: opened, then its pixels kept for every size
    /// tried.
    Whole(Option<Opened<'a>>, Option<Pixels>),
}

/// A size made, and what was seen of the source on the way.
pub struct Rendered {
    /// At the size asked for, turned as the source's orientation says,
    /// without alpha when every pixel of the source was opaque.
    pub pixels: Pixels,
    /// The source has many distinct colours (see [`PhotoTest`]).
    pub photo: bool,
}

/// Open `bytes`: the size the header claims is checked against
/// [`decode::MAX_PIXELS`] before anything else is read.
pub fn open(bytes: &[u8]) -> Result<Source<'_>, FitError> {
    decode::check_sniffed(bytes)?;
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        if let Some(source) = open_png(bytes)? {
            return Ok(source);
        }
    }
    if let Some(source) = open_jpeg(bytes) {
        return Ok(source);
    }
    let opened = decode::open(bytes)?;
    let (width, height) = opened.dimensions();
    Ok(Source {
        bytes,
        width,
        height,
        orientation: opened.orientation,
        format: opened.format,
        animated: opened.animated(),
        kind: Kind::Whole(Some(opened), None),
    })
}

fn png_reader(bytes: &[u8]) -> Result<png::Reader<Cursor<&[u8]>>, FitError> {
    let limits = png::Limits {
        bytes: usize::try_from(MAX_DECODED_BYTES).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    // Palettes and low bit depths to 8 bits, tRNS to alpha; 16 bits kept
    // (brought to 8 here, rounded, as `image` does).
    decoder.set_transformations(png::Transformations::EXPAND);
    decoder.read_info().map_err(decode_error)
}

/// A PNG read a row at a time, or `None` for an interlaced one (its rows
/// come in seven passes: decoded whole).
fn open_png(bytes: &[u8]) -> Result<Option<Source<'_>>, FitError> {
    let reader = png_reader(bytes)?;
    let info = reader.info();
    let (width, height) = (info.width, info.height);
    check_pixels(width, height)?;
    if info.interlaced {
        return Ok(None);
    }
    let orientation = info
        .exif_metadata
        .as_deref()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    let channels = reader.output_color_type().0.samples() as u8;
    let row_bytes = reader.output_line_size(width).unwrap_or(usize::MAX) as u64;
    Ok(Some(Source {
        bytes,
        width,
        height,
        orientation,
        format: ImageFormat::Png,
        animated: false,
        kind: Kind::PngRows {
            channels,
            row_bytes,
        },
    }))
}

/// A JPEG `jpeg-decoder` can decode at a scale: Huffman-coded, baseline,
/// extended or progressive, of one or three 8-bit components, its height
/// in its frame header. Others (CMYK, 12-bit, lossless, arithmetic) are
/// decoded whole by `image`.
fn open_jpeg(bytes: &[u8]) -> Option<Source<'_>> {
    let frame = jpeg_frame(bytes)?;
    if !frame.scalable
        || !matches!(frame.components, 1 | 3)
        || frame.width == 0
        || frame.height == 0
    {
        return None;
    }
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    decoder.read_info().ok()?;
    let orientation = decoder
        .exif_data()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    Some(Source {
        bytes,
        width: frame.width,
        height: frame.height,
        orientation,
        format: ImageFormat::Jpeg,
        animated: false,
        kind: Kind::Jpeg(frame),
    })
}

/// The DCT scale, in eighths, at which a JPEG is decoded for an output of
/// `out_width` x `out_height`: the smallest of 1, 2 and 4 whose result is
/// no smaller, else 8 (the whole).
fn jpeg_eighths(frame: &JpegFrame, out_width: u32, out_height: u32) -> u32 {
    let scaled = |side: u32, eighths: u32| (side * eighths).div_ceil(8);
    [1, 2, 4]
        .into_iter()
        .find(|&e| scaled(frame.width, e) >= out_width && scaled(frame.height, e) >= out_height)
        .unwrap_or(8)
}

impl Source<'_> {
    /// Channels of the rows at 8 bits.
    fn channels(&self) -> u8 {
        match &self.kind {
            Kind::PngRows { channels, .. } => *channels,
            Kind::Jpeg(frame) => frame.components,
            Kind::Whole(Some(opened), _) => opened.channels(),
            Kind::Whole(None, Some(pixels)) => pixels.channels,
            Kind::Whole(None, None) => 4,
        }
    }

    /// The most bytes making `out_width` x `out_height` (as stored) holds
    /// at once, beyond the input (see [`memory::fit_peak`]).
    pub fn peak_bytes(&self, out_width: u32, out_height: u32) -> u64 {
        let channels = self.channels();
        let n = u64::from(channels);
        let output = u64::from(out_width) * u64::from(out_height) * n;
        let (decoding, held, width, height) = match &self.kind {
            // The decoder's rows (this one, the one before, its scratch
            // and the 16-bit one brought to 8) and its inflater's window.
            Kind::PngRows { row_bytes, .. } => {
                (4 * row_bytes + (256 << 10), 0, self.width, self.height)
            }
            Kind::Jpeg(frame) => {
                let eighths = jpeg_eighths(frame, out_width, out_height);
                if eighths == 8 {
                    return self.whole_peak(out_width, out_height);
                }
                let side = |s: u32| (s * eighths).div_ceil(8);
                let (width, height) = (side(frame.width), side(frame.height));
                // Its output, and every component's samples at the scale
                // (sides in whole blocks of 32) beside it while decoding;
                // a progressive frame's coefficients at full size.
                let padded = |s: u32| u64::from(s).div_ceil(32) * 32;
                let out = u64::from(width) * u64::from(height) * n;
                let samples = padded(width) * padded(height) * n;
                (
                    out + samples + frame.coefficient_bytes(),
                    out,
                    width,
                    height,
                )
            }
            Kind::Whole(..) => return self.whole_peak(out_width, out_height),
        };
        let strips = strip_bytes(width, height, out_width, out_height, channels);
        memory::fit_peak(decoding, held, strips, output)
    }

    fn whole_peak(&self, out_width: u32, out_height: u32) -> u64 {
        let channels = self.channels();
        let n = u64::from(channels);
        let (decoding, held) = match &self.kind {
            Kind::Whole(Some(opened), _) => {
                let (w, h) = opened.dimensions();
                (opened.decoding_bytes(), u64::from(w) * u64::from(h) * n)
            }
            Kind::Whole(None, Some(p)) => (0, p.data.len() as u64),
            // A JPEG decoded whole by `image`: its samples, and a
            // progressive frame's coefficients.
            Kind::Jpeg(frame) => {
                let decoded = frame.sample_bytes();
                (decoded + frame.coefficient_bytes(), decoded)
            }
            _ => (0, 0),
        };
        let strips = strip_bytes(self.width, self.height, out_width, out_height, channels);
        let output = u64::from(out_width) * u64::from(out_height) * n;
        memory::fit_peak(decoding, held, strips, output)
    }

    /// The image at `out_width` x `out_height` as stored (no larger),
    /// turned as its orientation says.
    pub fn render(&mut self, out_width: u32, out_height: u32) -> Result<Rendered, FitError> {
        let mut photo = PhotoTest::new(u64::from(self.width) * u64::from(self.height));
        let shrunk = match &mut self.kind {
            Kind::PngRows { channels, .. } => {
                let channels = *channels;
                let mut reader = png_reader(self.bytes)?;
                let sixteen = reader.output_color_type().1 == png::BitDepth::Sixteen;
                let mut shrink =
                    Shrink::new(self.width, self.height, channels, out_width, out_height)?;
                let mut narrow = Vec::new();
                while let Some(row) = reader.next_row().map_err(decode_error)? {
                    let row = if sixteen {
                        // Big-endian samples, rounded to 8 bits.
                        narrow.clear();
                        narrow.extend(row.data().chunks_exact(2).map(|s| {
                            ((u32::from(u16::from_be_bytes([s[0], s[1]])) + 128) / 257) as u8
                        }));
                        &narrow[..]
                    } else {
                        row.data()
                    };
                    photo.row(row, channels);
                    shrink.push(row)?;
                }
                shrink.finish()?
            }
            Kind::Jpeg(frame) => {
                let eighths = jpeg_eighths(frame, out_width, out_height);
                if eighths == 8 {
                    // Decoded whole, as any other image, and kept.
                    let opened = decode::open(self.bytes)?;
                    self.kind = Kind::Whole(Some(opened), None);
                    return self.render(out_width, out_height);
                }
                let side = |s: u32| (s * eighths).div_ceil(8);
                let (width, height) = (side(frame.width), side(frame.height));
                let channels = frame.components;
                let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(self.bytes));
                decoder.set_max_decoding_buffer_size(
                    usize::try_from(MAX_DECODED_BYTES).unwrap_or(usize::MAX),
                );
                // Asking for exactly the scaled size picks that scale.
                let asked = |s: u32| u16::try_from(s).map_err(decode_error);
                let got = decoder
                    .scale(asked(width)?, asked(height)?)
                    .map_err(decode_error)?;
                if (u32::from(got.0), u32::from(got.1)) != (width, height) {
                    return Err(decode_error("the JPEG decoder chose another scale"));
                }
                let data = decoder.decode().map_err(decode_error)?;
                let row_len = width as usize * usize::from(channels);
                if data.len() != row_len * height as usize {
                    return Err(decode_error("the JPEG decoded to an unexpected size"));
                }
                let mut shrink = Shrink::new(width, height, channels, out_width, out_height)?;
                for row in data.chunks_exact(row_len) {
                    photo.row(row, channels);
                    shrink.push(row)?;
                }
                drop(data);
                shrink.finish()?
            }
            Kind::Whole(opened, pixels) => {
                if let Some(opened) = opened.take() {
                    *pixels = Some(opened.read_stored()?.0);
                }
                let Some(p) = pixels.as_ref() else {
                    return Err(decode_error("the image was not decoded"));
                };
                let row_len = p.width as usize * usize::from(p.channels);
                let mut shrink = Shrink::new(p.width, p.height, p.channels, out_width, out_height)?;
                for row in p.data.chunks_exact(row_len) {
                    photo.row(row, p.channels);
                    shrink.push(row)?;
                }
                shrink.finish()?
            }
        };
        Ok(Rendered {
            pixels: decode::oriented(shrunk, self.orientation)?,
            photo: photo.looks_like_photo(),
        })
    }
}

/// Pixels sampled to tell a photo from a screenshot or drawing.
const SAMPLES: u64 = 4096;

/// A photo (or anything like one) has many distinct colours even among a
/// few thousand pixels; a screenshot, a chart or a drawing repeats a few.
/// Such an image compresses far better as JPEG than as PNG. Every
/// `step`-th pixel of the source is sampled as its rows go by.
struct PhotoTest {
    step: u64,
    /// The index of the next pixel to come, and of the next sampled.
    at: u64,
    next: u64,
    seen: HashSet<u32>,
    sampled: usize,
}

impl PhotoTest {
    fn new(pixels: u64) -> PhotoTest {
        PhotoTest {
            step: (pixels / SAMPLES).max(1),
            at: 0,
            next: 0,
            seen: HashSet::with_capacity(SAMPLES as usize),
            sampled: 0,
        }
    }

    fn row(&mut self, row: &[u8], channels: u8) {
        let n = usize::from(channels);
        let count = (row.len() / n) as u64;
        while self.next < self.at + count {
            let i = (self.next - self.at) as usize * n;
            let mut key = 0u32;
            for &c in &row[i..i + n] {
                key = (key << 8) | u32::from(c);
            }
            self.seen.insert(key);
            self.sampled += 1;
            self.next += self.step;
        }
        self.at += count;
    }

    fn looks_like_photo(&self) -> bool {
        self.sampled > 0 && self.seen.len() * 2 > self.sampled
    }
}
