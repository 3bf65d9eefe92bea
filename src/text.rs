//! Text detection: the encoding bytes are text in (a BOM, a declared
//! charset, UTF-16 without a BOM, UTF-8, windows-1252 for a declared text
//! type, a legacy encoding guessed for legible bytes), the "clearly text"
//! test, and decoding to `String`.
//!
//! Every encoding but UTF-8 is read with encoding_rs, piece by piece through
//! a small buffer: checking bytes allocates nothing, and decoding them holds
//! the bytes and the text only.

use std::io::{self, Write};

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

use crate::charset;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    Ascii,
    Utf8,
    Utf16Le,
    Utf16Be,
    /// Any other encoding of the WHATWG Encoding Standard: windows-1252,
    /// Shift_JIS, GBK, ... (never UTF-8 or UTF-16).
    Legacy(&'static Encoding),
}

impl TextEncoding {
    /// The name `Classification.textEncoding` and the text header give:
    /// `ascii`, or the standard's name in lower case (`utf-8`, `shift_jis`).
    pub fn as_str(self) -> &'static str {
        match self {
            TextEncoding::Ascii => "ascii",
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Utf16Le => "utf-16le",
            TextEncoding::Utf16Be => "utf-16be",
            TextEncoding::Legacy(encoding) => charset::name(encoding),
        }
    }

    /// True for ASCII and UTF-8: the text header names every other one.
    pub fn is_utf8(self) -> bool {
        matches!(self, TextEncoding::Ascii | TextEncoding::Utf8)
    }

    fn from_encoding(encoding: &'static Encoding) -> Self {
        if encoding == UTF_8 {
            TextEncoding::Utf8
        } else if encoding == UTF_16LE {
            TextEncoding::Utf16Le
        } else if encoding == UTF_16BE {
            TextEncoding::Utf16Be
        } else {
            TextEncoding::Legacy(encoding)
        }
    }

    fn encoding(self) -> &'static Encoding {
        match self {
            TextEncoding::Ascii | TextEncoding::Utf8 => UTF_8,
            TextEncoding::Utf16Le => UTF_16LE,
            TextEncoding::Utf16Be => UTF_16BE,
            TextEncoding::Legacy(encoding) => encoding,
        }
    }
}

/// What the declared media type says about the bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Declared {
    /// The type is textual (`text/*`, json, svg, ...): valid UTF-8 is text
    /// even when not clearly so, and windows-1252 is tried last.
    pub textual: bool,
    /// Its `charset` parameter, resolved (see `charset::from_media_type`).
    pub charset: Option<&'static Encoding>,
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16BE_BOM: &[u8] = b"\xFE\xFF";

/// How many leading bytes (after a UTF-16 BOM) the clearly-text test and
/// the UTF-16 pattern sample.
const SAMPLE_LEN: usize = 8 * 1024;
/// Above this share of control characters in the sample, bytes that decode
/// are still treated as binary (opencode uses 30% of 4 KiB; text rarely has
/// any).
const MAX_CONTROL_SHARE: f64 = 0.10;
/// windows-1252 is a guess, taken for Western text, which is mostly ASCII:
/// at most this share of the sample's characters may lie beyond ASCII
/// (random bytes have half there).
const MAX_GUESSED_NON_ASCII_SHARE: f64 = 0.25;
/// Bytes decoded per step: the only buffer a check uses.
const PIECE_LEN: usize = 8 * 1024;
/// Shortest bytes a legacy encoding is guessed for (step 6 of `detect`):
/// short ones cannot be told from random bytes. Random bytes are legible
/// (no control byte, see `is_legible`) with probability (228/256)^n:
/// 6e-4 for 64 bytes, 4e-7 for 128. The windows-1252 guess then also wants
/// mostly ASCII, which legible random bytes of 64 give with probability
/// 1e-6; for any other encoding chardetng's guess on legible random bytes
/// of 64 bytes named one and decoded cleanly 76 times in 100,000, of 96
/// bytes or more never.
const MIN_WESTERN_GUESS_LEN: usize = 64;
const MIN_OTHER_GUESS_LEN: usize = 128;
/// See `has_word_breaks`.
const WESTERN_BREAK_GAP: usize = 32;
const OTHER_BREAK_GAP: usize = 128;

