//! The one table of formats: media type, file extension, and the other names
//! servers declare for the same format.
//!
//! Every media type a sniffer answers is written as `mt!("type/subtype")`,
//! which looks the type up here while the crate compiles: a sniffer answer
//! missing from the table does not build, so a sniffed type always has its
//! extension. `media_type::extension` and the alias test of `classify` read
//! the same rows. The table also holds text types that are only ever
//! declared (markdown, csv, json, ...), for their extensions.
//!
//! Extensions follow file-type's where it names the format (so a saved file
//! opens in the program its extension suggests), and the ones this library
//! gave before where they differ (`aiff`, `m4a`, `ogg`).

/// One format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// The name the sniffer gives, lower case.
    pub media_type: &'static str,
    /// File extension without the dot; never `bin`.
    pub extension: &'static str,
    /// Other names of the same format (`image/x-icon` for
    /// `image/vnd.microsoft.icon`): declaring one is not a mismatch.
    pub aliases: &'static [&'static str],
}

const fn f(
    media_type: &'static str,
    extension: &'static str,
    aliases: &'static [&'static str],
) -> Format {
    Format {
        media_type,
        extension,
        aliases,
    }
}

#[rustfmt::skip]
pub const FORMATS: &[Format] = &[
    // Images.
    f("image/png", "png", &["image/x-png", "image/apng"]),
    f("image/jpeg", "jpg", &["image/jpg", "image/pjpeg"]),
    f("image/gif", "gif", &[]),
    f("image/webp", "webp", &[]),
    f("image/bmp", "bmp", &["image/x-bmp", "image/x-ms-bmp"]),
    f("image/tiff", "tif", &[]),
    f("image/vnd.microsoft.icon", "ico", &["image/x-icon"]),
    f("image/avif", "avif", &[]),
    f("image/heic", "heic", &[]),
    f("image/heic-sequence", "heics", &[]),
    f("image/heif", "heif", &[]),
    f("image/heif-sequence", "heifs", &[]),
    f("image/svg+xml", "svg", &[]),
    f("image/jls", "jls", &[]),
    f("image/vnd.adobe.photoshop", "psd", &[]),
    f("image/x-xcf", "xcf", &[]),
    f("image/bpg", "bpg", &[]),
    f("image/jxl", "jxl", &[]),
    f("image/jp2", "jp2", &[]),
    f("image/jpx", "jpx", &[]),
    f("image/jpm", "jpm", &[]),
    f("image/x-jp2-codestream", "j2c", &["image/j2c"]),
    f("image/vnd.ms-photo", "jxr", &[]),
    f("image/ktx", "ktx", &[]),
    f("image/icns", "icns", &[]),
    f("image/x-fujifilm-raf", "raf", &[]),
    f("image/x-canon-cr2", "cr2", &[]),
    f("image/x-canon-cr3", "cr3", &[]),
    f("image/x-olympus-orf", "orf", &[]),
    f("image/x-panasonic-rw2", "rw2", &[]),
    // Documents.
    f("application/pdf", "pdf", &[]),
    f("application/rtf", "rtf", &["text/rtf"]),
    f("application/postscript", "ps", &[]),
    f("application/x-mobipocket-ebook", "mobi", &[]),
    f("application/epub+zip", "epub", &[]),
    // Text formats the sniffer recognises.
    f("application/xml", "xml", &["text/xml"]),
    f("text/vtt", "vtt", &[]),
    f("text/calendar", "ics", &[]),
    f("text/vcard", "vcf", &["text/x-vcard"]),
    // Text formats only ever declared.
    f("text/plain", "txt", &[]),
    f("text/markdown", "md", &["text/x-markdown"]),
    f("text/csv", "csv", &[]),
    f("text/html", "html", &[]),
    f("text/css", "css", &[]),
    f("text/x-patch", "patch", &["text/x-diff", "application/x-patch"]),
    f("application/json", "json", &[]),
    f("application/yaml", "yaml", &["application/x-yaml", "text/yaml"]),
    f("application/toml", "toml", &[]),
    f("application/javascript", "js", &["text/javascript"]),
    f("application/x-sh", "sh", &[]),
    f("application/sql", "sql", &[]),
    // Zip and the formats built on it.
    f("application/zip", "zip", &["application/x-zip-compressed"]),
    f("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", &[]),
    f("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", &[]),
    f("application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx", &[]),
    f("application/vnd.visio", "vsdx", &[]),
    f("application/vnd.oasis.opendocument.text", "odt", &[]),
    f("application/vnd.oasis.opendocument.text-template", "ott", &[]),
    f("application/vnd.oasis.opendocument.spreadsheet", "ods", &[]),
    f("application/vnd.oasis.opendocument.spreadsheet-template", "ots", &[]),
    f("application/vnd.oasis.opendocument.presentation", "odp", &[]),
    f("application/vnd.oasis.opendocument.presentation-template", "otp", &[]),
    f("application/vnd.oasis.opendocument.graphics", "odg", &[]),
    f("application/vnd.oasis.opendocument.graphics-template", "otg", &[]),
    f("application/vnd.oasis.opendocument.formula", "odf", &[]),
    f("application/vnd.oasis.opendocument.chart", "odc", &[]),
    f("application/java-archive", "jar", &[]),
    f("application/vnd.android.package-archive", "apk", &[]),
    f("application/x-xpinstall", "xpi", &[]),
    f("model/3mf", "3mf", &[]),
    // Other archives and compressed data.
    f("application/gzip", "gz", &["application/x-gzip"]),
    f("application/x-compress", "Z", &[]),
    f("application/x-bzip2", "bz2", &[]),
    f("application/x-xz", "xz", &[]),
    f("application/zstd", "zst", &[]),
    f("application/x-lz4", "lz4", &[]),
    f("application/x-lzip", "lz", &[]),
    f("application/x-7z-compressed", "7z", &[]),
    f("application/vnd.rar", "rar", &["application/x-rar-compressed"]),
    f("application/x-tar", "tar", &[]),
    f("application/x-archive", "ar", &["application/x-unix-archive"]),
    f("application/vnd.debian.binary-package", "deb", &["application/x-deb"]),
    f("application/vnd.ms-cab-compressed", "cab", &[]),
    f("application/x-cfb", "cfb", &[]),
    f("application/x-rpm", "rpm", &[]),
    f("application/x-chrome-extension", "crx", &["application/x-google-chrome-extension"]),
    f("application/x-cpio", "cpio", &[]),
    f("application/x-arj", "arj", &[]),
    f("application/x-lzh-compressed", "lzh", &[]),
    f("application/x-ace-compressed", "ace", &[]),
    // Other binary formats: data, executables, fonts.
    f("application/vnd.apache.parquet", "parquet", &[]),
    f("application/vnd.sqlite3", "sqlite", &["application/x-sqlite3"]),
    f("application/wasm", "wasm", &[]),
    f("application/x-elf", "elf", &["application/x-executable"]),
    f("application/x-mach-binary", "macho", &[]),
    f("application/java-vm", "class", &[]),
    f("application/vnd.microsoft.portable-executable", "exe", &["application/x-msdownload"]),
    f("application/vnd.apache.arrow.file", "arrow", &[]),
    f("application/avro", "avro", &[]),
    f("application/vnd.tcpdump.pcap", "pcap", &[]),
    f("application/x-blender", "blend", &[]),
    f("font/woff", "woff", &[]),
    f("font/woff2", "woff2", &[]),
    f("font/otf", "otf", &[]),
    f("font/ttf", "ttf", &[]),
    f("font/collection", "ttc", &[]),
    f("application/vnd.ms-fontobject", "eot", &[]),
    f("application/x-shockwave-flash", "swf", &[]),
    f("application/vnd.ms-outlook", "pst", &[]),
    f("application/x-nintendo-nes-rom", "nes", &[]),
    f("application/vnd.ms-htmlhelp", "chm", &[]),
    f("application/x-spss-sav", "sav", &[]),
    f("application/x-ms-shortcut", "lnk", &[]),
    f("application/vnd.iccprofile", "icc", &[]),
    f("application/dicom", "dcm", &[]),
    // Audio.
    f("audio/mpeg", "mp3", &["audio/mp3"]),
    f("audio/wav", "wav", &["audio/x-wav", "audio/wave", "audio/vnd.wave"]),
    f("audio/flac", "flac", &["audio/x-flac"]),
    f("audio/ogg", "ogg", &[]),
    f("audio/opus", "opus", &[]),
    f("audio/mp4", "m4a", &["audio/x-m4a", "audio/m4a"]),
    f("audio/aac", "aac", &["audio/x-aac"]),
    f("audio/aiff", "aiff", &["audio/x-aiff"]),
    f("audio/webm", "weba", &[]),
    f("audio/ac3", "ac3", &[]),
    f("audio/qcelp", "qcp", &[]),
    f("audio/amr", "amr", &[]),
    f("audio/midi", "mid", &["audio/x-midi"]),
    f("audio/ape", "ape", &[]),
    f("audio/wavpack", "wv", &[]),
    f("audio/x-musepack", "mpc", &[]),
    f("audio/x-dsf", "dsf", &[]),
    f("audio/x-voc", "voc", &[]),
    f("audio/x-it", "it", &[]),
    f("audio/x-xm", "xm", &[]),
    f("audio/x-s3m", "s3m", &[]),
    // Video and containers.
    f("video/mp4", "mp4", &["video/x-m4v"]),
    f("video/quicktime", "mov", &[]),
    f("video/webm", "webm", &[]),
    f("video/x-matroska", "mkv", &["video/matroska"]),
    f("video/ogg", "ogv", &[]),
    f("application/ogg", "ogx", &[]),
    f("video/x-msvideo", "avi", &["video/avi", "video/vnd.avi", "video/msvideo"]),
    f("video/3gpp", "3gp", &[]),
    f("video/3gpp2", "3g2", &[]),
    f("video/mj2", "mj2", &[]),
    f("video/x-flv", "flv", &[]),
    f("video/x-ms-asf", "asf", &[]),
    f("video/mpeg", "mpg", &[]),
    f("video/mp2t", "mts", &[]),
    f("application/vnd.rn-realmedia", "rm", &[]),
    f("application/mxf", "mxf", &[]),
];

