//! What the model reads of a result's `structuredContent`: its JSON, with
//! long strings that repeat a content part or carry base64 replaced by short
//! markers, under one line that says what was left out and where the whole
//! JSON is. (The entry walks the JSON value; this module decides what a long
//! string becomes and writes every word of it.)

use crate::classify::{self, Kind};
use crate::payload::Payload;

/// Strings shorter than this stay in the JSON whatever they hold: a marker
/// would save little, and short ids or hashes can look like base64.
pub const LONG_STRING_CHARS: usize = 1024;

/// The marker of a string that repeats content part `part` (1-based) word
/// for word: the model reads that part already.
pub fn repeat_marker(part: usize) -> String {
    format!("<repeats content part {part}>")
}

/// The marker of a long string, or `None` when it stays: a string that is
/// valid base64 (strict, as parts' data is read) is left out, with what its
/// bytes are and how many. Text, and anything else that is not base64,
/// stays; the text cap bounds the JSON as a whole.
pub fn base64_marker(string: Payload) -> Option<String> {
    let Payload::Base64(chars) = string else {
        return None;
    };
    if chars.len() < LONG_STRING_CHARS {
        return None;
    }
    let classification = classify::classify(string, None);
    if matches!(classification.kind, Kind::Invalid | Kind::Empty) {
        return None;
    }
    Some(format!(
        "<base64 of {}, {} bytes: left out>",
        classification.media_type, classification.byte_length
    ))
}

/// Where the whole JSON went when base64 was left out of the model's copy.
pub enum WholeJson<'a> {
    /// Nothing was left out but repeats: the JSON shown is all there is.
    NotNeeded,
    Saved {
        path: &'a str,
        byte_length: u64,
    },
    NotSaved {
        error: &'a str,
    },
}

/// The line above the JSON when something was left out, without its
/// newline; `None` when nothing was.
pub fn header(repeats: usize, base64: usize, whole: WholeJson) -> Option<String> {
    if repeats == 0 && base64 == 0 {
        return None;
    }
    let mut parts = Vec::with_capacity(2);
    if repeats > 0 {
        parts.push(format!(
            "{repeats} {} that {} a content part left out",
            plural(repeats, "string", "strings"),
            plural(repeats, "repeats", "repeat")
        ));
    }
    if base64 > 0 {
        let whole = match whole {
            WholeJson::NotNeeded => String::new(),
            WholeJson::Saved { path, byte_length } => {
                format!(", the whole JSON ({byte_length} bytes) saved to {path}")
            }
            WholeJson::NotSaved { error } => {
                format!(", the whole JSON could not be saved: {error}")
            }
        };
        parts.push(format!(
            "{base64} base64 {} left out{whole}",
            plural(base64, "string", "strings")
        ));
    }
    Some(format!("[Structured content: {}]", parts.join("; ")))
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn base64_of(bytes: &[u8]) -> Vec<u8> {
        base64_simd::STANDARD.encode_to_string(bytes).into_bytes()
    }

    #[test]
    fn short_strings_stay() {
        assert_eq!(base64_marker(Payload::Base64(b"aGVsbG8=")), None);
    }

    #[test]
    fn long_text_stays() {
        let text = "a sentence with spaces. ".repeat(100);
        assert_eq!(base64_marker(Payload::Base64(text.as_bytes())), None);
    }

    #[test]
    fn long_base64_is_named_by_its_bytes() {
        let mut pdf = b"%PDF-1.4\n".to_vec();
        pdf.resize(2000, b' ');
        assert_eq!(
            base64_marker(Payload::Base64(&base64_of(&pdf))).unwrap(),
            "<base64 of application/pdf, 2000 bytes: left out>"
        );
        let zeros = base64_of(&[0u8; 3000]);
        assert_eq!(
            base64_marker(Payload::Base64(&zeros)).unwrap(),
            "<base64 of application/octet-stream, 3000 bytes: left out>"
        );
    }

    #[test]
    fn header_says_what_was_left_out() {
        assert_eq!(header(0, 0, WholeJson::NotNeeded), None);
        assert_eq!(
            header(1, 0, WholeJson::NotNeeded).unwrap(),
            "[Structured content: 1 string that repeats a content part left out]"
        );
        assert_eq!(
            header(2, 1, WholeJson::Saved { path: "/t/tool_1.json", byte_length: 90 }).unwrap(),
            "[Structured content: 2 strings that repeat a content part left out; 1 base64 string left out, the whole JSON (90 bytes) saved to /t/tool_1.json]"
        );
        assert_eq!(
            header(0, 3, WholeJson::NotSaved { error: "disk full" }).unwrap(),
            "[Structured content: 3 base64 strings left out, the whole JSON could not be saved: disk full]"
        );
    }
}
