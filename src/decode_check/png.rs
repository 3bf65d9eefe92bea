//! A PNG's image data inflated as a decoder inflates it, its rows neither
//! unfiltered nor copied out: unfiltering cannot fail, so what a decoder
//! can refuse is all seen here (the chunks as `png` reads them, the zlib
//! stream with its Adler-32, a row's filter type, data that ends before
//! the last row). `png`'s own reader did the same work with every row
//! unfiltered and copied, which was about a third of the check's time on
//! the bench's largest PNG.
//!
//! The chunks go through `png`'s `StreamingDecoder`, the reader's own
//! parser; the image data of the first frame (the `IDAT` chunks) is
//! inflated into a window that keeps deflate's 32 KiB of look-back, and
//! the chunks after it are read up to `IEND` as the reader's `finish` reads
//! them (an animation's later frames not inflated). Stricter than the
//! reader in one way: the zlib stream is inflated on past the last row to
//! its end (up to `PAST_ROWS`), so a broken Adler-32 or deflate data there
//! is refused where the reader stopped at the last row (node:zlib refuses
//! it too; libvips refused 18 of the 21 such images of the tests below,
//! docs/performance.md).

use std::io::BufRead;

use png::{chunk, DecodeOptions, Decoded, StreamingDecoder, UnfilterRegion};

/// Deflate refers back at most 32 KiB.
const LOOK_BACK: usize = 32 * 1024;
/// The window image data is inflated into, at most: its start is dropped
/// whenever less than `GROWTH` is free (`png` writes at most 8 KiB a
/// call). The bench's largest PNG (3.9 MB of rows) took 193 µs to check
/// through a window of 256 KiB, 376 µs through 128 KiB (more of it copied
/// back), 206 µs through 1 MiB (out of the cache).
const WINDOW: usize = 256 * 1024;
const GROWTH: usize = 8 * 1024;
/// After the last row the stream is inflated on for at most this many
/// bytes: enough to reach the end of a stream that ends there and check its
/// Adler-32. Data that goes on past the rows is not read further, as
/// neither `png`'s reader nor libpng reads it, so a 1x1 image over a
/// deflate bomb costs no more than its row.
const PAST_ROWS: u64 = 256 * 1024;

/// Adam7's passes: the first column and row, then the steps between them.
const ADAM7: [(u32, u32, u32, u32); 7] = [
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
];

/// `Err` when a decoder refuses the image (the error's words are not
/// shown: `decode_all` says it in its own). The chunks' CRCs were checked
/// by the structural walk and are not checked again.
pub fn check(mut data: impl BufRead) -> Result<(), ()> {
    let mut decoder = StreamingDecoder::new_with_options(options());
    let mut image: Option<ImageData> = None;
    // The first frame's image data has all been read.
    let mut read = false;
    loop {
        let input = data.fill_buf().map_err(drop)?;
        if input.is_empty() {
            return Err(());
        }
        let inflated = image
            .as_mut()
            .filter(|image| !read && image.past_rows <= PAST_ROWS);
        let (consumed, decoded) = match inflated {
            Some(image) => {
                let step = decoder.update(input, Some(&mut image.region.as_buf(&mut image.window)));
                image.walk_new_bytes()?;
                step
            }
            None => decoder.update(input, None),
        }
        .map_err(drop)?;
        data.consume(consumed);
        match decoded {
            Decoded::ChunkBegin(_, chunk::IDAT | chunk::fdAT) if image.is_none() => {
                image = Some(ImageData::new(decoder.info().ok_or(())?)?);
            }
            Decoded::ImageDataFlushed if !read => {
                // Data that ends before the last row.
                if !image.as_ref().is_some_and(|image| image.rows.done()) {
                    return Err(());
                }
                read = true;
            }
            Decoded::ChunkComplete(chunk::IEND) => return if read { Ok(()) } else { Err(()) },
            _ => {}
        }
    }
}

fn options() -> DecodeOptions {
    let mut options = DecodeOptions::default();
    // libpng checks zlib's Adler-32 too; text and ICC profiles it only
    // warns about.
    options.set_ignore_adler32(false);
    options.set_ignore_crc(true);
    options.set_ignore_text_chunk(true);
    options.set_ignore_iccp_chunk(true);
    options
}

/// The first frame's image data: the window it is inflated into and its
/// rows walked.
struct ImageData {
    window: Vec<u8>,
    region: UnfilterRegion,
    /// Where the bytes not walked yet start in `window`.
    walked: usize,
    rows: Rows,
    /// Bytes inflated after the last row.
    past_rows: u64,
}

