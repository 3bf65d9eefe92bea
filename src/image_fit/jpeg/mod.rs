//! A JPEG decoded a row of coding units at a time, at 1/2, 1/4 or 1/8 of
//! its size, for a fit: rows go to the resize as the scan is read, so the
//! decoding overlaps nothing less than the whole image and what is held is
//! one row of units. `jpeg-decoder` decodes a scaled JPEG whole before any
//! row can be resized (on a 4000x3000 photo made 1568 wide, about half of
//! the fit).
//!
//! Each component is scaled in the DCT so that every component comes out
//! at the output's size (a chroma block of a 4:2:0 JPEG at half size gives
//! 8x8 samples, a luma block 4x4, as libjpeg-turbo scales), so no sample is
//! upsampled. Taken: one sequential Huffman-coded scan of every component
//! (baseline or extended), 8-bit, grey or three components (YCbCr, or RGB
//! as Adobe's marker or the component ids say). Anything else is decoded
//! by `jpeg-decoder` ([`read`] gives `None`).

mod header;
mod huffman;
mod idct;
mod ycbcr;

pub use header::{read, Header};

use super::{memory, FitError};
use huffman::{Bits, Table};
use idct::Basis;

/// A component as decoded: its samples for one row of units.
struct Plane {
    /// Samples a block gives across and down.
    nx: usize,
    ny: usize,
    /// Blocks across and down in a unit.
    h: usize,
    v: usize,
    /// Its quantisation table, in zigzag order.
    quant: [f32; 64],
    dc: Table,
    ac: Table,
    /// The last DC value.
    predictor: i32,
    samples: Vec<u8>,
}

/// The most blocks across and down a component has in a unit.
fn most_blocks(header: &Header) -> (u32, u32) {
    header.components.iter().fold((1, 1), |(h, v), c| {
        (h.max(u32::from(c.h)), v.max(u32::from(c.v)))
    })
}

/// Samples a block of each component gives across and down at `eighths`
/// (the luma block's 8 at its scale, times its subsampling), or `None`
/// when one would need more than 8 (a 4:2:0 JPEG at full size).
fn block_sizes(header: &Header, eighths: u32) -> Option<Vec<(usize, usize)>> {
    let (h_max, v_max) = most_blocks(header);
    let size = |max: u32, own: u8| {
        let own = u32::from(own);
        let n = eighths * max / own;
        ((eighths * max).is_multiple_of(own) && matches!(n, 1 | 2 | 4 | 8)).then_some(n as usize)
    };
    header
        .components
        .iter()
        .map(|c| Some((size(h_max, c.h)?, size(v_max, c.v)?)))
        .collect()
}

/// Whether `header`'s JPEG is decoded here at `eighths` of its size.
pub fn decodes_at(header: &Header, eighths: u32) -> bool {
    matches!(eighths, 1 | 2 | 4) && block_sizes(header, eighths).is_some()
}

/// The rows of a JPEG at a scale, decoded as they are asked for.
pub struct JpegRows<'a> {
    bits: Bits<'a>,
    planes: Vec<Plane>,
    basis: Basis,
    block: [f32; 64],
    /// Units in a row of them, rows of them in the image, rows decoded.
    units_across: usize,
    unit_rows: usize,
    unit_rows_done: usize,
    /// Units between restart markers (0: none), units decoded.
    restart_interval: usize,
    units_done: usize,
    /// Bytes in a row of a plane, rows in a plane (a row of units).
    stride: usize,
    strip_rows: usize,
    /// The next row of the planes to give.
    strip_row: usize,
    /// The output: pixels across and rows, rows given.
    width: usize,
    height: usize,
    rows_given: usize,
    rgb: bool,
    row: Vec<u8>,
}

