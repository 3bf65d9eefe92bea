//! Where a fit's pixels come from, decoded no more than the output needs:
//! a PNG not interlaced is read a row at a time (`png`), a JPEG of grey or
//! YCbCr samples is decoded at 1/2, 1/4 or 1/8 of its size when the output
//! is no larger (DCT scaling: a row of units at a time by [`jpeg`] where it
//! decodes the JPEG, else whole at the scale by `jpeg-decoder`), anything
//! else is decoded whole ([`decode::open`]). Either way the rows go through
//! a [`Shrink`] and its output rows, a group at a time, into the encoder
//! ([`Rows`]), so what is held besides is a few strips and the encoded
//! bytes (and a JPEG `jpeg-decoder` decoded at its scale, or the image
//! decoded whole). An image to be turned (its EXIF orientation) is made
//! whole, then turned.

use std::borrow::Cow;
use std::io::Cursor;

use image::metadata::Orientation;
use image::ImageFormat;

use super::across::Across;
use super::colours::PhotoTest;
use super::decode::{self, check_pixels, jpeg_frame, JpegFrame, Opened, Pixels, MAX_DECODED_BYTES};
use super::encode::{self, Encoded, Encoding, RowSource};
use super::jpeg::{self, JpegRows};
use super::shrink::{group_bytes, strip_bytes, Shrink};
use super::{memory, relay, FitError};

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
    /// A pixel of it is not opaque: alpha is kept. Until one is seen,
    /// alpha is dropped as rows stream (if one comes, the rows are made
    /// again with alpha).
    transparent: bool,
    /// The last rows made whole looked like a photo (see [`PhotoTest`]).
    pub photo: bool,
}

enum Kind<'a> {
    /// Read a row at a time: the channels of its rows at 8 bits, and the
    /// bytes of a row as stored (the decoder holds a few).
    PngRows { channels: u8, row_bytes: u64 },
    /// Decoded at a scale (1 when the output is not that small: decoded
    /// whole, as any other image): a row of units at a time where
    /// [`jpeg`] decodes it (its header read), else whole at the scale.
    Jpeg(JpegFrame, Option<Box<jpeg::Header>>),
    /// Decoded whole, once: opened, then its pixels kept for every size
    /// tried.
    Whole(Option<Opened<'a>>, Option<Pixels>),
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
        transparent: false,
        photo: false,
    })
}

fn png_reader(bytes: &[u8]) -> Result<png::Reader<Cursor<&[u8]>>, FitError> {
    let limits = png::Limits {
        bytes: usize::try_from(MAX_DECODED_BYTES).unwrap_or(usize::MAX),
    };
    // As `decode_check` reads a PNG, so that a fit that read it to its end
    // (`Input::finish`) checked it as that would: zlib's Adler-32 checked,
    // text and ICC profiles not read.
    let mut options = png::DecodeOptions::default();
    options.set_ignore_adler32(false);
    options.set_ignore_text_chunk(true);
    options.set_ignore_iccp_chunk(true);
    let mut decoder = png::Decoder::new_with_options(Cursor::new(bytes), options);
    decoder.set_limits(limits);
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
        transparent: false,
        photo: false,
    }))
}

