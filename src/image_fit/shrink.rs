//! Downscaling as rows arrive, so a fit holds a strip, never the whole
//! source (and, streamed, never the whole output): each source row is
//! premultiplied (with alpha) and reduced by whole factors (the exact average of each block of
//! `kx` x `ky` pixels, as libvips' shrink); each group of output rows is
//! resized (Lanczos3, fast_image_resize: down, then across, as it does a
//! whole image) from the reduced rows its filter reaches, which are let go
//! once no later group reaches them.
//!
//! The whole-factor reduction leaves at least half the scale to the filter
//! (libvips' default gap of 2), so the result is that of a Lanczos3 resize
//! of the reduced image; without reduction, that of one of the source.
//!
//! A streamed shrink may leave the pass across to the thread that encodes
//! its rows ([`Shrink::leave_across`], [`super::across`]): it then gives
//! each group resized down only, and the two passes run side by side.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{Filter, FilterType, MulDiv, PixelType, ResizeAlg, ResizeOptions, Resizer};

use super::across::Across;
use super::decode::Pixels;
use super::memory;
use super::FitError;

/// Output rows resized at a time: the resizer computes the filter's
/// coefficients across once a call, so a group is as tall as the reduced
/// rows it reaches fit in `GROUP_BYTES` (between 32 and 512 rows; on a
/// 12-megapixel image here 32 rows took twice the time of one call over
/// the whole, 512 rows 1.3 times).
const GROUP_BYTES: f64 = 8.0 * 1024.0 * 1024.0;
const GROUP_ROWS: (u32, u32) = (32, 512);

/// Output rows a group holds, for reduced rows of `row_bytes`, `scale`
/// of them to an output row.
fn group_rows(row_bytes: u64, scale: f64) -> u32 {
    let rows = GROUP_BYTES / (row_bytes.max(1) as f64 * scale.max(1.0));
    (rows as u32).clamp(GROUP_ROWS.0, GROUP_ROWS.1)
}
/// Lanczos3 reaches 3 pixels either side, times the scale when shrinking.
const FILTER_SUPPORT: f64 = 3.0;

/// Lanczos3, sinc(x) sinc(x/3), with one sine where fast_image_resize's
/// own takes two: for s = sin(pi x/3), sin(pi x) = 3s - 4s^3. The resizer
/// computes the filter's coefficients across on every call, once a group
/// of rows: on a 10000-pixel-wide page made 8000 wide that was a tenth of
/// the fit's samples here, half of them in `sin`.
fn lanczos3(x: f64) -> f64 {
    let x = x.abs();
    if x >= FILTER_SUPPORT {
        return 0.0;
    }
    if x == 0.0 {
        return 1.0;
    }
    let s = (std::f64::consts::PI * x / 3.0).sin();
    let pi_x = std::f64::consts::PI * x;
    3.0 * s * s * (3.0 - 4.0 * s * s) / (pi_x * pi_x)
}

pub(super) fn lanczos3_filter() -> Result<FilterType, FitError> {
    Filter::new("Lanczos3", lanczos3, FILTER_SUPPORT)
        .map(FilterType::Custom)
        .map_err(fail)
}

/// The largest whole factor a side is reduced by (sums stay within u32).
const MAX_FACTOR: u32 = 256;

pub(super) fn pixel_type(channels: u8) -> PixelType {
    match channels {
        1 => PixelType::U8,
        2 => PixelType::U8x2,
        3 => PixelType::U8x3,
        _ => PixelType::U8x4,
    }
}

pub(super) fn fail(error: impl std::fmt::Display) -> FitError {
    FitError::Decode(format!("resizing failed: {error}"))
}

/// The whole factor a side of `from` pixels is reduced by on its way to
/// `to`: half the scale or less, so the filter still does at least half.
pub fn factor(from: u32, to: u32) -> u32 {
    (from / to.max(1) / 2).clamp(1, MAX_FACTOR)
}

