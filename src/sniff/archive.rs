//! Archives and compressed containers, including the zip-based formats
//! (OOXML, OpenDocument, EPUB, JAR, APK, ...) told apart by the names of the
//! first zip entries within the head.

use memchr::memmem;

use super::{bytes, found, has_at, le16, le32, Family, Sniffed};

pub(super) fn sniff(head: &[u8]) -> Option<Sniffed> {
    let archive = |media_type| found(media_type, Family::Archive);
    if head.starts_with(b"PK\x03\x04") {
        return archive(zip_kind(head));
    }
    // Empty (end of central directory first) and spanned zip archives.
    if head.starts_with(b"PK\x05\x06") || head.starts_with(b"PK\x07\x08") {
        return archive(mt!("application/zip"));
    }
    if head.starts_with(b"!<arch>\n") {
        return archive(if has_at(head, 8, b"debian-binary") {
            mt!("application/vnd.debian.binary-package")
        } else {
            mt!("application/x-archive")
        });
    }
    if has_at(head, 257, b"ustar") || is_v7_tar(head) {
        return archive(mt!("application/x-tar"));
    }
    let table: &[(usize, &[u8], &'static str)] = &[
        (0, b"\x1F\x8B\x08", mt!("application/gzip")),
        (0, b"\x1F\x9D", mt!("application/x-compress")),
        (0, b"BZh", mt!("application/x-bzip2")),
        (0, b"\xFD7zXZ\0", mt!("application/x-xz")),
        (0, b"\x28\xB5\x2F\xFD", mt!("application/zstd")),
        (0, b"\x04\x22\x4D\x18", mt!("application/x-lz4")),
        (0, b"LZIP", mt!("application/x-lzip")),
        (0, b"7z\xBC\xAF\x27\x1C", mt!("application/x-7z-compressed")),
        (0, b"Rar!\x1A\x07", mt!("application/vnd.rar")),
        (0, b"MSCF\0\0\0\0", mt!("application/vnd.ms-cab-compressed")),
        (
            0,
            b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1",
            mt!("application/x-cfb"),
        ),
        (0, b"\xED\xAB\xEE\xDB", mt!("application/x-rpm")),
        (0, b"Cr24", mt!("application/x-chrome-extension")),
        (0, b"070701", mt!("application/x-cpio")),
        (0, b"070702", mt!("application/x-cpio")),
        (0, b"070707", mt!("application/x-cpio")),
        (0, b"\xC7\x71", mt!("application/x-cpio")),
        (0, b"\x71\xC7", mt!("application/x-cpio")),
        (0, b"\x60\xEA", mt!("application/x-arj")),
        (2, b"-lh", mt!("application/x-lzh-compressed")),
        (7, b"**ACE**", mt!("application/x-ace-compressed")),
    ];
    table
        .iter()
        .find(|(at, magic, _)| has_at(head, *at, magic))
        .and_then(|&(_, _, media_type)| archive(media_type))
}

/// The last entry examined: enough for the first screenful of entries.
const ZIP_MAX_ENTRIES: usize = 64;

/// Which zip-based format, from the first local file headers in `head`.
fn zip_kind(head: &[u8]) -> &'static str {
    let mut pos = 0;
    for _ in 0..ZIP_MAX_ENTRIES {
        let Some(entry) = ZipEntry::read(head, pos) else {
            break;
        };
        if entry.name == b"mimetype" {
            // ODF and EPUB store their media type first, uncompressed.
            let content = bytes(head, entry.data_at, entry.compressed);
            if let Some(media_type) = content.and_then(mimetype_file) {
                return media_type;
            }
        }
        if let Some(media_type) = kind_from_name(entry.name) {
            return media_type;
        }
        // With a data descriptor (flag bit 3) the sizes come after the data,
        // so look for the next header instead of jumping over the data.
        let next = entry.data_at.saturating_add(entry.compressed);
        pos = if !entry.sizes_later && has_at(head, next, b"PK\x03\x04") {
            next
        } else {
            let rest = head.get(entry.data_at..).unwrap_or_default();
            match memmem::find(rest, b"PK\x03\x04") {
                Some(found) => entry.data_at + found,
                None => break,
            }
        };
    }
    mt!("application/zip")
}

struct ZipEntry<'a> {
    name: &'a [u8],
    data_at: usize,
    compressed: usize,
    sizes_later: bool,
}

impl<'a> ZipEntry<'a> {
    /// The local file header at `pos`.
    fn read(head: &'a [u8], pos: usize) -> Option<Self> {
        if !has_at(head, pos, b"PK\x03\x04") {
            return None;
        }
        let flags = le16(head, pos + 6)?;
        let compressed = usize::try_from(le32(head, pos + 18)?).ok()?;
        let name_len = usize::from(le16(head, pos + 26)?);
        let extra_len = usize::from(le16(head, pos + 28)?);
        let name = bytes(head, pos + 30, name_len)?;
        Some(ZipEntry {
            name,
            data_at: pos + 30 + name_len + extra_len,
            compressed,
            sizes_later: flags & 0x08 != 0,
        })
    }
}

