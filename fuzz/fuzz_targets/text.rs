//! Text detection and decoding (src/text.rs).
//!
//! Input: one control byte (bits 0-2: the declared type, textual or not and
//! which charset; bit 3: long mode, the rest repeated past the 64 KiB head
//! the classifier reads, plus up to 255 bytes), then the data.
//!
//! Invariants:
//! - `is_utf8` agrees with `std::str::from_utf8`;
//! - an encoding `detect` picks for whole data decodes it, to what a second
//!   decoder gives (std for UTF-8 and UTF-16, encoding_rs's one-shot API
//!   for the others), `Ascii` only for ASCII bytes;
//! - data detected as text is never ruled out by its head: the classifier
//!   reads the first 64 KiB with `whole = false` and decodes the rest only
//!   when that says "may be text";
//! - `decode_into` in the four Unicode encodings gives the second decoder's
//!   text (BOM dropped) or `false` with its output untouched;
//! - `is_clearly_text` never panics, is false with a NUL in the 8 KiB it
//!   samples, and reads nothing past that sample.

#![no_main]

use std::borrow::Cow;

use encoding_rs::{Encoding, GBK, SHIFT_JIS, UTF_16LE, WINDOWS_1251, WINDOWS_1252};
use libfuzzer_sys::fuzz_target;
use mcp_content::sniff::HEAD_LEN;
use mcp_content::text::{self, Declared, TextEncoding};
use mcp_content_fuzz::Input;

const UNICODE: [TextEncoding; 4] = [
    TextEncoding::Ascii,
    TextEncoding::Utf8,
    TextEncoding::Utf16Le,
    TextEncoding::Utf16Be,
];

/// Declared charsets tried: none, and a few of each family.
const CHARSETS: [Option<&Encoding>; 6] = [
    None,
    Some(SHIFT_JIS),
    Some(WINDOWS_1251),
    Some(GBK),
    Some(UTF_16LE),
    Some(WINDOWS_1252),
];

/// What `is_clearly_text` samples: 8 KiB after the BOM (text.rs).
const SAMPLE_LEN: usize = 8 * 1024;

fn utf16(body: &[u8], big_endian: bool) -> Option<String> {
    if !body.len().is_multiple_of(2) {
        return None;
    }
    let units: Vec<u16> = body
        .chunks_exact(2)
        .map(|p| {
            if big_endian {
                u16::from_be_bytes([p[0], p[1]])
            } else {
                u16::from_le_bytes([p[0], p[1]])
            }
        })
        .collect();
    String::from_utf16(&units).ok()
}

/// What decoding in `encoding` gives, by a second decoder: the text
/// without the encoding's own BOM, or `None`.
fn reference_decode(data: &[u8], encoding: TextEncoding) -> Option<String> {
    match encoding {
        TextEncoding::Ascii | TextEncoding::Utf8 => {
            let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
            std::str::from_utf8(body).ok().map(str::to_owned)
        }
        TextEncoding::Utf16Le => utf16(data.strip_prefix(b"\xFF\xFE").unwrap_or(data), false),
        TextEncoding::Utf16Be => utf16(data.strip_prefix(b"\xFE\xFF").unwrap_or(data), true),
        TextEncoding::Legacy(encoding) => encoding
            .decode_without_bom_handling_and_without_replacement(data)
            .map(Cow::into_owned),
    }
}

fn decode(data: &[u8], encoding: TextEncoding) -> Option<String> {
    let mut out = String::new();
    if text::decode_into(data, encoding, &mut out) {
        Some(out)
    } else {
        assert!(out.is_empty(), "a failed decode wrote {} bytes", out.len());
        None
    }
}

fuzz_target!(|input: &[u8]| {
    let mut input = Input::new(input);
    let flags = input.byte();
    let declared = Declared {
        textual: flags & 1 != 0,
        charset: CHARSETS[usize::from(flags >> 1 & 7) % CHARSETS.len()],
    };
    let body = input.rest();
    let data: Cow<[u8]> = if flags & 16 != 0 && !body.is_empty() {
        let len = HEAD_LEN + usize::from(flags);
        Cow::Owned(body.iter().copied().cycle().take(len).collect())
    } else {
        Cow::Borrowed(body)
    };
    let data = &data[..];

    assert_eq!(text::is_utf8(data), std::str::from_utf8(data).is_ok());

    if let Some(encoding) = text::detect(data, declared, true) {
        assert_eq!(
            decode(data, encoding),
            reference_decode(data, encoding),
            "{encoding:?}"
        );
        assert!(
            decode(data, encoding).is_some(),
            "{encoding:?} was detected"
        );
        if encoding == TextEncoding::Ascii {
            assert!(data.is_ascii());
        }
        assert!(text::detect(data, declared, false).is_some());
        if data.len() > HEAD_LEN {
            assert!(
                text::detect(&data[..HEAD_LEN], declared, false).is_some(),
                "the head ruled out data that is text"
            );
        }
    }

    for encoding in UNICODE {
        assert_eq!(
            decode(data, encoding),
            reference_decode(data, encoding),
            "{encoding:?}"
        );
        let clearly = text::is_clearly_text(data, encoding);
        let sample_end = SAMPLE_LEN + if encoding.is_utf8() { 0 } else { 2 };
        if data.len() > sample_end {
            assert_eq!(
                clearly,
                text::is_clearly_text(&data[..sample_end], encoding)
            );
        }
        if encoding.is_utf8() && data[..data.len().min(SAMPLE_LEN)].contains(&0) {
            assert!(!clearly, "NUL in the sample");
        }
    }
});
