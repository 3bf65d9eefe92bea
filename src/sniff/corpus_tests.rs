//! Tests against a corpus of real files: the file-type samples vendored in
//! `__test__/fixtures/file-type` (see the README there), or the folder named
//! by `MCP_CONTENT_CORPUS`, for example a full copy of the upstream samples.
//! The extension of each name is its true format.

use std::path::PathBuf;

use super::*;

/// The samples kept in the repository.
const VENDORED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/__test__/fixtures/file-type");

/// Fewer files than this means the folder is missing most of its samples.
const MIN_FILES: usize = 200;

/// The corpus folder: `MCP_CONTENT_CORPUS` when set, else the vendored one.
fn corpus_dir() -> PathBuf {
    match std::env::var_os("MCP_CONTENT_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(VENDORED),
    }
}

fn is_vendored() -> bool {
    corpus_dir() == std::path::Path::new(VENDORED)
}

/// One corpus file by name; it must be there.
fn read_named(name: &str) -> Vec<u8> {
    let path = corpus_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Media types a provider takes as an attachment: never to be guessed wrong.
const ATTACHABLE: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
];

/// What the sniffer must say about a corpus file.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Type(&'static str),
    /// Not a format at all (e.g. JSON named .webp).
    Nothing,
    /// A format this sniffer does not claim to know.
    Unknown,
}

const WORD: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const EXCEL: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const POWERPOINT: &str =
    "application/vnd.openxmlformats-officedocument.presentationml.presentation";

/// Files whose name says more than the extension.
const BY_NAME: &[(&str, Expect)] = &[
    ("fixture-json.webp", Expect::Nothing),
    ("fixture-heic.heic", Expect::Type("image/heic")),
    ("fixture-mif1.heic", Expect::Type("image/heif")),
    ("fixture-msf1.heic", Expect::Type("image/heif-sequence")),
    ("fixture-vtt-eof.vtt", Expect::Type("text/vtt")),
    // The ID3 tag (with cover art) is 109 KB, so the head only shows the tag
    // and the guess is MP3; `sniff` of the whole data finds the real format.
    ("fixture-id3v2.aac", Expect::Type("audio/mpeg")),
    ("fixture-id3v2.flac", Expect::Type("audio/mpeg")),
    ("fixture-unicode-tests.dat", Expect::Unknown),
];

