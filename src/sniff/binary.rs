//! Other binary formats: data files, executables, fonts.

use super::{be32, found, has_at, le32, Family, Sniffed};

pub(super) fn sniff(head: &[u8]) -> Option<Sniffed> {
    let binary = |media_type| found(media_type, Family::Binary);
    if head.starts_with(b"\xCA\xFE\xBA\xBE") {
        // Shared by Mach-O universal binaries (a small architecture count
        // follows) and Java classes (minor/major version, major >= 45).
        return match be32(head, 4)? {
            0..45 => binary(mt!("application/x-mach-binary")),
            _ => binary(mt!("application/java-vm")),
        };
    }
    if head.starts_with(b"MZ") {
        // "MZ" alone is too short a magic: require the PE header it points to.
        let pe = usize::try_from(le32(head, 0x3C)?).ok()?;
        return has_at(head, pe, b"PE\0\0")
            .then_some(())
            .and_then(|()| binary(mt!("application/vnd.microsoft.portable-executable")));
    }
    // EOT: version at 8, "LP" magic at 34.
    if has_at(head, 34, b"LP")
        && matches!(le32(head, 8), Some(0x0001_0000 | 0x0002_0001 | 0x0002_0002))
    {
        return binary(mt!("application/vnd.ms-fontobject"));
    }
    let table: &[(usize, &[u8], &'static str)] = &[
        (0, b"PAR1", mt!("application/vnd.apache.parquet")),
        (0, b"SQLite format 3\0", mt!("application/vnd.sqlite3")),
        (0, b"\0asm", mt!("application/wasm")),
        (0, b"\x7FELF", mt!("application/x-elf")),
        (0, b"\xFE\xED\xFA\xCE", mt!("application/x-mach-binary")),
        (0, b"\xFE\xED\xFA\xCF", mt!("application/x-mach-binary")),
        (0, b"\xCE\xFA\xED\xFE", mt!("application/x-mach-binary")),
        (0, b"\xCF\xFA\xED\xFE", mt!("application/x-mach-binary")),
        (0, b"ARROW1\0\0", mt!("application/vnd.apache.arrow.file")),
        (0, b"Obj\x01", mt!("application/avro")),
        (0, b"\xA1\xB2\xC3\xD4", mt!("application/vnd.tcpdump.pcap")),
        (0, b"\xD4\xC3\xB2\xA1", mt!("application/vnd.tcpdump.pcap")),
        (0, b"\xA1\xB2\x3C\x4D", mt!("application/vnd.tcpdump.pcap")),
        (0, b"\x4D\x3C\xB2\xA1", mt!("application/vnd.tcpdump.pcap")),
        (0, b"BLENDER", mt!("application/x-blender")),
        (0, b"wOFF", mt!("font/woff")),
        (0, b"wOF2", mt!("font/woff2")),
        (0, b"OTTO", mt!("font/otf")),
        (0, b"ttcf", mt!("font/collection")),
        (0, b"\0\x01\0\0\0", mt!("font/ttf")),
        (0, b"FWS", mt!("application/x-shockwave-flash")),
        (0, b"CWS", mt!("application/x-shockwave-flash")),
        (0, b"ZWS", mt!("application/x-shockwave-flash")),
        (0, b"!BDN", mt!("application/vnd.ms-outlook")),
        (0, b"NES\x1A", mt!("application/x-nintendo-nes-rom")),
        (0, b"ITSF\x03\0\0\0", mt!("application/vnd.ms-htmlhelp")),
        (0, b"$FL2", mt!("application/x-spss-sav")),
        (
            0,
            b"\x4C\0\0\0\x01\x14\x02\0",
            mt!("application/x-ms-shortcut"),
        ),
        (36, b"acsp", mt!("application/vnd.iccprofile")),
        (128, b"DICM", mt!("application/dicom")),
    ];
    table
        .iter()
        .find(|(at, magic, _)| has_at(head, *at, magic))
        .and_then(|&(_, _, media_type)| binary(media_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(data: &[u8]) -> Option<&'static str> {
        sniff(data).map(|s| s.media_type)
    }

    #[test]
    fn magics() {
        assert_eq!(
            kind(b"SQLite format 3\0\x10\0"),
            Some("application/vnd.sqlite3")
        );
        assert_eq!(
            kind(b"PAR1\x15\x04"),
            Some("application/vnd.apache.parquet")
        );
        assert_eq!(kind(b"\0asm\x01\0\0\0"), Some("application/wasm"));
        assert_eq!(kind(b"\x7FELF\x02\x01"), Some("application/x-elf"));
        assert_eq!(
            kind(b"\xCA\xFE\xBA\xBE\0\0\0\x02"),
            Some("application/x-mach-binary")
        );
        assert_eq!(
            kind(b"\xCA\xFE\xBA\xBE\0\0\0\x32"),
            Some("application/java-vm")
        );
    }

    #[test]
    fn pe_needs_its_header() {
        let mut exe = vec![0u8; 0x48];
        exe[..2].copy_from_slice(b"MZ");
        exe[0x3C] = 0x40;
        exe[0x40..0x44].copy_from_slice(b"PE\0\0");
        assert_eq!(
            kind(&exe),
            Some("application/vnd.microsoft.portable-executable")
        );
        assert_eq!(kind(b"MZ is also how this text starts"), None);
        exe[0x3C] = 0xFF;
        assert_eq!(kind(&exe), None);
    }
}
