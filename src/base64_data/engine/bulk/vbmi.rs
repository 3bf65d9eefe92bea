//! The AVX-512 VBMI kernel: a block of 64 symbols translated with one byte
//! permute and packed with two multiply-adds and a second permute.

use std::arch::x86_64::*;

/// Where each of a block's 48 bytes is in the 16 lanes the
/// multiply-adds leave: lane `k` holds its three bytes as one
/// 24-bit number, most significant (the first byte) at bit 16.
const PACK: [u8; 64] = {
    let mut index = [0u8; 64];
    let mut k = 0;
    while k < 48 {
        index[k] = ((k / 3) * 4 + (2 - k % 3)) as u8;
        k += 1;
    }
    index
};

/// Check, and decode into `out` when given, whole blocks of 64
/// symbols; whether every symbol was in `table`'s alphabet.
///
/// # Safety
/// The CPU has AVX-512 F, BW and VBMI; `symbols.len()` is a
/// multiple of 64; `out`, when given, is valid for writes of
/// `symbols.len() / 64 * 48` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn run(table: &[u8; 128], symbols: &[u8], out: Option<*mut u8>) -> bool {
    // SAFETY: `table` is 128 bytes, read as two halves of 64; each
    // load of symbols reads the 64 bytes of one block of the slice;
    // each store writes 48 bytes (the mask) of that block's room in
    // `out`, which the caller vouches for.
    unsafe {
        let low = _mm512_loadu_si512(table.as_ptr().cast());
        let high = _mm512_loadu_si512(table.as_ptr().add(64).cast());
        let pack = _mm512_loadu_si512(PACK.as_ptr().cast());
        // Each pair of 6-bit values into 12 bits, each pair of
        // those into 24: (a << 6 | b) << 12 | (c << 6 | d).
        let pairs = _mm512_set1_epi32(0x0140_0140);
        let quads = _mm512_set1_epi32(0x0001_1000);
        let mut seen = _mm512_setzero_si512();
        for (block, symbols) in symbols.chunks_exact(64).enumerate() {
            let ascii = _mm512_loadu_si512(symbols.as_ptr().cast());
            // The permute reads 7 bits of each byte: a byte above
            // 0x7f is caught by its own top bit.
            let values = _mm512_permutex2var_epi8(low, ascii, high);
            seen = _mm512_or_si512(seen, _mm512_or_si512(values, ascii));
            if let Some(out) = out {
                let merged = _mm512_maddubs_epi16(values, pairs);
                let lanes = _mm512_madd_epi16(merged, quads);
                let bytes = _mm512_permutexvar_epi8(pack, lanes);
                _mm512_mask_storeu_epi8(out.add(block * 48).cast(), (1 << 48) - 1, bytes);
            }
        }
        _mm512_movepi8_mask(seen) == 0
    }
}
