//! The whole decision for one media part (classify, route, the part or
//! note made) with the default profile, short of the disk write:
//! `content::media_to_content_without_disk` and `classify::classify`.
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
//!   depends on the bytes alone (but for finding 3, see `window_gap`);
//! - a file part has a type of the profile's allow-list, its bytes sniff as
//!   that type, pass its structural check, are within its limits, and its
//!   data is the canonical base64 of the bytes (the input string itself
//!   only when that is canonical);
//! - a string that is not accepted base64 gets the invalid-base64 note.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_content::base64_data;
use mcp_content::classify::{self, Classification};
use mcp_content::content::{self, MediaKind, MediaPart, ModelPart};
use mcp_content::payload::{Base64Output, Payload};
use mcp_content::provider::DEFAULT;
use mcp_content::sniff::{self, Window, HEAD_LEN, TAIL_LEN};
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
        let verdict = match content::media_to_content_without_disk(&part, &DEFAULT) {
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
                    (Base64Output::Encoded(encoded), Payload::Base64(_)) => encoded,
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

/// What every file part must satisfy; `bytes` are the decoded data.
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
    let head = &bytes[..bytes.len().min(HEAD_LEN)];
    assert_eq!(
        sniff::sniff(head).map(|s| s.media_type),
        Some(*media_type),
        "attached bytes do not sniff as their type"
    );
    let structure = sniff::check_structure(media_type, &classifier_window(bytes))
        .or_else(|_| sniff::check_structure(media_type, &Window::whole(bytes)));
    assert_eq!(structure, Ok(()), "attached with a structural defect");
    assert_eq!(c.defect, None);
    assert!(limits.max_size.admits(bytes.len() as u64));
    if let Some(max_side) = limits.max_side {
        let (w, h) = c.dimensions.expect("an attached image has a size");
        assert!(w > 0 && h > 0 && w <= max_side && h <= max_side, "{w}x{h}");
    }
    assert_eq!(data, &base64_data::encode(bytes));
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
/// and the same part, but for the known gap below.
fn same_verdict(
    what: &str,
    bytes: &[u8],
    (verdict_bytes, c_bytes): &(Verdict, Classification),
    (verdict, c): &(Verdict, Classification),
) {
    check_file(verdict, c, bytes);
    if window_gap(bytes.len(), c_bytes, c) && !strict() {
        return;
    }
    assert_eq!(c, c_bytes, "classification: {what} against the bytes");
    assert_eq!(verdict, verdict_bytes, "part: {what} against the bytes");
}

/// Finding 3 (fuzz/README.md, fuzz/findings/route/): data over
/// HEAD_LEN + TAIL_LEN bytes is checked whole when given as raw bytes but
/// on its head and tail only when given as base64, so only the raw bytes
/// show a defect past the head (a GIF whose blocks run off the end, a PNG
/// with a broken chunk there). Until that is decided this one difference is
/// let through; everything else must still match.
fn window_gap(len: usize, c_bytes: &Classification, c: &Classification) -> bool {
    len > HEAD_LEN + TAIL_LEN
        && c.defect.is_none()
        && c_bytes.defect.is_some()
        && *c
            == Classification {
                defect: None,
                ..c_bytes.clone()
            }
}

/// `MCP_CONTENT_FUZZ_STRICT=1` checks the verdicts without the gap above.
fn strict() -> bool {
    static STRICT: OnceLock<bool> = OnceLock::new();
    *STRICT.get_or_init(|| std::env::var_os("MCP_CONTENT_FUZZ_STRICT").is_some_and(|v| v == "1"))
}
