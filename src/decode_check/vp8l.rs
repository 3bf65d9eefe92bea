//! A lossless WebP's image stream (VP8L) walked as `image-webp` decodes
//! it, no pixel of the image made: what the decoder can refuse is all in
//! its prefix codes and in where its copies reach, so the walk reads every
//! code it reads and checks every copy, and makes only the pixels whose
//! values steer the decoding (the entropy image, which picks each block's
//! codes). The transforms cannot fail once read (an unknown predictor
//! predicts nothing, a colour index past the palette is transparent), nor
//! can the colour cache (its indexes are below its size by its alphabet),
//! so neither is applied.
//!
//! The decoder's rules it keeps, as `image-webp` 0.2 applies them (see
//! `fuzz/fuzz_targets/webp.rs`): the header's size must be the
//! container's; each transform once; colour-cache bits 1 to 11; a prefix
//! code complete unless it has one symbol; code lengths that stay within
//! the alphabet; a copy within the pixels decoded and the image. One rule
//! is libwebp's where `image-webp`'s arithmetic wraps: a code whose
//! lengths oversubscribe it is refused.

mod bits;
mod prefix_code;
#[cfg(test)]
mod tests;

use std::num::NonZeroUsize;

use bits::{Bits, Stop};
use prefix_code::PrefixCode;

/// What a walk found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walked {
    Decodes,
    Corrupt,
    /// Refused for a prefix code with more codes than its lengths allow
    /// (`Stop::Oversubscribed`).
    Oversubscribed,
    /// The stream needs more memory than allowed: not walked to its end.
    OverAllowance,
}

/// Walk the VP8L stream `stream` (the chunk's payload) of an image the
/// container says is `width` x `height`, holding at most `allowance` bytes.
pub fn walk(stream: &[u8], width: u32, height: u32, allowance: usize) -> Walked {
    let mut memory = Memory { used: 0, allowance };
    match walk_frame(&mut Bits::new(stream), width, height, &mut memory) {
        Ok(()) => Walked::Decodes,
        Err(Stop::Corrupt) => Walked::Corrupt,
        Err(Stop::Oversubscribed) => Walked::Oversubscribed,
        Err(Stop::OverAllowance) => Walked::OverAllowance,
    }
}

/// Bytes the walk holds, against what it may.
pub struct Memory {
    used: usize,
    allowance: usize,
}

impl Memory {
    fn charge(&mut self, bytes: usize) -> Result<(), Stop> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.allowance {
            return Err(Stop::OverAllowance);
        }
        Ok(())
    }
}

/// A pixel's codes: green (with copy lengths and cache indexes), red,
/// blue, alpha, copy distance.
type Group = [PrefixCode; 5];
const GREEN: usize = 0;
const RED: usize = 1;
const BLUE: usize = 2;
const ALPHA: usize = 3;
const DISTANCE: usize = 4;
const ALPHABETS: [u16; 5] = [256 + 24, 256, 256, 256, 40];
/// Green's symbols from here on are copy lengths, then cache indexes.
const LITERALS: u16 = 256;
const CACHE_FROM: u16 = 256 + 24;

fn walk_frame(bits: &mut Bits, width: u32, height: u32, memory: &mut Memory) -> Result<(), Stop> {
    if bits.read(8)? != 0x2f {
        return Err(Stop::Corrupt);
    }
    let stream_width = bits.read(14)? + 1;
    let stream_height = bits.read(14)? + 1;
    if (stream_width, stream_height) != (width, height) {
        return Err(Stop::Corrupt);
    }
    let _alpha_hint = bits.read(1)?;
    if bits.read(3)? != 0 {
        return Err(Stop::Corrupt);
    }
    // Both fit in 14 bits plus one.
    let (width, height) = (stream_width as u16, stream_height as u16);
    let coded_width = walk_transforms(bits, width, height, memory)?;
    walk_image(bits, coded_width, height, true, memory)
}

/// Read the transforms, walking their images; the width of the image
/// coded after them (narrower when palette indexes are packed).
fn walk_transforms(
    bits: &mut Bits,
    width: u16,
    height: u16,
    memory: &mut Memory,
) -> Result<u16, Stop> {
    let mut seen = [false; 4];
    let mut width = width;
    while bits.read(1)? == 1 {
        let kind = bits.read(2)? as usize;
        if std::mem::replace(&mut seen[kind], true) {
            return Err(Stop::Corrupt);
        }
        match kind {
            // Predictor, colour: a mode or multipliers per block.
            0 | 1 => {
                let block_bits = bits.read(3)? as u8 + 2;
                let (x, y) = (subsample(width, block_bits), subsample(height, block_bits));
                walk_image(bits, x, y, false, memory)?;
            }
            // Subtract green: nothing to read.
            2 => {}
            // Colour indexing: the palette, then indexes packed 8, 4 or 2
            // to a pixel for palettes of 2, 4 or 16 colours at most.
            _ => {
                let colours = bits.read(8)? as u16 + 1;
                walk_image(bits, colours, 1, false, memory)?;
                let packing = match colours {
                    0..=2 => 3,
                    3..=4 => 2,
                    5..=16 => 1,
                    _ => 0,
                };
                width = subsample(width, packing);
            }
        }
    }
    Ok(width)
}

