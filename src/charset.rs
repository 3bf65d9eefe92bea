//! Declared charsets: the `charset` parameter of a media type, resolved with
//! the labels of the WHATWG Encoding Standard (as browsers and Node's
//! `TextDecoder` resolve them), and the names the library reports.

use encoding_rs::{Encoding, REPLACEMENT, X_USER_DEFINED};

/// The encoding a media type's `charset` parameter names
/// (`text/plain; charset="Shift_JIS"`). `None` without one, for a label the
/// standard does not know, and for the two encodings that name no text:
/// `replacement` (labels such as `iso-2022-kr`, which decode to one U+FFFD)
/// and `x-user-defined` (bytes mapped into the Private Use Area).
pub fn from_media_type(media_type: &str) -> Option<&'static Encoding> {
    let value = media_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then_some(value)
    })?;
    let value = value.trim();
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    Encoding::for_label(value.as_bytes()).filter(|e| *e != REPLACEMENT && *e != X_USER_DEFINED)
}

/// The encoding's name as `TextDecoder.encoding` gives it: the standard's
/// name in lower case (`shift_jis`, `windows-1252`, `utf-16le`).
pub fn name(encoding: &'static Encoding) -> &'static str {
    match encoding.name() {
        "Big5" => "big5",
        "EUC-JP" => "euc-jp",
        "EUC-KR" => "euc-kr",
        "GBK" => "gbk",
        "IBM866" => "ibm866",
        "ISO-2022-JP" => "iso-2022-jp",
        "ISO-8859-2" => "iso-8859-2",
        "ISO-8859-3" => "iso-8859-3",
        "ISO-8859-4" => "iso-8859-4",
        "ISO-8859-5" => "iso-8859-5",
        "ISO-8859-6" => "iso-8859-6",
        "ISO-8859-7" => "iso-8859-7",
        "ISO-8859-8" => "iso-8859-8",
        "ISO-8859-8-I" => "iso-8859-8-i",
        "ISO-8859-10" => "iso-8859-10",
        "ISO-8859-13" => "iso-8859-13",
        "ISO-8859-14" => "iso-8859-14",
        "ISO-8859-15" => "iso-8859-15",
        "ISO-8859-16" => "iso-8859-16",
        "KOI8-R" => "koi8-r",
        "KOI8-U" => "koi8-u",
        "Shift_JIS" => "shift_jis",
        "UTF-8" => "utf-8",
        "UTF-16LE" => "utf-16le",
        "UTF-16BE" => "utf-16be",
        // Already lower case: gb18030, macintosh, windows-*, x-mac-cyrillic,
        // x-user-defined, replacement.
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::*;

    /// Every encoding of the standard.
    fn all() -> [&'static Encoding; 40] {
        [
            BIG5,
            EUC_JP,
            EUC_KR,
            GB18030,
            GBK,
            IBM866,
            ISO_2022_JP,
            ISO_8859_2,
            ISO_8859_3,
            ISO_8859_4,
            ISO_8859_5,
            ISO_8859_6,
            ISO_8859_7,
            ISO_8859_8,
            ISO_8859_8_I,
            ISO_8859_10,
            ISO_8859_13,
            ISO_8859_14,
            ISO_8859_15,
            ISO_8859_16,
            KOI8_R,
            KOI8_U,
            MACINTOSH,
            REPLACEMENT,
            SHIFT_JIS,
            UTF_16BE,
            UTF_16LE,
            UTF_8,
            WINDOWS_874,
            WINDOWS_1250,
            WINDOWS_1251,
            WINDOWS_1252,
            WINDOWS_1253,
            WINDOWS_1254,
            WINDOWS_1255,
            WINDOWS_1256,
            WINDOWS_1257,
            WINDOWS_1258,
            X_MAC_CYRILLIC,
            X_USER_DEFINED,
        ]
    }

    #[test]
    fn names_are_the_standard_names_in_lower_case() {
        for encoding in all() {
            assert_eq!(name(encoding), encoding.name().to_ascii_lowercase());
        }
    }

    #[test]
    fn every_reported_name_is_declared_to_typescript() {
        let root = env!("CARGO_MANIFEST_DIR");
        for file in ["index.d.ts", "src/binding/checks.rs"] {
            let text = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
            for encoding in all() {
                if encoding == REPLACEMENT || encoding == X_USER_DEFINED {
                    continue;
                }
                let quoted = format!("'{}'", name(encoding));
                assert!(text.contains(&quoted), "{file} lacks {quoted}");
            }
        }
    }

    #[test]
    fn charset_parameter_resolved_by_its_label() {
        let cases = [
            ("text/plain; charset=iso-8859-1", Some(WINDOWS_1252)),
            ("text/plain;charset=latin1", Some(WINDOWS_1252)),
            ("text/plain; charset=us-ascii", Some(WINDOWS_1252)),
            ("text/plain; charset=\"Shift_JIS\"", Some(SHIFT_JIS)),
            (
                "text/plain; format=flowed; CHARSET = sjis ",
                Some(SHIFT_JIS),
            ),
            ("text/csv; charset=GBK", Some(GBK)),
            ("text/plain; charset=gb2312", Some(GBK)),
            ("text/plain; charset=euc-kr", Some(EUC_KR)),
            ("text/plain; charset=big5", Some(BIG5)),
            ("text/plain; charset=koi8-r", Some(KOI8_R)),
            ("text/plain; charset=utf-8", Some(UTF_8)),
            ("text/plain; charset=utf-16", Some(UTF_16LE)),
            ("text/plain; charset=unicodefffe", Some(UTF_16BE)),
            ("text/plain", None),
            ("text/plain; charset=", None),
            ("text/plain; charset=klingon", None),
            ("text/plain; charset=iso-2022-kr", None),
            ("text/plain; charset=x-user-defined", None),
            ("charset=latin1", None),
        ];
        for (media_type, expected) in cases {
            assert_eq!(from_media_type(media_type), expected, "{media_type}");
        }
    }
}