/// A JPEG `jpeg-decoder` can decode at a scale: Huffman-coded, baseline,
/// extended or progressive, of one or three 8-bit components, its height
/// in its frame header (and its header read for [`jpeg`] where that
/// decodes it). Others (CMYK, 12-bit, lossless, arithmetic) are decoded
/// whole by `image`.
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
    // The rows decoder's header, for the frame this read.
    let rows_header = jpeg::read(bytes)
        .filter(|h| {
            (h.width, h.height, h.components.len())
                == (frame.width, frame.height, frame.components.into())
        })
        .map(Box::new);
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
        kind: Kind::Jpeg(frame, rows_header),
        transparent: false,
        photo: false,
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
            Kind::Jpeg(frame, _) => frame.components,
            Kind::Whole(Some(opened), _) => opened.channels(),
            Kind::Whole(None, Some(pixels)) => pixels.channels,
            Kind::Whole(None, None) => 4,
        }
    }

    /// The EXIF orientation turns the image: its output is made whole.
    /// Whether making any size reads every byte as `decode_check` would (a
    /// PNG read a row at a time: [`Input::finish`]), so that a fit made is
    /// one that check passes.
    pub fn checks_as_decoded(&self) -> bool {
        matches!(self.kind, Kind::PngRows { .. })
    }

    pub fn turned(&self) -> bool {
        self.orientation != Orientation::NoTransforms
    }

    /// The most bytes making and encoding `out_width` x `out_height` (as
    /// stored) under a byte limit of `limit` holds at once, beyond the
    /// input (see [`memory::streamed_peak`] and, turned,
    /// [`memory::fit_peak`]).
    pub fn peak_bytes(&self, out_width: u32, out_height: u32, limit: u64) -> u64 {
        let channels = self.channels();
        let n = u64::from(channels);
        let output = u64::from(out_width) * u64::from(out_height) * n;
        let (decoding, held, width, height) = match &self.kind {
            // The decoder's rows (this one, the one before, its scratch
            // and the 16-bit one brought to 8) and its inflater's window,
            // held while rows stream.
            Kind::PngRows { row_bytes, .. } => {
                let rows = 4 * row_bytes + (256 << 10);
                (rows, rows, self.width, self.height)
            }
            // Decoded a row of units at a time ([`jpeg`]), it holds less,
            // but a scan that fails there is decoded by `jpeg-decoder`
            // instead: this much is kept for that.
            Kind::Jpeg(frame, _) => {
                let eighths = jpeg_eighths(frame, out_width, out_height);
                let side = |s: u32| (s * eighths).div_ceil(8);
                let (width, height) = (side(frame.width), side(frame.height));
                let out = u64::from(width) * u64::from(height) * n;
                if eighths == 8 {
                    // Decoded whole by `image`: its samples, and a
                    // progressive frame's coefficients.
                    (out + frame.coefficient_bytes(), out, width, height)
                } else {
                    // Its output, and every component's samples at the
                    // scale (sides in whole blocks of 32) beside it while
                    // decoding; a progressive frame's coefficients at full
                    // size.
                    let padded = |s: u32| u64::from(s).div_ceil(32) * 32;
                    let samples = padded(width) * padded(height) * n;
                    (
                        out + samples + frame.coefficient_bytes(),
                        out,
                        width,
                        height,
                    )
                }
            }
            Kind::Whole(Some(opened), _) => {
                let (w, h) = opened.dimensions();
                let decoded = u64::from(w) * u64::from(h) * n;
                (opened.decoding_bytes(), decoded, w, h)
            }
            Kind::Whole(None, Some(p)) => (0, p.data.len() as u64, p.width, p.height),
            Kind::Whole(None, None) => (0, 0, self.width, self.height),
        };
        let strips = strip_bytes(width, height, out_width, out_height, channels);
        if self.turned() {
            return memory::fit_peak(decoding, held, strips, output);
        }
        let out_row = u64::from(out_width) * n;
        // Relayed, the encoder's thread holds a group resized down (the
        // one this thread makes is among the strips); the three buffers
        // handed between the threads are mapped.
        let relayed = if relay::worthwhile(out_width, out_height, channels) {
            group_bytes(width, height, out_width, out_height, channels) + 3 * memory::MAPPED_SLACK
        } else {
            0
        };
        memory::streamed_peak(
            decoding,
            held,
            strips,
            memory::encoder_bytes(out_row) + relayed,
            memory::encoded_bound(output, limit),
        )
    }

    /// The rows of the image at `out_width` x `out_height` as stored (no
    /// larger), as they are made (`Shrink::streamed`), or for
    /// [`Rows::whole`] (`Shrink::new`).
    fn rows(&mut self, out_width: u32, out_height: u32, whole: bool) -> Result<Rows<'_>, FitError> {
        if let Kind::Jpeg(frame, _) = &self.kind {
            if jpeg_eighths(frame, out_width, out_height) == 8 {
                // Decoded whole, as any other image, and kept.
                self.kind = Kind::Whole(Some(decode::open(self.bytes)?), None);
            }
        }
        if let Kind::Whole(opened, pixels) = &mut self.kind {
            if let Some(opened) = opened.take() {
                *pixels = Some(opened.read_stored()?.0);
            }
        }
        let photo = PhotoTest::new(u64::from(self.width) * u64::from(self.height));
        let (input, width, height, channels) = match &self.kind {
            Kind::PngRows { channels, .. } => {
                let reader = png_reader(self.bytes)?;
                let sixteen = reader.output_color_type().1 == png::BitDepth::Sixteen;
                let input = Input::Png {
                    reader: Box::new(reader),
                    sixteen,
                    narrow: Vec::new(),
                };
                (input, self.width, self.height, *channels)
            }
            Kind::Jpeg(frame, header) => {
                let eighths = jpeg_eighths(frame, out_width, out_height);
                let side = |s: u32| (s * eighths).div_ceil(8);
                let (width, height) = (side(frame.width), side(frame.height));
                let channels = frame.components;
                if let Some(header) = header.as_deref().filter(|h| jpeg::decodes_at(h, eighths)) {
                    let input = Input::Jpeg(Box::new(JpegRows::new(self.bytes, header, eighths)?));
                    (input, width, height, channels)
                } else {
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
                    let input = Input::Held {
                        data: Cow::Owned(data),
                        row_len,
                        at: 0,
                    };
                    (input, width, height, channels)
                }
            }
            Kind::Whole(_, Some(p)) => {
                let input = Input::Held {
                    data: Cow::Borrowed(&p.data[..]),
                    row_len: p.width as usize * usize::from(p.channels),
                    at: 0,
                };
                (input, p.width, p.height, p.channels)
            }
            Kind::Whole(_, None) => return Err(decode_error("the image was not decoded")),
        };
        let shrink = if whole {
            Shrink::new(width, height, channels, out_width, out_height)?
        } else {
            Shrink::streamed(width, height, channels, out_width, out_height)?
        };
        Ok(Rows {
            input,
            shrink,
            photo,
            keep_alpha: self.transparent,
            transparent: false,
            finished: false,
            across: None,
            out_height,
            channels,
        })
    }

    /// After the rows decoder failed on a JPEG's scan: `jpeg-decoder`
    /// decodes it from now on, as it did before there was one (it reads
    /// some damage differently). Whether there was one to leave.
    fn leave_jpeg_rows(&mut self) -> bool {
        match &mut self.kind {
            Kind::Jpeg(_, header) => header.take().is_some(),
            _ => false,
        }
    }

    /// The image at `out_width` x `out_height` as stored (no larger),
    /// turned as its orientation says, held whole.
    pub fn render(&mut self, out_width: u32, out_height: u32) -> Result<Pixels, FitError> {
        let made = self.rows(out_width, out_height, true)?.whole();
        let (shrunk, photo) = match made {
            Err(FitError::Decode(_)) if self.leave_jpeg_rows() => {
                self.rows(out_width, out_height, true)?.whole()?
            }
            made => made?,
        };
        self.photo = photo;
        decode::oriented(shrunk, self.orientation)
    }

    /// The image at `out_width` x `out_height` (not turned) encoded as
    /// `how` says, its rows streamed into the encoder; bytes past `limit`
    /// counted, not kept.
    pub fn encode(
        &mut self,
        out_width: u32,
        out_height: u32,
        how: Encoding,
        limit: u64,
    ) -> Result<Encoded, FitError> {
        loop {
            let mut rows = self.rows(out_width, out_height, false)?;
            if relay::worthwhile(out_width, out_height, rows.channels()) {
                rows.across = Some(rows.shrink.leave_across(rows.keep_alpha)?);
            }
            let result = encode::encode(&mut rows, how, limit, true);
            if rows.transparent {
                // Alpha was dropped on a guess that a pixel proved wrong:
                // the same again, alpha kept.
                drop(rows);
                self.transparent = true;
                continue;
            }
            let photo = rows.photo.looks_like_photo();
            drop(rows);
            if matches!(result, Err(FitError::Decode(_))) && self.leave_jpeg_rows() {
                continue;
            }
            let encoded = result?;
            self.photo = photo;
            return Ok(encoded);
        }
    }
}

