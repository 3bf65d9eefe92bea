//! The last pass of a streamed shrink, across, made apart from the rest:
//! on the thread that encodes the rows ([`super::relay`]), while the
//! thread that decodes makes the next group down. On a 10000-pixel-wide
//! page made 8000 wide, the pass across was a third of the fit's time.
//! The rows are those one call of the resizer makes over both passes: it
//! too resizes 8-bit rows down first, then across.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{ResizeAlg, ResizeOptions, Resizer};

use super::encode::RowSource;
use super::memory;
use super::shrink::{fail, finish_alpha, lanczos3_filter, pixel_type};
use super::FitError;

/// Resizes groups of rows across and makes them output rows.
#[derive(Clone)]
pub struct Across {
    /// Pixels in a row that comes, and how many of them are the source's
    /// (the last whole-factor block may be narrower).
    width: u32,
    across: f64,
    out_width: u32,
    channels: u8,
    keep_alpha: bool,
    premultiplied: bool,
    resizer: Resizer,
    out: Vec<u8>,
}

impl Across {
    /// See [`super::shrink::Shrink::leave_across`]: groups of at most
    /// `group` rows, made in a buffer mapped now ([`memory::handed_over`]).
    pub fn new(
        (width, across): (u32, f64),
        (out_width, group): (u32, u32),
        channels: u8,
        keep_alpha: bool,
        premultiplied: bool,
    ) -> Result<Across, FitError> {
        let out = if width != out_width {
            memory::handed_over(out_width as usize * usize::from(channels) * group as usize)?
        } else {
            Vec::new()
        };
        Ok(Across {
            width,
            across,
            out_width,
            channels,
            keep_alpha,
            premultiplied,
            resizer: Resizer::new(),
            out,
        })
    }

    pub fn out_width(&self) -> u32 {
        self.out_width
    }

    /// Channels of the output rows: alpha dropped unless kept.
    pub fn out_channels(&self) -> u8 {
        if matches!(self.channels, 2 | 4) && !self.keep_alpha {
            self.channels - 1
        } else {
            self.channels
        }
    }

    /// `rows` (whole rows `width` pixels wide) resized across into
    /// [`Across::rows`]; as wide already, they become those rows. Gives back
    /// the buffer it is done with.
    pub fn resize(&mut self, rows: Vec<u8>) -> Result<Vec<u8>, FitError> {
        let n = usize::from(self.channels);
        let row = self.width as usize * n;
        if row == 0 || !rows.len().is_multiple_of(row) {
            return Err(fail("rows of the wrong length"));
        }
        let count = (rows.len() / row) as u32;
        let spent = if self.width == self.out_width {
            std::mem::replace(&mut self.out, rows)
        } else {
            let out_len = self.out_width as usize * n * count as usize;
            self.out.clear();
            self.out
                .try_reserve(out_len)
                .map_err(|_| FitError::OutOfMemory {
                    bytes: out_len as u64,
                })?;
            self.out.resize(out_len, 0);
            let kind = pixel_type(self.channels);
            let src = ImageRef::new(self.width, count, &rows, kind).map_err(fail)?;
            let mut dst =
                Image::from_slice_u8(self.out_width, count, &mut self.out, kind).map_err(fail)?;
            let options = ResizeOptions::new()
                .resize_alg(ResizeAlg::Convolution(lanczos3_filter()?))
                .use_alpha(false)
                .crop(0.0, 0.0, self.across, f64::from(count));
            self.resizer
                .resize(&src, &mut dst, &options)
                .map_err(fail)?;
            rows
        };
        finish_alpha(
            &mut self.out,
            (self.out_width, self.channels),
            self.keep_alpha,
            self.premultiplied,
        )?;
        Ok(spent)
    }

    /// The rows the last [`Across::resize`] made.
    pub fn rows(&self) -> &[u8] {
        &self.out
    }
}

/// The rows of a source that left the pass across, resized across as they
/// come.
pub struct AcrossRows<'a> {
    rows: &'a mut dyn RowSource,
    across: Across,
}

impl<'a> AcrossRows<'a> {
    pub fn new(rows: &'a mut dyn RowSource, across: Across) -> AcrossRows<'a> {
        AcrossRows { rows, across }
    }
}

impl RowSource for AcrossRows<'_> {
    fn width(&self) -> u32 {
        self.across.out_width()
    }
    fn height(&self) -> u32 {
        self.rows.height()
    }
    fn channels(&self) -> u8 {
        self.across.out_channels()
    }
    fn advance(&mut self) -> Result<bool, FitError> {
        if !self.rows.advance()? {
            return Ok(false);
        }
        let spent = self.across.resize(self.rows.give_rows())?;
        self.rows.take_back(spent);
        Ok(true)
    }
    fn rows(&self) -> &[u8] {
        self.across.rows()
    }
}
