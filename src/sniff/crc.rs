//! CRC-32 (ISO 3309) as PNG uses it, whole or in pieces.
//!
//! On x86_64 and aarch64 by `crc-fast`, which folds 512 bits at a time with
//! VPCLMULQDQ where the CPU has AVX-512 (else 128 bits, or NEON PMULL): a
//! 3.9 MB PNG's chunks in 75 us against 352 us with crc32fast's 128-bit
//! folding, measured here on the Zen 4 of docs/performance.md, where they
//! took a quarter of the largest attachable PNG's conversion on Bun.
//! Elsewhere (wasm) crc32fast's slice-by-16 table, since `crc-fast` falls
//! back to a byte-wise one there.

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod imp {
    use crc_fast::{CrcAlgorithm, Digest};

    pub fn crc32(data: &[u8]) -> u32 {
        crc_fast::crc32_iso_hdlc(data)
    }

    pub struct Crc32(Digest);

    impl Crc32 {
        pub fn new() -> Self {
            Crc32(Digest::new(CrcAlgorithm::Crc32IsoHdlc))
        }

        pub fn update(&mut self, data: &[u8]) {
            self.0.update(data);
        }

        pub fn finalize(self) -> u32 {
            // A CRC-32's state: the value fits in 32 bits.
            self.0.finalize() as u32
        }
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    pub fn crc32(data: &[u8]) -> u32 {
        crc32fast::hash(data)
    }

    pub struct Crc32(crc32fast::Hasher);

    impl Crc32 {
        pub fn new() -> Self {
            Crc32(crc32fast::Hasher::new())
        }

        pub fn update(&mut self, data: &[u8]) {
            self.0.update(data);
        }

        pub fn finalize(self) -> u32 {
            self.0.finalize()
        }
    }
}

/// The CRC of `data` in one call.
pub(super) use imp::crc32;
/// The CRC of data read in pieces: `new`, `update` with each, `finalize`.
pub(super) use imp::Crc32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that do not repeat within a block, so a fold that mixed up its
    /// lanes would show (Knuth's multiplicative hash of the position).
    fn bytes(len: usize) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect()
    }

    #[test]
    fn the_check_value_and_every_length_agree_with_crc32fast() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let data = bytes(70_000);
        // Every length to past a few 512-bit blocks, then sizes PNG
        // encoders write IDAT in (8 KiB, 64 KiB) and odd ones around them.
        let lengths = (0..=600).chain([8191, 8192, 8193, 65535, 65536, 65537, 70_000]);
        for len in lengths {
            let slice = &data[..len];
            assert_eq!(crc32(slice), crc32fast::hash(slice), "length {len}");
        }
    }

    #[test]
    fn pieces_give_the_crc_of_the_whole() {
        let data = bytes(200_000);
        let whole = crc32fast::hash(&data);
        for piece in [1, 7, 64, 1000, 65536, 200_000] {
            let mut crc = Crc32::new();
            for part in data.chunks(piece) {
                crc.update(part);
            }
            assert_eq!(crc.finalize(), whole, "pieces of {piece}");
        }
        assert_eq!(Crc32::new().finalize(), crc32fast::hash(b""));
    }
}
