//! A GIF checked as a decoder reads it, without decoding its pixels, in
//! one pass over its bytes: its blocks refused where `gif` refuses them
//! (a bad header or code size, a frame with no colour table, an unknown
//! block or extension, a graphic control extension that is not 4 bytes,
//! data that ends before the trailer), and each frame's LZW codes walked
//! ([`super::lzw`]). The bench's 3.7 MB frame of noise took 23 ms a call
//! with its codes decoded, 10 ms walked (docs/performance.md).
//!
//! `gif` reading the blocks in a pass of its own took about 5% of the
//! call; the tests and the `gif` fuzz target hold this pass to it
//! (`gif_reads_blocks`). One limit of `gif`'s own is not kept: it refuses
//! more than 50 MB of XMP or ICC data, which no format rule asks.

use std::io::{self, BufRead, Read};

use super::lzw::{Codes, Walked};

/// `Err` when the blocks do not read or a frame's codes do not give all
/// its pixels (the error's words are not shown: `decode_all` says it in
/// its own).
pub fn check(mut data: impl BufRead) -> Result<(), ()> {
    frames_whole(&mut data)
        .map_err(drop)?
        .then_some(())
        .ok_or(())
}

/// Whether every frame's codes give all its pixels; `Err` for blocks
/// `gif` does not read.
fn frames_whole(data: &mut impl BufRead) -> io::Result<bool> {
    let mut screen = [0; 13];
    data.read_exact(&mut screen)?;
    if !matches!(&screen[..6], b"GIF87a" | b"GIF89a") {
        return Err(refused("header"));
    }
    let global_table = color_table_len(screen[10]);
    skip(data, global_table)?;
    let mut codes = Codes::new();
    let mut images = 0;
    loop {
        match byte(data)? {
            EXTENSION => extension(data)?,
            IMAGE => {
                images += 1;
                let mut image = [0; 9];
                data.read_exact(&mut image)?;
                let side = |at: usize| u64::from(u16::from_le_bytes([image[at], image[at + 1]]));
                let local_table = color_table_len(image[8]);
                if global_table == 0 && local_table == 0 {
                    return Err(refused("frame with no colour table"));
                }
                skip(data, local_table)?;
                let min_size = byte(data)?;
                let walked = codes.start(min_size, side(4) * side(6));
                if walked == Walked::Invalid {
                    return Err(refused("code size"));
                }
                if frame_walked(data, &mut codes, walked)? != Walked::Whole {
                    return Ok(false);
                }
            }
            // No image, no picture: libvips refuses it, as the sniffer
            // does (`gif` reads one only with a byte after its trailer).
            TRAILER if images == 0 => return Err(refused("no image")),
            TRAILER => return Ok(true),
            other => return Err(refused(&format!("block 0x{other:02X}"))),
        }
    }
}

const EXTENSION: u8 = 0x21;
const IMAGE: u8 = 0x2C;
const TRAILER: u8 = 0x3B;

/// The extension labels `gif` reads: plain text, graphic control,
/// comment, application.
const KNOWN_EXTENSIONS: [u8; 4] = [0x01, GRAPHIC_CONTROL, 0xFE, 0xFF];
const GRAPHIC_CONTROL: u8 = 0xF9;

/// An extension after its introducer: its label and sub-blocks. `gif`
/// reads a graphic control extension from its last sub-block, which must
/// be 4 bytes.
fn extension(data: &mut impl BufRead) -> io::Result<()> {
    let label = byte(data)?;
    if !KNOWN_EXTENSIONS.contains(&label) {
        return Err(refused(&format!("extension 0x{label:02X}")));
    }
    let mut last = 0;
    while let len @ 1.. = byte(data)? {
        skip(data, len.into())?;
        last = len;
    }
    if label == GRAPHIC_CONTROL && last != 4 {
        return Err(refused("graphic control extension"));
    }
    Ok(())
}

