//! Whole blocks of 64 symbols, by a kernel of our own where the CPU has
//! one: AVX-512 VBMI first, else AVX2; none on other CPUs.

use std::mem::MaybeUninit;

use super::Alphabet;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod vbmi;

/// The kernel this CPU runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernel {
    #[cfg(target_arch = "x86_64")]
    Vbmi,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

#[cfg(target_arch = "x86_64")]
fn kernel() -> Option<Kernel> {
    // The standard library caches what it detects: each test is a load.
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
    {
        Some(Kernel::Vbmi)
    } else if std::arch::is_x86_feature_detected!("avx2") {
        Some(Kernel::Avx2)
    } else {
        None
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn kernel() -> Option<Kernel> {
    None
}

/// Blocks of 64 symbols taken here out of a run of `symbols` symbols: none
/// without a kernel, and the last four symbols (the last group, which may
/// hold padding or be short) are always left over.
pub fn blocks(symbols: usize) -> usize {
    if kernel().is_none() {
        return 0;
    }
    symbols.saturating_sub(4) / 64
}

/// Whether every symbol of `symbols` (whole blocks) is in the alphabet.
pub fn check(alphabet: Alphabet, symbols: &[u8]) -> bool {
    run(alphabet, symbols, None)
}

/// Decode `symbols` (whole blocks) into `out`, 48 bytes a block; false,
/// with `out` partly written, if a symbol is not in the alphabet or `out`
/// is too short.
pub fn decode(alphabet: Alphabet, symbols: &[u8], out: &mut [u8]) -> bool {
    out.len() >= symbols.len() / 64 * 48 && run(alphabet, symbols, Some(out.as_mut_ptr()))
}

/// [`decode`] into memory not yet initialised; true means all of the first
/// `symbols.len() / 64 * 48` bytes were written.
pub fn decode_uninit(alphabet: Alphabet, symbols: &[u8], out: &mut [MaybeUninit<u8>]) -> bool {
    out.len() >= symbols.len() / 64 * 48 && run(alphabet, symbols, Some(out.as_mut_ptr().cast()))
}

/// Check, and decode into `out` when given, whole blocks of symbols.
/// Without a kernel only an empty run is accepted: [`blocks`] gives none
/// there, and refusing is the answer that never yields wrong bytes.
fn run(alphabet: Alphabet, symbols: &[u8], out: Option<*mut u8>) -> bool {
    if symbols.is_empty() {
        return true;
    }
    match kernel() {
        // SAFETY: `kernel` is the one this CPU was found to have; `out`
        // has its room (checked by `decode` and `decode_uninit`).
        Some(kernel) => unsafe { run_on(kernel, alphabet, symbols, out) },
        None => false,
    }
}

/// [`run`] on `kernel`.
///
/// # Safety
/// The CPU has `kernel`'s features (from [`kernel`], or the tests'
/// `kernels`); `out`, when given, has room for 48 bytes a block.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
unsafe fn run_on(kernel: Kernel, alphabet: Alphabet, symbols: &[u8], out: Option<*mut u8>) -> bool {
    if !symbols.len().is_multiple_of(64) {
        return false;
    }
    // Safe to call (both arms): the CPU has the features the kernel is
    // compiled for, `symbols` is whole blocks, and `out` has its room (the
    // caller's word).
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for VBMI.
        Kernel::Vbmi => unsafe { vbmi::run(table(alphabet), symbols, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Kernel::Avx2 => unsafe { avx2::run(avx2::Tables::of(alphabet), symbols, out) },
    }
}

/// A symbol's value for each ASCII byte, [`NOT_A_SYMBOL`] for bytes not in
/// the alphabet.
#[cfg(target_arch = "x86_64")]
const fn lookup(alphabet: Alphabet) -> [u8; 128] {
    let mut table = [NOT_A_SYMBOL; 128];
    let mut value = 0;
    while value < 26 {
        table[(b'A' + value) as usize] = value;
        table[(b'a' + value) as usize] = 26 + value;
        value += 1;
    }
    let mut digit = 0;
    while digit < 10 {
        table[(b'0' + digit) as usize] = 52 + digit;
        digit += 1;
    }
    let (s62, s63) = alphabet.symbols_62_63();
    table[s62 as usize] = 62;
    table[s63 as usize] = 63;
    table
}

/// The top bit: the VBMI kernel reads it as a refusal.
#[cfg(target_arch = "x86_64")]
const NOT_A_SYMBOL: u8 = 0x80;

#[cfg(target_arch = "x86_64")]
const STANDARD_TABLE: [u8; 128] = lookup(Alphabet::Standard);
#[cfg(target_arch = "x86_64")]
const URL_SAFE_TABLE: [u8; 128] = lookup(Alphabet::UrlSafe);

#[cfg(target_arch = "x86_64")]
fn table(alphabet: Alphabet) -> &'static [u8; 128] {
    match alphabet {
        Alphabet::Standard => &STANDARD_TABLE,
        Alphabet::UrlSafe => &URL_SAFE_TABLE,
    }
}

#[cfg(test)]
mod tests {
    use base64_simd::{STANDARD, URL_SAFE};

    use super::super::tests::pseudo_random;
    use super::*;

    /// Every kernel this CPU has, not only the one it runs.
    fn kernels() -> Vec<Kernel> {
        #[cfg(target_arch = "x86_64")]
        {
            let mut kernels = Vec::new();
            if kernel() == Some(Kernel::Vbmi) {
                kernels.push(Kernel::Vbmi);
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                kernels.push(Kernel::Avx2);
            }
            kernels
        }
        #[cfg(not(target_arch = "x86_64"))]
        Vec::new()
    }

    /// `kernel`'s answer on whole blocks: the bytes, or `None` if refused.
    fn decoded(kernel: Kernel, alphabet: Alphabet, symbols: &[u8]) -> Option<Vec<u8>> {
        // SAFETY: `kernel` is one `kernels` found on this CPU; `out` has
        // room for 48 bytes a block.
        let checked = unsafe { run_on(kernel, alphabet, symbols, None) };
        let mut out = vec![0u8; symbols.len() / 64 * 48];
        // SAFETY: as above.
        let decoded = unsafe { run_on(kernel, alphabet, symbols, Some(out.as_mut_ptr())) };
        assert_eq!(checked, decoded, "check and decode disagree");
        decoded.then_some(out)
    }

    #[test]
    fn each_kernel_decodes_what_base64_simd_decodes() {
        if kernels().is_empty() {
            eprintln!("this CPU has no kernel of ours: base64-simd alone decodes here");
        }
        for kernel in kernels() {
            for blocks in [1, 2, 3, 7, 64, 1000] {
                let data = pseudo_random(blocks * 48, blocks as u64);
                for (alphabet, engine) in [
                    (Alphabet::Standard, &STANDARD),
                    (Alphabet::UrlSafe, &URL_SAFE),
                ] {
                    let symbols = engine.encode_to_string(&data);
                    assert_eq!(
                        decoded(kernel, alphabet, symbols.as_bytes()),
                        Some(data.clone())
                    );
                }
            }
        }
    }

    #[test]
    fn each_kernel_refuses_every_other_byte_at_every_position() {
        let data = pseudo_random(3 * 48, 5);
        for kernel in kernels() {
            for (alphabet, engine) in [
                (Alphabet::Standard, &STANDARD),
                (Alphabet::UrlSafe, &URL_SAFE),
            ] {
                let valid = engine.encode_to_string(&data).into_bytes();
                let table = lookup(alphabet);
                for byte in (0..=255u8)
                    .filter(|&b| table.get(usize::from(b)).is_none_or(|&v| v == NOT_A_SYMBOL))
                {
                    for at in 0..valid.len() {
                        let mut symbols = valid.clone();
                        symbols[at] = byte;
                        assert_eq!(
                            decoded(kernel, alphabet, &symbols),
                            None,
                            "{byte:#04x} at {at}"
                        );
                    }
                }
            }
        }
    }
}