fn subsample(size: u16, bits: u8) -> u16 {
    ((u32::from(size) + (1 << bits) - 1) >> bits) as u16
}

/// The colour cache's size in bits, when the image has one.
fn read_cache_bits(bits: &mut Bits) -> Result<Option<u8>, Stop> {
    if bits.read(1)? == 0 {
        return Ok(None);
    }
    let cache_bits = bits.read(4)? as u8;
    if !(1..=11).contains(&cache_bits) {
        return Err(Stop::Corrupt);
    }
    Ok(Some(cache_bits))
}

/// Each block's codes: the groups, and which one each block takes.
struct Codes {
    groups: Vec<Group>,
    /// The group of each block, row by row (empty: one group for all).
    blocks: Vec<u16>,
    /// Blocks are `1 << block_bits` pixels square; 0 when there is one group.
    block_bits: u8,
    blocks_wide: usize,
    cached: bool,
}

impl Codes {
    fn read(
        bits: &mut Bits,
        width: u16,
        height: u16,
        with_blocks: bool,
        cache_bits: Option<u8>,
        memory: &mut Memory,
    ) -> Result<Codes, Stop> {
        let mut codes = Codes {
            groups: Vec::new(),
            blocks: Vec::new(),
            block_bits: 0,
            blocks_wide: 1,
            cached: cache_bits.is_some(),
        };
        let mut groups = 1;
        if with_blocks && bits.read(1)? == 1 {
            codes.block_bits = bits.read(3)? as u8 + 2;
            let (x, y) = (
                subsample(width, codes.block_bits),
                subsample(height, codes.block_bits),
            );
            codes.blocks_wide = usize::from(x);
            // The group is in red and green.
            let pixels = decode_image(bits, x, y, memory)?;
            memory.charge(2 * pixels.len())?;
            codes.blocks = pixels
                .iter()
                .map(|&[red, green, _, _]| u16::from_be_bytes([red, green]))
                .collect();
            groups = codes
                .blocks
                .iter()
                .max()
                .map_or(1, |&max| usize::from(max) + 1);
        }
        let cache_size = cache_bits.map_or(0, |bits| 1 << bits);
        memory.charge(groups * std::mem::size_of::<Group>())?;
        codes.groups.reserve_exact(groups);
        for _ in 0..groups {
            let mut read = |which: usize| {
                let extra = if which == GREEN { cache_size } else { 0 };
                PrefixCode::read(bits, ALPHABETS[which] + extra, memory)
            };
            codes.groups.push([
                read(GREEN)?,
                read(RED)?,
                read(BLUE)?,
                read(ALPHA)?,
                read(DISTANCE)?,
            ]);
        }
        Ok(codes)
    }

    /// The codes of the block at `index` in an image `width` wide, and
    /// the pixel after the block's end in its row (where the decoder looks
    /// its codes up again).
    #[inline(always)]
    fn block_at(&self, index: usize, width: NonZeroUsize) -> Result<(&Group, usize), Stop> {
        let (x, y) = (index % width, index / width);
        let (group, mask) = match self.block_bits {
            0 => (0, usize::from(u16::MAX)),
            bits => {
                let block = (y >> bits) * self.blocks_wide + (x >> bits);
                let group = self.blocks.get(block).ok_or(Stop::Corrupt)?;
                (usize::from(*group), (1 << bits) - 1)
            }
        };
        let end = (x | mask).min(width.get() - 1) + y * width.get() + 1;
        Ok((self.groups.get(group).ok_or(Stop::Corrupt)?, end))
    }
}

/// Walk an image stream of `width` x `height` pixels: its cache bits, its
/// codes (and blocks, for the image itself), then every pixel's codes.
fn walk_image(
    bits: &mut Bits,
    width: u16,
    height: u16,
    with_blocks: bool,
    memory: &mut Memory,
) -> Result<(), Stop> {
    let cache_bits = read_cache_bits(bits)?;
    let codes = Codes::read(bits, width, height, with_blocks, cache_bits, memory)?;
    let width = NonZeroUsize::new(usize::from(width)).ok_or(Stop::Corrupt)?;
    // The reader's state in locals for the loop (a copy the compiler
    // keeps in registers, not the caller's, stored at every symbol: 40%
    // slower on the bench's WebP), written back after it.
    let mut local = bits.clone();
    walk_pixels(&mut local, &codes, width, usize::from(height))?;
    *bits = local;
    Ok(())
}

