//! PNG (the `png` crate, which `image`'s PNG encoder wraps) and JPEG
//! (`jpeg-encoder`: 3.5x faster than `image`'s own JPEG encoder on a
//! 12-megapixel image here, and smaller output at the same quality). Both
//! take the image's rows as they are made ([`RowSource`]), so the whole
//! output need not be held, and write into an [`Output`] that grows
//! fallibly and keeps no more than the byte limit.

use std::cell::{Cell, RefCell};
use std::io::Write;

use super::across::{Across, AcrossRows};
use super::colours::row_looks_like_photo;
use super::decode::Pixels;
use super::memory::Output;
use super::relay;
use super::FitError;

fn encode_error(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(format!("encoding failed: {error}"))
}

/// An image's rows, top to bottom, a group at a time: `width` pixels of
/// `channels` 8-bit channels each (1 grey, 2 grey and alpha, 3 RGB, 4
/// RGBA).
pub trait RowSource {
    fn width(&self) -> u32;
    fn height(&self) -> u32;
    fn channels(&self) -> u8;
    /// Makes the next rows (at least one); false once every row was given
    /// (or the source stopped early: the caller knows why).
    fn advance(&mut self) -> Result<bool, FitError>;
    /// The rows the last [`RowSource::advance`] made.
    fn rows(&self) -> &[u8];
    /// The same rows in a buffer of their own, for another thread: a copy,
    /// unless the source gives its own up.
    fn give_rows(&mut self) -> Vec<u8> {
        self.rows().to_vec()
    }
    /// A buffer [`RowSource::give_rows`] gave, done with: the source may
    /// make later rows in it.
    fn take_back(&mut self, _spent: Vec<u8>) {}
    /// The pass across, when the source leaves it to whoever encodes its
    /// rows (they are then rows before it: [`Across`]); taken once.
    fn take_across(&mut self) -> Option<Across> {
        None
    }
}

/// Pixels held whole, given as one group.
pub struct WholeRows<'p> {
    pixels: &'p Pixels,
    given: bool,
}

impl<'p> WholeRows<'p> {
    pub fn new(pixels: &'p Pixels) -> WholeRows<'p> {
        WholeRows {
            pixels,
            given: false,
        }
    }
}

impl RowSource for WholeRows<'_> {
    fn width(&self) -> u32 {
        self.pixels.width
    }
    fn height(&self) -> u32 {
        self.pixels.height
    }
    fn channels(&self) -> u8 {
        self.pixels.channels
    }
    fn advance(&mut self) -> Result<bool, FitError> {
        let first = !self.given;
        self.given = true;
        Ok(first && !self.pixels.data.is_empty())
    }
    fn rows(&self) -> &[u8] {
        if self.given {
            &self.pixels.data
        } else {
            &[]
        }
    }
}

/// How to encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Png,
    /// Baseline JPEG at this quality.
    Jpeg(u8),
}

/// An encoding's result: its bytes, or only their count when there were
/// more than the limit (they were not kept).
pub struct Encoded {
    pub bytes: Option<Vec<u8>>,
    pub len: u64,
}

/// `rows` encoded as `how` says; bytes past `limit` are counted, not kept.
/// `beside`: the encoder runs on a thread of its own as `rows` are made,
/// when that pays ([`relay`]).
pub fn encode(
    rows: &mut dyn RowSource,
    how: Encoding,
    limit: u64,
    beside: bool,
) -> Result<Encoded, FitError> {
    let mut across = rows.take_across();
    let (width, channels) = match &across {
        Some(across) => (across.out_width(), across.out_channels()),
        None => (rows.width(), rows.channels()),
    };
    let height = rows.height();
    let output = u64::from(width) * u64::from(height) * u64::from(channels);
    let mut out = Output::new(limit, output);
    let relayed = (beside && relay::worthwhile(width, height, channels))
        .then(|| relay::encode_beside(rows, &mut across, |relayed| write(&mut out, relayed, how)))
        .flatten();
    let result = match (relayed, across) {
        (Some(result), _) => result,
        (None, Some(across)) => write(&mut out, &mut AcrossRows::new(rows, across), how),
        (None, None) => write(&mut out, rows, how),
    };
    match (result, out.failed) {
        (_, Some(failed)) => Err(failed),
        (Err(error), None) => Err(error),
        (Ok(()), None) => Ok(Encoded {
            len: out.len,
            bytes: (out.len <= limit).then_some(out.bytes),
        }),
    }
}

