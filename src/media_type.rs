//! Media type strings: normalising, the textual test, file extensions.

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

/// File extension (without dot) for content of this type; `bin` when unknown.
pub fn extension(media_type: &str) -> &'static str {
    let mt = essence(media_type);
    let known = match mt.as_str() {
        "image/png" | "image/apng" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/bmp" => "bmp",
        "image/tiff" => "tif",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "image/avif" => "avif",
        "image/heic" => "heic",
        "image/heif" => "heif",
        "image/svg+xml" => "svg",
        "application/pdf" => "pdf",
        "application/zip" => "zip",
        "application/gzip" => "gz",
        "application/x-bzip2" => "bz2",
        "application/x-xz" => "xz",
        "application/zstd" => "zst",
        "application/x-7z-compressed" => "7z",
        "application/x-tar" => "tar",
        "application/vnd.rar" | "application/x-rar-compressed" => "rar",
        "application/vnd.apache.parquet" => "parquet",
        "application/vnd.sqlite3" | "application/x-sqlite3" => "sqlite",
        "application/wasm" => "wasm",
        "application/x-elf" | "application/x-executable" => "elf",
        "application/x-msdownload" | "application/vnd.microsoft.portable-executable" => "exe",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation" => "pptx",
        "application/vnd.oasis.opendocument.text" => "odt",
        "application/vnd.oasis.opendocument.spreadsheet" => "ods",
        "application/vnd.oasis.opendocument.presentation" => "odp",
        "application/epub+zip" => "epub",
        "application/java-archive" => "jar",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "wav",
        "audio/flac" | "audio/x-flac" => "flac",
        "audio/ogg" | "application/ogg" => "ogg",
        "audio/opus" => "opus",
        "audio/mp4" | "audio/x-m4a" | "audio/m4a" => "m4a",
        "audio/aac" | "audio/x-aac" => "aac",
        "audio/aiff" | "audio/x-aiff" => "aiff",
        "audio/webm" => "weba",
        "video/mp4" => "mp4",
        "video/quicktime" => "mov",
        "video/webm" => "webm",
        "video/x-matroska" => "mkv",
        "video/ogg" => "ogv",
        "video/x-msvideo" => "avi",
        "text/plain" => "txt",
        "text/markdown" | "text/x-markdown" => "md",
        "text/csv" => "csv",
        "text/html" => "html",
        "text/css" => "css",
        "text/x-patch" | "text/x-diff" | "application/x-patch" => "patch",
        "application/json" => "json",
        "application/xml" | "text/xml" => "xml",
        "application/yaml" | "application/x-yaml" | "text/yaml" => "yaml",
        "application/toml" => "toml",
        "application/javascript" | "text/javascript" => "js",
        "application/x-sh" => "sh",
        "application/sql" => "sql",
        _ => "",
    };
    if !known.is_empty() {
        return known;
    }
    if is_textual(&mt) {
        "txt"
    } else {
        "bin"
    }
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
    }
}
