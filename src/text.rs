//! Text detection: UTF-8 and UTF-16 (with BOM) validation, the "clearly text"
//! test for bytes whose declared type says nothing, and decoding to `String`.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    Ascii,
    Utf8,
    Utf16Le,
    Utf16Be,
}

impl TextEncoding {
    pub fn as_str(self) -> &'static str {
        match self {
            TextEncoding::Ascii => "ascii",
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Utf16Le => "utf-16le",
            TextEncoding::Utf16Be => "utf-16be",
        }
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16BE_BOM: &[u8] = b"\xFE\xFF";

/// How many leading bytes the control-character test samples.
const SAMPLE_LEN: usize = 8 * 1024;
/// Above this share of control bytes in the sample, valid UTF-8 is still
/// treated as binary (opencode uses 30% of 4 KiB; text rarely has any).
const MAX_CONTROL_SHARE: f64 = 0.10;

pub fn is_utf8(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// The encoding `bytes` decode with: a UTF-16 BOM selects UTF-16 (which
/// must then be well formed), otherwise the bytes must be valid UTF-8.
pub fn detect_encoding(bytes: &[u8]) -> Option<TextEncoding> {
    if let Some(body) = bytes.strip_prefix(UTF16LE_BOM) {
        return utf16_units(body, u16::from_le_bytes)
            .is_some()
            .then_some(TextEncoding::Utf16Le);
    }
    if let Some(body) = bytes.strip_prefix(UTF16BE_BOM) {
        return utf16_units(body, u16::from_be_bytes)
            .is_some()
            .then_some(TextEncoding::Utf16Be);
    }
    if !is_utf8(bytes) {
        return None;
    }
    Some(if bytes.is_ascii() {
        TextEncoding::Ascii
    } else {
        TextEncoding::Utf8
    })
}

/// Text a person would read: decodable, no NUL byte, and few control bytes
/// in the leading sample. Used when the declared type does not say "text".
pub fn is_clearly_text(bytes: &[u8], encoding: TextEncoding) -> bool {
    let sample: Vec<u16> = match encoding {
        TextEncoding::Ascii | TextEncoding::Utf8 => {
            let sample = &bytes[..bytes.len().min(SAMPLE_LEN)];
            sample.iter().map(|&b| u16::from(b)).collect()
        }
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
            let body = &bytes[2..bytes.len().min(SAMPLE_LEN + 2)];
            let to_unit = if encoding == TextEncoding::Utf16Le {
                u16::from_le_bytes
            } else {
                u16::from_be_bytes
            };
            body.chunks_exact(2)
                .map(|p| to_unit([p[0], p[1]]))
                .collect()
        }
    };
    if sample.is_empty() {
        return false;
    }
    let mut control = 0usize;
    for &unit in &sample {
        match unit {
            0 => return false,
            1..=8 | 14..=31 | 127 => control += 1,
            _ => {}
        }
    }
    (control as f64) <= MAX_CONTROL_SHARE * sample.len() as f64
}

/// Whether data starting with `head` can still turn out to be text: its
/// head is valid up to a character cut at the end and, unless the declared
/// type says text, passes the control-character test. `false` is final;
/// `true` needs the whole data to confirm.
pub fn head_may_be_text(head: &[u8], declared_textual: bool) -> bool {
    let encoding = if head.starts_with(UTF16LE_BOM) {
        TextEncoding::Utf16Le
    } else if head.starts_with(UTF16BE_BOM) {
        TextEncoding::Utf16Be
    } else {
        match simdutf8::compat::from_utf8(head) {
            Ok(_) => TextEncoding::Utf8,
            // No error length: the input ended inside a character.
            Err(error) if error.error_len().is_none() => TextEncoding::Utf8,
            Err(_) => return false,
        }
    };
    declared_textual || is_clearly_text(head, encoding)
}

/// Decode `bytes` in `encoding`, dropping a leading BOM. `None` when the
/// bytes are not valid in that encoding.
pub fn decode(bytes: &[u8], encoding: TextEncoding) -> Option<String> {
    match encoding {
        TextEncoding::Ascii | TextEncoding::Utf8 => {
            let body = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
            simdutf8::basic::from_utf8(body).ok().map(str::to_owned)
        }
        TextEncoding::Utf16Le => {
            let units = utf16_units(bytes.strip_prefix(UTF16LE_BOM)?, u16::from_le_bytes)?;
            String::from_utf16(&units).ok()
        }
        TextEncoding::Utf16Be => {
            let units = utf16_units(bytes.strip_prefix(UTF16BE_BOM)?, u16::from_be_bytes)?;
            String::from_utf16(&units).ok()
        }
    }
}

/// The code units of a well-formed UTF-16 body, `None` when it has an odd
/// length or an unpaired surrogate.
fn utf16_units(body: &[u8], to_unit: fn([u8; 2]) -> u16) -> Option<Vec<u16>> {
    if !body.len().is_multiple_of(2) {
        return None;
    }
    let units: Vec<u16> = body
        .chunks_exact(2)
        .map(|p| to_unit([p[0], p[1]]))
        .collect();
    char::decode_utf16(units.iter().copied())
        .all(|c| c.is_ok())
        .then_some(units)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        let mut out = if big_endian {
            UTF16BE_BOM.to_vec()
        } else {
            UTF16LE_BOM.to_vec()
        };
        for unit in text.encode_utf16() {
            let pair = if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            out.extend_from_slice(&pair);
        }
        out
    }