/// The bytes of a reduced row, the reduced rows, the reduced rows to an
/// output row, and the output rows of a group, for a shrink of a
/// `width` x `height` source to `out_width` x `out_height`.
fn layout(
    width: u32,
    height: u32,
    out_width: u32,
    out_height: u32,
    channels: u8,
) -> (u64, u32, f64, u32) {
    let (kx, ky) = (factor(width, out_width), factor(height, out_height));
    let reduced_row = u64::from(width.div_ceil(kx)) * u64::from(channels);
    let reduced_height = height.div_ceil(ky);
    let scale = f64::from(reduced_height) / f64::from(out_height.max(1));
    let group = group_rows(reduced_row, scale).min(out_height);
    (reduced_row, reduced_height, scale, group)
}

/// Bytes a [`Shrink`] from a `width`-pixel source to `out_width` x
/// `out_height` holds besides its output: the block sums, the reduced rows
/// one group's filter reaches, the group resized down (the resizer's own
/// buffer, or the shrink's when it leaves the pass across), the
/// premultiplied row, and one group of output rows (what a streamed shrink
/// holds of its output, or its [`Across`](super::across::Across)).
pub fn strip_bytes(width: u32, height: u32, out_width: u32, out_height: u32, channels: u8) -> u64 {
    let n = u64::from(channels);
    let (reduced_row, reduced_height, scale, group) =
        layout(width, height, out_width, out_height, channels);
    let reach = (2.0 * FILTER_SUPPORT * scale.max(1.0)).ceil() as u64 + 2;
    let held_rows =
        (reach + (f64::from(group) * scale).ceil() as u64 + 1).min(u64::from(reduced_height));
    let sums = reduced_row * 4;
    let out_group = u64::from(group) * u64::from(out_width) * n;
    sums + held_rows * reduced_row
        + group_bytes(width, height, out_width, out_height, channels)
        + u64::from(width) * n
        + out_group
}

/// Bytes of one group of rows resized down, not yet across.
pub fn group_bytes(width: u32, height: u32, out_width: u32, out_height: u32, channels: u8) -> u64 {
    let (reduced_row, _, _, group) = layout(width, height, out_width, out_height, channels);
    u64::from(group) * reduced_row
}

/// A downscale in progress: rows of the source in, the output filled in
/// as the rows its filter needs have come.
pub struct Shrink {
    width: u32,
    height: u32,
    channels: u8,
    kx: u32,
    ky: u32,
    /// The source reduced: `reduced_width` x `reduced_height`.
    reduced_width: u32,
    reduced_height: u32,
    /// Source rows taken so far.
    rows_in: u32,
    /// Block sums of the reduced row being gathered, and how many source
    /// rows are in them.
    sums: Vec<u32>,
    sums_rows: u32,
    /// A source row premultiplied by its alpha.
    premultiplied: Vec<u8>,
    /// Reduced rows not yet let go: `held_from..`, `reduced_width` pixels
    /// each.
    held: Vec<u8>,
    held_from: u32,
    held_rows: u32,
    /// Output rows made so far; those not yet let go are in `out` (all of
    /// them when the shrink is not streamed).
    rows_out: u32,
    out: Vec<u8>,
    out_width: u32,
    out_height: u32,
    /// The rows in `out` were taken ([`Shrink::take_rows`]): let go
    /// before more are made.
    taken: bool,
    /// The pass across is left to an [`Across`]: `out` holds rows
    /// `reduced_width` wide, premultiplied.
    across_later: bool,
    /// Every alpha value seen was 255.
    opaque: bool,
    resizer: Resizer,
}

impl Shrink {
    /// A shrink of `width` x `height` pixels of `channels` 8-bit channels
    /// to `out_width` x `out_height` (no larger) whose whole output is kept
    /// for [`Shrink::finish`] (allocated now, fallibly).
    pub fn new(
        width: u32,
        height: u32,
        channels: u8,
        out_width: u32,
        out_height: u32,
    ) -> Result<Shrink, FitError> {
        let mut shrink = Shrink::streamed(width, height, channels, out_width, out_height)?;
        let n = usize::from(channels);
        // Reserved now, its pages touched as its rows are made.
        shrink.out = memory::with_capacity(out_width as usize * out_height as usize * n)?;
        Ok(shrink)
    }

