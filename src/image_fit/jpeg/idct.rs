//! A block's samples from its coefficients at 1, 2, 4 or 8 samples a side
//! (the inverse DCT of the lowest coefficients, as libjpeg scales in the
//! DCT): each output sample is the 8x8 block's curve taken at the middle of
//! the samples it stands for. Separable, in `f32`.

/// `n` samples a side from a block's first `n` coefficients a side:
/// `by_size[n][u][x] = c(u)/2 * cos((2x + 1) u pi / 2n)`, c(0) = 1/sqrt 2,
/// zero past `n` (every row is 8 wide, so the loops over it vectorise).
pub struct Basis {
    by_size: [[[f32; 8]; 8]; 4],
}

fn size_index(n: usize) -> usize {
    match n {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

impl Basis {
    pub fn new() -> Basis {
        let mut by_size = [[[0.0; 8]; 8]; 4];
        for n in [1usize, 2, 4, 8] {
            let basis = &mut by_size[size_index(n)];
            for (u, row) in basis.iter_mut().enumerate().take(n) {
                let c = if u == 0 {
                    std::f64::consts::FRAC_1_SQRT_2
                } else {
                    1.0
                };
                for (x, value) in row.iter_mut().enumerate().take(n) {
                    let angle = ((2 * x + 1) * u) as f64 * std::f64::consts::PI / (2 * n) as f64;
                    *value = (c / 2.0 * angle.cos()) as f32;
                }
            }
        }
        Basis { by_size }
    }

    /// The `nx` x `ny` samples of `block` (coefficients in natural order)
    /// into `out`, a row every `stride` bytes; `last` is the zigzag index
    /// of its last coefficient set (0: only the DC term, one value).
    pub fn samples(
        &self,
        block: &[f32; 64],
        last: usize,
        (nx, ny): (usize, usize),
        out: &mut [u8],
        stride: usize,
    ) {
        if last == 0 {
            let value = clamp(block[0] / 8.0 + 128.0);
            for row in out.chunks_mut(stride).take(ny) {
                row[..nx].fill(value);
            }
            return;
        }
        let across = &self.by_size[size_index(nx)];
        let down = &self.by_size[size_index(ny)];
        // Across each row of coefficients (most are zero: skipped), then
        // down each column from the rows that had any.
        let mut rows = [[0f32; 8]; 8];
        let mut had_any = [false; 8];
        for v in 0..ny {
            for (u, &coefficient) in block[8 * v..8 * v + nx].iter().enumerate() {
                if coefficient != 0.0 {
                    had_any[v] = true;
                    for (value, basis) in rows[v].iter_mut().zip(&across[u]) {
                        *value += coefficient * basis;
                    }
                }
            }
        }
        let mut sums = [[128f32; 8]; 8];
        for v in (0..ny).filter(|&v| had_any[v]) {
            for (line, &weight) in sums.iter_mut().zip(&down[v]).take(ny) {
                for (sum, value) in line.iter_mut().zip(&rows[v]) {
                    *sum += weight * value;
                }
            }
        }
        for (line, sums) in out.chunks_mut(stride).zip(&sums).take(ny) {
            for (sample, &sum) in line[..nx].iter_mut().zip(sums) {
                *sample = clamp(sum);
            }
        }
    }
}

/// Rounded to the nearest sample. Added to 1.5 * 2^23, a value of 0 to
/// 255 is rounded into the low bits of the sum's mantissa: no conversion
/// that saturates (`as u8`) or calls libm (`round` without SSE4.1), so the
/// loops over it vectorise.
fn clamp(value: f32) -> u8 {
    (value.clamp(0.0, 255.0) + 12_582_912.0).to_bits() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dc_only_block_is_its_mean_at_every_size() {
        let basis = Basis::new();
        let mut block = [0f32; 64];
        block[0] = 80.0; // mean 128 + 10
        for n in [1, 2, 4, 8] {
            let mut out = [0u8; 64];
            basis.samples(&block, 0, (n, n), &mut out, 8);
            assert!(out
                .chunks(8)
                .take(n)
                .all(|r| r[..n].iter().all(|&s| s == 138)));
            // The general path agrees.
            let mut general = [0u8; 64];
            basis.samples(&block, 1, (n, n), &mut general, 8);
            assert_eq!(out, general, "{n}");
        }
    }

    #[test]
    fn a_horizontal_ramp_at_half_size_is_the_full_sizes_pairs_averaged() {
        // The first AC term across: full size, then half.
        let basis = Basis::new();
        let mut block = [0f32; 64];
        block[1] = 100.0;
        let mut full = [0u8; 64];
        basis.samples(&block, 1, (8, 8), &mut full, 8);
        let mut half = [0u8; 16];
        basis.samples(&block, 1, (4, 4), &mut half, 4);
        for x in 0..4 {
            let pair = (f32::from(full[2 * x]) + f32::from(full[2 * x + 1])) / 2.0;
            assert!(
                (f32::from(half[x]) - pair).abs() <= 1.5,
                "{x}: {half:?} {full:?}"
            );
        }
        // Falling from left to right, the same down every row.
        assert!(half[0] > half[3]);
        assert_eq!(half[..4], half[12..]);
    }
}