impl ImageData {
    fn new(info: &png::Info) -> Result<ImageData, ()> {
        let rows = Rows::new(info).ok_or(())?;
        // A small image's rows in a window of their size: zeroing 256 KiB
        // took longer than checking a PNG of 4 KB.
        let len = rows.total.saturating_add(GROWTH as u64).min(WINDOW as u64);
        Ok(ImageData {
            window: vec![0; len as usize],
            region: UnfilterRegion::default(),
            walked: 0,
            rows,
            past_rows: 0,
        })
    }

    /// Walk what the last call inflated, then make room for the next.
    fn walk_new_bytes(&mut self) -> Result<(), ()> {
        self.past_rows += self
            .rows
            .walk(&self.window[self.walked..self.region.filled])?;
        self.walked = self.region.filled;
        if self.window.len() - self.region.filled >= GROWTH {
            return Ok(());
        }
        if self.window.len() < WINDOW {
            // More data than the rows (read to the stream's end).
            self.window.resize(WINDOW, 0);
        } else {
            // Only the look-back must stay: `available` marks its start.
            let keep = self.region.available..self.region.filled;
            self.window.copy_within(keep.clone(), 0);
            self.region = UnfilterRegion {
                available: 0,
                filled: keep.len(),
            };
            self.walked = keep.len();
        }
        debug_assert!(self.region.filled - self.region.available <= LOOK_BACK + GROWTH);
        Ok(())
    }
}

/// The rows of a frame's filtered image data, each a filter-type byte and
/// its bytes, pass after pass when it is interlaced.
struct Rows {
    /// (row length with its filter byte, rows), one entry per pass with any.
    passes: Vec<(u64, u64)>,
    /// Bytes in all the rows.
    total: u64,
    pass: usize,
    /// Rows left in the pass, and bytes left in the row (0: at a row's start).
    rows_left: u64,
    in_row: u64,
}

impl Rows {
    /// The rows of the frame `info` describes (an APNG's first `fcTL` sets
    /// its size, as the reader takes it), or `None` when a row's length
    /// does not fit in memory.
    fn new(info: &png::Info) -> Option<Rows> {
        let (width, height) = info
            .frame_control
            .map_or((info.width, info.height), |frame| {
                (frame.width, frame.height)
            });
        let bits = info.bits_per_pixel() as u64;
        let row = |samples: u32| 1 + (u64::from(samples) * bits).div_ceil(8);
        usize::try_from(row(width)).ok()?;
        let passes: Vec<(u32, u32)> = if info.interlaced {
            ADAM7
                .iter()
                .map(|&(x, y, dx, dy)| {
                    let samples = width.saturating_sub(x).div_ceil(dx);
                    (samples, height.saturating_sub(y).div_ceil(dy))
                })
                .collect()
        } else {
            vec![(width, height)]
        };
        let passes: Vec<(u64, u64)> = passes
            .into_iter()
            .filter(|&(samples, lines)| samples > 0 && lines > 0)
            .map(|(samples, lines)| (row(samples), u64::from(lines)))
            .collect();
        let rows_left = passes.first().map_or(0, |&(_, lines)| lines);
        let total = passes
            .iter()
            .map(|&(len, lines)| len.saturating_mul(lines))
            .fold(0, u64::saturating_add);
        Some(Rows {
            passes,
            total,
            pass: 0,
            rows_left,
            in_row: 0,
        })
    }

    fn done(&self) -> bool {
        self.pass >= self.passes.len()
    }

    /// Walk the next inflated bytes: each row's first byte must be a filter
    /// type (0 to 4); bytes after the last row are not read, as a decoder
    /// does not read them, only counted.
    fn walk(&mut self, mut bytes: &[u8]) -> Result<u64, ()> {
        while !bytes.is_empty() && !self.done() {
            if self.in_row == 0 {
                if bytes[0] > 4 {
                    return Err(());
                }
                self.in_row = self.passes[self.pass].0;
            }
            let take = self.in_row.min(bytes.len() as u64);
            bytes = &bytes[take as usize..];
            self.in_row -= take;
            if self.in_row == 0 {
                self.rows_left -= 1;
                if self.rows_left == 0 {
                    self.pass += 1;
                    self.rows_left = self.passes.get(self.pass).map_or(0, |&(_, lines)| lines);
                }
            }
        }
        Ok(bytes.len() as u64)
    }
}

