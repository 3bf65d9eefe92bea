//! The engine that checks and decodes runs of symbols: `base64-simd`, with
//! the bulk taken first by a kernel of our own (`bulk`): AVX-512 VBMI where
//! the CPU has it, else AVX2.
//!
//! `base64-simd` has no AVX-512 path. On a CPU with VBMI (Ice Lake and
//! later, Zen 4 and later) whole blocks of 64 symbols are translated with
//! one byte permute and packed with two multiply-adds and a second permute:
//! 1 MiB decoded in 36 us against 160 us for `base64-simd`'s AVX2 path on
//! the machine this was measured on. Without VBMI, our AVX2 kernel decodes
//! about twice as fast as `base64-simd`'s (see `bulk::avx2`). The last
//! group (its padding, its unused bits) and any shorter run always go to
//! `base64-simd`, so what is accepted is exactly what it accepts.

use base64_simd::{Out, STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

use super::Alphabet;

/// A run of symbols is refused by the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Refused;

/// Checks and decodes runs of symbols of one alphabet.
#[derive(Clone, Copy)]
pub(super) struct Engine {
    alphabet: Alphabet,
    simd: &'static base64_simd::Base64,
}

impl Engine {
    /// The engine for `symbols`: whole groups (padded or not) take the
    /// padded form, a short last group the unpadded one.
    pub fn for_symbols(alphabet: Alphabet, symbols: &[u8]) -> Engine {
        let whole_groups = symbols.len().is_multiple_of(4);
        let simd = match (alphabet, whole_groups) {
            (Alphabet::Standard, true) => &STANDARD,
            (Alphabet::Standard, false) => &STANDARD_NO_PAD,
            (Alphabet::UrlSafe, true) => &URL_SAFE,
            (Alphabet::UrlSafe, false) => &URL_SAFE_NO_PAD,
        };
        Engine { alphabet, simd }
    }

    pub fn check(&self, symbols: &[u8]) -> Result<(), Refused> {
        let blocks = bulk::blocks(symbols.len());
        if !bulk::check(self.alphabet, &symbols[..blocks * 64]) {
            return Err(Refused);
        }
        self.simd
            .check(&symbols[blocks * 64..])
            .map_err(|_| Refused)
    }

    /// Bytes `symbols` decode to, from its length and padding alone.
    pub fn decoded_length(&self, symbols: &[u8]) -> Result<usize, Refused> {
        self.simd.decoded_length(symbols).map_err(|_| Refused)
    }

    /// Decode `symbols` into the start of `out`; the bytes written. Less
    /// room than [`Engine::decoded_length`] is refused.
    pub fn decode<'o>(&self, symbols: &[u8], out: &'o mut [u8]) -> Result<&'o mut [u8], Refused> {
        if out.len() < self.decoded_length(symbols)? {
            return Err(Refused);
        }
        let blocks = bulk::blocks(symbols.len());
        let (head, tail) = out.split_at_mut(blocks * 48);
        if !bulk::decode(self.alphabet, &symbols[..blocks * 64], head) {
            return Err(Refused);
        }
        let rest = self
            .simd
            .decode(&symbols[blocks * 64..], Out::from_slice(tail))
            .map_err(|_| Refused)?
            .len();
        Ok(&mut out[..blocks * 48 + rest])
    }

    /// Decode `symbols` onto the end of `out`; on refusal `out` may have
    /// grown by whole blocks decoded before the refused one.
    pub fn decode_append(&self, symbols: &[u8], out: &mut Vec<u8>) -> Result<(), Refused> {
        let blocks = bulk::blocks(symbols.len());
        if blocks > 0 {
            out.reserve(blocks * 48);
            let spare = &mut out.spare_capacity_mut()[..blocks * 48];
            if !bulk::decode_uninit(self.alphabet, &symbols[..blocks * 64], spare) {
                return Err(Refused);
            }
            // SAFETY: `decode_uninit` returned true, so it wrote all
            // `blocks * 48` bytes of the spare capacity just after the
            // length, which `reserve` made room for.
            unsafe { out.set_len(out.len() + blocks * 48) };
        }
        self.simd
            .decode_append(&symbols[blocks * 64..], out)
            .map_err(|_| Refused)
    }

    pub fn decode_to_vec(&self, symbols: &[u8]) -> Result<Vec<u8>, Refused> {
        let mut out = Vec::new();
        self.decode_append(symbols, &mut out)?;
        Ok(out)
    }
}

