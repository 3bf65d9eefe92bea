//! The GIF decode check, whose LZW codes are walked, not decoded
//! (`decode_check::decode_all`, `src/decode_check/gif.rs`), against `gif`
//! decoding every pixel of every frame.
//!
//! The input is the GIF itself, so the vendored GIFs are seeds as they are.
//! Invariants: nothing panics or hangs; what `gif` decodes whole passes the
//! check (the walk refuses nothing a decoder decodes: its blocks are read by
//! the same `gif`, and its frames must agree with it); the verdict is the
//! same for a reader that hands the bytes over a few at a time.

#![no_main]

use std::io::{BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use mcp_content::decode_check::decode_all;

/// Whether `gif` decodes every pixel of every frame, as the check did
/// before the walk.
fn decoded(data: &[u8]) -> bool {
    let decode = || -> Result<bool, gif::DecodingError> {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::Indexed);
        let mut decoder = options.read_info(Cursor::new(data))?;
        let mut block = vec![0; 16 * 1024];
        while decoder.next_frame_info()?.is_some() {
            let mut left = decoder.buffer_size();
            while left > 0 {
                let n = left.min(block.len());
                if !decoder.fill_buffer(&mut block[..n])? {
                    return Ok(false);
                }
                left -= n;
            }
        }
        Ok(true)
    };
    decode().unwrap_or(false)
}

fuzz_target!(|data: &[u8]| {
    let checked = decode_all("image/gif", Cursor::new(data));
    // Sub-blocks that straddle the reader's buffer are copied, not read
    // in place: the same verdict.
    let small = BufReader::with_capacity(7, Cursor::new(data));
    assert_eq!(decode_all("image/gif", small), checked);
    if decoded(data) {
        assert_eq!(checked, Ok(()), "gif decodes it, the check refuses it");
    }
});
