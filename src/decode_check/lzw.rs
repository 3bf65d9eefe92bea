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
//! Nothing after the frame's last pixel counts, as libnsgif stops there:
//! the walk may read on until its loop stops (the end of the piece it was
//! given, a widening, a rare code), but its answer is `Whole` once the
//! pixels are all there.
//! weezl reads one code past a full output buffer and refuses the frame
//! when that code is invalid; libvips decodes such a frame (`gif.rs`'s
//! tests and `__test__/decoder-agreement.test.mjs` keep one).

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
    /// `next` at which codes widen.
    widen_at: u32,
    /// Whether the table is full: codes add nothing.
    full: bool,
    /// Whether the next code is the first after a clear (or the start).
    fresh: bool,
    /// Pixels in the previous code's string.
    prev_len: u32,
    /// Pixels in each code's string, and 0 for `clear`, `end` and every
    /// code from `next` on: one test finds every code that is not a pixel
    /// value or an entry already made.
    lens: Box<[u32; FULL as usize]>,
    /// Bits read from the data and not used yet, the first in the lowest.
    bits: u64,
    held: u32,
    /// Pixels the frame still wants.
    left: i64,
}

/// Why the loop over codes stopped: what is rare is done outside it.
enum Stop {
    More,
    Widen,
    /// The first code after a clear (or at the start).
    Fresh(u32),
    /// A code of length 0 that is not the next entry: `clear`, `end`, or
    /// one past the table.
    Rare(u32),
}

impl Codes {
    pub fn new() -> Codes {
        Codes {
            min_size: 2,
            size: 3,
            next: 0,
            widen_at: 8,
            full: false,
            fresh: true,
            prev_len: 0,
            lens: Box::new([0; FULL as usize]),
            bits: 0,
            held: 0,
            left: 0,
        }
    }

    /// Start a frame of `wanted` pixels whose codes start `min_size + 1`
    /// bits wide (1 to 11, as `gif` checks before).
    pub fn start(&mut self, min_size: u8, wanted: u64) -> Walked {
        if !(1..=11).contains(&min_size) {
            return Walked::Invalid;
        }
        // The last frame's entries zeroed, pixel values one pixel long.
        let clear = 1 << min_size;
        let made = (self.next as usize).max(clear);
        self.lens[clear..made].fill(0);
        self.lens[..clear].fill(1);
        self.min_size = min_size;
        self.next = clear as u32 + 2;
        self.clear();
        // At most 65,535 by 65,535 pixels.
        self.left = i64::try_from(wanted).unwrap_or(i64::MAX);
        (self.bits, self.held) = (0, 0);
        if wanted == 0 {
            Walked::Whole
        } else {
            Walked::More
        }
    }

    /// The table back to pixel values only; the next code is fresh.
    fn clear(&mut self) {
        let first = (1 << self.min_size) + 2;
        self.lens[first as usize..self.next as usize].fill(0);
        self.size = u32::from(self.min_size) + 1;
        self.next = first;
        self.widen_at = 1 << self.size;
        self.full = false;
        self.fresh = true;
    }

    /// Walk the codes in `data`, the next piece of the frame's data
    /// (sub-block bytes without their lengths).
    pub fn walk(&mut self, mut data: &[u8]) -> Walked {
        let clear = 1u32 << self.min_size;
        let end = clear + 1;
        loop {
            // Locals, written back at each stop, so the loops over codes
            // keep them in registers: the bench's noise GIF (2.64 M codes)
            // was walked in 4.0 ms, against 6.6 with every case tested
            // in one loop. The pixels left are tested at the stops only,
            // not at each code (about 17% less time).
            let (mut bits, mut held, mut next, mut prev_len, mut left) =
                (self.bits, self.held, self.next, self.prev_len, self.left);
            let (size, widen_at, full, fresh) = (self.size, self.widen_at, self.full, self.fresh);
            let mask = (1u64 << size) - 1;
            let lens = &mut *self.lens;
            // Bits are taken in whole bytes, 56 or more at a time, then
            // codes while enough bits are held.
            let stop = 'codes: loop {
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
                        break Stop::More;
                    }
                }
                if fresh {
                    let code = (bits & mask) as u32;
                    bits >>= size;
                    held -= size;
                    break Stop::Fresh(code);
                }
                // Codes are at most 12 bits and `next` below `FULL` until
                // the table is full: the masks only spare bounds checks.
                if full {
                    while held >= size {
                        let code = (bits & mask) as u32;
                        bits >>= size;
                        held -= size;
                        let len = lens[(code & (FULL - 1)) as usize];
                        if len == 0 {
                            break 'codes Stop::Rare(code);
                        }
                        left -= i64::from(len);
                    }
                    continue;
                }
                while held >= size {
                    let code = (bits & mask) as u32;
                    bits >>= size;
                    held -= size;
                    let mut len = lens[(code & (FULL - 1)) as usize];
                    if len == 0 {
                        if code != next {
                            break 'codes Stop::Rare(code);
                        }
                        // The entry this code adds: the previous string
                        // and its own first pixel.
                        len = prev_len + 1;
                    }
                    lens[(next & (FULL - 1)) as usize] = prev_len + 1;
                    next += 1;
                    prev_len = len;
                    left -= i64::from(len);
                    if next >= widen_at {
                        break 'codes Stop::Widen;
                    }
                }
            };
            (self.bits, self.held, self.next, self.prev_len, self.left) =
                (bits, held, next, prev_len, left);
            // Whatever stopped the loop, codes after the last pixel do not
            // count.
            if left <= 0 {
                return Walked::Whole;
            }
            match stop {
                Stop::More => return Walked::More,
                Stop::Widen => {
                    if size < MAX_CODE_SIZE {
                        self.size += 1;
                        self.widen_at = 1 << self.size;
                    } else {
                        self.full = true;
                    }
                }
                Stop::Fresh(code) if code < clear => {
                    // A pixel value: it adds no entry.
                    self.fresh = false;
                    self.prev_len = 1;
                    self.left -= 1;
                    if self.left <= 0 {
                        return Walked::Whole;
                    }
                }
                Stop::Fresh(code) | Stop::Rare(code) if code == clear => self.clear(),
                Stop::Fresh(code) | Stop::Rare(code) if code == end => return Walked::EndedEarly,
                Stop::Fresh(_) | Stop::Rare(_) => return Walked::Invalid,
            }
        }
    }
}