/// Every pixel's codes read, copies checked (`walk_image`).
#[inline(always)]
fn walk_pixels(
    bits: &mut Bits,
    codes: &Codes,
    width: NonZeroUsize,
    height: usize,
) -> Result<(), Stop> {
    let pixels = width.get() * height;
    let mut index = 0;
    // The codes are looked up at the first pixel.
    let (mut group, mut block_end) = (codes.block_at(0, width)?.0, 0);
    while index < pixels {
        bits.refill();
        if index >= block_end {
            (group, block_end) = codes.block_at(index, width)?;
            // A block of one colour: its codes are read in no bits.
            if group[..4].iter().all(PrefixCode::is_single) && group[GREEN].symbol(bits)? < LITERALS
            {
                index += if codes.block_bits == 0 {
                    pixels
                } else {
                    block_end - index
                };
                continue;
            }
        }
        let green = group[GREEN].symbol(bits)?;
        if green < LITERALS {
            group[RED].skip(bits)?;
            group[BLUE].skip(bits)?;
            if bits.held() < 15 {
                bits.refill();
            }
            group[ALPHA].skip(bits)?;
            index += 1;
        } else if green < CACHE_FROM {
            let length = copy_reach(bits, group, green, width.get())?;
            index = copy_end(index, length, pixels)?;
        } else {
            if !codes.cached {
                return Err(Stop::Corrupt);
            }
            index += 1;
            // The decoder reads a second cache index at once, without a
            // refill, when its code is in the table.
            if index < block_end {
                if let Some((length, symbol)) = group[GREEN].peek_short(bits) {
                    if symbol >= CACHE_FROM {
                        bits.consume(length)?;
                        index += 1;
                    }
                }
            }
        }
    }
    Ok(())
}

/// A copy's length and distance in pixels, read after its length code.
#[inline(always)]
fn copy_reach(
    bits: &mut Bits,
    group: &Group,
    green: u16,
    width: usize,
) -> Result<(usize, usize), Stop> {
    let length = prefixed_value(bits, green - LITERALS)?;
    let distance_code = group[DISTANCE].symbol(bits)?;
    let distance = plane_distance(width, prefixed_value(bits, distance_code)?);
    Ok((length, distance))
}

/// Where a copy ends: it must start within the pixels decoded and end
/// within the image.
#[inline(always)]
fn copy_end(
    index: usize,
    (length, distance): (usize, usize),
    pixels: usize,
) -> Result<usize, Stop> {
    if index < distance || pixels - index < length {
        return Err(Stop::Corrupt);
    }
    Ok(index + length)
}

/// A length or distance: its prefix symbol and extra bits.
#[inline(always)]
fn prefixed_value(bits: &mut Bits, prefix: u16) -> Result<usize, Stop> {
    if prefix < 4 {
        return Ok(usize::from(prefix) + 1);
    }
    let extra = ((prefix - 2) >> 1) as u8;
    let offset = (2 + usize::from(prefix & 1)) << extra;
    let value = (bits.peek() & ((1 << extra) - 1)) as usize;
    bits.consume(extra)?;
    Ok(offset + value + 1)
}

/// The first 120 distance codes are nearby pixels, (x, y) from the one
/// decoded: the decoder's table (the lossless format's).
#[rustfmt::skip]
const NEARBY: [(i8, i8); 120] = [
    (0, 1),  (1, 0),  (1, 1),  (-1, 1), (0, 2),  (2, 0),  (1, 2),  (-1, 2),
    (2, 1),  (-2, 1), (2, 2),  (-2, 2), (0, 3),  (3, 0),  (1, 3),  (-1, 3),
    (3, 1),  (-3, 1), (2, 3),  (-2, 3), (3, 2),  (-3, 2), (0, 4),  (4, 0),
    (1, 4),  (-1, 4), (4, 1),  (-4, 1), (3, 3),  (-3, 3), (2, 4),  (-2, 4),
    (4, 2),  (-4, 2), (0, 5),  (3, 4),  (-3, 4), (4, 3),  (-4, 3), (5, 0),
    (1, 5),  (-1, 5), (5, 1),  (-5, 1), (2, 5),  (-2, 5), (5, 2),  (-5, 2),
    (4, 4),  (-4, 4), (3, 5),  (-3, 5), (5, 3),  (-5, 3), (0, 6),  (6, 0),
    (1, 6),  (-1, 6), (6, 1),  (-6, 1), (2, 6),  (-2, 6), (6, 2),  (-6, 2),
    (4, 5),  (-4, 5), (5, 4),  (-5, 4), (3, 6),  (-3, 6), (6, 3),  (-6, 3),
    (0, 7),  (7, 0),  (1, 7),  (-1, 7), (5, 5),  (-5, 5), (7, 1),  (-7, 1),
    (4, 6),  (-4, 6), (6, 4),  (-6, 4), (2, 7),  (-2, 7), (7, 2),  (-7, 2),
    (3, 7),  (-3, 7), (7, 3),  (-7, 3), (5, 6),  (-5, 6), (6, 5),  (-6, 5),
    (8, 0),  (4, 7),  (-4, 7), (7, 4),  (-7, 4), (8, 1),  (8, 2),  (6, 6),
    (-6, 6), (8, 3),  (5, 7),  (-5, 7), (7, 5),  (-7, 5), (8, 4),  (6, 7),
    (-6, 7), (7, 6),  (-7, 6), (8, 5),  (7, 7),  (-7, 7), (8, 6),  (8, 7),
];