impl<'a> JpegRows<'a> {
    /// `bytes`, whose header is `header`, at `eighths` of its size (see
    /// [`decodes_at`]).
    pub fn new(bytes: &'a [u8], header: &Header, eighths: u32) -> Result<JpegRows<'a>, FitError> {
        let sizes = block_sizes(header, eighths)
            .filter(|_| matches!(eighths, 1 | 2 | 4))
            .ok_or_else(|| FitError::Decode("the JPEG is not decoded at that scale".into()))?;
        let (h_max, v_max) = most_blocks(header);
        let (h_max, v_max) = (h_max as usize, v_max as usize);
        let side = |s: u32| (s * eighths).div_ceil(8) as usize;
        let eighths = eighths as usize;
        let units_across = (header.width as usize).div_ceil(8 * h_max);
        let stride = units_across * eighths * h_max;
        let strip_rows = eighths * v_max;
        let mut planes = Vec::with_capacity(header.components.len());
        for (component, (nx, ny)) in header.components.iter().zip(sizes) {
            planes.push(Plane {
                nx,
                ny,
                h: usize::from(component.h),
                v: usize::from(component.v),
                quant: component.quant.map(f32::from),
                dc: component.dc.clone(),
                ac: component.ac.clone(),
                predictor: 0,
                samples: memory::zeroed(stride * strip_rows)?,
            });
        }
        let width = side(header.width);
        Ok(JpegRows {
            bits: Bits::new(bytes, header.data),
            planes,
            basis: Basis::new(),
            block: [0.0; 64],
            units_across,
            unit_rows: (header.height as usize).div_ceil(8 * v_max),
            unit_rows_done: 0,
            restart_interval: usize::from(header.restart_interval),
            units_done: 0,
            stride,
            strip_rows,
            strip_row: strip_rows,
            width,
            height: side(header.height),
            rows_given: 0,
            rgb: header.rgb,
            row: memory::zeroed(width * 3)?,
        })
    }

    /// The next row, `None` after the last.
    pub fn next_row(&mut self) -> Result<Option<&[u8]>, FitError> {
        if self.rows_given == self.height {
            return Ok(None);
        }
        if self.strip_row == self.strip_rows {
            self.decode_unit_row()?;
            self.strip_row = 0;
        }
        let at = self.strip_row * self.stride;
        self.strip_row += 1;
        self.rows_given += 1;
        let range = at..at + self.width;
        match &self.planes[..] {
            [grey] => Ok(Some(&grey.samples[range])),
            [first, second, third] => {
                let a = &first.samples[range.clone()];
                let b = &second.samples[range.clone()];
                let c = &third.samples[range];
                let row = &mut self.row[..3 * self.width];
                if self.rgb {
                    for (pixel, ((&r, &g), &b)) in
                        row.chunks_exact_mut(3).zip(a.iter().zip(b).zip(c))
                    {
                        pixel.copy_from_slice(&[r, g, b]);
                    }
                } else {
                    ycbcr::to_rgb(a, b, c, row);
                }
                Ok(Some(row))
            }
            _ => Err(FitError::Decode(
                "the JPEG has neither 1 nor 3 components".into(),
            )),
        }
    }

    /// The next row of units decoded into the planes.
    fn decode_unit_row(&mut self) -> Result<(), FitError> {
        if self.unit_rows_done == self.unit_rows {
            return Err(FitError::Decode(
                "the JPEG has fewer rows than its header says".into(),
            ));
        }
        let JpegRows {
            bits,
            planes,
            basis,
            block,
            stride,
            ..
        } = self;
        for unit in 0..self.units_across {
            if self.restart_interval > 0
                && self.units_done > 0
                && self.units_done.is_multiple_of(self.restart_interval)
            {
                bits.restart();
                for plane in planes.iter_mut() {
                    plane.predictor = 0;
                }
            }
            for plane in planes.iter_mut() {
                for down in 0..plane.v {
                    for across in 0..plane.h {
                        let last = bits
                            .block(
                                &plane.dc,
                                &plane.ac,
                                &plane.quant,
                                &mut plane.predictor,
                                block,
                            )
                            .map_err(|_| {
                                FitError::Decode("corrupt JPEG data: a code no table holds".into())
                            })?;
                        let x = (unit * plane.h + across) * plane.nx;
                        let y = down * plane.ny;
                        let out = &mut plane.samples[y * *stride + x..];
                        basis.samples(block, last, (plane.nx, plane.ny), out, *stride);
                        // Only what was set goes back to zero.
                        for &k in &header::ZIGZAG[..=last] {
                            block[usize::from(k)] = 0.0;
                        }
                    }
                }
            }
            self.units_done += 1;
        }
        self.unit_rows_done += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