    /// The same shrink, its output rows taken a group at a time
    /// ([`Shrink::take_rows`]) and let go once the next are made.
    pub fn streamed(
        width: u32,
        height: u32,
        channels: u8,
        out_width: u32,
        out_height: u32,
    ) -> Result<Shrink, FitError> {
        if out_width == 0 || out_height == 0 || out_width > width || out_height > height {
            return Err(fail(format!(
                "{width}x{height} cannot shrink to {out_width}x{out_height}"
            )));
        }
        let (kx, ky) = (factor(width, out_width), factor(height, out_height));
        let (reduced_width, reduced_height) = (width.div_ceil(kx), height.div_ceil(ky));
        let n = usize::from(channels);
        let reduced_row = reduced_width as usize * n;
        let mut sums = Vec::new();
        if (kx, ky) != (1, 1) {
            sums.try_reserve_exact(reduced_row)
                .map_err(|_| FitError::OutOfMemory {
                    bytes: reduced_row as u64 * 4,
                })?;
            sums.resize(reduced_row, 0);
        }
        Ok(Shrink {
            width,
            height,
            channels,
            kx,
            ky,
            reduced_width,
            reduced_height,
            rows_in: 0,
            sums,
            sums_rows: 0,
            premultiplied: memory::with_capacity(width as usize * n)?,
            held: Vec::new(),
            held_from: 0,
            held_rows: 0,
            rows_out: 0,
            out: Vec::new(),
            out_width,
            out_height,
            taken: false,
            across_later: false,
            opaque: true,
            resizer: Resizer::new(),
        })
    }

    fn has_alpha(&self) -> bool {
        matches!(self.channels, 2 | 4)
    }

    /// Colours are premultiplied by alpha while resized; a copy at the
    /// same size keeps them as they are (lossless, clear pixels' colours
    /// kept).
    fn premultiplies(&self) -> bool {
        self.has_alpha() && (self.width, self.height) != (self.out_width, self.out_height)
    }

    /// Every alpha value seen so far was 255 (or there is no alpha).
    pub fn opaque(&self) -> bool {
        self.opaque
    }

    /// Every output row is made.
    pub fn done(&self) -> bool {
        self.rows_out == self.out_height
    }

    /// Channels of the rows [`Shrink::take_rows`] gives.
    pub fn out_channels(&self, keep_alpha: bool) -> u8 {
        if self.has_alpha() && !keep_alpha && !self.across_later {
            self.channels - 1
        } else {
            self.channels
        }
    }

    /// Pixels in a row [`Shrink::take_rows`] gives.
    pub fn rows_width(&self) -> u32 {
        if self.across_later {
            self.reduced_width
        } else {
            self.out_width
        }
    }

    /// From now on, give rows resized down only (premultiplied, as wide as
    /// the reduced source), and the pass that resizes them across and
    /// makes them output rows (alpha kept or dropped as `keep_alpha` says).
    /// Only before the first row is pushed.
    pub fn leave_across(&mut self, keep_alpha: bool) -> Result<Across, FitError> {
        if self.rows_in > 0 {
            return Err(fail("the pass across is left before any row"));
        }
        self.across_later = true;
        Across::new(
            (self.reduced_width, self.crop_across(self.out_width)),
            (self.out_width, self.group().min(self.out_height)),
            self.channels,
            keep_alpha,
            self.premultiplies(),
        )
    }

    /// What the pass across reads of each reduced row to make rows
    /// `to_width` pixels wide: the source's width in reduced pixels (the
    /// last block counted as the part of a block it is), or, when they are
    /// as wide, every pixel (no pass across).
    fn crop_across(&self, to_width: u32) -> f64 {
        if self.reduced_width == to_width {
            f64::from(self.reduced_width)
        } else {
            f64::from(self.width) / f64::from(self.kx)
        }
    }

