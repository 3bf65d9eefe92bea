//! Telling a photo from a drawing by its colours: a photo (or anything
//! like one) has many distinct colours even among a few pixels sampled; a
//! screenshot, a chart or text repeats a few. A photo compresses far
//! better as JPEG than as PNG, and as PNG it needs PNG's filters where a
//! drawing compresses better without them.

use std::collections::HashSet;

/// Pixels sampled over a whole source.
const SAMPLES: u64 = 4096;

/// Pixels sampled from one row.
const ROW_SAMPLES: usize = 64;

/// The test itself: more than half of the pixels sampled distinct.
fn many(distinct: usize, sampled: usize) -> bool {
    sampled > 0 && distinct * 2 > sampled
}

/// A pixel's channels (at most four) as one value.
fn key(pixel: &[u8]) -> u32 {
    pixel.iter().fold(0, |key, &c| (key << 8) | u32::from(c))
}

/// Whether a row of `channels`-byte pixels looks like part of a photo,
/// from [`ROW_SAMPLES`] of its pixels spread across it.
pub fn row_looks_like_photo(row: &[u8], channels: u8) -> bool {
    let n = usize::from(channels).max(1);
    let pixels = row.len() / n;
    let sampled = pixels.min(ROW_SAMPLES);
    let mut keys = [0u32; ROW_SAMPLES];
    for (j, slot) in keys[..sampled].iter_mut().enumerate() {
        let i = j * pixels / sampled * n;
        *slot = key(&row[i..i + n]);
    }
    let keys = &mut keys[..sampled];
    keys.sort_unstable();
    let distinct = keys.len().min(1) + keys.windows(2).filter(|w| w[0] != w[1]).count();
    many(distinct, sampled)
}

/// Every `step`-th pixel of a source sampled as its rows go by, for
/// [`SAMPLES`] in all.
pub struct PhotoTest {
    step: u64,
    /// The index of the next pixel to come, and of the next sampled.
    at: u64,
    next: u64,
    seen: HashSet<u32>,
    sampled: usize,
}

impl PhotoTest {
    pub fn new(pixels: u64) -> PhotoTest {
        PhotoTest {
            step: (pixels / SAMPLES).max(1),
            at: 0,
            next: 0,
            seen: HashSet::with_capacity(SAMPLES as usize),
            sampled: 0,
        }
    }

    pub fn row(&mut self, row: &[u8], channels: u8) {
        let n = usize::from(channels);
        let count = (row.len() / n) as u64;
        while self.next < self.at + count {
            let i = (self.next - self.at) as usize * n;
            self.seen.insert(key(&row[i..i + n]));
            self.sampled += 1;
            self.next += self.step;
        }
        self.at += count;
    }

    pub fn looks_like_photo(&self) -> bool {
        many(self.seen.len(), self.sampled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_of_few_colours_is_drawn_and_of_many_a_photo() {
        let text: Vec<u8> = (0..1568 * 3)
            .map(|i| if (i / 3) % 11 < 6 { 245 } else { 33 })
            .collect();
        assert!(!row_looks_like_photo(&text, 3));
        let noise: Vec<u8> = (0..1568u32 * 3)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        assert!(row_looks_like_photo(&noise, 3));
        // Fewer pixels than samples: each is sampled once.
        assert!(row_looks_like_photo(&[1, 2, 3], 1));
        assert!(!row_looks_like_photo(&[7, 7, 7, 7], 2));
        assert!(!row_looks_like_photo(&[], 4));
    }
}
