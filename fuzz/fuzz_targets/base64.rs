//! Base64 (src/base64_data.rs) against a second decoder, the `base64` crate
//! configured as docs/routing.md, "Accepted base64", says: one alphabet, standard
//! or url-safe, not both; CR and LF skipped; padding optional but canonical
//! when present; zero unused bits.
//!
//! Input: a control byte, a length (u16), a width byte, a split point
//! (u16), then the string. Control bit 0 puts `2 * length` symbols of `A`
//! (zero bytes) before the string, so chunk boundaries (64 Ki symbols) and
//! the 64 KiB head fall inside it; bit 1 adds a line break after every
//! `width + 1` characters (bit 2: CRLF, else LF).
//!
//! Invariants, for every string:
//! - accepted exactly when the reference accepts it, to the same bytes;
//! - `decoded_len`, `has_line_breaks`, `alphabet` and `canonical` are right;
//!   `canonical` exactly when the string is the standard padded encoding;
//! - `decode_to`, `decode_head(n)`, `decode_tail(n)` and `decode_after` a
//!   head agree with `decode`, and so does `decode_range_into` where the
//!   layout allows it (one line or equal lines), as do `Data::sparse` reads;
//! - the canonical encoding round-trips and is recognised as canonical;
//! - `inspect_decoding` (up to the split point) gives `inspect`'s verdict,
//!   error and info, and `decode`'s bytes;
//! - `Data` over the string gives the same bytes, prefixes and stream;
//! - an error that names a symbol position names the offending symbol.

#![no_main]

use std::borrow::Cow;

use base64::alphabet;
use base64::engine::{DecodePaddingMode, Engine, GeneralPurpose, GeneralPurposeConfig};
use libfuzzer_sys::fuzz_target;
use mcp_content::base64_data::{self, Alphabet};
use mcp_content::payload::{Base64Output, Data, Payload};
use mcp_content::sniff::{ReadAt, HEAD_LEN, TAIL_LEN};
use mcp_content_fuzz::Input;

fn is_line_break(b: &u8) -> bool {
    *b == b'\r' || *b == b'\n'
}

/// The accepted forms of docs/routing.md, built from the `base64` crate.
fn reference(text: &[u8]) -> Result<Vec<u8>, String> {
    let symbols: Vec<u8> = text.iter().copied().filter(|b| !is_line_break(b)).collect();
    let standard = symbols.iter().any(|b| b"+/".contains(b));
    let url_safe = symbols.iter().any(|b| b"-_".contains(b));
    if standard && url_safe {
        return Err("mixed alphabets".into());
    }
    let padding = if symbols.last() == Some(&b'=') {
        DecodePaddingMode::RequireCanonical
    } else {
        DecodePaddingMode::RequireNone
    };
    let config = GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(false)
        .with_decode_padding_mode(padding);
    let alphabet = if url_safe {
        &alphabet::URL_SAFE
    } else {
        &alphabet::STANDARD
    };
    GeneralPurpose::new(alphabet, config)
        .decode(&symbols)
        .map_err(|e| e.to_string())
}

/// For messages "... at symbol N": the symbol there must be the culprit.
fn check_error_position(text: &[u8], message: &str) {
    let Some((_, position)) = message.rsplit_once(" at symbol ") else {
        return;
    };
    let position: usize = position.parse().expect("a number after 'at symbol'");
    let symbols: Vec<u8> = text.iter().copied().filter(|b| !is_line_break(b)).collect();
    let symbol = *symbols.get(position).unwrap_or_else(|| {
        panic!("{message:?}: only {} symbols", symbols.len());
    });
    let expected_culprit = if message.starts_with("padding '='") {
        symbol == b'='
    } else if message.starts_with("non-ASCII") {
        !symbol.is_ascii()
    } else if message.starts_with("unexpected space") {
        symbol == b' '
    } else if message.starts_with("unexpected tab") {
        symbol == b'\t'
    } else if let Some(rest) = message.strip_prefix("unexpected character '") {
        // Shown as a note shows every server string (`]` as `%5D`).
        let shown = mcp_content::note::server(&char::from(symbol).to_string()).into_owned();
        rest.starts_with(&format!("{shown}'"))
    } else if let Some(rest) = message.strip_prefix("unexpected byte 0x") {
        rest.get(..2) == Some(format!("{symbol:02x}").as_str())
    } else {
        panic!("unknown message {message:?}");
    };
    assert!(
        expected_culprit,
        "{message:?} but symbol {position} is {symbol:#04x}"
    );
}