    /// Output rows resized at a time.
    fn group(&self) -> u32 {
        let reduced_row = u64::from(self.reduced_width) * u64::from(self.channels);
        group_rows(reduced_row, self.vertical().0)
    }

    /// The output rows made since rows were last taken (none, or a group),
    /// as they are output: with `keep_alpha`, alpha divided out again (the
    /// source is known not to be opaque); without, alpha dropped (every
    /// pixel so far was opaque: the caller checks [`Shrink::opaque`]).
    /// They are let go when rows are next pushed or taken.
    pub fn take_rows(&mut self, keep_alpha: bool) -> Result<(), FitError> {
        if self.taken {
            self.out.clear();
        }
        self.taken = true;
        if self.across_later {
            return Ok(());
        }
        let premultiplied = self.premultiplies();
        finish_alpha(
            &mut self.out,
            (self.out_width, self.channels),
            keep_alpha,
            premultiplied,
        )
    }

    /// The rows [`Shrink::take_rows`] took, given up: the next are made in
    /// a buffer of their own.
    pub fn give_rows(&mut self) -> Vec<u8> {
        self.taken = false;
        std::mem::take(&mut self.out)
    }

    /// A buffer given up, done with: the next rows are made in it (if no
    /// other buffer was made for them meanwhile).
    pub fn take_back(&mut self, mut spent: Vec<u8>) {
        if self.out.capacity() == 0 {
            spent.clear();
            self.out = spent;
        }
    }

    /// Output rows are made and not yet taken.
    pub fn has_rows(&self) -> bool {
        !self.taken && !self.out.is_empty()
    }

    /// The rows [`Shrink::take_rows`] took last (none once let go).
    pub fn taken_rows(&self) -> &[u8] {
        if self.taken {
            &self.out
        } else {
            &[]
        }
    }

    /// Take the next source row (`width` pixels).
    pub fn push(&mut self, row: &[u8]) -> Result<(), FitError> {
        if self.taken {
            self.out.clear();
            self.taken = false;
        }
        let n = usize::from(self.channels);
        if row.len() != self.width as usize * n || self.rows_in == self.height {
            return Err(fail("a row of the wrong length, or too many rows"));
        }
        self.rows_in += 1;
        let row = if self.has_alpha() {
            if self.opaque {
                self.opaque = row.chunks_exact(n).all(|px| px[n - 1] == 255);
            }
            let mut premultiplied = std::mem::take(&mut self.premultiplied);
            premultiplied.clear();
            premultiplied.extend_from_slice(row);
            if !self.opaque && self.premultiplies() {
                premultiply(&mut premultiplied, n);
            }
            self.premultiplied = premultiplied;
            &self.premultiplied[..]
        } else {
            row
        };
        if (self.kx, self.ky) == (1, 1) {
            hold(&mut self.held, row)?;
            self.held_rows += 1;
        } else {
            let kx = self.kx as usize;
            for (block, sum) in row.chunks(kx * n).zip(self.sums.chunks_exact_mut(n)) {
                for px in block.chunks_exact(n) {
                    for (s, &v) in sum.iter_mut().zip(px) {
                        *s += u32::from(v);
                    }
                }
            }
            self.sums_rows += 1;
            if self.sums_rows == self.ky || self.rows_in == self.height {
                self.reduce_row()?;
            }
        }
        self.resize_down()
    }