/// Where a source's rows come from.
enum Input<'a> {
    /// Read from a PNG a row at a time; 16-bit rows brought to 8 bits in
    /// `narrow`.
    Png {
        // Boxed: the reader is large, and made once a size.
        reader: Box<png::Reader<Cursor<&'a [u8]>>>,
        sixteen: bool,
        narrow: Vec<u8>,
    },
    /// A JPEG decoded a row of units at a time.
    Jpeg(Box<JpegRows<'a>>),
    /// Decoded already, whole or at a scale: rows of `row_len` bytes, the
    /// next at `at`.
    Held {
        data: Cow<'a, [u8]>,
        row_len: usize,
        at: usize,
    },
}

impl Input<'_> {
    /// What is left of a PNG after its last row read as `decode_check`
    /// reads it: the rest of its image data (to zlib's Adler-32) and its
    /// chunks up to IEND.
    fn finish(&mut self) -> Result<(), FitError> {
        match self {
            Input::Png { reader, .. } => reader.finish().map_err(decode_error),
            Input::Jpeg(_) | Input::Held { .. } => Ok(()),
        }
    }

    fn next_row(&mut self) -> Result<Option<&[u8]>, FitError> {
        match self {
            Input::Png {
                reader,
                sixteen,
                narrow,
            } => {
                let Some(row) = reader.next_row().map_err(decode_error)? else {
                    return Ok(None);
                };
                if !*sixteen {
                    return Ok(Some(row.data()));
                }
                // Big-endian samples, rounded to 8 bits.
                narrow.clear();
                narrow.extend(
                    row.data()
                        .chunks_exact(2)
                        .map(|s| ((u32::from(u16::from_be_bytes([s[0], s[1]])) + 128) / 257) as u8),
                );
                Ok(Some(&narrow[..]))
            }
            Input::Jpeg(rows) => rows.next_row(),
            Input::Held { data, row_len, at } => {
                let row = data.get(*at..*at + *row_len);
                if row.is_some() {
                    *at += *row_len;
                }
                Ok(row)
            }
        }
    }
}