fuzz_target!(|input: &[u8]| {
    let mut input = Input::new(input);
    let flags = input.byte();
    let lead = usize::from(input.u16()) * 2;
    let width = usize::from(input.byte()) + 1;
    let split = usize::from(input.u16());
    let body = input.rest();

    let mut text: Cow<[u8]> = Cow::Borrowed(body);
    if flags & 1 != 0 {
        let mut grown = vec![b'A'; lead];
        grown.extend_from_slice(body);
        text = Cow::Owned(grown);
    }
    if flags & 2 != 0 {
        let line_break: &[u8] = if flags & 4 != 0 { b"\r\n" } else { b"\n" };
        let mut wrapped = Vec::with_capacity(text.len() + text.len() / width * 2 + 2);
        for line in text.chunks(width) {
            wrapped.extend_from_slice(line);
            wrapped.extend_from_slice(line_break);
        }
        text = Cow::Owned(wrapped);
    }
    let text = &text[..];

    let ours = base64_data::inspect(text);
    // Decoding while inspecting changes neither the verdict, the error nor
    // the info, and gives the bytes `decode` gives.
    let fused = base64_data::inspect_decoding(text, split);
    match (&ours, &fused) {
        (Ok(b64), Ok((fused, decoded))) => {
            assert_eq!(b64.info, fused.info);
            if let Some(decoded) = decoded {
                assert_eq!(*decoded, b64.decode());
            }
        }
        (Err(ours), Err(fused)) => assert_eq!(ours, fused),
        _ => panic!("inspect_decoding's verdict differs from inspect's"),
    }
    let theirs = reference(text);
    let (b64, bytes) = match (ours, theirs) {
        (Ok(b64), Ok(bytes)) => (b64, bytes),
        (Err(ours), Err(_)) => {
            check_error_position(text, &ours.message);
            return;
        }
        (Ok(_), Err(theirs)) => panic!("accepted what the reference refuses ({theirs})"),
        (Err(ours), Ok(_)) => panic!("refused what the reference accepts ({ours})"),
    };

    let decoded = b64.decode();
    assert_eq!(decoded, bytes);
    let info = b64.info;
    assert_eq!(info.decoded_len, bytes.len());
    assert_eq!(info.has_line_breaks, text.iter().any(is_line_break));
    let url_safe = text.iter().any(|b| b"-_".contains(b));
    let expected_alphabet = if url_safe {
        Alphabet::UrlSafe
    } else {
        Alphabet::Standard
    };
    assert_eq!(info.alphabet, expected_alphabet);
    let canonical = base64::engine::general_purpose::STANDARD.encode(&bytes);
    assert_eq!(base64_data::encode(&bytes), canonical);
    assert_eq!(info.canonical, text == canonical.as_bytes());
    assert_eq!(b64.as_bytes(), text);

    let again = base64_data::inspect(canonical.as_bytes()).expect("canonical is accepted");
    assert!(again.info.canonical);
    assert_eq!(again.decode(), bytes);

    let mut streamed = Vec::new();
    let written = b64.decode_to(&mut streamed).expect("writing to a Vec");
    assert_eq!(written, bytes.len() as u64);
    assert_eq!(streamed, bytes);

    let len = bytes.len();
    let lengths = [
        0,
        1,
        2,
        3,
        4,
        split,
        split % (len + 1),
        TAIL_LEN,
        HEAD_LEN,
        len.saturating_sub(1),
        len,
        len + 1,
    ];
    for n in lengths {
        let n_clamped = n.min(len);
        assert_eq!(b64.decode_head(n), &bytes[..n_clamped], "head {n}");
        assert_eq!(b64.decode_tail(n), &bytes[len - n_clamped..], "tail {n}");
        let head = b64.decode_head(n);
        assert_eq!(b64.decode_after(&head), bytes, "after a head of {n}");
    }

    let in_place = !info.has_line_breaks || b64.decodes_in_place();
    // One scratch buffer for every read, as `Data::sparse` keeps it.
    let mut gathered = Vec::new();
    for (start, n) in [(split % (len + 1), 8), (0, len), (len / 3, split % 300)] {
        let end = (start + n).min(len);
        let mut range = vec![0; end - start];
        let read = b64.decode_range_into(start, &mut range, &mut gathered);
        assert_eq!(read, in_place, "{start}..{end}");
        if read {
            assert_eq!(range, &bytes[start..end], "range {start}..{end}");
        }
    }
    assert!(!b64.decode_range_into(0, &mut vec![0; len + 1], &mut gathered));

    let data = Data::open(Payload::Base64(text)).expect("inspect accepted it");
    if let Some(mut rest) = data.sparse() {
        assert!(in_place && len > HEAD_LEN + TAIL_LEN);
        for at in [0, split, HEAD_LEN + split, len.saturating_sub(split % 9)] {
            let mut out = [0u8; 8];
            let fits = at.checked_add(8).is_some_and(|end| end <= len);
            assert_eq!(rest.read_at(at, &mut out), fits, "read at {at}");
            if fits {
                assert_eq!(out, bytes[at..at + 8], "read at {at}");
            }
        }
    }
    assert_eq!(data.len(), len);
    assert_eq!(data.head(), &bytes[..len.min(HEAD_LEN)]);
    let window = data.window();
    assert_eq!(window.len, len);
    assert!(bytes.starts_with(window.head) && bytes.ends_with(window.tail));
    for n in lengths {
        assert_eq!(&data.prefix(n)[..], &bytes[..n.min(len)], "prefix {n}");
    }
    let mut written = Vec::new();
    data.write_to(&mut written).expect("writing to a Vec");
    assert_eq!(written, bytes);
    assert_eq!(data.full(), &bytes[..]);
    let expected_output = if info.canonical {
        Base64Output::InputString
    } else {
        Base64Output::Encoded(canonical)
    };
    assert_eq!(data.canonical_base64(), expected_output);
});
