//! The walk's verdict against `image-webp` decoding every pixel, on sound
//! lossless WebPs made by libwebp (`__test__/fixtures/webp-lossless`, all
//! its transforms, colour caches and entropy images) and by `image-webp`'s
//! encoder, and on thousands of damaged copies of them.

use std::io::{BufReader, Cursor};
use std::panic::catch_unwind;

use super::{walk, Walked};
use crate::decode_check::tests::lossless_webp;
use crate::decode_check::{
    decode_all, vp8l_chunk, webp_decodes_every_pixel, webp_walked, webp_within_budget, WEBP_CORRUPT,
};

/// The sound files, by name.
fn sound_webps() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/__test__/fixtures/webp-lossless"
    );
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "webp"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the libwebp fixtures are missing");
    for (alpha, extended) in [(false, false), (true, true)] {
        let name = format!("image-webp alpha {alpha} extended {extended}");
        files.push((name, lossless_webp(37, 23, alpha, extended)));
    }
    files
}

/// The walk's verdict, every file here a still lossless one.
fn walked(webp: &[u8]) -> Walked {
    webp_walked(webp).unwrap_or(Walked::Corrupt)
}

/// The decoder's verdict, `None` when it panics (its debug build checks
/// the arithmetic that wraps on an oversubscribed code).
fn decoded(webp: &[u8]) -> Option<bool> {
    catch_unwind(|| webp_decodes_every_pixel(webp)).ok()
}

/// A generator of the damage: xorshift, seeded per file.
struct Damage(u64);