    #[test]
    fn detects_encodings() {
        assert_eq!(detect_encoding(b"plain"), Some(TextEncoding::Ascii));
        assert_eq!(
            detect_encoding("h\u{e9}".as_bytes()),
            Some(TextEncoding::Utf8)
        );
        assert_eq!(
            detect_encoding(&utf16("h\u{e9}", false)),
            Some(TextEncoding::Utf16Le)
        );
        assert_eq!(
            detect_encoding(&utf16("h\u{e9}", true)),
            Some(TextEncoding::Utf16Be)
        );
        assert_eq!(detect_encoding(b"\xff\x00\x80"), None);
        // Unpaired surrogate in UTF-16.
        assert_eq!(detect_encoding(b"\xFF\xFE\x00\xD8"), None);
    }

    #[test]
    fn head_may_be_text_allows_a_character_cut_at_the_end() {
        let text = "h\u{e9}llo w\u{f6}rld".as_bytes();
        assert!(head_may_be_text(&text[..2], false), "cut inside \u{e9}");
        assert!(head_may_be_text(text, false));
        assert!(!head_may_be_text(b"abc\xff\xfedef", true));
        assert!(!head_may_be_text(b"abc\0def", false));
        assert!(head_may_be_text(b"abc\0def", true));
    }

    #[test]
    fn decodes_and_drops_bom() {
        assert_eq!(decode(b"\xEF\xBB\xBFhi", TextEncoding::Utf8).unwrap(), "hi");
        let text = "caf\u{e9} \u{1F600}";
        assert_eq!(
            decode(&utf16(text, false), TextEncoding::Utf16Le).unwrap(),
            text
        );
        assert_eq!(
            decode(&utf16(text, true), TextEncoding::Utf16Be).unwrap(),
            text
        );
    }

    #[test]
    fn clearly_text_rejects_nul_and_control_heavy_bytes() {
        assert!(is_clearly_text(
            b"# Title\n\nbody\ttext\r\n",
            TextEncoding::Ascii
        ));
        assert!(!is_clearly_text(b"abc\0def", TextEncoding::Ascii));
        assert!(!is_clearly_text(
            b"\x01\x02\x03\x04abcdef",
            TextEncoding::Ascii
        ));
        assert!(!is_clearly_text(b"", TextEncoding::Ascii));
        assert!(is_clearly_text(
            &utf16("hello", false),
            TextEncoding::Utf16Le
        ));
    }
}