/// A size being made: the source's rows through a [`Shrink`], its output
/// rows given a group at a time ([`RowSource`]).
pub struct Rows<'a> {
    input: Input<'a>,
    shrink: Shrink,
    photo: PhotoTest,
    /// The source is known not to be opaque: alpha is kept.
    keep_alpha: bool,
    /// Alpha was being dropped and a pixel not opaque came: the rows stop
    /// (the caller makes them again with alpha kept).
    transparent: bool,
    /// Every row was given and the input read to its end.
    finished: bool,
    /// The pass across, left to whoever encodes the rows (not yet taken).
    across: Option<Across>,
    out_height: u32,
    /// The source's channels.
    channels: u8,
}

impl Rows<'_> {
    /// Every row through a shrink that keeps its whole output (one made by
    /// `Shrink::new`), alpha dropped at the end if every pixel was opaque;
    /// and whether the source looked like a photo.
    fn whole(mut self) -> Result<(Pixels, bool), FitError> {
        while let Some(row) = self.input.next_row()? {
            self.photo.row(row, self.channels);
            self.shrink.push(row)?;
        }
        self.input.finish()?;
        Ok((self.shrink.finish()?, self.photo.looks_like_photo()))
    }
}

impl RowSource for Rows<'_> {
    fn width(&self) -> u32 {
        self.shrink.rows_width()
    }

    fn height(&self) -> u32 {
        self.out_height
    }

    fn channels(&self) -> u8 {
        self.shrink.out_channels(self.keep_alpha)
    }

    fn advance(&mut self) -> Result<bool, FitError> {
        loop {
            if self.transparent {
                return Ok(false);
            }
            if self.shrink.has_rows() {
                self.shrink.take_rows(self.keep_alpha)?;
                return Ok(true);
            }
            if self.shrink.done() {
                if !self.finished {
                    self.finished = true;
                    self.input.finish()?;
                }
                return Ok(false);
            }
            let Some(row) = self.input.next_row()? else {
                return Err(decode_error(
                    "the image has fewer rows than its header says",
                ));
            };
            self.photo.row(row, self.channels);
            self.shrink.push(row)?;
            self.transparent = !self.keep_alpha && !self.shrink.opaque();
        }
    }

    fn rows(&self) -> &[u8] {
        self.shrink.taken_rows()
    }

    fn give_rows(&mut self) -> Vec<u8> {
        self.shrink.give_rows()
    }

    fn take_back(&mut self, spent: Vec<u8>) {
        self.shrink.take_back(spent);
    }

    fn take_across(&mut self) -> Option<Across> {
        self.across.take()
    }
}