fn refused(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// A frame's sub-blocks, up to the empty one that ends them, their codes
/// walked until the walk has its answer.
fn frame_walked(
    data: &mut impl BufRead,
    codes: &mut Codes,
    mut walked: Walked,
) -> io::Result<Walked> {
    let mut copy = [0; 255];
    while let len @ 1.. = byte(data)? {
        let len = usize::from(len);
        if walked != Walked::More {
            skip(data, len as u64)?;
            continue;
        }
        // The sub-block where it lies, when the reader holds it whole.
        let held = data.fill_buf()?;
        if held.len() >= len {
            walked = codes.walk(&held[..len]);
            data.consume(len);
        } else {
            data.read_exact(&mut copy[..len])?;
            walked = codes.walk(&copy[..len]);
        }
    }
    Ok(walked)
}

/// Bytes in a colour table whose flags are `flags` (global or local).
fn color_table_len(flags: u8) -> u64 {
    if flags & 0x80 == 0 {
        0
    } else {
        3 << ((flags & 7) + 1)
    }
}

fn byte(data: &mut impl BufRead) -> io::Result<u8> {
    let mut one = [0];
    data.read_exact(&mut one)?;
    Ok(one[0])
}

fn skip(data: &mut impl BufRead, len: u64) -> io::Result<()> {
    let skipped = io::copy(&mut Read::take(&mut *data, len), &mut io::sink())?;
    if skipped == len {
        Ok(())
    } else {
        Err(io::ErrorKind::UnexpectedEof.into())
    }
}

/// Whether `gif` reads every block up to the trailer, each frame's data
/// skipped: what this check's reading of the blocks is held to.
#[cfg(any(test, fuzzing))]
pub fn gif_reads_blocks(gif: &[u8]) -> bool {
    let read = || -> Result<(), ::gif::DecodingError> {
        let mut options = ::gif::DecodeOptions::new();
        options.skip_frame_decoding(true);
        let mut decoder = options.read_info(std::io::Cursor::new(gif))?;
        while decoder.next_frame_info()?.is_some() {}
        Ok(())
    };
    read().is_ok()
}

/// Whether `gif` (weezl) decodes at least one frame and every pixel of
/// every frame (the check before the walk decoded them so): what the walk
/// is held to by the tests and the `gif` fuzz target.
#[cfg(any(test, fuzzing))]
pub fn decodes_every_pixel(gif: &[u8]) -> bool {
    let decode = || -> Result<bool, ::gif::DecodingError> {
        let mut options = ::gif::DecodeOptions::new();
        options.set_color_output(::gif::ColorOutput::Indexed);
        let mut decoder = options.read_info(std::io::Cursor::new(gif))?;
        let mut block = vec![0; 16 * 1024];
        let mut frames = 0;
        while decoder.next_frame_info()?.is_some() {
            frames += 1;
            let mut left = decoder.buffer_size();
            while left > 0 {
                let n = left.min(block.len());
                if !decoder.fill_buffer(&mut block[..n])? {
                    return Ok(false);
                }
                left -= n;
            }
        }
        Ok(frames > 0)
    };
    decode().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn decoded(gif: &[u8]) -> bool {
        decodes_every_pixel(gif)
    }

    fn walked(gif: &[u8]) -> bool {
        check(Cursor::new(gif)).is_ok()
    }

    /// A GIF of one `width` x `height` frame whose LZW data is `codes`
    /// (`min_size`), in sub-blocks of 255.
    fn one_frame(width: u16, height: u16, min_size: u8, codes: &[u8]) -> Vec<u8> {
        let mut gif = b"GIF89a".to_vec();
        gif.extend_from_slice(&width.to_le_bytes());
        gif.extend_from_slice(&height.to_le_bytes());
        gif.extend_from_slice(&[0x87, 0, 0]);
        gif.extend_from_slice(&[0; 768]);
        gif.push(IMAGE);
        gif.extend_from_slice(&[0, 0, 0, 0]);
        gif.extend_from_slice(&width.to_le_bytes());
        gif.extend_from_slice(&height.to_le_bytes());
        gif.push(0);
        gif.push(min_size);
        for block in codes.chunks(255) {
            gif.push(block.len() as u8);
            gif.extend_from_slice(block);
        }
        gif.extend_from_slice(&[0, TRAILER]);
        gif
    }

    /// Codes written least significant bit first, as a GIF holds them.
    #[derive(Default)]
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        held: u32,
    }

    impl Bits {
        fn put(&mut self, code: u32, size: u32) {
            self.acc |= u64::from(code) << self.held;
            self.held += size;
            while self.held >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.held -= 8;
            }
        }
        fn done(mut self) -> Vec<u8> {
            if self.held > 0 {
                self.out.push(self.acc as u8);
            }
            self.out
        }
    }

    /// xorshift64: the same cases on every run.
    struct Seeded(u64);

    impl Seeded {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Valid codes picked at random (any entry of the table, the next one,
    /// a clear now and then), `count` of them and the end code, with the
    /// widths a decoder expects; and how many pixels they give.
    /// `clear_every` of 0 never clears, so the table fills and stays full.
    fn random_codes(
        random: &mut Seeded,
        min_size: u8,
        count: usize,
        clear_every: u64,
    ) -> (Vec<u8>, u64) {
        let clear = 1u32 << min_size;
        let mut bits = Bits::default();
        let mut lens = vec![1u64; 4096];
        let (mut size, mut next, mut prev) = (u32::from(min_size) + 1, clear + 2, None);
        let mut pixels = 0;
        bits.put(clear, size);
        for _ in 0..count {
            if clear_every > 0 && random.below(clear_every) == 0 {
                bits.put(clear, size);
                (size, next, prev) = (u32::from(min_size) + 1, clear + 2, None);
                continue;
            }
            let Some(before) = prev else {
                let code = random.below(u64::from(clear)) as u32;
                bits.put(code, size);
                pixels += 1;
                prev = Some(code);
                continue;
            };
            // At most the next entry, and no wider than the codes are now
            // (with a 1-bit code size the first entry, 4, comes before
            // codes widen to 3 bits).
            let most = next.min(4095).min((1 << size) - 1);
            let code = loop {
                let code = random.below(u64::from(most) + 1) as u32;
                if code != clear && code != clear + 1 {
                    break code;
                }
            };
            bits.put(code, size);
            let added = lens[before as usize] + 1;
            pixels += if code == next {
                added
            } else {
                lens[code as usize]
            };
            if next < 4096 {
                lens[next as usize] = added;
                next += 1;
                if next >= 1 << size && size < 12 {
                    size += 1;
                }
            }
            prev = Some(code);
        }
        bits.put(clear + 1, size);
        (bits.done(), pixels)
    }

    /// Frame sides for about `pixels` pixels: exactly, one more or fewer,
    /// or anything.
    fn sides(random: &mut Seeded, pixels: u64) -> (u16, u16) {
        let wanted = match random.below(4) {
            0 => pixels,
            1 => pixels + 1,
            2 => pixels.saturating_sub(1).max(1),
            _ => 1 + random.below(pixels * 2 + 2),
        };
        // Width x 1 when it fits, else a near split.
        if wanted <= u64::from(u16::MAX) {
            (wanted as u16, 1)
        } else {
            let width = (wanted as f64).sqrt().ceil() as u64;
            (width as u16, wanted.div_ceil(width) as u16)
        }
    }

    fn damaged(random: &mut Seeded, mut codes: Vec<u8>) -> Vec<u8> {
        if codes.is_empty() {
            return codes;
        }
        let at = random.below(codes.len() as u64) as usize;
        match random.below(3) {
            0 => codes[at] ^= 1 << random.below(8),
            1 => codes.truncate(at),
            _ => codes[at] = random.below(256) as u8,
        }
        codes
    }

    #[test]
    fn the_walk_passes_what_gif_decodes_and_refuses_nothing_else_but_the_code_after_the_last_pixel()
    {
        let mut random = Seeded(0x9e37_79b9_7f4a_7c15);
        let (mut cases, mut passed, mut past_last_pixel) = (0, 0, 0);
        for case in 0..6000 {
            let min_size = 1 + random.below(8) as u8;
            let (codes, pixels) = match case % 4 {
                // Bytes at random: refused early, mostly.
                0 => {
                    let len = 1 + random.below(400);
                    ((0..len).map(|_| random.below(256) as u8).collect(), 64)
                }
                // A full table kept on (no clear), or clears now and then.
                1 => random_codes(&mut random, min_size, 5000, 0),
                _ => {
                    let count = 1 + random.below(3000) as usize;
                    random_codes(&mut random, min_size, count, 200)
                }
            };
            let codes = if case % 4 == 3 {
                damaged(&mut random, codes)
            } else {
                codes
            };
            let (width, height) = sides(&mut random, pixels);
            let gif = one_frame(width, height, min_size, &codes);
            cases += 1;
            let (walk, decode) = (walked(&gif), decoded(&gif));
            passed += u32::from(walk);
            if walk == decode {
                continue;
            }
            assert!(walk, "case {case}: gif decodes it, the walk refuses it");
            // weezl read one code past the last pixel and refused that
            // code: with the data cut after the last pixel's code (the
            // fewest bytes that walk whole), it decodes the frame.
            let pixels = u64::from(width) * u64::from(height);
            let used = (1..=codes.len())
                .find(|&len| {
                    let mut walk = Codes::new();
                    walk.start(min_size, pixels);
                    walk.walk(&codes[..len]) == Walked::Whole
                })
                .expect("the whole data walks whole");
            let cut = one_frame(width, height, min_size, &codes[..used]);
            assert!(
                decoded(&cut),
                "case {case}: refused by gif for another reason"
            );
            past_last_pixel += 1;
        }
        // Both verdicts are well represented, and the one difference is rare.
        assert!(
            passed > cases / 4 && passed < cases * 3 / 4,
            "{passed} of {cases} passed"
        );
        assert!(past_last_pixel < cases / 50, "{past_last_pixel} of {cases}");
    }

    #[test]
    fn blocks_are_refused_where_gif_refuses_them_in_the_same_pass() {
        // One pixel, min size 2: clear, pixel 0, end.
        let mut bits = Bits::default();
        for code in [4, 0, 5] {
            bits.put(code, 3);
        }
        let sound = one_frame(1, 1, 2, &bits.done());
        // The image block after the screen and its colour table.
        let image_at = 13 + 768;
        let edited = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut gif = sound.clone();
            edit(&mut gif);
            gif
        };
        let with_extension = |extension: &[u8]| {
            edited(&|gif| {
                gif.splice(image_at..image_at, extension.iter().copied());
            })
        };
        let no_global_table = |gif: &mut Vec<u8>| {
            gif[10] = 0;
            gif.drain(13..image_at);
        };
        let read_by_both = [
            ("the sound GIF", sound.clone()),
            (
                "a local colour table only",
                edited(&|gif| {
                    no_global_table(gif);
                    gif[13 + 9] = 0x80;
                    gif.splice(13 + 10..13 + 10, [0; 6]);
                }),
            ),
            (
                "a graphic control extension",
                with_extension(&[0x21, 0xF9, 4, 0, 0, 0, 0, 0]),
            ),
            (
                "a graphic control extension whose last sub-block is 4 bytes",
                with_extension(&[0x21, 0xF9, 2, 0, 0, 4, 0, 0, 0, 0, 0]),
            ),
            ("a comment", with_extension(&[0x21, 0xFE, 2, b'h', b'i', 0])),
            (
                "a plain text extension",
                with_extension(&[0x21, 0x01, 1, 0, 0]),
            ),
            (
                "an application extension",
                with_extension(&[0x21, 0xFF, 3, b'a', b'b', b'c', 0]),
            ),
        ];
        for (what, gif) in read_by_both {
            assert!(gif_reads_blocks(&gif), "{what}: gif refuses it");
            assert!(walked(&gif), "{what}: the check refuses it");
        }
        let refused_by_both = [
            ("a GIF88a header", edited(&|gif| gif[4] = b'8')),
            ("a frame with no colour table", edited(&no_global_table)),
            ("code size 0", edited(&|gif| gif[image_at + 10] = 0)),
            ("code size 12", edited(&|gif| gif[image_at + 10] = 12)),
            (
                "an unknown extension",
                with_extension(&[0x21, 0x02, 1, 0, 0]),
            ),
            (
                "a graphic control extension of 3 bytes",
                with_extension(&[0x21, 0xF9, 3, 0, 0, 0, 0]),
            ),
            (
                "a graphic control extension of no sub-block",
                with_extension(&[0x21, 0xF9, 0]),
            ),
            (
                "a graphic control extension whose last sub-block is 2 bytes",
                with_extension(&[0x21, 0xF9, 4, 0, 0, 0, 0, 2, 0, 0, 0]),
            ),
            ("an unknown block", with_extension(&[0x99])),
            ("no trailer", edited(&|gif| gif.truncate(gif.len() - 1))),
            // `gif` wants a byte after the trailer here (the fuzz target's
            // find); the check refuses any GIF with no image.
            (
                "no image",
                edited(&|gif| {
                    gif.splice(image_at.., [TRAILER]);
                }),
            ),
        ];
        let no_image_then_a_byte = edited(&|gif| {
            gif.splice(image_at.., [TRAILER, 0]);
        });
        assert!(gif_reads_blocks(&no_image_then_a_byte));
        assert!(!decoded(&no_image_then_a_byte) && !walked(&no_image_then_a_byte));
        for (what, gif) in refused_by_both {
            assert!(!gif_reads_blocks(&gif), "{what}: gif reads it");
            assert!(!walked(&gif), "{what}: the check passes it");
        }
    }

    #[test]
    fn the_code_after_the_last_pixel_does_not_count() {
        // 1x1, min size 2: clear, pixel 0, then code 7 where the next
        // entry is 6 (invalid), then the end. weezl reads code 7 and
        // refuses the frame; libvips stops at the pixel and decodes it
        // (`__test__/decoder-agreement.test.mjs`).
        let mut bits = Bits::default();
        for code in [4, 0, 7, 5] {
            bits.put(code, 3);
        }
        let gif = one_frame(1, 1, 2, &bits.done());
        assert!(walked(&gif));
        assert!(!decoded(&gif));
        // Two pixels (the frame's width, after screen, colour table, the
        // image block's byte and its left and top): code 7 is read, and
        // refused.
        let mut two = gif.clone();
        two[13 + 768 + 5] = 2;
        assert_eq!((walked(&two), decoded(&two)), (false, false));
    }

    #[test]
    fn a_one_bit_code_size_widens_at_the_first_entry() {
        // Min size 1: clear 2, end 3, codes 2 bits wide; the first entry
        // added (4) already needs 3 bits, so the third code is 3 bits.
        let mut bits = Bits::default();
        bits.put(2, 2);
        bits.put(1, 2);
        bits.put(0, 2); // adds 4 = "1 0", now 3 bits
        bits.put(4, 3); // "1 0", adds 5
        bits.put(3, 3);
        let codes = bits.done();
        for (pixels, passes) in [(4, true), (5, false)] {
            let gif = one_frame(pixels, 1, 1, &codes);
            assert_eq!(
                (walked(&gif), decoded(&gif)),
                (passes, passes),
                "{pixels} pixels"
            );
        }
    }

    #[test]
    fn a_frame_starts_from_its_own_table_whatever_the_one_before_made() {
        // A first frame that fills the table, then one of another code
        // size: valid codes pass and a code past its own table is
        // refused, as by a decoder, whichever frame has the wider codes.
        for (first_size, second_size) in [(8, 2), (2, 8), (1, 11), (11, 1)] {
            let mut random = Seeded(u64::from(first_size) << 8 | u64::from(second_size));
            let (codes, pixels) = random_codes(&mut random, first_size, 5000, 0);
            let first = one_frame(pixels as u16, 1, first_size, &codes);
            let with_second = |width: u16, codes: &[u8]| {
                let second = one_frame(width, 1, second_size, codes);
                // The screen and its colour table, each frame, the trailer.
                let mut gif = first[..first.len() - 1].to_vec();
                gif.extend_from_slice(&second[13 + 768..]);
                gif
            };
            let (codes, pixels) = random_codes(&mut random, second_size, 3000, 200);
            let sound = with_second(pixels as u16, &codes);
            assert!(
                walked(&sound) && decoded(&sound),
                "{first_size}, {second_size}"
            );
            // Clear, a pixel, then the entry after the next one.
            let clear = 1u32 << second_size;
            let mut bits = Bits::default();
            for code in [clear, 0, clear + 3, clear + 1] {
                bits.put(code, u32::from(second_size) + 1);
            }
            let past_table = with_second(3, &bits.done());
            assert!(
                !walked(&past_table) && !decoded(&past_table),
                "{first_size}, {second_size}"
            );
        }
    }

    #[test]
    fn frames_after_the_first_are_walked_and_empty_frames_pass() {
        let (codes, pixels) = random_codes(&mut Seeded(7), 8, 500, 0);
        let one = one_frame(pixels as u16, 1, 8, &codes);
        // The frame again, and a 0x5 frame, before the trailer.
        let frame = &one[13 + 768..one.len() - 1];
        let mut three = one[..one.len() - 1].to_vec();
        three.extend_from_slice(frame);
        // Its data: a clear and the end code, 9 bits each.
        three.extend_from_slice(&[
            IMAGE, 0, 0, 0, 0, 0, 0, 5, 0, 0, 8, 3, 0x00, 0x03, 0x02, 0, TRAILER,
        ]);
        assert!(walked(&three) && decoded(&three));
        // The second frame one pixel taller than its data: refused.
        let mut short = three.clone();
        let second = one.len() - 1 + 7;
        short[second] = 2;
        assert!(!walked(&short) && !decoded(&short));
    }
}
