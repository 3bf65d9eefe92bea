//! The whole decision for one media part (classify, route, the part or
//! note made) with the default profile, short of the disk write:
//! `content::Conversion::convert_in_memory` and `classify::classify`.
//!
//! Input: the declared type (an index into a small dictionary), flags (part
//! kind, uri, bit 4: the data is itself the base64 string), a base64 form,
//! seven bytes that may grow the data past 66,560 bytes (see `Grow`), then
//! the data.
//!
//! Invariants:
//! - nothing panics;
//! - the same bytes get the same classification and the same part, given
//!   as raw bytes and as base64 in any accepted form (canonical, unpadded,
//!   url-safe, line-broken, or the fuzzed string itself): the verdict
//!   depends on the bytes alone;
//! - a file part has a type of the profile's allow-list, its bytes sniff as
//!   that type, pass its structural check, are within its limits, and its
//!   data is the canonical base64 of the bytes (the input string itself
//!   only when that is canonical); a PNG, GIF or WebP attached decodes
//!   whole in the `image` crate (a JPEG is attached on its walk alone, as
//!   libjpeg-turbo decodes damaged entropy-coded data);
//! - a string that is not accepted base64 gets the invalid-base64 note.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_content::base64_data;
use mcp_content::classify::{self, Classification};
use mcp_content::content::{Conversion, MediaKind, MediaPart, ModelPart};
use mcp_content::payload::{Base64Output, Payload};
use mcp_content::provider::DEFAULT;
use mcp_content::sniff::{self, Soundness, Window, HEAD_LEN, TAIL_LEN};
use mcp_content::text_cap::{TextCap, DEFAULT_MAX_TEXT_TOKENS};
use mcp_content_fuzz::{declared, Form, Grow, Input};

const KINDS: [MediaKind; 4] = [
    MediaKind::Image,
    MediaKind::Audio,
    MediaKind::Media,
    MediaKind::Resource,
];
const URIS: [Option<&str>; 4] = [
    None,
    Some(""),
    Some("file:///tmp/shot.png"),
    Some("https://example.test/a/b.pdf?x=1#y"),
];

/// The text cap a caller gets by default.
const TEXT_CAP: TextCap = Some(DEFAULT_MAX_TEXT_TOKENS);

/// A part with its file data resolved to the base64 string it stands for.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Text(String),
    File {
        media_type: &'static str,
        data: String,
        uri: Option<String>,
        filename: Option<String>,
    },
    /// Needs the store.
    Save,
}

struct Case<'a> {
    kind: MediaKind,
    uri: Option<&'a str>,
    declared: Option<&'a str>,
}

impl Case<'_> {
    fn run(&self, payload: Payload) -> (Verdict, Classification) {
        let part = MediaPart::new(self.kind, self.uri, self.declared, payload);
        let converted = Conversion::new(&DEFAULT, TEXT_CAP).convert_in_memory(&part);
        let verdict = match converted.map(|c| c.part) {
            None => Verdict::Save,
            Some(ModelPart::Text(text)) => Verdict::Text(text),
            Some(ModelPart::File {
                media_type,
                data,
                uri,
                filename,
            }) => {
                let data = match (data, payload) {
                    (Base64Output::InputBytes, Payload::Bytes(bytes)) => base64_data::encode(bytes),
                    (Base64Output::InputString, Payload::Base64(text)) => {
                        String::from_utf8(text.to_vec()).expect("accepted base64 is ASCII")
                    }
                    // Re-encoded base64, or the repaired copy of a PNG.
                    (Base64Output::Encoded(encoded), _) => encoded,
                    (data, _) => panic!("{data:?} for a payload of the other kind"),
                };
                Verdict::File {
                    media_type,
                    data,
                    uri,
                    filename,
                }
            }
        };
        (verdict, classify::classify(payload, self.declared))
    }
}

/// The head and tail the classifier reads of data this long.
fn classifier_window(bytes: &[u8]) -> Window<'_> {
    if bytes.len() <= HEAD_LEN + TAIL_LEN {
        return Window::whole(bytes);
    }
    Window {
        head: &bytes[..HEAD_LEN],
        tail: &bytes[bytes.len() - TAIL_LEN..],
        len: bytes.len(),
    }
}

