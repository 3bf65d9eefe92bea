//! The PNG decode check, whose image data is inflated and its rows walked,
//! not unfiltered (`decode_check::decode_all`, `src/decode_check/png.rs`),
//! against `png`'s reader decoding every row.
//!
//! The input is the PNG itself, so the vendored PNGs are seeds as they are.
//! Invariants: nothing panics or hangs; what the reader refuses the check
//! refuses too (it reads the same chunks with the same parser and inflates
//! the stream further, to its end); the verdict is the same for a reader
//! that hands the bytes over a few at a time.

#![no_main]

use std::io::{BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use mcp_content::decode_check::{decode_all, png_reader_decodes};

fuzz_target!(|data: &[u8]| {
    let checked = decode_all("image/png", Cursor::new(data));
    let small = BufReader::with_capacity(7, Cursor::new(data));
    assert_eq!(decode_all("image/png", small), checked);
    if checked.is_ok() {
        assert!(png_reader_decodes(data), "the reader refuses it, the check passes it");
    }
});
