//! Text detection: the encoding bytes are text in (a BOM, a declared
//! charset, UTF-16 without a BOM, UTF-8, windows-1252 for a declared text
//! type), the "clearly text" test, and decoding to `String`.
//!
//! Every encoding but UTF-8 is read with encoding_rs, piece by piece through
//! a small buffer: checking bytes allocates nothing, and decoding them holds
//! the bytes and the text only.

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
///    mostly ASCII (see `MAX_GUESSED_NON_ASCII_SHARE`).
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
    is_text.then_some(fallback)
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