/// What every file part must satisfy; `bytes` are the decoded data. A
/// repairable PNG is sent as its repaired copy, which must be sound.
fn check_file(verdict: &Verdict, c: &Classification, bytes: &[u8]) {
    let Verdict::File {
        media_type, data, ..
    } = verdict
    else {
        return;
    };
    let limits = DEFAULT
        .attach_limits(media_type)
        .unwrap_or_else(|| panic!("{media_type} is not in the allow-list"));
    assert_eq!(c.defect, None);
    let sent = match &c.repair {
        Some(repair) => repair.apply(bytes),
        None => bytes.to_vec(),
    };
    let head = &sent[..sent.len().min(HEAD_LEN)];
    assert_eq!(
        sniff::sniff(head).map(|s| s.media_type),
        Some(*media_type),
        "attached bytes do not sniff as their type"
    );
    let structure = sniff::check_structure(media_type, &classifier_window(&sent))
        .or_else(|_| sniff::check_structure(media_type, &Window::whole(&sent)));
    assert_eq!(
        structure,
        Ok(Soundness::Sound),
        "attached with a structural defect"
    );
    assert!(limits.max_size.admits(sent.len() as u64));
    if let Some(max_side) = limits.max_side {
        let (w, h) = c.dimensions.expect("an attached image has a size");
        assert!(w > 0 && h > 0 && w <= max_side && h <= max_side, "{w}x{h}");
    }
    assert_eq!(data, &base64_data::encode(&sent));
    assert_decodes(media_type, &sent);
}

/// Pixels past which the `image` crate is not asked to decode (its
/// buffer is the whole image; the check streams it).
const DECODE_LIMIT: u64 = 64 * 1024 * 1024;

/// Attached implies decodes: a second decoder reads every byte.
fn assert_decodes(media_type: &str, sent: &[u8]) {
    let format = match media_type {
        "image/png" => image::ImageFormat::Png,
        "image/gif" => image::ImageFormat::Gif,
        "image/webp" => image::ImageFormat::WebP,
        _ => return,
    };
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(sent), format);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(DECODE_LIMIT);
    reader.limits(limits);
    match reader.decode() {
        Ok(_) => {}
        Err(image::ImageError::Limits(_)) => {}
        Err(error) => panic!("attached {media_type} does not decode: {error}"),
    }
}

fuzz_target!(|input: &[u8]| {
    let mut input = Input::new(input);
    let declared = declared(input.byte());
    let flags = input.byte();
    let case = Case {
        kind: KINDS[usize::from(flags & 3)],
        uri: URIS[usize::from((flags >> 2) & 3)],
        declared,
    };
    let form = Form::from_byte(input.byte());
    let grow = Grow::read(&mut input);
    let data = grow.apply(input.rest());

    if flags & 0x10 != 0 {
        // The data is the base64 string, as a server sends it.
        let text = &data[..];
        let (verdict, c) = case.run(Payload::Base64(text));
        let Ok(b64) = base64_data::inspect(text) else {
            let Verdict::Text(note) = &verdict else {
                panic!("invalid base64 gave {verdict:?}");
            };
            assert!(note.contains(": invalid base64 data ("), "{note}");
            assert!(note.ends_with("); nothing was saved]"), "{note}");
            assert_eq!(c.kind, classify::Kind::Invalid);
            return;
        };
        let bytes = b64.decode();
        let from_bytes = case.run(Payload::Bytes(&bytes));
        check_file(&from_bytes.0, &from_bytes.1, &bytes);
        same_verdict("the base64 string", &bytes, &from_bytes, &(verdict, c));
        return;
    }

    // The bytes, and the bytes in one accepted base64 form.
    let bytes = &data[..];
    let from_bytes = case.run(Payload::Bytes(bytes));
    check_file(&from_bytes.0, &from_bytes.1, bytes);
    let text = form.encode(bytes);
    let from_base64 = case.run(Payload::Base64(text.as_bytes()));
    same_verdict(
        &format!("{form:?} base64"),
        bytes,
        &from_bytes,
        &from_base64,
    );
});

/// The same bytes as raw bytes and as base64 get the same classification
/// and the same part.
fn same_verdict(
    what: &str,
    bytes: &[u8],
    (verdict_bytes, c_bytes): &(Verdict, Classification),
    (verdict, c): &(Verdict, Classification),
) {
    check_file(verdict, c, bytes);
    assert_eq!(c, c_bytes, "classification: {what} against the bytes");
    assert_eq!(verdict, verdict_bytes, "part: {what} against the bytes");
}