/// Extension (after the last dot) to media type.
const BY_EXTENSION: &[(&str, &str)] = &[
    // Images.
    ("png", "image/png"),
    ("apng", "image/png"),
    ("jpg", "image/jpeg"),
    ("jls", "image/jls"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("tif", "image/tiff"),
    ("dng", "image/tiff"),
    ("nef", "image/tiff"),
    ("arw", "image/tiff"),
    ("ico", "image/vnd.microsoft.icon"),
    ("cur", "image/vnd.microsoft.icon"),
    ("avif", "image/avif"),
    ("psd", "image/vnd.adobe.photoshop"),
    ("xcf", "image/x-xcf"),
    ("bpg", "image/bpg"),
    ("jxl", "image/jxl"),
    ("jp2", "image/jp2"),
    ("jpx", "image/jpx"),
    ("jpm", "image/jpm"),
    ("mj2", "video/mj2"),
    ("j2c", "image/x-jp2-codestream"),
    ("jxr", "image/vnd.ms-photo"),
    ("ktx", "image/ktx"),
    ("icns", "image/icns"),
    ("raf", "image/x-fujifilm-raf"),
    ("cr3", "image/x-canon-cr3"),
    ("orf", "image/x-olympus-orf"),
    ("rw2", "image/x-panasonic-rw2"),
    // Documents and text.
    ("pdf", "application/pdf"),
    ("ai", "application/pdf"),
    ("ps", "application/postscript"),
    ("eps", "application/postscript"),
    ("rtf", "application/rtf"),
    ("mobi", "application/x-mobipocket-ebook"),
    ("xml", "application/xml"),
    ("svg", "image/svg+xml"),
    ("vtt", "text/vtt"),
    ("ics", "text/calendar"),
    ("vcf", "text/vcard"),
    // Zip-based formats; macro-enabled and template variants report the
    // base OOXML type (see archive.rs).
    ("docx", WORD),
    ("docm", WORD),
    ("dotx", WORD),
    ("dotm", WORD),
    ("xlsx", EXCEL),
    ("xlsm", EXCEL),
    ("xltx", EXCEL),
    ("xltm", EXCEL),
    ("pptx", POWERPOINT),
    ("pptm", POWERPOINT),
    ("potx", POWERPOINT),
    ("potm", POWERPOINT),
    ("ppsx", POWERPOINT),
    ("ppsm", POWERPOINT),
    ("vsdx", "application/vnd.visio"),
    ("odt", "application/vnd.oasis.opendocument.text"),
    ("ott", "application/vnd.oasis.opendocument.text-template"),
    ("ods", "application/vnd.oasis.opendocument.spreadsheet"),
    (
        "ots",
        "application/vnd.oasis.opendocument.spreadsheet-template",
    ),
    ("odp", "application/vnd.oasis.opendocument.presentation"),
    (
        "otp",
        "application/vnd.oasis.opendocument.presentation-template",
    ),
    ("odg", "application/vnd.oasis.opendocument.graphics"),
    (
        "otg",
        "application/vnd.oasis.opendocument.graphics-template",
    ),
    ("epub", "application/epub+zip"),
    ("jar", "application/java-archive"),
    ("apk", "application/vnd.android.package-archive"),
    ("xpi", "application/x-xpinstall"),
    ("3mf", "model/3mf"),
    ("zip", "application/zip"),
    ("key", "application/zip"),
    ("numbers", "application/zip"),
    ("pages", "application/zip"),
    // Other archives.
    ("gz", "application/gzip"),
    ("bz2", "application/x-bzip2"),
    ("xz", "application/x-xz"),
    ("zst", "application/zstd"),
    ("lz4", "application/x-lz4"),
    ("lz", "application/x-lzip"),
    ("Z", "application/x-compress"),
    ("7z", "application/x-7z-compressed"),
    ("rar", "application/vnd.rar"),
    ("tar", "application/x-tar"),
    ("cab", "application/vnd.ms-cab-compressed"),
    ("cfb", "application/x-cfb"),
    ("xls", "application/x-cfb"),
    ("rpm", "application/x-rpm"),
    ("crx", "application/x-chrome-extension"),
    ("cpio", "application/x-cpio"),
    ("arj", "application/x-arj"),
    ("lzh", "application/x-lzh-compressed"),
    ("ace", "application/x-ace-compressed"),
    ("ar", "application/x-archive"),
    ("deb", "application/vnd.debian.binary-package"),
    // Other binary formats.
    ("parquet", "application/vnd.apache.parquet"),
    ("sqlite", "application/vnd.sqlite3"),
    ("wasm", "application/wasm"),
    ("elf", "application/x-elf"),
    ("macho", "application/x-mach-binary"),
    ("exe", "application/vnd.microsoft.portable-executable"),
    ("class", "application/java-vm"),
    ("arrow", "application/vnd.apache.arrow.file"),
    ("avro", "application/avro"),
    ("pcap", "application/vnd.tcpdump.pcap"),
    ("blend", "application/x-blender"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("otf", "font/otf"),
    ("ttf", "font/ttf"),
    ("ttc", "font/collection"),
    ("eot", "application/vnd.ms-fontobject"),
    ("swf", "application/x-shockwave-flash"),
    ("pst", "application/vnd.ms-outlook"),
    ("nes", "application/x-nintendo-nes-rom"),
    ("chm", "application/vnd.ms-htmlhelp"),
    ("sav", "application/x-spss-sav"),
    ("lnk", "application/x-ms-shortcut"),
    ("icc", "application/vnd.iccprofile"),
    ("dcm", "application/dicom"),
    // Audio and video.
    ("mp3", "audio/mpeg"),
    ("mp2", "audio/mpeg"),
    ("mp1", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("flac", "audio/flac"),
    ("ogg", "audio/ogg"),
    ("oga", "audio/ogg"),
    ("spx", "audio/ogg"),
    ("opus", "audio/opus"),
    ("ogv", "video/ogg"),
    ("ogm", "video/ogg"),
    ("ogx", "application/ogg"),
    ("m4a", "audio/mp4"),
    ("m4b", "audio/mp4"),
    ("m4p", "audio/mp4"),
    ("f4a", "audio/mp4"),
    ("f4b", "audio/mp4"),
    ("mp4", "video/mp4"),
    ("m4v", "video/mp4"),
    ("f4v", "video/mp4"),
    ("f4p", "video/mp4"),
    ("mov", "video/quicktime"),
    ("3gp", "video/3gpp"),
    ("3g2", "video/3gpp2"),
    ("webm", "video/webm"),
    ("mkv", "video/x-matroska"),
    ("aac", "audio/aac"),
    ("aif", "audio/aiff"),
    ("avi", "video/x-msvideo"),
    ("qcp", "audio/qcelp"),
    ("amr", "audio/amr"),
    ("mid", "audio/midi"),
    ("ape", "audio/ape"),
    ("wv", "audio/wavpack"),
    ("mpc", "audio/x-musepack"),
    ("dsf", "audio/x-dsf"),
    ("voc", "audio/x-voc"),
    ("it", "audio/x-it"),
    ("xm", "audio/x-xm"),
    ("s3m", "audio/x-s3m"),
    ("rm", "application/vnd.rn-realmedia"),
    ("mxf", "application/mxf"),
    ("ac3", "audio/ac3"),
    ("flv", "video/x-flv"),
    ("asf", "video/x-ms-asf"),
    ("mpg", "video/mpeg"),
    ("mts", "video/mp2t"),
];

/// Sizes whose header lies past the first `HEAD_LEN` bytes: `None` from the
/// head (the caller retries with more data), the size from the whole file.
const DIMENSIONS_PAST_HEAD: &[(&str, u32, u32)] = &[
    // The first IFD is at byte 177176.
    ("fixture-bali.tif", 725, 489),
];

/// Pixel sizes read independently of this code: `file` for png, gif, webp,
/// bmp, ico, cur and tif; a Python struct walk of the JPEG segments (SOF0
/// at byte 22906) and of the HEIF/AVIF `ispe` boxes.
const DIMENSIONS: &[(&str, u32, u32)] = &[
    ("fixture.png", 200, 133),
    ("fixture-itxt.png", 200, 133),
    ("fixture-corrupt.png", 1642, 1095),
    ("fixture.apng", 100, 100),
    ("fixture.jpg", 200, 133),
    ("fixture.gif", 200, 133),
    ("fixture.webp", 200, 133),
    ("fixture.bmp", 200, 133),
    ("fixture.ico", 32, 32),
    ("fixture.cur", 60, 60),
    ("fixture-big-endian.tif", 200, 133),
    ("fixture-little-endian.tif", 200, 133),
    ("fixture-heic.heic", 4032, 3024),
    ("fixture-mif1.heic", 1440, 960),
    ("fixture-yuv420-8bit.avif", 2048, 858),
    ("fixture-sequence.avif", 800, 450),
];

/// Extensions of `BY_EXTENSION` with no sample in the vendored folder: the
/// smallest upstream file of each is over the size it keeps (see its
/// README). A fuller corpus in `MCP_CONTENT_CORPUS` checks them.
const NOT_VENDORED: &[&str] = &[
    "ape", "apk", "blend", "cab", "crx", "dcm", "dsf", "epub", "icc", "icns", "mobi", "mts", "mxf",
    "odp", "ogm", "pst", "wv",
];

/// Extensions of `BY_EXTENSION` that upstream has no sample of at all
/// (its Illustrator sample is named `.pdf`; it has no SVG).
const NO_SAMPLE: &[&str] = &["ai", "svg"];

fn expected(name: &str) -> Expect {
    if let Some(&(_, expect)) = BY_NAME.iter().find(|(n, _)| *n == name) {
        return expect;
    }
    let extension = name.rsplit('.').next().unwrap_or_default();
    BY_EXTENSION
        .iter()
        .find(|(ext, _)| *ext == extension)
        .map_or(Expect::Unknown, |&(_, media_type)| Expect::Type(media_type))
}

/// Names of the corpus files: those starting with `fixture` (the folder
/// also holds a README and the license).
fn corpus_names() -> Vec<String> {
    let dir = corpus_dir();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus not found at {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("fixture"))
        .collect();
    names.sort();
    assert!(
        names.len() >= MIN_FILES,
        "corpus at {} has {} files, expected at least {MIN_FILES}",
        dir.display(),
        names.len()
    );
    names
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    corpus_names()
        .into_iter()
        .map(|name| {
            let data = read_named(&name);
            (name, data)
        })
        .collect()
}

fn head(data: &[u8]) -> &[u8] {
    data.get(..HEAD_LEN).unwrap_or(data)
}

/// Head and tail as a caller that decodes only part of the data sees them.
fn partial(data: &[u8]) -> Window<'_> {
    let tail = data
        .get(data.len().saturating_sub(TAIL_LEN)..)
        .unwrap_or(data);
    Window {
        head: head(data),
        tail,
        len: data.len(),
    }
}

/// A valid file of a format with a structural check.
fn is_valid_attachable(name: &str) -> bool {
    name != "fixture-corrupt.png"
        && matches!(expected(name), Expect::Type(media_type) if ATTACHABLE.contains(&media_type))
}

#[test]
fn every_table_entry_has_a_file() {
    let names = corpus_names();
    // A table row for a file that is not there would pass without checking
    // anything.
    let named = BY_NAME
        .iter()
        .map(|(name, _)| *name)
        .chain(DIMENSIONS.iter().map(|(name, _, _)| *name))
        .chain(DIMENSIONS_PAST_HEAD.iter().map(|(name, _, _)| *name))
        .chain(["fixture-corrupt.png"]);
    let absent: Vec<_> = named.filter(|n| !names.iter().any(|m| m == n)).collect();
    assert!(
        absent.is_empty(),
        "named in the tables, not in the corpus: {absent:?}"
    );

    // Every extension of the table has a sample, but those stated missing.
    for ext in NOT_VENDORED.iter().chain(NO_SAMPLE) {
        assert!(
            BY_EXTENSION.iter().any(|(e, _)| e == ext),
            "{ext} is not in BY_EXTENSION"
        );
    }
    let uncovered: Vec<&str> = BY_EXTENSION
        .iter()
        .map(|(ext, _)| *ext)
        .filter(|ext| !names.iter().any(|n| n.rsplit('.').next() == Some(ext)))
        .collect();
    println!("extensions without a sample: {uncovered:?}");
    let unexpected: Vec<_> = uncovered
        .iter()
        .filter(|ext| !NOT_VENDORED.contains(ext) && !NO_SAMPLE.contains(ext))
        .collect();
    assert!(unexpected.is_empty(), "no sample of {unexpected:?}");
    if is_vendored() {
        // The lists say exactly what the vendored folder lacks.
        let mut stated: Vec<&str> = NOT_VENDORED.iter().chain(NO_SAMPLE).copied().collect();
        stated.sort_unstable();
        let mut uncovered = uncovered;
        uncovered.sort_unstable();
        assert_eq!(
            uncovered, stated,
            "NOT_VENDORED and NO_SAMPLE are out of date"
        );
    }
}

#[test]
fn every_supported_file_is_recognised() {
    let mut wrong = Vec::new();
    let mut unknown = Vec::new();
    for (name, data) in corpus() {
        let got = sniff(head(&data)).map(|s| s.media_type);
        match expected(&name) {
            Expect::Type(media_type) if got != Some(media_type) => {
                wrong.push(format!("{name}: expected {media_type}, got {got:?}"));
            }
            Expect::Nothing if got.is_some() => {
                wrong.push(format!("{name}: expected nothing, got {got:?}"))
            }
            Expect::Unknown => unknown.push(format!("{name} -> {got:?}")),
            _ => {}
        }
    }
    println!("not in the table:\n{}", unknown.join("\n"));
    assert!(wrong.is_empty(), "misrecognised:\n{}", wrong.join("\n"));
}

#[test]
fn audio_after_a_long_id3_tag_is_found_in_the_whole_data() {
    for (name, media_type) in [
        ("fixture-id3v2.aac", "audio/aac"),
        ("fixture-id3v2.flac", "audio/flac"),
    ] {
        let data = read_named(name);
        assert_eq!(
            sniff(&data).map(|s| s.media_type),
            Some(media_type),
            "{name}"
        );
    }
}

#[test]
fn nothing_is_mistaken_for_an_attachable_type() {
    for (name, data) in corpus() {
        let Some(sniffed) = sniff(head(&data)) else {
            continue;
        };
        if ATTACHABLE.contains(&sniffed.media_type) {
            assert_eq!(
                expected(&name),
                Expect::Type(sniffed.media_type),
                "{name} sniffed as {}",
                sniffed.media_type
            );
        }
    }
}

#[test]
fn families_match_media_types() {
    for (name, data) in corpus() {
        let Some(Sniffed { media_type, family }) = sniff(head(&data)) else {
            continue;
        };
        let ok = match media_type.split('/').next() {
            Some("image") => matches!(family, Family::Image | Family::Text),
            Some("audio") => family == Family::Audio,
            Some("video") => family == Family::Video,
            _ if media_type == "application/pdf" => family == Family::Pdf,
            _ => matches!(
                family,
                Family::Archive | Family::Binary | Family::Text | Family::Video
            ),
        };
        assert!(ok, "{name}: {media_type} in {family:?}");
    }
}

#[test]
fn dimensions_match_independent_reading() {
    let files = corpus();
    for (name, data) in &files {
        let media_type = sniff(head(data)).map(|s| s.media_type);
        let want = DIMENSIONS
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|&(_, w, h)| (w, h));
        let needs_size = ["png", "apng", "jpg", "gif", "webp", "bmp"]
            .iter()
            .any(|ext| name.ends_with(&format!(".{ext}")))
            && expected(name) != Expect::Nothing;
        assert!(
            !needs_size || want.is_some(),
            "{name} is missing from DIMENSIONS"
        );
        if let Some(want) = want {
            let got = image_dimensions(media_type.unwrap(), head(data));
            assert_eq!(got, Some(want), "{name}");
        }
        if let Some(&(_, w, h)) = DIMENSIONS_PAST_HEAD.iter().find(|(n, _, _)| n == name) {
            assert_eq!(
                image_dimensions(media_type.unwrap(), head(data)),
                None,
                "{name}"
            );
            assert_eq!(
                image_dimensions(media_type.unwrap(), data),
                Some((w, h)),
                "{name}"
            );
        }
    }
}

#[test]
fn valid_attachable_files_pass_the_structure_check() {
    let mut checked = 0;
    for (name, data) in corpus() {
        if !is_valid_attachable(&name) {
            continue;
        }
        let media_type = sniff(head(&data)).unwrap().media_type;
        assert_eq!(
            check_structure(media_type, &Window::whole(&data)),
            Ok(Soundness::Sound),
            "{name}, whole"
        );
        assert_eq!(
            check_structure(media_type, &partial(&data)),
            Ok(Soundness::Sound),
            "{name}, head and tail"
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} files checked");
}

#[test]
fn corrupt_png_fails_the_structure_check() {
    let data = read_named("fixture-corrupt.png");
    // The 9 data bytes of pHYs were altered, so its CRC does not match: an
    // ancillary chunk, which alone would be dropped. But the next chunk
    // header after it is garbage as well.
    let reason = "corrupt PNG: invalid chunk type at byte 83".to_string();
    assert_eq!(
        check_structure("image/png", &Window::whole(&data)),
        Err(reason.clone())
    );
    assert_eq!(check_structure("image/png", &partial(&data)), Err(reason));
}

#[test]
fn every_sniffed_type_has_its_extension() {
    // Every answer is a row of the format table by construction (`mt!`);
    // this checks the rows the corpus reaches, through the public lookup.
    let mut seen = std::collections::BTreeSet::new();
    for (name, data) in corpus() {
        let Some(sniffed) = sniff(head(&data)) else {
            continue;
        };
        let extension = crate::media_type::extension(sniffed.media_type);
        assert_ne!(extension, "bin", "{name}: {}", sniffed.media_type);
        seen.insert(sniffed.media_type);
    }
    assert!(seen.len() >= 100, "only {} types seen", seen.len());
}

#[test]
fn files_cut_in_half_fail_the_structure_check() {
    for (name, data) in corpus() {
        if !is_valid_attachable(&name) {
            continue;
        }
        let media_type = sniff(head(&data)).unwrap().media_type;
        let cut = &data[..data.len() / 2];
        let whole = check_structure(media_type, &Window::whole(cut));
        assert!(whole.is_err(), "{name} cut in half passed (whole window)");
        let part = check_structure(media_type, &partial(cut));
        assert!(part.is_err(), "{name} cut in half passed (head and tail)");
        println!("{name}: {}", whole.unwrap_err());
    }
}

#[test]
fn no_panic_on_any_prefix_or_suffix() {
    // Every format's code on cut-up real data: short prefixes and suffixes.
    for (_, data) in corpus() {
        for cut in (0..data.len().min(600)).step_by(7) {
            for part in [&data[..cut], &data[data.len() - cut..]] {
                let sniffed = sniff(part);
                for media_type in ATTACHABLE
                    .iter()
                    .copied()
                    .chain(sniffed.map(|s| s.media_type))
                {
                    let _ = image_dimensions(media_type, part);
                    let _ = check_structure(media_type, &Window::whole(part));
                }
            }
        }
    }
}
