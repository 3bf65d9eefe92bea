//! Media type strings: normalising, the textual test, file extensions and
//! aliases (from the format table in `sniff::formats`), header labels.

use crate::sniff::formats;

/// The essence of a media type: lower case, parameters and spaces removed
/// (`Text/Markdown; charset=utf-8` -> `text/markdown`). Empty when blank.
pub fn essence(media_type: &str) -> String {
    let base = media_type.split(';').next().unwrap_or("");
    base.trim().to_ascii_lowercase()
}

/// True when content of this type is text a model can read directly.
pub fn is_textual(media_type: &str) -> bool {
    let mt = essence(media_type);
    let Some((top, sub)) = mt.split_once('/') else {
        return false;
    };
    if top == "text" {
        return true;
    }
    if sub.ends_with("+json") || sub.ends_with("+xml") || sub.ends_with("+yaml") {
        return true;
    }
    const TEXTUAL_SUBTYPES: &[&str] = &[
        "json",
        "ld+json",
        "jsonl",
        "x-ndjson",
        "ndjson",
        "json5",
        "xml",
        "javascript",
        "x-javascript",
        "ecmascript",
        "typescript",
        "x-typescript",
        "yaml",
        "x-yaml",
        "toml",
        "x-toml",
        "x-sh",
        "x-shellscript",
        "x-patch",
        "x-diff",
        "diff",
        "markdown",
        "x-markdown",
        "csv",
        "sql",
        "x-sql",
        "graphql",
        "x-httpd-php",
        "x-python",
        "x-ruby",
        "x-perl",
        "x-tex",
        "x-latex",
        "rtf",
        "x-subrip",
        "x-www-form-urlencoded",
        "xhtml+xml",
        "x-ipynb+json",
    ];
    top == "application" && TEXTUAL_SUBTYPES.contains(&sub)
}

/// Declared types that name no particular format.
pub fn is_generic_binary(media_type: &str) -> bool {
    matches!(
        essence(media_type).as_str(),
        "" | "application/octet-stream"
            | "binary/octet-stream"
            | "application/binary"
            | "application/x-binary"
            | "application/unknown"
            | "unknown/unknown"
    )
}

/// File extension (without dot) for content of this type, from the format
/// table the sniffers answer from (`sniff::formats`): `txt` for other
/// textual types, `bin` for the rest.
pub fn extension(media_type: &str) -> &'static str {
    let mt = essence(media_type);
    match formats::find(&mt) {
        Some(format) => format.extension,
        None if is_textual(&mt) => "txt",
        None => "bin",
    }
}

/// The format's own name when `media_type` is one of its aliases
/// (`image/x-icon` -> `image/vnd.microsoft.icon`); `None` for a type the
/// table does not know.
pub fn canonical(media_type: &str) -> Option<&'static str> {
    formats::find(&essence(media_type)).map(|format| format.media_type)
}

/// True when `media_type` names a particular binary format this library
/// knows (`image/png`, `font/woff2`): text under such a label is mislabelled.
/// Textual, generic and unknown types are not.
pub fn names_binary_format(media_type: &str) -> bool {
    !is_textual(media_type) && canonical(media_type).is_some()
}

/// Declared parameters a header label keeps: they say how the text reads.
/// `charset` (its encoding), `format` and `delsp` (flowed text, RFC 3676),
/// `header` (whether a CSV starts with a header line, RFC 4180), `variant`
/// (the Markdown flavour, RFC 7763), `profile` (the vocabulary, RFC 6906).
/// Others (`boundary`, `name`, `q`, ...) say nothing about the text.
const LABEL_PARAMETERS: &[&str] = &["charset", "format", "delsp", "header", "variant", "profile"];

/// `media_type` as a header label names it: with the parameters of the
/// declared type that matter (see `LABEL_PARAMETERS`), when `media_type` is
/// the declared type (`text/plain; charset=utf-8`). A parameter is kept once
/// (the first), with its name in lower case and its value as written, when
/// the value is a token or a quoted string of plain characters; anything
/// else (brackets, quotes or backslashes inside, control characters) is
/// left out, so the label cannot break the note around it.
pub fn label(media_type: &str, declared: Option<&str>) -> String {
    let mut label = media_type.to_string();
    let Some(declared) = declared.filter(|d| essence(d) == media_type) else {
        return label;
    };
    let mut kept: Vec<String> = Vec::new();
    for piece in declared.split(';').skip(1) {
        let Some((name, value)) = piece.split_once('=') else {
            continue;
        };
        let name = name.trim_matches([' ', '\t']).to_ascii_lowercase();
        let value = value.trim_matches([' ', '\t']);
        if LABEL_PARAMETERS.contains(&name.as_str())
            && is_plain_value(value)
            && !kept.contains(&name)
        {
            label.push_str(&format!("; {name}={value}"));
            kept.push(name);
        }
    }
    label
}

