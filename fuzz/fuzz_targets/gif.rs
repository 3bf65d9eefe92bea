//! The GIF decode check, whose LZW codes are walked, not decoded
//! (`decode_check::decode_all`, `src/decode_check/gif.rs`), against `gif`
//! decoding every pixel of every frame.
//!
//! The input is the GIF itself, so the vendored GIFs are seeds as they are.
//! Invariants: nothing panics or hangs; what `gif` decodes whole passes the
//! check (the walk refuses nothing a decoder decodes); what `gif` refuses
//! at its blocks the check refuses (it reads them itself, in the same pass
//! as the walk); the verdict is the same for a reader that hands the bytes
//! over a few at a time.

#![no_main]

use std::io::{BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use mcp_content::decode_check::{decode_all, gif_decodes_every_pixel, gif_reads_blocks};

fuzz_target!(|data: &[u8]| {
    let checked = decode_all("image/gif", Cursor::new(data));
    // Sub-blocks that straddle the reader's buffer are copied, not read
    // in place: the same verdict.
    let small = BufReader::with_capacity(7, Cursor::new(data));
    assert_eq!(decode_all("image/gif", small), checked);
    if gif_decodes_every_pixel(data) {
        assert_eq!(checked, Ok(()), "gif decodes it, the check refuses it");
    }
    if !gif_reads_blocks(data) {
        assert!(checked.is_err(), "gif refuses its blocks, the check passes it");
    }
});
