//! Bounded text. A text over the cap reaches the model as a preview, cut at a
//! line boundary, and a note naming the whole text saved by the store, with
//! its size and line count. Lengths are estimated in tokens ([`tokens`]), the
//! unit models are limited by.

use std::io::{self, Write};

use crate::note::{self, TextShown};
use crate::store::ToolOutputStore;
use crate::tokens;

/// The default cap: about 50,000 characters of English, where opencode (50
/// KiB) and Claude Code (50,000 characters) spill a tool's text to a file.
pub const DEFAULT_MAX_TEXT_TOKENS: u64 = 12_500;

/// The preview gets this share of the cap.
const PREVIEW_SHARE: u64 = 5;

/// Token costs in quarter tokens (see [`tokens::estimate`]).
const QUARTERS_OTHER: u64 = 1;
const QUARTERS_CJK: u64 = 6;

/// A text cap in tokens; `None` turns capping off.
pub type TextCap = Option<u64>;

/// Whether `text` is over `cap`, without counting when its length alone
/// decides: no character costs more than 1.5 tokens.
pub fn is_over(text: &str, cap: TextCap) -> bool {
    let Some(cap) = cap else { return false };
    let chars_bound = text.len() as u64; // UTF-8 bytes >= characters
    if chars_bound.saturating_mul(3).div_ceil(2) <= cap {
        return false;
    }
    tokens::estimate(text) > cap
}

/// The cap a caller asked for: `None` (not given) is the default, infinity
/// turns capping off, anything else must be a whole number >= 1.
pub fn cap_from(max_tokens: Option<f64>) -> Result<TextCap, String> {
    match max_tokens {
        None => Ok(Some(DEFAULT_MAX_TEXT_TOKENS)),
        Some(f64::INFINITY) => Ok(None),
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n < u64::MAX as f64 => Ok(Some(n as u64)),
        Some(n) => Err(format!(
            "maxTextTokens must be a whole number >= 1 or Infinity, got {n}"
        )),
    }
}

/// Whether text of `byte_length` UTF-8 or UTF-16 bytes is surely over the
/// cap: no character of 4 bytes or fewer costs less than a quarter token.
pub fn surely_over(byte_length: usize, cap: TextCap) -> bool {
    cap.is_some_and(|cap| (byte_length as u64) / 16 > cap)
}

/// The start of a text as the model sees it when the whole is too long.
#[derive(Debug, PartialEq, Eq)]
pub struct Preview<'a> {
    pub text: &'a str,
    pub shown: TextShown,
}

/// The longest run of whole lines of `text` within `quarters` (quarter
/// tokens); the start of the first line, cut between characters, when even
/// that one is too long. Never cuts a character (a `&str` cannot).
pub fn preview(text: &str, quarters: u64) -> Preview<'_> {
    let mut spent = 0;
    let mut last_line_end = None;
    let mut lines = 0;
    for (at, c) in text.char_indices() {
        spent += if tokens::is_cjk(c) {
            QUARTERS_CJK
        } else {
            QUARTERS_OTHER
        };
        if spent > quarters {
            return match last_line_end {
                Some(end) => Preview {
                    text: &text[..end],
                    shown: TextShown::Lines(lines),
                },
                None => Preview {
                    text: &text[..at],
                    shown: TextShown::StartOfLine(text[..at].chars().count() as u64),
                },
            };
        }
        if c == '\n' {
            lines += 1;
            last_line_end = Some(at + 1);
        }
    }
    let unterminated = u64::from(!text.is_empty() && !text.ends_with('\n'));
    Preview {
        text,
        shown: TextShown::Lines(lines + unterminated),
    }
}

/// The share of `cap` the preview may use, in quarter tokens.
pub fn preview_quarters(cap: u64) -> u64 {
    (cap / PREVIEW_SHARE).max(1).saturating_mul(4)
}

/// How many bytes of UTF-8 or UTF-16 a preview within `quarters` can need.
pub fn preview_bytes(quarters: u64) -> usize {
    usize::try_from(quarters.saturating_mul(4).saturating_add(4)).unwrap_or(usize::MAX)
}

/// A text over the cap: the preview and the note, and the file holding the
/// whole text (`None` when saving failed; the note says why).
#[derive(Debug, PartialEq, Eq)]
pub struct Bounded {
    pub text: String,
    pub saved: Option<crate::store::Saved>,
}

/// `text` bounded by `cap`: `None` when it is within the cap, else the
/// preview and the note, with the whole text saved in `store` as `extension`.
pub fn bound(
    text: &str,
    cap: TextCap,
    extension: &str,
    store: &ToolOutputStore,
) -> Option<Bounded> {
    let cap = cap.filter(|_| is_over(text, cap))?;
    let preview = preview(text, preview_quarters(cap));
    let saved = store.save(text.as_bytes(), extension);
    let file = saved.as_ref().ok().cloned();
    Some(Bounded {
        text: with_note(&preview, &LineCounter::of(text.as_bytes()), saved, store),
        saved: file,
    })
}