pub fn is_utf8(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// The encoding `bytes` are text in, given what was declared; `None` when
/// they are not text. In order:
/// 1. a BOM (UTF-8, UTF-16LE, UTF-16BE) decides, as in browsers;
/// 2. a declared charset, when the bytes decode in it and are clearly text
///    (not when it is ASCII-compatible and the bytes are ASCII: that is
///    plain ASCII, step 4);
/// 3. UTF-16 without a BOM, when the sample has the NUL pattern of mostly
///    ASCII (or Latin-1) UTF-16 and the bytes decode to clear text;
/// 4. UTF-8 (ASCII when every byte is);
/// 5. for a textual type, windows-1252 when that gives clear text that is
///    mostly ASCII (see `MAX_GUESSED_NON_ASCII_SHARE`);
/// 6. whatever was declared, the legacy encoding chardetng (Firefox's
///    detector) guesses from the sample, when all the bytes are legible in
///    it (`is_legible`) and long enough (`MIN_WESTERN_GUESS_LEN`); for
///    windows-1252, also its fallback, mostly ASCII as in step 5.
///
/// Steps 1 and 4 also require clear text unless the type is textual.
/// `whole`: `bytes` are all of the data; when `false` they are its head,
/// and a character cut at their end is no error (`Some` then means the
/// data may be text, `None` that it is not).
pub fn detect(bytes: &[u8], declared: Declared, whole: bool) -> Option<TextEncoding> {
    let by_bom = if bytes.starts_with(UTF8_BOM) {
        Some(TextEncoding::Utf8)
    } else if bytes.starts_with(UTF16LE_BOM) {
        Some(TextEncoding::Utf16Le)
    } else if bytes.starts_with(UTF16BE_BOM) {
        Some(TextEncoding::Utf16Be)
    } else {
        None
    };
    if let Some(encoding) = by_bom {
        let is_text = decodes(bytes, encoding, whole)
            && (declared.textual || is_clearly_text(bytes, encoding));
        return is_text.then_some(encoding);
    }
    if let Some(encoding) = declared.charset.filter(|e| *e != UTF_8) {
        let plain_ascii = encoding.is_ascii_compatible() && bytes.is_ascii();
        let encoding = TextEncoding::from_encoding(encoding);
        if !plain_ascii && is_clear_text_in(bytes, encoding, whole) {
            return Some(encoding);
        }
    }
    if let Some(encoding) = utf16_by_nul_pattern(bytes) {
        if is_clear_text_in(bytes, encoding, whole) {
            return Some(encoding);
        }
    }
    if decodes(bytes, TextEncoding::Utf8, whole) {
        let encoding = if bytes.is_ascii() {
            TextEncoding::Ascii
        } else {
            TextEncoding::Utf8
        };
        if declared.textual || is_clearly_text(bytes, encoding) {
            return Some(encoding);
        }
    }
    let fallback = TextEncoding::Legacy(WINDOWS_1252);
    let is_text = declared.textual
        && sample_count(bytes, fallback).is_mostly_ascii()
        && is_clear_text_in(bytes, fallback, whole);
    if is_text {
        return Some(fallback);
    }
    guess_legacy(bytes, whole)
}

/// Step 6 of `detect`. Costs a look at the sample's bytes, which turns
/// almost all binary away; then chardetng on the sample (at most 8 KiB)
/// and one decoding pass over all the bytes.
fn guess_legacy(bytes: &[u8], whole: bool) -> Option<TextEncoding> {
    let sample = &bytes[..bytes.len().min(SAMPLE_LEN)];
    // A control byte is one in every legacy encoding chardetng guesses
    // (none uses bytes below 0x40 in a multi-byte character).
    let legible_bytes = sample.iter().all(|&b| b >= 0x80 || is_legible(b.into()));
    if bytes.len() < MIN_WESTERN_GUESS_LEN || !legible_bytes {
        return None;
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    // Never told the stream ends: chardetng then guesses otherwise (a short
    // text ending in 0xFF runs: windows-1256, where the same bytes as a head
    // gave windows-1252), and a head's `None` must hold for the whole data.
    // `is_legible_in` below still refuses a character cut at the end.
    detector.feed(sample, false);
    let guessed = detector.guess(None, Utf8Detection::Deny);
    let encoding = TextEncoding::from_encoding(guessed);
    let western = guessed == WINDOWS_1252;
    let plausible = if western {
        sample_count(bytes, encoding).is_mostly_ascii()
    } else {
        bytes.len() >= MIN_OTHER_GUESS_LEN
    };
    let plausible = plausible && has_word_breaks(sample, western);
    (plausible && is_legible_in(bytes, encoding, whole)).then_some(encoding)
}

/// Text breaks into words and lines: an ASCII space, tab or line break at
/// least every `WESTERN_BREAK_GAP` bytes on average in Western text, every
/// `OTHER_BREAK_GAP` in any other (Chinese and Japanese put no spaces
/// between words; prose in them measured here breaks at least every 54
/// bytes). Pixel rows, audio samples and fill bytes, legible as they may
/// be, rarely have them.
fn has_word_breaks(sample: &[u8], western: bool) -> bool {
    let breaks = sample
        .iter()
        .filter(|&&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    let gap = if western {
        WESTERN_BREAK_GAP
    } else {
        OTHER_BREAK_GAP
    };
    breaks.saturating_mul(gap) >= sample.len()
}

/// A character legible text has: no C0 control but tab, LF, CR, form feed
/// (page breaks, in GNU sources and RFCs) and escape (terminal colours in
/// logs); no DEL, and no C1 control (what a legacy encoding's undefined
/// bytes decode to).
fn is_legible(c: u32) -> bool {
    match c {
        0x09 | 0x0A | 0x0C | 0x0D | 0x1B => true,
        0x00..=0x1F | 0x7F..=0x9F => false,
        _ => true,
    }
}

/// All of `bytes` decode in `encoding` to legible characters.
fn is_legible_in(bytes: &[u8], encoding: TextEncoding, whole: bool) -> bool {
    let mut legible = true;
    let decodes = decode_pieces(body(bytes, encoding), encoding.encoding(), whole, |piece| {
        legible = legible && piece.chars().all(|c| is_legible(c.into()));
    });
    decodes && legible
}

/// UTF-16 without a BOM, told by characters up to U+00FF: their high byte
/// is NUL, the low one not. LE when more than half of the sample's code
/// units look so in LE order, BE when in BE order. UTF-8 and legacy text
/// have no NUL bytes, so never match; UTF-16 of mostly other scripts (CJK,
/// Cyrillic) is not found this way (a declared `charset=utf-16le` is).
fn utf16_by_nul_pattern(bytes: &[u8]) -> Option<TextEncoding> {
    let sample = &bytes[..bytes.len().min(SAMPLE_LEN)];
    let (mut units, mut le, mut be) = (0usize, 0usize, 0usize);
    for pair in sample.chunks_exact(2) {
        units += 1;
        match (pair[0], pair[1]) {
            (0, 0) => {}
            (_, 0) => le += 1,
            (0, _) => be += 1,
            _ => {}
        }
    }
    if le * 2 > units {
        Some(TextEncoding::Utf16Le)
    } else if be * 2 > units {
        Some(TextEncoding::Utf16Be)
    } else {
        None
    }
}

/// Decodes in `encoding` and is clearly text: the sample first, which turns
/// binary away without reading the rest.
fn is_clear_text_in(bytes: &[u8], encoding: TextEncoding, whole: bool) -> bool {
    is_clearly_text(bytes, encoding) && decodes(bytes, encoding, whole)
}

/// The bytes after the BOM of `encoding`, if they start with it.
fn body(bytes: &[u8], encoding: TextEncoding) -> &[u8] {
    let bom = match encoding {
        TextEncoding::Ascii | TextEncoding::Utf8 => UTF8_BOM,
        TextEncoding::Utf16Le => UTF16LE_BOM,
        TextEncoding::Utf16Be => UTF16BE_BOM,
        TextEncoding::Legacy(_) => return bytes,
    };
    bytes.strip_prefix(bom).unwrap_or(bytes)
}

/// Whether `bytes` are valid in `encoding`; with `whole` false a character
/// cut at the end is allowed.
fn decodes(bytes: &[u8], encoding: TextEncoding, whole: bool) -> bool {
    if encoding.is_utf8() {
        return match simdutf8::compat::from_utf8(bytes) {
            Ok(_) => true,
            // No error length: the input ended inside a character.
            Err(error) => !whole && error.error_len().is_none(),
        };
    }
    decode_pieces(body(bytes, encoding), encoding.encoding(), whole, |_| {})
}

/// Text a person would read: no NUL and at most 10% control characters
/// (C0 but tab, LF, VT, FF, CR; and DEL) in the first 8 KiB. UTF-8 is
/// counted in bytes (a BOM included), every other encoding in the
/// characters those bytes decode to after the BOM.
pub fn is_clearly_text(bytes: &[u8], encoding: TextEncoding) -> bool {
    sample_count(bytes, encoding).is_clear()
}

/// The characters of the clearly-text sample, counted.
fn sample_count(bytes: &[u8], encoding: TextEncoding) -> SampleCount {
    let mut count = SampleCount::default();
    if encoding.is_utf8() {
        let sample = &bytes[..bytes.len().min(SAMPLE_LEN)];
        sample.iter().for_each(|&b| count.add(u32::from(b)));
    } else {
        let body = body(bytes, encoding);
        let sample = &body[..body.len().min(SAMPLE_LEN)];
        // Malformed bytes stop the count; `decodes` turns them away.
        decode_pieces(sample, encoding.encoding(), false, |piece| {
            piece.chars().for_each(|c| count.add(u32::from(c)))
        });
    }
    count
}

#[derive(Default)]
struct SampleCount {
    chars: usize,
    control: usize,
    non_ascii: usize,
    nul: bool,
}

impl SampleCount {
    fn add(&mut self, c: u32) {
        self.chars += 1;
        match c {
            0 => self.nul = true,
            1..=8 | 14..=31 | 127 => self.control += 1,
            128.. => self.non_ascii += 1,
            _ => {}
        }
    }

    fn is_clear(&self) -> bool {
        !self.nul
            && self.chars > 0
            && (self.control as f64) <= MAX_CONTROL_SHARE * self.chars as f64
    }

    fn is_mostly_ascii(&self) -> bool {
        (self.non_ascii as f64) <= MAX_GUESSED_NON_ASCII_SHARE * self.chars as f64
    }
}

/// Decode `bytes` (no BOM handling) through a small buffer, handing each
/// decoded piece to `each`. `false` at the first malformed sequence; with
/// `last` false, a character cut at the end is not one.
fn decode_pieces(
    bytes: &[u8],
    encoding: &'static Encoding,
    last: bool,
    mut each: impl FnMut(&str),
) -> bool {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut buffer = [0u8; PIECE_LEN];
    // All zeros: valid UTF-8, so this cannot fail.
    let Ok(out) = std::str::from_utf8_mut(&mut buffer) else {
        return false;
    };
    let mut input = bytes;
    loop {
        let (result, read, written) = decoder.decode_to_str_without_replacement(input, out, last);
        each(&out[..written]);
        input = &input[read..];
        match result {
            DecoderResult::InputEmpty => return true,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(..) => return false,
        }
    }
}

/// Append `bytes` decoded in `encoding` to `out`, dropping a BOM. The text's
/// exact length is measured first and reserved once, so a large text is
/// held once next to its bytes. `false` (and `out` unchanged) when the
/// bytes are not valid in that encoding.
pub fn decode_into(bytes: &[u8], encoding: TextEncoding, out: &mut String) -> bool {
    let body = body(bytes, encoding);
    if encoding.is_utf8() {
        let Ok(text) = simdutf8::basic::from_utf8(body) else {
            return false;
        };
        out.reserve_exact(text.len());
        out.push_str(text);
        return true;
    }
    let encoding = encoding.encoding();
    let mut len = 0usize;
    if !decode_pieces(body, encoding, true, |piece| len += piece.len()) {
        return false;
    }
    out.reserve_exact(len);
    decode_pieces(body, encoding, true, |piece| out.push_str(piece))
}

/// The start of `head` (the first bytes of data in `encoding`) decoded, a
/// character cut at its end left out.
pub fn decode_head(head: &[u8], encoding: TextEncoding) -> String {
    let mut text = String::new();
    // Malformed bytes end it early; the data was found to be in `encoding`.
    decode_pieces(body(head, encoding), encoding.encoding(), false, |piece| {
        text.push_str(piece)
    });
    text
}

/// The length in UTF-8 of `bytes` decoded in `encoding`, a BOM dropped.
pub fn decoded_len(bytes: &[u8], encoding: TextEncoding) -> u64 {
    let mut len = 0u64;
    decode_pieces(body(bytes, encoding), encoding.encoding(), true, |piece| {
        len += piece.len() as u64
    });
    len
}

/// Write `bytes` decoded in `encoding` to `out` in UTF-8, a BOM dropped,
/// piece by piece: the text is never held whole. Returns the bytes written;
/// an error when the bytes are not valid in that encoding.
pub fn decode_to(bytes: &[u8], encoding: TextEncoding, out: &mut dyn Write) -> io::Result<u64> {
    let mut written = Ok(0u64);
    let valid = decode_pieces(body(bytes, encoding), encoding.encoding(), true, |piece| {
        if let Ok(n) = &mut written {
            match out.write_all(piece.as_bytes()) {
                Ok(()) => *n += piece.len() as u64,
                Err(error) => written = Err(error),
            }
        }
    });
    match written {
        Ok(_) if !valid => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not valid {}", encoding.as_str()),
        )),
        written => written,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{
        BIG5, EUC_KR, GBK, ISO_2022_JP, ISO_8859_2, KOI8_R, SHIFT_JIS, WINDOWS_1251,
    };

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for unit in ['\u{feff}'].into_iter().filter(|_| bom).chain(text.chars()) {
            let mut units = [0u16; 2];
            for unit in unit.encode_utf16(&mut units) {
                let pair = if big_endian {
                    unit.to_be_bytes()
                } else {
                    unit.to_le_bytes()
                };
                out.extend_from_slice(&pair);
            }
        }
        out
    }

    /// `text` encoded by encoding_rs, which must map every character.
    fn encoded(text: &str, encoding: &'static Encoding) -> Vec<u8> {
        let (bytes, used, unmappable) = encoding.encode(text);
        assert_eq!((used, unmappable), (encoding, false), "{}", encoding.name());
        bytes.into_owned()
    }

    const TEXT_ONLY: Declared = Declared {
        textual: true,
        charset: None,
    };
    const NOTHING: Declared = Declared {
        textual: false,
        charset: None,
    };

    fn charset(encoding: &'static Encoding) -> Declared {
        Declared {
            textual: true,
            charset: Some(encoding),
        }
    }

    fn detect_whole(bytes: &[u8], declared: Declared) -> Option<TextEncoding> {
        detect(bytes, declared, true)
    }

    fn decode(bytes: &[u8], encoding: TextEncoding) -> Option<String> {
        let mut out = String::new();
        decode_into(bytes, encoding, &mut out).then_some(out)
    }

    #[test]
    fn detects_utf8_and_utf16_with_a_bom() {
        assert_eq!(detect_whole(b"plain", NOTHING), Some(TextEncoding::Ascii));
        assert_eq!(
            detect_whole("h\u{e9}".as_bytes(), NOTHING),
            Some(TextEncoding::Utf8)
        );
        assert_eq!(
            detect_whole(&utf16("h\u{e9}", false, true), NOTHING),
            Some(TextEncoding::Utf16Le)
        );
        assert_eq!(
            detect_whole(&utf16("h\u{e9}", true, true), NOTHING),
            Some(TextEncoding::Utf16Be)
        );
        assert_eq!(detect_whole(b"\xff\x00\x80", NOTHING), None);
        // A BOM decides: an unpaired surrogate in UTF-16 is not text, even
        // for a text type that would otherwise try windows-1252.
        assert_eq!(detect_whole(b"\xFF\xFE\x00\xD8", TEXT_ONLY), None);
        assert_eq!(detect_whole(b"\xEF\xBB\xBFcaf\xe9", TEXT_ONLY), None);
    }

    #[test]
    fn declared_charsets_are_honoured() {
        let cases: [(&str, &'static Encoding); 8] = [
            (
                "Gr\u{fc}\u{df}e aus K\u{f6}ln, der Kaffee kostet \u{20ac}5\n",
                WINDOWS_1252,
            ),
            (
                "\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{30c6}\u{30ad}\u{30b9}\u{30c8}\n",
                SHIFT_JIS,
            ),
            ("\u{4e2d}\u{6587}\u{6587}\u{672c}\n", GBK),
            ("\u{d55c}\u{ad6d}\u{c5b4} \u{bb38}\u{c7a5}\n", EUC_KR),
            ("\u{7e41}\u{9ad4}\u{4e2d}\u{6587}\n", BIG5),
            (
                "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}, \u{43c}\u{438}\u{440}\n",
                KOI8_R,
            ),
            ("\u{17c}\u{f3}\u{142}w \u{10d}\n", ISO_8859_2),
            ("\u{3053}\u{3093}\u{306b}\u{3061}\u{306f} ok\n", ISO_2022_JP),
        ];
        for (text, encoding) in cases {
            let bytes = encoded(text, encoding);
            let found = detect_whole(&bytes, charset(encoding));
            assert_eq!(
                found,
                Some(TextEncoding::Legacy(encoding)),
                "{}",
                encoding.name()
            );
            assert_eq!(decode(&bytes, found.unwrap()).as_deref(), Some(text));
            // The same bytes declared only as text: windows-1252 is not
            // guessed for text mostly beyond ASCII; ISO-2022-JP is ASCII.
            let expected = match encoding {
                e if e == WINDOWS_1252 => Some(TextEncoding::Legacy(WINDOWS_1252)),
                e if e == ISO_2022_JP => Some(TextEncoding::Ascii),
                _ => None,
            };
            assert_eq!(
                detect_whole(&bytes, TEXT_ONLY),
                expected,
                "{}",
                encoding.name()
            );
        }
        // KOI8-R is decoded as itself, not as the windows-1251 it resembles.
        let koi8 = encoded("\u{414}\u{430}", KOI8_R);
        assert_eq!(
            decode(&koi8, TextEncoding::Legacy(KOI8_R)).as_deref(),
            Some("\u{414}\u{430}")
        );
        assert_ne!(
            decode(&koi8, TextEncoding::Legacy(WINDOWS_1251)).as_deref(),
            Some("\u{414}\u{430}")
        );
    }

    #[test]
    fn declared_charset_on_ascii_is_ascii() {
        assert_eq!(
            detect_whole(b"plain words\n", charset(WINDOWS_1252)),
            Some(TextEncoding::Ascii)
        );
        assert_eq!(
            detect_whole(b"plain words\n", charset(SHIFT_JIS)),
            Some(TextEncoding::Ascii)
        );
    }

    #[test]
    fn declared_charset_that_does_not_fit_falls_back_to_detection() {
        // UTF-8 declared as Shift_JIS: malformed there, valid UTF-8.
        let utf8 = "caf\u{e9} \u{2713}\n".as_bytes();
        assert_eq!(
            detect_whole(utf8, charset(SHIFT_JIS)),
            Some(TextEncoding::Utf8)
        );
        // Latin-1 declared as UTF-8 (a common mislabel): windows-1252.
        assert_eq!(
            detect_whole(b"caf\xe9\n", charset(UTF_8)),
            Some(TextEncoding::Legacy(WINDOWS_1252))
        );
        // UTF-16LE without a BOM declared windows-1252: NULs there.
        let le = utf16("hello, world\n", false, false);
        assert_eq!(
            detect_whole(&le, charset(WINDOWS_1252)),
            Some(TextEncoding::Utf16Le)
        );
    }

    #[test]
    fn declared_utf16_without_a_bom() {
        let text = "\u{65e5}\u{672c}\u{8a9e}";
        let le = utf16(text, false, false);
        assert_eq!(
            detect_whole(&le, charset(UTF_16LE)),
            Some(TextEncoding::Utf16Le)
        );
        assert_eq!(decode(&le, TextEncoding::Utf16Le).as_deref(), Some(text));
        let be = utf16(text, true, false);
        assert_eq!(
            detect_whole(&be, charset(UTF_16BE)),
            Some(TextEncoding::Utf16Be)
        );
    }

    #[test]
    fn utf16_without_a_bom_is_found_by_its_nul_pattern() {
        let text = "Gr\u{fc}\u{df}e, \u{4e16}\u{754c} \u{1F600}\r\n".repeat(20);
        for big_endian in [false, true] {
            let bytes = utf16(&text, big_endian, false);
            let expected = if big_endian {
                TextEncoding::Utf16Be
            } else {
                TextEncoding::Utf16Le
            };
            assert_eq!(detect_whole(&bytes, NOTHING), Some(expected));
            assert_eq!(detect_whole(&bytes, TEXT_ONLY), Some(expected));
            assert_eq!(decode(&bytes, expected).as_deref(), Some(text.as_str()));
        }
        // Mostly other scripts: not told from binary by the pattern.
        let cjk = utf16("\u{65e5}\u{672c}\u{8a9e} ", false, false);
        assert_eq!(detect_whole(&cjk, NOTHING), None);
        // A NUL in short UTF-8 text is not taken for UTF-16.
        assert_eq!(
            detect_whole(b"abc\0defg", TEXT_ONLY),
            Some(TextEncoding::Ascii)
        );
        // An unpaired surrogate, an odd length, a NUL character or control
        // characters: not text.
        let mut unpaired = utf16("abc", false, false);
        unpaired.extend_from_slice(&[0x00, 0xd8, b'd', 0]);
        assert_eq!(detect_whole(&unpaired, NOTHING), None);
        let mut odd = utf16("abc", false, false);
        odd.push(b'd');
        assert_eq!(detect_whole(&odd, NOTHING), None);
        assert_eq!(detect_whole(&utf16("ab\0c", false, false), NOTHING), None);
        assert_eq!(
            detect_whole(&utf16("a\u{1}\u{2}\u{3}b", false, false), NOTHING),
            None
        );
        // Little-endian integers (NUL units) are not UTF-16 text.
        let ints: Vec<u8> = (1u32..500).flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(detect_whole(&ints, TEXT_ONLY), None);
    }

    #[test]
    fn windows_1252_only_for_declared_text() {
        let latin1 = b"Na\xefve caf\xe9 costs \x80 5\n";
        assert_eq!(detect_whole(latin1, NOTHING), None);
        let found = detect_whole(latin1, TEXT_ONLY);
        assert_eq!(found, Some(TextEncoding::Legacy(WINDOWS_1252)));
        assert_eq!(
            decode(latin1, found.unwrap()).as_deref(),
            Some("Na\u{ef}ve caf\u{e9} costs \u{20ac} 5\n")
        );
    }

    /// Text in legacy encodings, as old files without a declaration hold it.
    fn legacy_samples() -> Vec<(String, &'static Encoding)> {
        let lines: [(&str, &'static Encoding); 6] = [
            (
                "Gr\u{fc}\u{df}e aus K\u{f6}ln! Der Kaffee kostet 5 \u{20ac}, die Cr\u{e8}me br\u{fb}l\u{e9}e ist na\u{ef}ve.\r\n",
                WINDOWS_1252,
            ),
            (
                "\u{3053}\u{308c}\u{306f}\u{53e4}\u{3044}\u{30d5}\u{30a1}\u{30a4}\u{30eb}\u{306e}\u{4f8b}\u{3067}\u{3001}\u{6587}\u{5b57}\u{30b3}\u{30fc}\u{30c9}\u{306e}\u{5ba3}\u{8a00}\u{304c}\u{3042}\u{308a}\u{307e}\u{305b}\u{3093}\u{3002}\n",
                SHIFT_JIS,
            ),
            (
                "\u{8fd9}\u{662f}\u{4e00}\u{4e2a}\u{6ca1}\u{6709}\u{58f0}\u{660e}\u{7f16}\u{7801}\u{7684}\u{4e2d}\u{6587}\u{6587}\u{672c}\u{6587}\u{4ef6}\u{ff0c}\u{7528}\u{6765}\u{6d4b}\u{8bd5}\u{7f16}\u{7801}\u{68c0}\u{6d4b}\u{3002}\n",
                GBK,
            ),
            (
                "\u{c774}\u{ac83}\u{c740} \u{c778}\u{cf54}\u{b529} \u{c120}\u{c5b8}\u{c774} \u{c5c6}\u{b294} \u{d55c}\u{ad6d}\u{c5b4} \u{d14d}\u{c2a4}\u{d2b8} \u{d30c}\u{c77c}\u{c785}\u{b2c8}\u{b2e4}.\n",
                EUC_KR,
            ),
            (
                "\u{42d}\u{442}\u{43e} \u{440}\u{443}\u{441}\u{441}\u{43a}\u{438}\u{439} \u{442}\u{435}\u{43a}\u{441}\u{442} \u{431}\u{435}\u{437} \u{43e}\u{431}\u{44a}\u{44f}\u{432}\u{43b}\u{435}\u{43d}\u{438}\u{44f} \u{43a}\u{43e}\u{434}\u{438}\u{440}\u{43e}\u{432}\u{43a}\u{438}.\n",
                WINDOWS_1251,
            ),
            (
                "\u{9019}\u{662f}\u{4e00}\u{500b}\u{6c92}\u{6709}\u{5ba3}\u{544a}\u{7de8}\u{78bc}\u{7684}\u{7e41}\u{9ad4}\u{4e2d}\u{6587}\u{6587}\u{5b57}\u{6a94}\u{ff0c}\u{7528}\u{4f86}\u{6e2c}\u{8a66}\u{3002}\n",
                BIG5,
            ),
        ];
        lines
            .into_iter()
            .map(|(line, encoding)| (line.repeat(3), encoding))
            .collect()
    }

    #[test]
    fn legacy_text_is_read_without_a_declaration() {
        for (text, encoding) in legacy_samples() {
            let bytes = encoded(&text, encoding);
            assert!(bytes.len() >= 128, "{}", encoding.name());
            for declared in [NOTHING, TEXT_ONLY] {
                let found = detect_whole(&bytes, declared);
                assert_eq!(
                    found,
                    Some(TextEncoding::Legacy(encoding)),
                    "{}",
                    encoding.name()
                );
                // A head cut inside a character reads the same.
                let head = &bytes[..bytes.len() - 1];
                assert_eq!(detect(head, declared, false), found, "{}", encoding.name());
            }
            let found = TextEncoding::Legacy(encoding);
            assert_eq!(decode(&bytes, found).as_deref(), Some(text.as_str()));
        }
    }

    #[test]
    fn a_legacy_guess_needs_legible_bytes_throughout() {
        let line = "Gr\u{fc}\u{df}e aus K\u{f6}ln, der Kaffee kostet 5 \u{20ac}.\n";
        let latin = encoded(&line.repeat(4), WINDOWS_1252);
        let western = Some(TextEncoding::Legacy(WINDOWS_1252));
        assert_eq!(detect_whole(&latin, NOTHING), western);
        // Page breaks and terminal colours are in real text.
        for allowed in [b"\x0c".as_slice(), b"\x1b[1m", b"\t", b"\r\n"] {
            let mut bytes = latin.clone();
            bytes.splice(40..40, allowed.iter().copied());
            assert_eq!(detect_whole(&bytes, NOTHING), western, "{allowed:?}");
        }
        // Any other control, anywhere, even past the sample: not text.
        for at in [40, latin.len() - 1] {
            for bad in [0x00, 0x01, 0x07, 0x08, 0x0b, 0x1f, 0x7f] {
                let mut bytes = latin.clone();
                bytes.insert(at, bad);
                assert_eq!(detect_whole(&bytes, NOTHING), None, "{bad:#x} at {at}");
            }
            // A byte windows-1252 leaves undefined (read as a C1 control)
            // rules it out; one that defines it may fit (0x8D is a
            // Central European capital in windows-1250).
            for undefined in [0x81, 0x8d, 0x8f, 0x90, 0x9d] {
                let mut bytes = latin.clone();
                bytes.insert(at, undefined);
                let found = detect_whole(&bytes, NOTHING);
                assert_ne!(found, western, "{undefined:#x} at {at}");
                if let Some(found) = found {
                    let text = decode(&bytes, found).unwrap();
                    assert!(text.chars().all(|c| is_legible(c.into())), "{found:?}");
                }
            }
        }
        let mut long = encoded(&line.repeat(400), WINDOWS_1252);
        assert!(long.len() > SAMPLE_LEN);
        assert_eq!(detect_whole(&long, NOTHING), western);
        long.push(0x01);
        assert_eq!(detect_whole(&long, NOTHING), None);
    }

    #[test]
    fn short_legacy_bytes_are_not_guessed() {
        // Too short to be told from random bytes: 64 bytes for the
        // windows-1252 guess (mostly ASCII), 128 for any other.
        let latin = encoded(&"caf\u{e9} ".repeat(20), WINDOWS_1252);
        assert_eq!(latin.len(), 100);
        assert_eq!(detect_whole(&latin[..63], NOTHING), None);
        assert_eq!(
            detect_whole(&latin[..64], NOTHING),
            Some(TextEncoding::Legacy(WINDOWS_1252))
        );
        let cyrillic = encoded(
            &"\u{442}\u{435}\u{43a}\u{441}\u{442} ".repeat(30),
            WINDOWS_1251,
        );
        assert_eq!(detect_whole(&cyrillic[..127], NOTHING), None);
        assert_eq!(
            detect_whole(&cyrillic[..128], NOTHING),
            Some(TextEncoding::Legacy(WINDOWS_1251))
        );
    }

    #[test]
    fn legible_random_bytes_are_never_legacy_text() {
        // The hard case for the guess: random bytes with no control byte
        // (a C0 control but tab, LF, CR, FF, ESC; DEL), which random data
        // of n bytes is with probability (228/256)^n.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        };
        let legible =
            |b: u8| b >= 0x20 && b != 0x7f || matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b);
        for len in (1..=64).chain([72, 96, 120, 127, 128, 129, 160, 256, 512]) {
            for _ in 0..200 {
                let mut bytes = Vec::with_capacity(len);
                while bytes.len() < len {
                    let b = next();
                    if legible(b) {
                        bytes.push(b);
                    }
                }
                let found = detect_whole(&bytes, NOTHING);
                assert!(
                    matches!(found, None | Some(TextEncoding::Ascii | TextEncoding::Utf8)),
                    "{len} bytes {bytes:02x?}: {found:?}"
                );
            }
        }
        // Fill bytes (erased flash, padding) have no word breaks.
        for fill in 0x80..=0xffu8 {
            for len in [64, 128, 4096] {
                assert_eq!(detect_whole(&vec![fill; len], NOTHING), None, "{fill:#x}");
            }
        }
    }

    #[test]
    fn binary_is_not_text_in_any_encoding() {
        // A fixed pseudo-random sequence, NUL bytes included.
        let mut state = 0x2545_f491u32;
        let binary: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state >> 24) as u8
            })
            .collect();
        assert!(binary.contains(&0));
        for declared in [NOTHING, TEXT_ONLY, charset(SHIFT_JIS), charset(UTF_16LE)] {
            assert_eq!(detect_whole(&binary, declared), None, "{declared:?}");
        }
        // Without NULs or control bytes: high bytes are malformed Shift_JIS,
        // and too far from ASCII for the windows-1252 guess.
        let high: Vec<u8> = binary.iter().map(|b| b | 0x80).collect();
        assert_eq!(detect_whole(&high, charset(SHIFT_JIS)), None);
        // Printable ASCII with a third of high bytes, as short garbage may be.
        let mixed: Vec<u8> = binary
            .iter()
            .map(|&b| {
                if b % 3 == 0 {
                    b | 0x80
                } else {
                    0x20 + b % 0x5f
                }
            })
            .collect();
        assert_eq!(detect_whole(&mixed, TEXT_ONLY), None);
    }

    #[test]
    fn bytes_as_a_head_are_text_when_they_are_as_the_whole_data() {
        // Found by the `text` fuzz target: a legacy guess made on the same
        // bytes as a head and as all the data named different encodings.
        let mut bytes = b"WEBVTT\t00:1\xc7.000 --> 00:13.000\n<v wed by a tab".to_vec();
        bytes.resize(142, 0xff);
        let whole = detect(&bytes, NOTHING, true);
        assert_eq!(detect(&bytes, NOTHING, false), whole);
    }

    #[test]
    fn head_allows_a_character_cut_at_the_end() {
        let text = "h\u{e9}llo w\u{f6}rld".as_bytes();
        assert_eq!(detect(&text[..2], NOTHING, false), Some(TextEncoding::Utf8));
        assert_eq!(detect(&text[..2], NOTHING, true), None);
        let sjis = encoded("\u{65e5}\u{672c}\u{8a9e}", SHIFT_JIS);
        assert!(detect(&sjis[..3], charset(SHIFT_JIS), false).is_some());
        let le = utf16("abc\u{1F600}", false, false);
        assert!(detect(&le[..le.len() - 2], NOTHING, false).is_some());
        assert!(detect(&le[..le.len() - 2], NOTHING, true).is_none());
        assert_eq!(
            detect(b"abc\xff\xfedef", TEXT_ONLY, false).map(|e| e.as_str()),
            Some("windows-1252")
        );
        assert_eq!(detect(b"abc\xff\0def", TEXT_ONLY, false), None);
        assert_eq!(detect(b"abc\0def", NOTHING, false), None);
        assert_eq!(
            detect(b"abc\0def", TEXT_ONLY, false),
            Some(TextEncoding::Ascii)
        );
    }

    #[test]
    fn decodes_and_drops_bom() {
        assert_eq!(decode(b"\xEF\xBB\xBFhi", TextEncoding::Utf8).unwrap(), "hi");
        let text = "caf\u{e9} \u{1F600}";
        assert_eq!(
            decode(&utf16(text, false, true), TextEncoding::Utf16Le).unwrap(),
            text
        );
        assert_eq!(
            decode(&utf16(text, true, true), TextEncoding::Utf16Be).unwrap(),
            text
        );
        assert_eq!(decode(b"\x81\x20", TextEncoding::Legacy(SHIFT_JIS)), None);
    }

    #[test]
    fn decode_into_reserves_the_exact_length() {
        let text = "\u{e9}".repeat(100_000);
        let bytes = encoded(&text, WINDOWS_1252);
        let mut out = String::from("[header]\n");
        assert!(decode_into(
            &bytes,
            TextEncoding::Legacy(WINDOWS_1252),
            &mut out
        ));
        assert_eq!(out.len(), "[header]\n".len() + text.len());
        assert_eq!(out.capacity(), out.len());
        let mut untouched = String::from("x");
        assert!(!decode_into(
            b"\x81\x20",
            TextEncoding::Legacy(SHIFT_JIS),
            &mut untouched
        ));
        assert_eq!(untouched, "x");
    }

    #[test]
    fn streamed_decoding_matches_decoding_whole() {
        let text = "Gr\u{fc}\u{df}e \u{20ac}\n".repeat(5000);
        let sjis_text = "\u{65e5}\u{672c}\u{8a9e}\n".repeat(5000);
        let cases = [
            (
                encoded(&text, WINDOWS_1252),
                TextEncoding::Legacy(WINDOWS_1252),
            ),
            (
                encoded(&sjis_text, SHIFT_JIS),
                TextEncoding::Legacy(SHIFT_JIS),
            ),
            (utf16(&text, false, true), TextEncoding::Utf16Le),
        ];
        for (bytes, encoding) in cases {
            let whole = decode(&bytes, encoding).unwrap();
            let mut out = Vec::new();
            let written = decode_to(&bytes, encoding, &mut out).unwrap();
            assert_eq!(out, whole.as_bytes(), "{encoding:?}");
            assert_eq!(written, whole.len() as u64);
            assert_eq!(decoded_len(&bytes, encoding), whole.len() as u64);
            // A head cut inside a character: the whole characters before it.
            let head = decode_head(&bytes[..1001], encoding);
            assert!(whole.starts_with(&head), "{encoding:?}");
            assert!(head.len() >= 400, "{encoding:?}");
        }
        let error = decode_to(
            b"\x81\x20",
            TextEncoding::Legacy(SHIFT_JIS),
            &mut Vec::new(),
        );
        assert_eq!(error.unwrap_err().kind(), io::ErrorKind::InvalidData);
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
            &utf16("hello", false, true),
            TextEncoding::Utf16Le
        ));
        assert!(!is_clearly_text(
            b"\x01\x02\x03\x04abcdef",
            TextEncoding::Legacy(WINDOWS_1252)
        ));
    }
}