mod bulk;

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use super::*;

    /// `base64-simd` alone, the reference this engine must agree with.
    fn simd_only(alphabet: Alphabet, symbols: &[u8]) -> Result<Vec<u8>, Refused> {
        let engine = Engine::for_symbols(alphabet, symbols);
        engine.simd.decode_to_vec(symbols).map_err(|_| Refused)
    }

    fn agree(alphabet: Alphabet, symbols: &[u8]) {
        let engine = Engine::for_symbols(alphabet, symbols);
        let want = simd_only(alphabet, symbols);
        assert_eq!(
            engine.check(symbols),
            want.as_ref().map(|_| ()).map_err(|r| *r)
        );
        assert_eq!(engine.decode_to_vec(symbols), want);
        if let Ok(want) = &want {
            let mut out = vec![0u8; want.len()];
            assert_eq!(
                engine
                    .decode(symbols, &mut out)
                    .map(|b| b.to_vec())
                    .as_ref(),
                Ok(want)
            );
            let mut appended = vec![7u8; 3];
            engine.decode_append(symbols, &mut appended).unwrap();
            assert_eq!(&appended[..3], &[7, 7, 7]);
            assert_eq!(&appended[3..], &want[..]);
        }
    }

    /// Bytes that look random, the same for a seed (also `bulk`'s tests').
    pub(super) fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn agrees_with_base64_simd_on_valid_runs() {
        if bulk::blocks(1 << 10) == 0 {
            eprintln!("this CPU has no kernel of ours: only base64-simd is compared with itself");
        }
        for len in (0..400).chain([3000, 48 * 1024, 48 * 1024 + 1]) {
            let data = pseudo_random(len, len as u64);
            for (alphabet, padded, unpadded) in [
                (Alphabet::Standard, &STANDARD, &STANDARD_NO_PAD),
                (Alphabet::UrlSafe, &URL_SAFE, &URL_SAFE_NO_PAD),
            ] {
                agree(alphabet, padded.encode_to_string(&data).as_bytes());
                agree(alphabet, unpadded.encode_to_string(&data).as_bytes());
            }
        }
    }

    #[test]
    fn refuses_what_base64_simd_refuses_at_every_position() {
        let data = pseudo_random(200, 9);
        for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
            let valid = match alphabet {
                Alphabet::Standard => STANDARD.encode_to_string(&data),
                Alphabet::UrlSafe => URL_SAFE.encode_to_string(&data),
            };
            for at in 0..valid.len() {
                for bad in [
                    b'=', b'-', b'_', b'+', b'/', b' ', b'\n', 0, 0x7f, 0x80, 0xc1, 0xff,
                ] {
                    let mut symbols = valid.clone().into_bytes();
                    symbols[at] = bad;
                    agree(alphabet, &symbols);
                }
            }
        }
    }

    #[test]
    fn decode_into_too_little_room_is_refused_not_overrun() {
        let symbols = STANDARD.encode_to_string(pseudo_random(300, 3));
        let engine = Engine::for_symbols(Alphabet::Standard, symbols.as_bytes());
        let mut out = vec![0u8; 100];
        assert_eq!(engine.decode(symbols.as_bytes(), &mut out), Err(Refused));
    }

    #[test]
    fn uninit_decode_writes_every_byte() {
        let data = pseudo_random(48 * 5, 4);
        let symbols = STANDARD.encode_to_string(&data);
        let blocks = bulk::blocks(symbols.len());
        let mut out = vec![MaybeUninit::<u8>::uninit(); blocks * 48];
        assert!(bulk::decode_uninit(
            Alphabet::Standard,
            &symbols.as_bytes()[..blocks * 64],
            &mut out
        ));
        // SAFETY: `decode_uninit` returned true, so every byte was written.
        let out: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(out, data[..blocks * 48]);
    }
}