/// The preview followed by the note on the whole text (`whole` counts it,
/// `saved` in `store`).
pub fn with_note(
    preview: &Preview,
    whole: &LineCounter,
    saved: Result<crate::store::Saved, crate::store::StoreError>,
    store: &ToolOutputStore,
) -> String {
    let mut out = String::with_capacity(preview.text.len() + 200);
    out.push_str(preview.text);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    let path = match &saved {
        Ok(saved) => Ok(std::borrow::Cow::Owned(
            store.noted_location(&saved.path.to_string_lossy()),
        )),
        Err(error) => Err(error.to_string()),
    };
    out.push_str(&note::truncated(
        preview.shown,
        whole.bytes,
        whole.lines(),
        path,
    ));
    out
}

/// Counts the bytes and lines of UTF-8 text written through it.
#[derive(Debug, Default)]
pub struct LineCounter {
    bytes: u64,
    newlines: u64,
    last: Option<u8>,
}

impl LineCounter {
    /// The counts for bytes at hand.
    pub fn of(bytes: &[u8]) -> Self {
        LineCounter {
            bytes: bytes.len() as u64,
            newlines: memchr::memchr_iter(b'\n', bytes).count() as u64,
            last: bytes.last().copied(),
        }
    }

    /// Lines: newlines, plus an unterminated last line.
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(self.last.is_some_and(|b| b != b'\n'))
    }

    pub fn wrap<'a, W: Write + ?Sized>(&'a mut self, inner: &'a mut W) -> Counting<'a, W> {
        Counting {
            inner,
            counter: self,
        }
    }
}

/// A writer that counts what passes through into a [`LineCounter`].
pub struct Counting<'a, W: ?Sized> {
    inner: &'a mut W,
    counter: &'a mut LineCounter,
}

impl<W: Write + ?Sized> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let written = &buf[..n];
        self.counter.bytes += n as u64;
        self.counter.newlines += memchr::memchr_iter(b'\n', written).count() as u64;
        if let Some(&last) = written.last() {
            self.counter.last = Some(last);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_not_counted() {
        assert!(!is_over("x".repeat(1000).as_str(), Some(1500)));
        assert!(is_over("x".repeat(6001).as_str(), Some(1500)));
        assert!(!is_over("x".repeat(6000).as_str(), Some(1500)));
        assert!(is_over("漢".repeat(1001).as_str(), Some(1500)));
        assert!(!is_over("x".repeat(1 << 20).as_str(), None));
    }

    #[test]
    fn preview_keeps_whole_lines() {
        let text = "one\ntwo\nthree\nfour\n";
        // 9 quarters: "one\ntwo\n" is 8 characters.
        assert_eq!(
            preview(text, 9),
            Preview {
                text: "one\ntwo\n",
                shown: TextShown::Lines(2)
            }
        );
        assert_eq!(preview(text, 100).shown, TextShown::Lines(4));
        assert_eq!(preview("a\nb", 100).shown, TextShown::Lines(2));
    }

    #[test]
    fn preview_cuts_a_long_first_line_between_characters() {
        let text = "é漢😀".repeat(100);
        let p = preview(&text, 20);
        // é (1) + 漢 (6) + 😀 (1) = 8 quarters per repeat: two fit, the third's é too.
        assert_eq!(p.text, "é漢😀é漢😀é");
        assert_eq!(p.shown, TextShown::StartOfLine(7));
    }

    #[test]
    fn cap_option() {
        assert_eq!(cap_from(None), Ok(Some(DEFAULT_MAX_TEXT_TOKENS)));
        assert_eq!(cap_from(Some(f64::INFINITY)), Ok(None));
        assert_eq!(cap_from(Some(100.0)), Ok(Some(100)));
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::NEG_INFINITY] {
            assert!(cap_from(Some(bad)).is_err(), "{bad}");
        }
        assert!(surely_over(16 * 100 + 16, Some(100)));
        assert!(!surely_over(16 * 100, Some(100)));
        assert!(!surely_over(usize::MAX, None));
    }

    #[test]
    fn bound_saves_the_whole_text_and_notes_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = ToolOutputStore::new(Some(dir.path().to_path_buf()), None).unwrap();
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        assert_eq!(bound(&text, Some(10_000), "txt", &store), None);
        assert_eq!(bound(&text, None, "txt", &store), None);
        let bounded = bound(&text, Some(500), "md", &store).unwrap();
        let out = bounded.text;
        assert!(out.starts_with("line 0\nline 1\n"), "{out}");
        let note = out.lines().last().unwrap();
        let path = note
            .rsplit_once(" saved to ")
            .unwrap()
            .1
            .trim_end_matches(']');
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
        assert!(path.ends_with(".md"));
        let saved = bounded.saved.expect("the saved file");
        assert_eq!(saved.path.to_string_lossy(), path);
        assert_eq!(saved.byte_length, text.len() as u64);
        let shown = out.lines().count() - 1;
        assert!(
            note.starts_with(&format!(
                "[Text truncated: the first {shown} of 1000 lines are shown above; the whole text ({} bytes) is saved to ",
                text.len()
            )),
            "{note}"
        );
        assert!(
            tokens::estimate(&out) < 500,
            "the preview keeps within the cap"
        );
    }
}