    /// The gathered block sums as one reduced row: each block's average.
    fn reduce_row(&mut self) -> Result<(), FitError> {
        let n = usize::from(self.channels);
        let (kx, width) = (self.kx, self.width);
        let at = self.held.len();
        reserve(&mut self.held, self.sums.len())?;
        for (i, sum) in self.sums.chunks_exact_mut(n).enumerate() {
            // The last block across may be narrower.
            let across = kx.min(width - i as u32 * kx);
            let count = across * self.sums_rows;
            for s in sum.iter_mut() {
                self.held.push(((*s + count / 2) / count) as u8);
                *s = 0;
            }
        }
        debug_assert_eq!(self.held.len() - at, self.sums.len());
        self.sums_rows = 0;
        self.held_rows += 1;
        Ok(())
    }

    /// Reduced rows per output row, and how far the filter reaches.
    fn vertical(&self) -> (f64, f64) {
        let scale = f64::from(self.height) / f64::from(self.ky) / f64::from(self.out_height);
        (scale, FILTER_SUPPORT * scale.max(1.0))
    }

    /// Output rows whose filter the held rows cover, resized (down, then
    /// across); the held rows no later output row reaches are let go.
    fn resize_down(&mut self) -> Result<(), FitError> {
        let n = usize::from(self.channels);
        let out_width = self.rows_width();
        let (out_row, reduced_row) = (out_width as usize * n, self.reduced_width as usize * n);
        let (scale, reach) = self.vertical();
        let held_to = self.held_from + self.held_rows;
        let group = self.group();
        // Left across, the rows are as wide as the reduced ones: the pass
        // down only.
        let crop_across = self.crop_across(out_width);
        while self.rows_out < self.out_height {
            let first = self.rows_out;
            let last = (first + group).min(self.out_height);
            let top = ((f64::from(first) + 0.5) * scale - reach).floor().max(0.0) as u32;
            let bottom = ((f64::from(last) - 0.5) * scale + reach).ceil() as u32 + 1;
            let bottom = bottom.min(self.reduced_height);
            if bottom > held_to {
                break;
            }
            let top = top.max(self.held_from);
            let at = self.out.len();
            if self.across_later && self.out.capacity() == 0 {
                // Given to the encoder's thread and back.
                self.out = memory::handed_over(group as usize * out_row)?;
            }
            reserve(&mut self.out, (last - first) as usize * out_row)?;
            self.out.resize(at + (last - first) as usize * out_row, 0);
            let dst = &mut self.out[at..];
            let from = (top - self.held_from) as usize * reduced_row;
            let to = (bottom - self.held_from) as usize * reduced_row;
            if self.reduced_height == self.out_height && self.reduced_width == out_width {
                let from = (first - self.held_from) as usize * reduced_row;
                dst.copy_from_slice(&self.held[from..from + dst.len()]);
            } else {
                let kind = pixel_type(self.channels);
                let src =
                    ImageRef::new(self.reduced_width, bottom - top, &self.held[from..to], kind)
                        .map_err(fail)?;
                let mut dst =
                    Image::from_slice_u8(out_width, last - first, dst, kind).map_err(fail)?;
                let (crop_top, crop_height) = if self.reduced_height == self.out_height {
                    (f64::from(first - top), f64::from(last - first))
                } else {
                    let crop_top = f64::from(first) * scale - f64::from(top);
                    let height =
                        (f64::from(last - first) * scale).min(f64::from(bottom - top) - crop_top);
                    (crop_top, height)
                };
                let options = ResizeOptions::new()
                    .resize_alg(ResizeAlg::Convolution(lanczos3_filter()?))
                    .use_alpha(false)
                    .crop(0.0, crop_top, crop_across, crop_height);
                self.resizer
                    .resize(&src, &mut dst, &options)
                    .map_err(fail)?;
            }
            self.rows_out = last;
            // Let go of the rows before the next output row's reach.
            let next_top = if last < self.out_height {
                ((f64::from(last) + 0.5) * scale - reach).floor().max(0.0) as u32
            } else {
                held_to
            };
            let drop_rows = next_top.saturating_sub(self.held_from).min(self.held_rows);
            if drop_rows > 0 {
                self.held.drain(..drop_rows as usize * reduced_row);
                self.held_from += drop_rows;
                self.held_rows -= drop_rows;
            }
        }
        Ok(())
    }