/// The row whose media type or alias is `name` (already an essence).
pub fn find(name: &str) -> Option<&'static Format> {
    FORMATS
        .iter()
        .find(|f| f.media_type == name || f.aliases.contains(&name))
}

/// `media_type` as the table spells it; the build fails when it is not a
/// media type of the table. Called through `mt!`, at compile time.
pub const fn known(media_type: &str) -> &'static str {
    let mut i = 0;
    while i < FORMATS.len() {
        if same_bytes(FORMATS[i].media_type.as_bytes(), media_type.as_bytes()) {
            return FORMATS[i].media_type;
        }
        i += 1;
    }
    panic!("a sniffed media type is missing from the table in src/sniff/formats.rs")
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_a_real_extension_and_unique_names() {
        let mut names = std::collections::HashSet::new();
        for format in FORMATS {
            // No exceptions: every format, sniffed or declared, has its own.
            assert!(
                !format.extension.is_empty()
                    && format.extension != "bin"
                    && format.extension.bytes().all(|b| b.is_ascii_alphanumeric()),
                "{}: extension {:?}",
                format.media_type,
                format.extension
            );
            for name in std::iter::once(&format.media_type).chain(format.aliases) {
                assert_eq!(*name, name.to_ascii_lowercase(), "{name} is not lower case");
                assert!(names.insert(*name), "{name} is in the table twice");
            }
        }
    }

    /// Every media type the sniffers can answer, read from their source:
    /// each answer is written `mt!("...")`.
    fn sniffer_answers() -> std::collections::BTreeSet<&'static str> {
        let sources = [
            include_str!("image.rs"),
            include_str!("document.rs"),
            include_str!("archive.rs"),
            include_str!("binary.rs"),
            include_str!("media.rs"),
            include_str!("text.rs"),
        ];
        sources
            .iter()
            .flat_map(|source| source.split("mt!(\"").skip(1))
            .filter_map(|rest| rest.split('"').next())
            .collect()
    }

    #[test]
    fn every_type_the_sniffer_can_answer_has_its_extension() {
        let answers = sniffer_answers();
        assert!(answers.len() >= 135, "only {} answers found", answers.len());
        // No exceptions: every sniffed format has an extension of its own.
        for media_type in answers {
            let extension = crate::media_type::extension(media_type);
            assert_ne!(extension, "bin", "{media_type}");
            assert_eq!(find(media_type).map(|f| f.extension), Some(extension));
        }
    }

    #[test]
    fn aliases_find_their_format() {
        assert_eq!(
            find("image/x-icon").map(|f| f.media_type),
            Some("image/vnd.microsoft.icon")
        );
        assert_eq!(find("image/png").map(|f| f.extension), Some("png"));
        assert_eq!(find("application/x-thing"), None);
        assert_eq!(known("font/woff2"), "font/woff2");
    }
}
