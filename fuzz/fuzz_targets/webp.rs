//! The WebP decode check, whose lossless image stream is walked, not
//! decoded (`decode_check::decode_all`, `src/decode_check/vp8l.rs`),
//! against `image-webp` decoding every pixel.
//!
//! The input is the WebP itself, so the vendored WebPs are seeds as they
//! are. Invariants: nothing panics or hangs; for a still lossless WebP the
//! walk's verdict is the decoder's, except that the walk refuses a prefix
//! code whose lengths oversubscribe it (libwebp's rule; `image-webp`'s
//! arithmetic wraps there, which its debug build checks: such inputs are
//! not handed to it); `decode_all` says what the walk says; the verdict is
//! the same for a reader that hands the bytes over a few at a time. An
//! image whose check would take more than the memory budget passes
//! unchecked (the fit refuses it by its size).

#![no_main]

use std::io::{BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use mcp_content::decode_check::{
    decode_all, webp_decodes_every_pixel, webp_walked, webp_within_budget, WebpWalked,
};

fuzz_target!(|data: &[u8]| {
    let checked = decode_all("image/webp", Cursor::new(data));
    let small = BufReader::with_capacity(7, Cursor::new(data));
    assert_eq!(decode_all("image/webp", small), checked);
    match webp_walked(data) {
        Some(_) if !webp_within_budget(data) => {
            assert_eq!(checked, Ok(()), "checked over the budget")
        }
        Some(WebpWalked::Oversubscribed) => {
            assert!(checked.is_err(), "an oversubscribed code passes")
        }
        Some(walked) => {
            assert_eq!(
                checked.is_ok(),
                walked == WebpWalked::Decodes,
                "decode_all is not the walk"
            );
            assert_eq!(
                webp_decodes_every_pixel(data),
                checked.is_ok(),
                "the walk is not the decoder"
            );
        }
        None => {}
    }
});