impl Damage {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

/// `webp` with its VP8L chunk (at `chunk`) cut to `len` bytes, the chunk's
/// and the file's sizes made to match.
fn cut(webp: &[u8], chunk: std::ops::Range<usize>, len: usize) -> Vec<u8> {
    let mut out = webp[..chunk.start + len].to_vec();
    out[chunk.start - 4..chunk.start].copy_from_slice(&(len as u32).to_le_bytes());
    if len % 2 == 1 {
        out.push(0);
    }
    let riff = (out.len() - 8) as u32;
    out[4..8].copy_from_slice(&riff.to_le_bytes());
    out
}

#[test]
fn the_walk_passes_every_sound_lossless_webp() {
    for (name, webp) in sound_webps() {
        assert_eq!(decoded(&webp), Some(true), "{name}: the decoder");
        assert_eq!(walked(&webp), Walked::Decodes, "{name}");
        assert_eq!(
            decode_all("image/webp", Cursor::new(&webp)),
            Ok(()),
            "{name}"
        );
        assert_eq!(
            decode_all("image/webp", small_reads(&webp)),
            Ok(()),
            "{name}"
        );
    }
}

/// A reader that holds a few bytes at a time: the walk copies the stream
/// out of it, where it walks a `Cursor`'s bytes in place.
fn small_reads(webp: &[u8]) -> BufReader<Cursor<&[u8]>> {
    BufReader::with_capacity(64, Cursor::new(webp))
}

#[test]
fn the_walk_refuses_what_the_decoder_refuses_in_damaged_copies() {
    let (mut refused, mut passed) = (0, 0);
    // By the decoder's verdict: passed, refused, panicked.
    let mut oversubscribed = [0; 3];
    for (name, webp) in sound_webps() {
        let chunk = vp8l_chunk(&mut Cursor::new(&webp)).unwrap();
        let chunk = usize::try_from(chunk.start).unwrap()..usize::try_from(chunk.end).unwrap();
        let mut damage = Damage(0x9e37_79b9_7f4a_7c15 ^ webp.len() as u64);
        for variant in 0..300 {
            let mut damaged = webp.clone();
            // One to three bytes of the stream changed past its 5-byte
            // header (whose size the container repeats), or the stream cut.
            let how = if variant % 5 == 4 {
                let len = 5 + damage.next(chunk.len() - 5);
                damaged = cut(&webp, chunk.clone(), len);
                format!("cut to {len} bytes")
            } else {
                let mut at = Vec::new();
                for _ in 0..=variant % 3 {
                    let byte = chunk.start + 5 + damage.next(chunk.len() - 5);
                    damaged[byte] ^= 1 + damage.next(255) as u8;
                    at.push(byte);
                }
                format!("bytes {at:?} changed")
            };
            let walk = walked(&damaged);
            let decoder = decoded(&damaged);
            let case = format!("{name}, {how}: walk {walk:?}, decoder {decoder:?}");
            match (walk, decoder) {
                (Walked::Decodes, Some(true)) => passed += 1,
                (Walked::Corrupt, Some(false)) => refused += 1,
                // libwebp's rule where the decoder's arithmetic wraps.
                (Walked::Oversubscribed, Some(true)) => oversubscribed[0] += 1,
                (Walked::Oversubscribed, Some(false)) => oversubscribed[1] += 1,
                (Walked::Oversubscribed, None) => oversubscribed[2] += 1,
                _ => panic!("{case}"),
            }
            let verdict = decode_all("image/webp", Cursor::new(&damaged));
            let walk_refuses = walk != Walked::Decodes;
            assert_eq!(verdict.is_err(), walk_refuses, "{case}: decode_all");
            assert_eq!(
                verdict,
                decode_all("image/webp", small_reads(&damaged)),
                "{case}"
            );
            if walk_refuses {
                assert_eq!(verdict, Err(WEBP_CORRUPT.into()), "{case}");
            }
        }
    }
    // Both verdicts seen often: the damage is neither always fatal nor
    // always harmless.
    println!(
        "refused {refused}, passed {passed}; oversubscribed codes (passed, refused, \
         panicked in the decoder) {oversubscribed:?}"
    );
    assert!(
        refused > 1000 && passed > 300,
        "refused {refused}, passed {passed}"
    );
}

#[test]
fn a_walk_stops_at_its_allowance() {
    for (name, webp) in sound_webps() {
        let chunk = vp8l_chunk(&mut Cursor::new(&webp)).unwrap();
        let stream =
            &webp[usize::try_from(chunk.start).unwrap()..usize::try_from(chunk.end).unwrap()];
        let decoder = image_webp::WebPDecoder::new(Cursor::new(&webp)).unwrap();
        let (width, height) = decoder.dimensions();
        // Every stream holds at least one group of codes.
        assert_eq!(
            walk(stream, width, height, 0),
            Walked::OverAllowance,
            "{name}"
        );
    }
}

#[test]
fn a_lossless_webp_over_the_memory_budget_passes_unchecked() {
    // 47 bytes that say 10337x15361 pixels: checking them would take 1.18
    // GiB, more than the default budget of 768 MiB. The fit refuses the
    // image by its size. Found by the webp fuzz target
    // (`fuzz/regressions/webp/lossless-over-the-memory-budget`), whose
    // invariant had left the budget out.
    let mut webp = b"RIFF\x3a\x00\x00\x00WEBPVP8L\x2e\x00\x00\x00".to_vec();
    webp.extend_from_slice(
        b"\x2f\x60\x28\x00\x0f\x00\xb9\x8c\xe8\x7f\x0c\x84\x04\x09\
          \xff\x97\x1b\x8d\x31\x04\x3c\xea\xe7\xfc\x37\xbb\x00",
    );
    assert_eq!(webp.len(), 47);
    assert_ne!(walked(&webp), Walked::Decodes, "the walk refuses it");
    assert!(!webp_within_budget(&webp));
    assert_eq!(decode_all("image/webp", Cursor::new(&webp)), Ok(()));
}

#[test]
fn an_oversubscribed_code_is_refused() {
    // A 1x1 image: no transform, no cache, no blocks; green's code read
    // through a code-length code of lengths 1, 1, 1 (three codes of one
    // bit: more than one bit holds).
    let mut bits = BitWriter::default();
    bits.put(0x2f, 8);
    bits.put(0, 14);
    bits.put(0, 14);
    bits.put(0, 1);
    bits.put(0, 3);
    // No transform, no colour cache, no entropy image.
    bits.put(0, 1);
    bits.put(0, 1);
    bits.put(0, 1);
    // A normal code: 4 code-length lengths (for 17, 18, 0, 1), all 1.
    bits.put(0, 1);
    bits.put(0, 4);
    for _ in 0..3 {
        bits.put(1, 3);
    }
    bits.put(0, 3);
    bits.put(0, 64);
    assert_eq!(walk(&bits.bytes, 1, 1, usize::MAX), Walked::Oversubscribed);
}

/// Bits written least significant first, as VP8L reads them.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    used: u32,
}

impl BitWriter {
    fn put(&mut self, value: u64, count: u32) {
        for bit in 0..count {
            if self.used.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let last = self.bytes.last_mut().unwrap();
            *last |= (((value >> bit) & 1) as u8) << (self.used % 8);
            self.used += 1;
        }
    }
}
