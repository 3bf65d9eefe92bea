//! A GIF frame's LZW codes walked without decoding them. A code stands
//! for a string of pixels whose length is all a check needs: a table of
//! lengths (each new entry one longer than the code before it) counts the
//! pixels the data yields and sees every code a decoder would refuse,
//! with no pixel and no string written.
//!
//! The rules are a decoder's, as weezl (through `gif`) and libnsgif
//! (libvips) apply them, codes read least significant bit first:
//! - codes start `min_size + 1` bits wide; `clear` is `1 << min_size`,
//!   `end` the code after it, new entries from the one after that;
//! - each code but the first after a clear adds an entry (until 4096),
//!   the previous code's string and one pixel; the width grows by a bit
//!   when the entry just added reached the widest code (up to 12 bits);
//! - the first code after a clear (or at the start) must be a pixel value
//!   (below `clear`); later codes must be at most the next entry (equal:
//!   the previous string and its own first pixel);
//! - the end code before the frame's last pixel leaves it short, as data
//!   that ends does.
//!
//! The walk stops at the frame's last pixel, as libnsgif does: the code
//! after it is not read. weezl reads one code past a full output buffer
//! and refuses the frame when that code is invalid; libvips decodes such
//! a frame (`gif.rs`'s tests and `__test__/decoder-agreement.test.mjs`
//! keep one).

/// Entries in a full table: codes are at most 12 bits wide.
const FULL: u32 = 4096;
const MAX_CODE_SIZE: u32 = 12;

/// Where a walk stands after the data it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walked {
    /// The frame's pixels are not all there yet.
    More,
    /// Every pixel of the frame: its data after them is not read.
    Whole,
    /// The end code came before the frame's last pixel.
    EndedEarly,
    /// A code no decoder decodes.
    Invalid,
}

/// The walk of one frame's codes, fed its data a piece at a time.
pub struct Codes {
    min_size: u8,
    /// Bits in a code now.
    size: u32,
    /// The entry the next code adds.
    next: u32,
    /// The previous code; `None` after a clear.
    prev: Option<u32>,
    /// Pixels in each code's string.
    lens: Box<[u32; FULL as usize]>,
    /// Bits read from the data and not used yet, the first in the lowest.
    bits: u64,
    held: u32,
    pixels: u64,
    wanted: u64,
}

impl Codes {
    pub fn new() -> Codes {
        Codes {
            min_size: 2,
            size: 3,
            next: 6,
            prev: None,
            lens: Box::new([1; FULL as usize]),
            bits: 0,
            held: 0,
            pixels: 0,
            wanted: 0,
        }
    }

    /// Start a frame of `wanted` pixels whose codes start `min_size + 1`
    /// bits wide (1 to 11, as `gif` checks before).
    pub fn start(&mut self, min_size: u8, wanted: u64) -> Walked {
        if !(1..=11).contains(&min_size) {
            return Walked::Invalid;
        }
        self.min_size = min_size;
        self.clear();
        // Pixel values are strings of one; entries are written before
        // they are read.
        self.lens[..1 << min_size].fill(1);
        (self.bits, self.held, self.pixels, self.wanted) = (0, 0, 0, wanted);
        if wanted == 0 {
            Walked::Whole
        } else {
            Walked::More
        }
    }

    fn clear(&mut self) {
        self.size = u32::from(self.min_size) + 1;
        self.next = (1 << self.min_size) + 2;
        self.prev = None;
    }

    /// Walk the codes in `data`, the next piece of the frame's data
    /// (sub-block bytes without their lengths).
    pub fn walk(&mut self, mut data: &[u8]) -> Walked {
        let clear = 1u32 << self.min_size;
        let end = clear + 1;
        // Locals, written back at the end, so the loop keeps them in
        // registers.
        let (mut size, mut next, mut bits, mut held, mut pixels) =
            (self.size, self.next, self.bits, self.held, self.pixels);
        let mut prev = self.prev;
        let lens = &mut *self.lens;
        // Bits are taken in whole bytes, 56 or more at a time, then codes
        // in a loop of their own while enough bits are held: the same
        // refills as one loop testing for a refill before each code, but
        // `toContent` of the bench's noise GIF (2.64 M codes) took 8.4-8.7
        // ms here instead of 9.7-9.8.
        let walked = 'walk: loop {
            if let Some(word) = data.first_chunk::<8>() {
                // Whole bytes up to 63 bits held.
                let take = (63 - held) / 8;
                bits |= u64::from_le_bytes(*word) << held;
                held += take * 8;
                bits &= (1 << held) - 1;
                data = &data[take as usize..];
            } else {
                while held <= 56 {
                    let Some((&byte, rest)) = data.split_first() else {
                        break;
                    };
                    bits |= u64::from(byte) << held;
                    held += 8;
                    data = rest;
                }
                if held < size {
                    break Walked::More;
                }
            }
            while held >= size {
                let code = (bits & ((1 << size) - 1)) as u32;
                bits >>= size;
                held -= size;
                let Some(before) = prev else {
                    // The first code after a clear: a pixel value, or
                    // another clear, or the end.
                    if code == clear {
                        continue;
                    }
                    if code == end {
                        break 'walk Walked::EndedEarly;
                    }
                    if code > clear {
                        break 'walk Walked::Invalid;
                    }
                    pixels += 1;
                    prev = Some(code);
                    if pixels >= self.wanted {
                        break 'walk Walked::Whole;
                    }
                    continue;
                };
                if code == clear {
                    (size, next, prev) = (u32::from(self.min_size) + 1, clear + 2, None);
                    continue;
                }
                if code == end {
                    break 'walk Walked::EndedEarly;
                }
                if code > next {
                    break 'walk Walked::Invalid;
                }
                // Codes are at most 12 bits: the masks only spare the
                // bounds checks.
                let added = lens[(before & (FULL - 1)) as usize] + 1;
                pixels += u64::from(if code == next {
                    added
                } else {
                    lens[(code & (FULL - 1)) as usize]
                });
                if next < FULL {
                    lens[(next & (FULL - 1)) as usize] = added;
                    next += 1;
                    if next >= 1 << size {
                        size = wider(size);
                    }
                }
                prev = Some(code);
                if pixels >= self.wanted {
                    break 'walk Walked::Whole;
                }
            }
        };
        (self.size, self.next, self.bits, self.held, self.pixels) =
            (size, next, bits, held, pixels);
        self.prev = prev;
        walked
    }

    /// Bits read from the data and not used by a code (tests: where the
    /// walk stopped).
    #[cfg(test)]
    pub fn unused_bits(&self) -> u32 {
        self.held
    }
}

/// The code width after the table reached the widest code of `size`
/// bits. Rare (a few times between clears), so a call the loop branches
/// around, predicted not taken: computed in line (compare, set, add) it
/// sat in the chain from one code's width to the next code's shift. The
/// bench's noise GIF (2.64 M codes) was checked in 6.5 ms instead of 7.7
/// (`decode_all`, here).
#[cold]
#[inline(never)]
fn wider(size: u32) -> u32 {
    (size + 1).min(MAX_CODE_SIZE)
}