fn plane_distance(width: usize, code: usize) -> usize {
    match code.checked_sub(1).and_then(|at| NEARBY.get(at)) {
        Some(&(x, y)) => {
            let distance = i64::from(x) + i64::from(y) * width as i64;
            distance.max(1) as usize
        }
        None => code - 120,
    }
}

/// Decode an image whose pixel values are needed (the entropy image),
/// as red, green, blue, alpha; it has one group of codes.
fn decode_image(
    bits: &mut Bits,
    width: u16,
    height: u16,
    memory: &mut Memory,
) -> Result<Vec<[u8; 4]>, Stop> {
    let cache_bits = read_cache_bits(bits)?;
    let codes = Codes::read(bits, width, height, false, cache_bits, memory)?;
    let group = &codes.groups[0];
    let width = usize::from(width);
    let pixels = width * usize::from(height);
    memory.charge(4 * pixels + cache_bits.map_or(0, |b| 4 << b))?;
    let mut cache = ColourCache::new(cache_bits);
    let mut out: Vec<[u8; 4]> = Vec::with_capacity(pixels);
    while out.len() < pixels {
        bits.refill();
        // A one-colour image (the decoder looks at each row's start, but
        // its green code cannot say a colour there and not at the first).
        if out.is_empty() && group[..4].iter().all(PrefixCode::is_single) {
            let green = group[GREEN].symbol(bits)?;
            if green < LITERALS {
                let pixel = [
                    group[RED].symbol(bits)? as u8,
                    green as u8,
                    group[BLUE].symbol(bits)? as u8,
                    group[ALPHA].symbol(bits)? as u8,
                ];
                out.resize(pixels, pixel);
                cache.insert(pixel);
                continue;
            }
        }
        let green = group[GREEN].symbol(bits)?;
        if green < LITERALS {
            let red = group[RED].symbol(bits)? as u8;
            let blue = group[BLUE].symbol(bits)? as u8;
            if bits.held() < 15 {
                bits.refill();
            }
            let alpha = group[ALPHA].symbol(bits)? as u8;
            let pixel = [red, green as u8, blue, alpha];
            out.push(pixel);
            cache.insert(pixel);
        } else if green < CACHE_FROM {
            let (length, distance) = copy_reach(bits, group, green, width)?;
            let start = out.len();
            copy_end(start, (length, distance), pixels)?;
            for at in start..start + length {
                out.push(out[at - distance]);
            }
            // The decoder caches a copy's pixels unless it repeats one.
            if distance != 1 {
                for &pixel in &out[start..] {
                    cache.insert(pixel);
                }
            }
        } else {
            let Some(cached) = cache.get(green - CACHE_FROM) else {
                return Err(Stop::Corrupt);
            };
            out.push(cached);
            if !out.len().is_multiple_of(width) && out.len() < pixels {
                if let Some((length, symbol)) = group[GREEN].peek_short(bits) {
                    if symbol >= CACHE_FROM {
                        bits.consume(length)?;
                        let cached = cache.get(symbol - CACHE_FROM).ok_or(Stop::Corrupt)?;
                        out.push(cached);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Recent colours by a hash of their value; a decoded cache index takes
/// one. The decoder caches literals and copies, not cache reads.
struct ColourCache {
    colours: Vec<[u8; 4]>,
    shift: u32,
}

impl ColourCache {
    fn new(bits: Option<u8>) -> Self {
        let bits = bits.map_or(0, u32::from);
        ColourCache {
            colours: if bits == 0 {
                Vec::new()
            } else {
                vec![[0; 4]; 1 << bits]
            },
            shift: 32 - bits,
        }
    }

    fn insert(&mut self, pixel: [u8; 4]) {
        if self.colours.is_empty() {
            return;
        }
        let [red, green, blue, alpha] = pixel;
        let argb = u32::from_be_bytes([alpha, red, green, blue]);
        let at = 0x1e35_a7bd_u32.wrapping_mul(argb) >> self.shift;
        self.colours[at as usize] = pixel;
    }

    fn get(&self, index: u16) -> Option<[u8; 4]> {
        self.colours.get(usize::from(index)).copied()
    }
}