/// A label made by [`label`] without its `name` parameter.
pub fn without_parameter(label: &str, name: &str) -> String {
    let mut pieces = label.split("; ");
    let mut out = pieces.next().unwrap_or_default().to_string();
    for piece in pieces {
        if piece.split_once('=').map(|(n, _)| n) != Some(name) {
            out.push_str("; ");
            out.push_str(piece);
        }
    }
    out
}

/// A token (RFC 2045) or a quoted string without quotes, backslashes,
/// brackets or control characters inside.
fn is_plain_value(value: &str) -> bool {
    if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        return inner
            .bytes()
            .all(|b| (0x20..0x7F).contains(&b) && !b"\"\\()[]".contains(&b));
    }
    !value.is_empty()
        && value
            .bytes()
            .all(|b| (0x21..0x7F).contains(&b) && !b"()<>@,;:\\\"/[]?=".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn essence_strips_parameters_and_case() {
        assert_eq!(essence(" Text/Markdown ; charset=UTF-8"), "text/markdown");
        assert_eq!(essence(""), "");
    }

    #[test]
    fn textual_types() {
        for mt in [
            "text/markdown",
            "text/x-patch",
            "text/csv; charset=utf-8",
            "application/json",
            "application/vnd.api+json",
            "application/xml",
            "image/svg+xml",
            "application/javascript",
            "application/yaml",
            "application/toml",
            "application/x-sh",
            "application/x-patch",
            "application/sql",
            "application/graphql",
        ] {
            assert!(is_textual(mt), "{mt}");
        }
        for mt in [
            "image/png",
            "application/pdf",
            "application/octet-stream",
            "application/vnd.apache.parquet",
            "audio/wav",
            "",
            "text",
            "application/zip",
        ] {
            assert!(!is_textual(mt), "{mt}");
        }
    }

    #[test]
    fn extensions() {
        assert_eq!(extension("image/jpeg"), "jpg");
        assert_eq!(extension("application/vnd.apache.parquet"), "parquet");
        assert_eq!(extension("text/x-rust"), "txt");
        assert_eq!(extension("application/x-unknown-thing"), "bin");
        assert_eq!(extension("IMAGE/X-ICON; foo=bar"), "ico");
        assert_eq!(extension("font/woff2"), "woff2");
        assert_eq!(extension("application/ogg"), "ogx");
    }

    #[test]
    fn aliases_and_binary_formats() {
        assert_eq!(canonical("image/x-icon"), Some("image/vnd.microsoft.icon"));
        assert_eq!(canonical("Image/JPG"), Some("image/jpeg"));
        assert_eq!(canonical("application/x-thing"), None);
        assert!(names_binary_format("image/png"));
        assert!(names_binary_format("font/woff2"));
        for mt in [
            "image/svg+xml",
            "text/plain",
            "application/octet-stream",
            "image/x-thing",
        ] {
            assert!(!names_binary_format(mt), "{mt}");
        }
    }

    #[test]
    fn labels_keep_the_parameters_that_matter() {
        let cases = [
            (
                "text/plain",
                Some("text/plain; charset=utf-8"),
                "text/plain; charset=utf-8",
            ),
            (
                "text/plain",
                Some("Text/Plain;CHARSET=UTF-8"),
                "text/plain; charset=UTF-8",
            ),
            (
                "text/plain",
                Some("text/plain; format=flowed; delsp=yes; name=a.txt"),
                "text/plain; format=flowed; delsp=yes",
            ),
            (
                "text/csv",
                Some("text/csv; header=present; charset=utf-8"),
                "text/csv; header=present; charset=utf-8",
            ),
            (
                "text/markdown",
                Some("text/markdown; variant=GFM"),
                "text/markdown; variant=GFM",
            ),
            (
                "application/ld+json",
                Some("application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\""),
                "application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\"",
            ),
            // Another type than the label's: its parameters are not this one's.
            (
                "text/plain",
                Some("application/octet-stream; charset=utf-8"),
                "text/plain",
            ),
            ("text/plain", None, "text/plain"),
            // Repeated, empty, unquoted specials, brackets, control characters.
            (
                "text/plain",
                Some("text/plain; charset=utf-8; charset=latin1"),
                "text/plain; charset=utf-8",
            ),
            ("text/plain", Some("text/plain; charset="), "text/plain"),
            (
                "text/plain",
                Some("text/plain; profile=https://x/y"),
                "text/plain",
            ),
            (
                "text/plain",
                Some("text/plain; charset=\"a)]\""),
                "text/plain",
            ),
            (
                "text/plain",
                Some("text/plain; charset=utf-8\n]"),
                "text/plain",
            ),
            ("text/plain", Some("text/plain; charset"), "text/plain"),
        ];
        for (media_type, declared, want) in cases {
            assert_eq!(label(media_type, declared), want, "{declared:?}");
        }
    }
}