fn write(out: &mut Output, rows: &mut dyn RowSource, how: Encoding) -> Result<(), FitError> {
    match how {
        Encoding::Png => write_png(out, rows),
        Encoding::Jpeg(quality) => write_jpeg(out, rows, quality),
    }
}

/// zlib level 3, deflated by zlib-rs (Cargo.toml). On a 1568x1176
/// screenshot here, with every row filtered (png's adaptive choice): 20 ms
/// and 641 KB, where miniz_oxide (flate2's default) took 41 ms for 495 KB;
/// on a photo of that size 62 ms and 2.31 MB against 141 ms and 2.38 MB.
/// Level 6 made the screenshot 9% smaller and took twice as long on the
/// photo. Which rows are filtered: [`png_filter`].
const PNG_COMPRESSION: png::DeflateCompression = png::DeflateCompression::Level(3);

/// IDAT chunks of at most this many bytes, buffered by the stream writer.
pub const PNG_CHUNK: usize = 256 * 1024;

/// Lossless PNG of the rows, alpha kept.
fn write_png(out: &mut Output, rows: &mut dyn RowSource) -> Result<(), FitError> {
    let color = match rows.channels() {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    };
    let mut encoder = png::Encoder::new(out, rows.width(), rows.height());
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_deflate_compression(PNG_COMPRESSION);
    let mut writer = encoder.write_header().map_err(encode_error)?;
    let mut stream = writer
        .stream_writer_with_size(PNG_CHUNK)
        .map_err(encode_error)?;
    let row_len = rows.width() as usize * usize::from(rows.channels());
    while rows.advance()? {
        for row in rows.rows().chunks(row_len) {
            stream.set_filter(png_filter(row, rows.channels()));
            stream.write_all(row).map_err(encode_error)?;
        }
    }
    // A source that stopped early left data missing: `finish` says so.
    stream.finish().map_err(encode_error)?;
    writer.finish().map_err(encode_error)
}

/// A row that looks like part of a photo is filtered (png's adaptive
/// choice, the best of PNG's five filters for the row); a row of few
/// colours (text, a screenshot, a chart) is not, as libvips filters no
/// row: filters turn its runs of one colour into runs of differences that
/// deflate matches less well. Chosen by measurement here, against every
/// row filtered, encoding fitted outputs (a 4000x3000 screenshot and a
/// 1280x20000 page of the bench, four Chromium screenshots): 0-11% fewer
/// bytes in 1-20% less time, a photo the same bytes; every row unfiltered
/// made the photo twice as big. A row's choice depends on that row alone,
/// so the bytes do not depend on how the rows were grouped.
fn png_filter(row: &[u8], channels: u8) -> png::Filter {
    if row_looks_like_photo(row, channels) {
        png::Filter::Adaptive
    } else {
        png::Filter::NoFilter
    }
}

/// Baseline JPEG at `quality`; rows with alpha are flattened on white
/// (JPEG has no alpha, and dropping it would show black).
fn write_jpeg(out: &mut Output, rows: &mut dyn RowSource, quality: u8) -> Result<(), FitError> {
    let (width, height) = (
        u16::try_from(rows.width()).map_err(encode_error)?,
        u16::try_from(rows.height()).map_err(encode_error)?,
    );
    let channels = rows.channels();
    let stop = Cell::new(false);
    let image = JpegRows {
        width,
        height,
        channels,
        stop: &stop,
        state: RefCell::new(JpegState {
            rows,
            first: 0,
            count: 0,
            failed: None,
        }),
    };
    let result =
        jpeg_encoder::Encoder::new(Stoppable { out, stop: &stop }, quality).encode_image(&image);
    if let Some(failed) = image.state.into_inner().failed {
        return Err(failed);
    }
    result.map_err(encode_error)
}

/// The encoder's output, which fails once the rows stopped coming (the
/// encoder returns at its next write instead of encoding blank rows).
struct Stoppable<'o> {
    out: &'o mut Output,
    stop: &'o Cell<bool>,
}