/// Media types a `mimetype` entry may hold, as static strings.
fn mimetype_file(content: &[u8]) -> Option<&'static str> {
    const KNOWN: &[&str] = &[
        mt!("application/epub+zip"),
        mt!("application/vnd.oasis.opendocument.text"),
        mt!("application/vnd.oasis.opendocument.text-template"),
        mt!("application/vnd.oasis.opendocument.spreadsheet"),
        mt!("application/vnd.oasis.opendocument.spreadsheet-template"),
        mt!("application/vnd.oasis.opendocument.presentation"),
        mt!("application/vnd.oasis.opendocument.presentation-template"),
        mt!("application/vnd.oasis.opendocument.graphics"),
        mt!("application/vnd.oasis.opendocument.graphics-template"),
        mt!("application/vnd.oasis.opendocument.formula"),
        mt!("application/vnd.oasis.opendocument.chart"),
    ];
    let content = content.trim_ascii();
    KNOWN
        .iter()
        .copied()
        .find(|known| known.as_bytes() == content)
}

/// Entry names that tell the format. OOXML's exact type (macro-enabled,
/// template) is only written in the compressed `[Content_Types].xml`, so
/// docm/dotx/... are reported as the base docx/xlsx/pptx type.
fn kind_from_name(name: &[u8]) -> Option<&'static str> {
    let prefixes: &[(&[u8], &str)] = &[
        (
            b"word/",
            mt!("application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ),
        (
            b"xl/",
            mt!("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ),
        (
            b"ppt/",
            mt!("application/vnd.openxmlformats-officedocument.presentationml.presentation"),
        ),
        (b"visio/", mt!("application/vnd.visio")),
        (b"META-INF/mozilla.rsa", mt!("application/x-xpinstall")),
        (b"META-INF/MANIFEST.MF", mt!("application/java-archive")),
        (
            b"AndroidManifest.xml",
            mt!("application/vnd.android.package-archive"),
        ),
        (
            b"classes.dex",
            mt!("application/vnd.android.package-archive"),
        ),
        (b"3D/3dmodel.model", mt!("model/3mf")),
    ];
    prefixes
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|&(_, media_type)| media_type)
}

/// Old (v7) tar has no magic: check the header checksum instead, the sum of
/// the 512 header bytes with the checksum field counted as spaces.
fn is_v7_tar(head: &[u8]) -> bool {
    let Some(header) = head.get(..512) else {
        return false;
    };
    // An entry needs a name; an all-zero block would otherwise pass.
    if header.first().is_none_or(|&b| b == 0) {
        return false;
    }
    let Some(field) = header.get(148..156) else {
        return false;
    };
    let digits = field
        .trim_ascii()
        .split(|&b| b == 0)
        .next()
        .unwrap_or_default();
    let Ok(Ok(stored)) = std::str::from_utf8(digits).map(|s| u32::from_str_radix(s, 8)) else {
        return false;
    };
    let sum: u32 = header
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                u32::from(b' ')
            } else {
                u32::from(b)
            }
        })
        .sum();
    sum == stored
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored zip entry (no data descriptor).
    fn entry(name: &str, data: &[u8]) -> Vec<u8> {
        let mut out = b"PK\x03\x04".to_vec();
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn kind(data: &[u8]) -> Option<&'static str> {
        sniff(data).map(|s| s.media_type)
    }

    #[test]
    fn zip_based_formats() {
        let mut docx = entry("[Content_Types].xml", b"<Types/>");
        docx.extend(entry("_rels/.rels", b"x"));
        docx.extend(entry("word/document.xml", b"x"));
        assert_eq!(
            kind(&docx),
            Some("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        );
        let odt = entry("mimetype", b"application/vnd.oasis.opendocument.text");
        assert_eq!(kind(&odt), Some("application/vnd.oasis.opendocument.text"));
        let epub = entry("mimetype", b"application/epub+zip\r\n");
        assert_eq!(kind(&epub), Some("application/epub+zip"));
        let plain = entry("photo.jpg", b"x");
        assert_eq!(kind(&plain), Some("application/zip"));
        // A data-descriptor entry: the next header is found by searching.
        let mut described = entry("_rels/.rels", b"abc");
        described[6] = 8;
        described[18..22].copy_from_slice(&[0; 4]);
        described.extend(entry("xl/workbook.xml", b"x"));
        assert_eq!(
            kind(&described),
            Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        );
        // Truncated headers fall back to plain zip without panicking.
        for cut in 4..docx.len() {
            assert!(kind(&docx[..cut]).is_some());
        }
    }

    #[test]
    fn tar_headers() {
        let mut header = vec![0u8; 512];
        header[..4].copy_from_slice(b"test");
        header[148..156].copy_from_slice(b"        ");
        let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
        let field = format!("{sum:06o}\0 ");
        header[148..156].copy_from_slice(field.as_bytes());
        assert_eq!(kind(&header), Some("application/x-tar"));
        header[0] = b'T';
        assert_eq!(kind(&header), None);
        let mut ustar = vec![0u8; 300];
        ustar[257..262].copy_from_slice(b"ustar");
        assert_eq!(kind(&ustar), Some("application/x-tar"));
        assert_eq!(kind(&[0u8; 512]), None);
    }

    #[test]
    fn compressed() {
        assert_eq!(kind(b"\x1F\x8B\x08\0"), Some("application/gzip"));
        assert_eq!(
            kind(b"7z\xBC\xAF\x27\x1C\0\x04"),
            Some("application/x-7z-compressed")
        );
        assert_eq!(kind(b"\x28\xB5\x2F\xFD\x24"), Some("application/zstd"));
        assert_eq!(kind(b"BZh91AY"), Some("application/x-bzip2"));
    }
}
