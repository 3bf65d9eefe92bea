//! Text detection and decoding (src/text.rs).
//!
//! Input: one control byte (bit 0: the declared type says text; bit 1: long
//! mode, the rest repeated past the 64 KiB head the classifier reads, plus
//! up to 255 bytes), then the data.
//!
//! Invariants:
//! - `is_utf8` agrees with `std::str::from_utf8`;
//! - `detect_encoding` agrees with a reference: a UTF-16 BOM selects
//!   UTF-16 (well formed, even length), else UTF-8, `Ascii` exactly for
//!   ASCII bytes;
//! - a detected encoding decodes, to what std decodes (BOM dropped);
//! - `decode` in any encoding gives std's text (BOM dropped) or `None`;
//! - `is_clearly_text` never panics, is false with a NUL in the 8 KiB it
//!   samples, and reads nothing past that sample;
//! - `head_may_be_text` on the 64 KiB head of data that is text is `true`
//!   (its `false` is final: the classifier then never decodes the rest).

#![no_main]

use std::borrow::Cow;

use libfuzzer_sys::fuzz_target;
use mcp_content::sniff::HEAD_LEN;
use mcp_content::text::{self, TextEncoding};
use mcp_content_fuzz::Input;

const ENCODINGS: [TextEncoding; 4] = [
    TextEncoding::Ascii,
    TextEncoding::Utf8,
    TextEncoding::Utf16Le,
    TextEncoding::Utf16Be,
];

/// What `is_clearly_text` samples: 8 KiB, after the BOM for UTF-16 (text.rs).
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

/// What decoding in `encoding` gives: the text without its BOM, or `None`.
fn reference_decode(data: &[u8], encoding: TextEncoding) -> Option<String> {
    match encoding {
        TextEncoding::Ascii | TextEncoding::Utf8 => {
            let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
            std::str::from_utf8(body).ok().map(str::to_owned)
        }
        TextEncoding::Utf16Le => utf16(data.strip_prefix(b"\xFF\xFE")?, false),
        TextEncoding::Utf16Be => utf16(data.strip_prefix(b"\xFE\xFF")?, true),
    }
}

/// The encoding and text the documentation promises.
fn reference(data: &[u8]) -> Option<(TextEncoding, String)> {
    if let Some(body) = data.strip_prefix(b"\xFF\xFE") {
        return utf16(body, false).map(|t| (TextEncoding::Utf16Le, t));
    }
    if let Some(body) = data.strip_prefix(b"\xFE\xFF") {
        return utf16(body, true).map(|t| (TextEncoding::Utf16Be, t));
    }
    let text = std::str::from_utf8(data).ok()?;
    let encoding = if data.is_ascii() {
        TextEncoding::Ascii
    } else {
        TextEncoding::Utf8
    };
    Some((
        encoding,
        text.strip_prefix('\u{FEFF}').unwrap_or(text).into(),
    ))
}

fuzz_target!(|input: &[u8]| {
    let mut input = Input::new(input);
    let flags = input.byte();
    let declared_textual = flags & 1 != 0;
    let body = input.rest();
    let data: Cow<[u8]> = if flags & 2 != 0 && !body.is_empty() {
        let len = HEAD_LEN + usize::from(flags);
        Cow::Owned(body.iter().copied().cycle().take(len).collect())
    } else {
        Cow::Borrowed(body)
    };
    let data = &data[..];

    assert_eq!(text::is_utf8(data), std::str::from_utf8(data).is_ok());

    let expected = reference(data);
    let detected = text::detect_encoding(data);
    assert_eq!(detected, expected.as_ref().map(|(e, _)| *e));

    for encoding in ENCODINGS {
        let decoded = text::decode(data, encoding);
        assert_eq!(decoded, reference_decode(data, encoding), "{encoding:?}");
        if Some(encoding) == detected {
            assert_eq!(
                decoded.as_deref(),
                expected.as_ref().map(|(_, t)| t.as_str())
            );
        }
        let clearly = text::is_clearly_text(data, encoding);
        let sample_end = match encoding {
            TextEncoding::Ascii | TextEncoding::Utf8 => SAMPLE_LEN,
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => SAMPLE_LEN + 2,
        };
        if data.len() > sample_end {
            assert_eq!(
                clearly,
                text::is_clearly_text(&data[..sample_end], encoding)
            );
        }
        if matches!(encoding, TextEncoding::Ascii | TextEncoding::Utf8)
            && data[..data.len().min(SAMPLE_LEN)].contains(&0)
        {
            assert!(!clearly, "NUL in the sample");
        }
    }

    // The head the classifier reads for data over HEAD_LEN + TAIL_LEN.
    if let Some(encoding) = detected {
        let is_text = declared_textual || text::is_clearly_text(data, encoding);
        if is_text && data.len() > HEAD_LEN {
            assert!(
                text::head_may_be_text(&data[..HEAD_LEN], declared_textual),
                "the head ruled out data that is text"
            );
        }
    }
    let _ = text::head_may_be_text(data, declared_textual);
});