/// Whether `png`'s reader decodes every row and reads on to `IEND`, as
/// this check did before: what the check is held to by the tests and the
/// `png` fuzz target.
#[cfg(any(test, fuzzing))]
pub fn reader_decodes(png: &[u8]) -> bool {
    let decode = || -> Result<(), png::DecodingError> {
        let mut reader =
            png::Decoder::new_with_options(std::io::Cursor::new(png), options()).read_info()?;
        while reader.next_row()?.is_some() {}
        reader.finish()
    };
    decode().is_ok()
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor, Write};

    use super::*;
    use crate::sniff::png_tests::{chunk, png};

    fn checked(png: &[u8]) -> bool {
        check(Cursor::new(png)).is_ok()
    }

    /// The check's verdict, asserted to be the same when the bytes are
    /// handed over 7 at a time.
    fn checked_in_pieces_too(png: &[u8], case: &str) -> bool {
        let whole = checked(png);
        let pieces = check(BufReader::with_capacity(7, Cursor::new(png))).is_ok();
        assert_eq!(pieces, whole, "{case}, 7 bytes at a time");
        whole
    }

    /// An IHDR of `width` x `height`, RGB at 8 bits (colour type 2) or
    /// grey at 1 bit (0), interlaced or not.
    fn ihdr(width: u32, height: u32, grey_bits: bool, interlaced: bool) -> Vec<u8> {
        let mut data = width.to_be_bytes().to_vec();
        data.extend_from_slice(&height.to_be_bytes());
        data.extend_from_slice(if grey_bits { &[1, 0] } else { &[8, 2] });
        data.extend_from_slice(&[0, 0, u8::from(interlaced)]);
        chunk(b"IHDR", &data)
    }

    /// Rows of `lens` bytes each (filter byte included), filter types
    /// cycling through 0-4, the rest of each row noise.
    fn rows(lens: &[usize]) -> Vec<u8> {
        let mut seed = 11u32;
        let mut out = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            out.push((i % 5) as u8);
            out.extend((1..len).map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (seed >> 24) as u8
            }));
        }
        out
    }

    fn zlib(raw: &[u8], level: u32) -> Vec<u8> {
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
        encoder.write_all(raw).unwrap();
        encoder.finish().unwrap()
    }

    /// A PNG whose image data is `stream`, in IDAT chunks of `split` bytes.
    fn with_stream(ihdr: Vec<u8>, stream: &[u8], split: usize) -> Vec<u8> {
        let mut chunks = vec![ihdr];
        chunks.extend(stream.chunks(split).map(|part| chunk(b"IDAT", part)));
        chunks.push(chunk(b"IEND", &[]));
        png(&chunks)
    }

    /// Row lengths (filter byte included) of an image, pass by pass.
    fn row_lens(width: u32, height: u32, bits: u32, interlaced: bool) -> Vec<usize> {
        let row = |samples: u32| 1 + (samples * bits).div_ceil(8) as usize;
        if !interlaced {
            return vec![row(width); height as usize];
        }
        let mut lens = Vec::new();
        for (x, y, dx, dy) in ADAM7 {
            let samples = width.saturating_sub(x).div_ceil(dx);
            let lines = height.saturating_sub(y).div_ceil(dy);
            if samples > 0 {
                lens.extend(std::iter::repeat_n(row(samples), lines as usize));
            }
        }
        lens
    }

    /// Sound images of every shape the walk handles: widths that leave
    /// Adam7 passes empty, sub-byte rows, stored and compressed streams,
    /// IDAT chunks of one byte.
    fn sound_images() -> Vec<(String, Vec<u8>)> {
        let mut images = Vec::new();
        for (width, height) in [(1, 1), (3, 2), (5, 9), (200, 150), (700, 300)] {
            for grey_bits in [false, true] {
                for interlaced in [false, true] {
                    let bits = if grey_bits { 1 } else { 24 };
                    let raw = rows(&row_lens(width, height, bits, interlaced));
                    for (level, split) in [(0, 1 << 20), (6, 1 << 20), (6, 1000), (1, 1)] {
                        if split == 1 && raw.len() > 5000 {
                            continue;
                        }
                        let name = format!("{width}x{height} grey-bits {grey_bits} interlaced {interlaced} level {level} split {split}");
                        let ihdr = ihdr(width, height, grey_bits, interlaced);
                        images.push((name, with_stream(ihdr, &zlib(&raw, level), split)));
                    }
                }
            }
        }
        images
    }

    #[test]
    fn sound_images_pass_as_the_reader_reads_them() {
        for (name, png) in sound_images() {
            assert!(reader_decodes(&png), "{name}: the reader decodes it");
            assert!(checked_in_pieces_too(&png, &name), "{name}");
        }
    }

    #[test]
    fn what_the_reader_refuses_is_refused() {
        let (width, height) = (200, 150);
        let lens = row_lens(width, height, 24, false);
        let raw = rows(&lens);
        let stream = zlib(&raw, 6);
        let image =
            |raw: &[u8]| with_stream(ihdr(width, height, false, false), &zlib(raw, 6), 4096);
        let mut bad_filter = raw.clone();
        bad_filter[lens[0] * 70] = 5;
        let mut bad_deflate = stream.clone();
        bad_deflate[stream.len() / 2] ^= 0x55;
        let mut bad_adler = stream.clone();
        *bad_adler.last_mut().unwrap() ^= 1;
        let cases = [
            ("a row of filter type 5", image(&bad_filter)),
            ("a row short", image(&raw[..raw.len() - 1])),
            (
                "no image data",
                png(&[ihdr(width, height, false, false), chunk(b"IEND", &[])]),
            ),
            (
                "deflate data damaged",
                with_stream(ihdr(width, height, false, false), &bad_deflate, 4096),
            ),
            (
                "the stream cut",
                with_stream(
                    ihdr(width, height, false, false),
                    &stream[..stream.len() / 2],
                    4096,
                ),
            ),
            (
                "Adler-32 wrong",
                with_stream(ihdr(width, height, false, false), &bad_adler, 1 << 20),
            ),
            ("IEND missing", {
                let whole = with_stream(ihdr(width, height, false, false), &stream, 4096);
                // IEND is the last 12 bytes.
                whole[..whole.len() - 12].to_vec()
            }),
        ];
        for (name, png) in cases {
            assert!(!reader_decodes(&png), "{name}: the reader refuses it");
            assert!(!checked_in_pieces_too(&png, name), "{name}");
        }
    }

    #[test]
    fn the_stream_is_read_on_past_the_last_row() {
        // The rows are all there, then the stream is damaged or stops: the
        // reader stopped at the last row, node:zlib reads on.
        let (width, height) = (64, 64);
        let raw = rows(&row_lens(width, height, 24, false));
        let mut stream = zlib(&raw, 0);
        let adler = stream.len() - 4;
        stream[adler] ^= 1;
        let damaged = with_stream(ihdr(width, height, false, false), &stream, 1 << 20);
        assert!(!checked(&damaged), "Adler-32 wrong after the last row");
        let cut = with_stream(ihdr(width, height, false, false), &stream[..adler], 1 << 20);
        assert!(!checked(&cut), "the stream stops before its Adler-32");

        // Rows past the image's (the window goes round within the image's
        // 300 KB of rows) are inflated up to `PAST_ROWS`: 300 rows more
        // (180 KB) to the stream's end, 2,000 (1.2 MB) not.
        let (width, height) = (200, 500);
        let row = width as usize * 3 + 1;
        let raw = rows(&row_lens(width, height, 24, false));
        for (more, read_to_the_end) in [(300, true), (2000, false)] {
            let mut long = raw.clone();
            long.extend_from_slice(&rows(&vec![row; more]));
            let mut stream = zlib(&long, 6);
            let sound = with_stream(ihdr(width, height, false, false), &stream, 1 << 20);
            let last = stream.len() - 1;
            stream[last] ^= 1;
            let damaged = with_stream(ihdr(width, height, false, false), &stream, 1 << 20);
            for (name, png, passes) in [
                ("sound", &sound, true),
                ("Adler-32 wrong", &damaged, !read_to_the_end),
            ] {
                let case = format!("{more} rows more, {name}");
                assert!(reader_decodes(png), "{case}: the reader decodes it");
                assert_eq!(checked_in_pieces_too(png, &case), passes, "{case}");
            }
        }

        // A 1x1 image over 64 MiB of zeros (64 KB of deflate data): its row
        // is there, the rest is not inflated.
        let mut bomb = vec![0, 1, 2, 3];
        bomb.resize(64 << 20, 0);
        let bomb = with_stream(ihdr(1, 1, false, false), &zlib(&bomb, 9), 1 << 20);
        assert!(bomb.len() < 100_000, "{} bytes", bomb.len());
        assert!(reader_decodes(&bomb));
        assert!(checked(&bomb));
    }

    #[test]
    fn damaged_images_are_refused_whenever_the_reader_refuses_them() {
        let mut seed = 5u32;
        let mut random = |n: usize| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 8) as usize % n
        };
        let (mut refused, mut stricter) = (0, 0);
        for (name, png) in sound_images().into_iter().step_by(3) {
            for _ in 0..40 {
                let mut damaged = png.clone();
                let at = 33 + random(png.len() - 33);
                damaged[at] ^= 1 + random(255) as u8;
                let (reader, here) = (reader_decodes(&damaged), checked(&damaged));
                assert!(
                    reader || !here,
                    "{name}, byte {at}: the reader refuses it, the check does not"
                );
                refused += usize::from(!here);
                stricter += usize::from(reader && !here);
            }
        }
        assert!(refused > 100, "{refused} refused");
        println!("{refused} refused, {stricter} of them decoded by the reader");
    }
}