    /// The output, once every source row has come; alpha divided out
    /// again, or dropped when every pixel was opaque.
    pub fn finish(self) -> Result<Pixels, FitError> {
        if self.taken || self.across_later {
            return Err(fail("the rows were taken as they were made"));
        }
        if self.rows_in != self.height || self.rows_out != self.out_height {
            return Err(fail(format!(
                "{} of {} rows came",
                self.rows_in, self.height
            )));
        }
        let (alpha, premultiplied) = (self.has_alpha(), self.premultiplies());
        let mut pixels = Pixels {
            width: self.out_width,
            height: self.out_height,
            channels: self.channels,
            data: self.out,
        };
        if alpha {
            if self.opaque {
                pixels = super::decode::without_alpha(pixels);
            } else if premultiplied {
                let kind = pixel_type(self.channels);
                let mut image =
                    Image::from_slice_u8(pixels.width, pixels.height, &mut pixels.data, kind)
                        .map_err(fail)?;
                MulDiv::default()
                    .divide_alpha_inplace(&mut image)
                    .map_err(fail)?;
            }
        }
        Ok(pixels)
    }
}

/// Output rows `width` pixels of `channels` wide made final: alpha
/// dropped unless `keep_alpha` (every pixel was opaque), or divided out
/// again if it was `premultiplied`.
pub(super) fn finish_alpha(
    out: &mut Vec<u8>,
    (width, channels): (u32, u8),
    keep_alpha: bool,
    premultiplied: bool,
) -> Result<(), FitError> {
    if !matches!(channels, 2 | 4) || out.is_empty() {
        return Ok(());
    }
    let n = usize::from(channels);
    if !keep_alpha {
        let pixels = out.len() / n;
        for i in 0..pixels {
            out.copy_within(i * n..i * n + n - 1, i * (n - 1));
        }
        out.truncate(pixels * (n - 1));
    } else if premultiplied {
        let rows = (out.len() / (width as usize * n)) as u32;
        let mut image =
            Image::from_slice_u8(width, rows, out, pixel_type(channels)).map_err(fail)?;
        MulDiv::default()
            .divide_alpha_inplace(&mut image)
            .map_err(fail)?;
    }
    Ok(())
}

/// Room for `more` bytes at the end of `held`, allocated fallibly.
fn reserve(held: &mut Vec<u8>, more: usize) -> Result<(), FitError> {
    held.try_reserve(more).map_err(|_| FitError::OutOfMemory {
        bytes: (held.len() + more) as u64,
    })
}

/// `row` added to `held`, allocated fallibly.
fn hold(held: &mut Vec<u8>, row: &[u8]) -> Result<(), FitError> {
    reserve(held, row.len())?;
    held.extend_from_slice(row);
    Ok(())
}

/// Colour times alpha, in place (`n` channels, the last alpha), rounded as
/// fast_image_resize rounds its own.
fn premultiply(row: &mut [u8], n: usize) {
    for px in row.chunks_exact_mut(n) {
        let alpha = u32::from(px[n - 1]);
        for c in &mut px[..n - 1] {
            let v = u32::from(*c) * alpha + 128;
            *c = ((v + (v >> 8)) >> 8) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::f64::consts::PI;

    #[test]
    fn lanczos3_with_one_sine_is_the_two_sine_definition() {
        let sinc = |x: f64| {
            if x == 0.0 {
                1.0
            } else {
                (PI * x).sin() / (PI * x)
            }
        };
        let steps = (-3500..=3500).map(|i| f64::from(i) / 997.0);
        let whole = (-4..=4).map(f64::from);
        for x in steps.chain(whole) {
            let want = if x.abs() < 3.0 {
                sinc(x) * sinc(x / 3.0)
            } else {
                0.0
            };
            let got = super::lanczos3(x);
            assert!((got - want).abs() < 1e-12, "{x}: {got} against {want}");
        }
    }
}