impl Write for Stoppable<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.stop.get() {
            return Err(std::io::Error::other("the rows stopped coming"));
        }
        self.out.write(data)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Rows pulled by `jpeg-encoder` (in order; the last again for padding)
/// from a [`RowSource`] pushed a group at a time.
struct JpegRows<'r> {
    width: u16,
    height: u16,
    channels: u8,
    stop: &'r Cell<bool>,
    state: RefCell<JpegState<'r>>,
}

struct JpegState<'r> {
    rows: &'r mut dyn RowSource,
    /// The index of the first row `rows.rows()` holds, and how many.
    first: usize,
    count: usize,
    /// Why rows stopped coming.
    failed: Option<FitError>,
}

impl jpeg_encoder::ImageBuffer for &JpegRows<'_> {
    fn get_jpeg_color_type(&self) -> jpeg_encoder::JpegColorType {
        if self.channels <= 2 {
            jpeg_encoder::JpegColorType::Luma
        } else {
            jpeg_encoder::JpegColorType::Ycbcr
        }
    }

    fn width(&self) -> u16 {
        self.width
    }

    fn height(&self) -> u16 {
        self.height
    }

    fn fill_buffers(&self, y: u16, buffers: &mut [Vec<u8>; 4]) {
        let n = usize::from(self.channels);
        let row_len = usize::from(self.width) * n;
        let mut state = self.state.borrow_mut();
        let y = usize::from(y);
        while !self.stop.get() && y >= state.first + state.count {
            state.first += state.count;
            state.count = 0;
            match state.rows.advance() {
                Ok(true) => state.count = state.rows.rows().len() / row_len.max(1),
                Ok(false) => {}
                Err(error) => state.failed = Some(error),
            }
            if state.count == 0 {
                // Stopped early: the caller sees why (an error, or the
                // source's own reason), not the encoding.
                self.stop.set(true);
            }
        }
        if self.stop.get() {
            let used = if self.channels <= 2 { 1 } else { 3 };
            for buffer in &mut buffers[..used] {
                buffer.resize(buffer.len() + usize::from(self.width), 0);
            }
            return;
        }
        let at = (y - state.first) * row_len;
        let row = &state.rows.rows()[at..at + row_len];
        fill_row(row, n, buffers);
    }
}

/// `row` (of `n` channels) as JPEG samples: grey, or YCbCr as
/// `jpeg-encoder` converts RGB; alpha flattened on white first.
fn fill_row(row: &[u8], n: usize, buffers: &mut [Vec<u8>; 4]) {
    match n {
        1 => buffers[0].extend_from_slice(row),
        2 => buffers[0].extend(row.chunks_exact(2).map(|px| on_white(px[0], px[1]))),
        _ => {
            let [y, cb, cr, _] = buffers;
            // In chunks, as `jpeg-encoder` converts its own, so the
            // compiler vectorises the conversion.
            const CHUNK: usize = 16;
            let (mut ys, mut cbs, mut crs) = ([0; CHUNK], [0; CHUNK], [0; CHUNK]);
            for chunk in row.chunks(n * CHUNK) {
                let pixels = chunk.len() / n;
                for (i, px) in chunk.chunks_exact(n).enumerate() {
                    let (r, g, b) = if n == 4 {
                        (
                            on_white(px[0], px[3]),
                            on_white(px[1], px[3]),
                            on_white(px[2], px[3]),
                        )
                    } else {
                        (px[0], px[1], px[2])
                    };
                    (ys[i], cbs[i], crs[i]) = jpeg_encoder::rgb_to_ycbcr(r, g, b);
                }
                y.extend_from_slice(&ys[..pixels]);
                cb.extend_from_slice(&cbs[..pixels]);
                cr.extend_from_slice(&crs[..pixels]);
            }
        }
    }
}

/// A colour `c` of alpha `a` shown on white: c * a + 255 * (255 - a), over
/// 255, rounded.
fn on_white(c: u8, a: u8) -> u8 {
    let (c, a) = (u32::from(c), u32::from(a));
    ((c * a + 255 * (255 - a) + 127) / 255) as u8
}
