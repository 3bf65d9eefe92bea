//! What a file the store saved is, read back: told from its head by the
//! sniffers and the text detection `classify` uses, so a reader knows
//! whether to page it as text, attach it as an image or describe it.

use crate::classify::{self, Kind};
use crate::sniff::{self, HEAD_LEN};
use crate::store::{StoreError, ToolOutputStore};
use crate::text::{self, Declared, TextEncoding};

const OCTET_STREAM: &str = "application/octet-stream";

/// A saved file, looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    pub kind: Kind,
    /// Sniffed; `text/plain` for text no sniffer knows; else octet-stream.
    pub media_type: &'static str,
    /// The encoding of a text (`None` for other kinds, or for a text format
    /// whose bytes are no text encoding the detection knows).
    pub text_encoding: Option<TextEncoding>,
    /// A text whose lines end at `\n` bytes (ASCII-compatible: not
    /// UTF-16), so it can be paged by lines a range at a time.
    pub paged_by_lines: bool,
    pub byte_length: u64,
}

/// Looks at the file `location` names (refused as
/// [`ToolOutputStore::read`] refuses it), reading its first `HEAD_LEN`
/// bytes only.
pub fn look(store: &ToolOutputStore, location: &str) -> Result<Look, StoreError> {
    let (head, byte_length) = store.read_sized(location, 0, Some(HEAD_LEN as u64))?;
    let whole = head.len() as u64 == byte_length;
    let (kind, media_type, text_encoding) = of_head(&head, whole);
    let paged_by_lines = match text_encoding {
        Some(TextEncoding::Utf16Le | TextEncoding::Utf16Be) | None => false,
        Some(TextEncoding::Legacy(encoding)) => encoding.is_ascii_compatible(),
        Some(TextEncoding::Ascii | TextEncoding::Utf8) => true,
    };
    Ok(Look {
        kind,
        media_type,
        text_encoding,
        paged_by_lines,
        byte_length,
    })
}

/// What data starting with `head` is (`whole`: `head` is all of it; if not,
/// a character cut at its end is no sign of binary).
fn of_head(head: &[u8], whole: bool) -> (Kind, &'static str, Option<TextEncoding>) {
    if head.is_empty() {
        return (Kind::Empty, OCTET_STREAM, None);
    }
    if let Some(sniffed) = sniff::sniff(head) {
        let kind = classify::kind_of(sniffed.family);
        let textual = Declared {
            textual: true,
            charset: None,
        };
        let encoding = (kind == Kind::Text)
            .then(|| text::detect(head, textual, whole))
            .flatten();
        return (kind, sniffed.media_type, encoding);
    }
    let undeclared = Declared {
        textual: false,
        charset: None,
    };
    match text::detect(head, undeclared, whole) {
        Some(encoding) => (Kind::Text, "text/plain", Some(encoding)),
        None => (Kind::Binary, OCTET_STREAM, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_of_each_kind() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
        assert_eq!(of_head(png, false), (Kind::Image, "image/png", None));
        assert_eq!(of_head(b"", true), (Kind::Empty, OCTET_STREAM, None));
        assert_eq!(
            of_head(b"plain words\nand lines\n", true),
            (Kind::Text, "text/plain", Some(TextEncoding::Ascii))
        );
        let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
        assert_eq!(of_head(&binary, true).0, Kind::Binary);
    }

    #[test]
    fn a_character_cut_at_the_end_of_a_head_is_still_text() {
        // "é" is two bytes: the head ends after the first.
        let mut head = "déjà vu, encore une fois\n".repeat(100).into_bytes();
        head.extend_from_slice(&"é".as_bytes()[..1]);
        assert_eq!(
            of_head(&head, false),
            (Kind::Text, "text/plain", Some(TextEncoding::Utf8))
        );
        assert_ne!(of_head(&head, true).2, Some(TextEncoding::Utf8));
    }

    #[test]
    fn looks_at_saved_files() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ToolOutputStore::new(Some(tmp.path().to_path_buf()), None).unwrap();
        // Longer than the head, with a character across its end.
        let text = format!("a{}", "ü".repeat(HEAD_LEN));
        let saved = store.save(text.as_bytes(), "txt").unwrap();
        let look = look(&store, saved.path.to_str().unwrap()).unwrap();
        assert_eq!(look.kind, Kind::Text);
        assert_eq!(look.text_encoding, Some(TextEncoding::Utf8));
        assert_eq!(look.byte_length, text.len() as u64);
        assert!(look.paged_by_lines);
        let utf16: Vec<u8> = "\u{feff}line one\nline two\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let saved = store.save(&utf16, "txt").unwrap();
        let look = super::look(&store, saved.path.to_str().unwrap()).unwrap();
        assert_eq!(look.text_encoding, Some(TextEncoding::Utf16Le));
        assert!(!look.paged_by_lines);
        let refused = super::look(&store, tmp.path().join(".tool_lock").to_str().unwrap());
        assert_eq!(refused.unwrap_err().code(), "STORE_NOT_OWN_FILE");
    }
}
