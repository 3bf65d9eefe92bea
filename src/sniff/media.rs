//! Audio and video containers and streams. The raw MPEG audio and ADTS
//! frame-sync checks are weak (12 bits of magic plus field sanity), so they
//! come last and `sniff` in mod.rs runs this module after the others.

use memchr::memmem;

use super::{bytes, found, ftyp, has_at, Family, Sniffed};

pub(super) fn sniff(head: &[u8]) -> Option<Sniffed> {
    let audio = |media_type| found(media_type, Family::Audio);
    let video = |media_type| found(media_type, Family::Video);
    if head.starts_with(b"ID3") {
        return sniff_after_id3(head);
    }
    if head.starts_with(b"fLaC") {
        return audio(mt!("audio/flac"));
    }
    if head.starts_with(b"RIFF") {
        return match bytes(head, 8, 4)? {
            b"WAVE" => audio(mt!("audio/wav")),
            b"AVI " => video(mt!("video/x-msvideo")),
            b"QLCM" => audio(mt!("audio/qcelp")),
            _ => None,
        };
    }
    if head.starts_with(b"FORM") && (has_at(head, 8, b"AIFF") || has_at(head, 8, b"AIFC")) {
        return audio(mt!("audio/aiff"));
    }
    if head.starts_with(b"OggS") {
        return sniff_ogg(head);
    }
    if head.starts_with(b"\x1A\x45\xDF\xA3") {
        return sniff_ebml(head);
    }
    if let Some(sniffed) = sniff_iso_media(head) {
        return Some(sniffed);
    }
    let table: &[(usize, &[u8], &'static str, Family)] = &[
        (0, b"FLV\x01", mt!("video/x-flv"), Family::Video),
        (
            0,
            b"\x30\x26\xB2\x75\x8E\x66\xCF\x11\xA6\xD9",
            mt!("video/x-ms-asf"),
            Family::Video,
        ),
        (0, b"\0\0\x01\xBA", mt!("video/mpeg"), Family::Video),
        (0, b"\0\0\x01\xB3", mt!("video/mpeg"), Family::Video),
        (
            0,
            b".RMF",
            mt!("application/vnd.rn-realmedia"),
            Family::Video,
        ),
        (
            0,
            b"\x06\x0E\x2B\x34\x02\x05\x01\x01",
            mt!("application/mxf"),
            Family::Video,
        ),
        (0, b"#!AMR", mt!("audio/amr"), Family::Audio),
        (0, b"MThd", mt!("audio/midi"), Family::Audio),
        (0, b"MAC ", mt!("audio/ape"), Family::Audio),
        (0, b"wvpk", mt!("audio/wavpack"), Family::Audio),
        (0, b"MPCK", mt!("audio/x-musepack"), Family::Audio),
        (0, b"MP+", mt!("audio/x-musepack"), Family::Audio),
        (0, b"DSD ", mt!("audio/x-dsf"), Family::Audio),
        (0, b"Creative Voice File", mt!("audio/x-voc"), Family::Audio),
        (0, b"IMPM", mt!("audio/x-it"), Family::Audio),
        (0, b"Extended Module:", mt!("audio/x-xm"), Family::Audio),
        (44, b"SCRM", mt!("audio/x-s3m"), Family::Audio),
    ];
    if let Some(&(_, _, media_type, family)) = table
        .iter()
        .find(|(at, magic, _, _)| has_at(head, *at, magic))
    {
        return found(media_type, family);
    }
    if is_transport_stream(head) {
        return video(mt!("video/mp2t"));
    }
    // AC-3 sync word: two bytes only, so among the weak checks.
    if head.starts_with(&[0x0B, 0x77]) {
        return audio(mt!("audio/ac3"));
    }
    sniff_frame(head)
}

/// Length of the ID3v2 tag at the start of `head`: its size is four 7-bit
/// bytes after the 10-byte header, plus a 10-byte footer when flag 0x10 is set.
pub fn id3_tag_len(head: &[u8]) -> Option<usize> {
    if !head.starts_with(b"ID3") {
        return None;
    }
    let size = bytes(head, 6, 4)?
        .iter()
        .fold(0usize, |n, &b| (n << 7) | usize::from(b & 0x7F));
    let footer = if head.get(5).is_some_and(|f| f & 0x10 != 0) {
        10
    } else {
        0
    };
    Some(10 + size + footer)
}

/// ID3v2 tag, then the audio it labels: skip the tag when it is within the
/// head; MP3 is what ID3 almost always labels, so that is the default.
fn sniff_after_id3(head: &[u8]) -> Option<Sniffed> {
    let after = head.get(id3_tag_len(head)?..).unwrap_or_default();
    if after.starts_with(b"fLaC") {
        return found(mt!("audio/flac"), Family::Audio);
    }
    match sniff_frame(after) {
        Some(sniffed) => Some(sniffed),
        None => found(mt!("audio/mpeg"), Family::Audio),
    }
}

/// Ogg: the codec is named by the first packet of the first page.
fn sniff_ogg(head: &[u8]) -> Option<Sniffed> {
    // A page header is 27 bytes and a segment table of `segments` bytes.
    let segments = usize::from(*head.get(26)?);
    let packet = head.get(27 + segments..).unwrap_or_default();
    let codecs: &[(&[u8], &'static str, Family)] = &[
        (b"\x01vorbis", mt!("audio/ogg"), Family::Audio),
        (b"OpusHead", mt!("audio/opus"), Family::Audio),
        (b"\x7FFLAC", mt!("audio/ogg"), Family::Audio),
        (b"Speex   ", mt!("audio/ogg"), Family::Audio),
        (b"\x80theora", mt!("video/ogg"), Family::Video),
        (b"\x01video", mt!("video/ogg"), Family::Video),
    ];
    let (media_type, family) = codecs
        .iter()
        .find(|(magic, _, _)| packet.starts_with(magic))
        .map_or(
            (mt!("application/ogg"), Family::Binary),
            |&(_, media_type, family)| (media_type, family),
        );
    found(media_type, family)
}

/// EBML: the DocType element (ID 0x4282) names WebM or Matroska. It is read
/// by search rather than by parsing so a damaged header still tells.
fn sniff_ebml(head: &[u8]) -> Option<Sniffed> {
    let header = head.get(..64).unwrap_or(head);
    let doc_type = memmem::find(header, b"\x42\x82").and_then(|at| header.get(at + 3..));
    let media_type = match doc_type {
        Some(name) if name.starts_with(b"webm") => mt!("video/webm"),
        _ => mt!("video/x-matroska"),
    };
    found(media_type, Family::Video)
}

/// ISO base media files (the image brands are taken in image.rs first) and
/// QuickTime files that start with an atom other than `ftyp`.
fn sniff_iso_media(head: &[u8]) -> Option<Sniffed> {
    let audio = |media_type| found(media_type, Family::Audio);
    let video = |media_type| found(media_type, Family::Video);
    let Some((major, _)) = ftyp(head) else {
        let atom = bytes(head, 4, 4)?;
        let quicktime = [b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"];
        return quicktime
            .iter()
            .any(|kind| atom == *kind)
            .then_some(())
            .and_then(|()| video(mt!("video/quicktime")));
    };
    match &major {
        b"qt  " => video(mt!("video/quicktime")),
        // Apple writes "M4A " but a NUL has been seen in place of the space.
        [b'M', b'4', b'A' | b'B' | b'P', _] | b"F4A " | b"F4B " => audio(mt!("audio/mp4")),
        [b'3', b'g', b'2', _] => video(mt!("video/3gpp2")),
        [b'3', b'g', _, _] => video(mt!("video/3gpp")),
        _ => video(mt!("video/mp4")),
    }
}

/// MPEG transport stream: a 0x47 sync byte every 188 bytes, or every 192
/// for the timestamped variant (M2TS).
fn is_transport_stream(head: &[u8]) -> bool {
    let synced =
        |first: usize, stride: usize| (0..3).all(|i| head.get(first + i * stride) == Some(&0x47));
    synced(0, 188) || synced(4, 192)
}

/// A raw frame stream: ADTS AAC or MPEG audio layer I-III. A 12-bit sync
/// word is weak magic, so the header fields must be valid and, when the
/// head holds it, a second frame must start where the first one ends.
fn sniff_frame(head: &[u8]) -> Option<Sniffed> {
    let media_type = if adts_frame_len(head).is_some() {
        two_frames(head, adts_frame_len).then_some(mt!("audio/aac"))
    } else {
        two_frames(head, mpeg_frame_len).then_some(mt!("audio/mpeg"))
    };
    found(media_type?, Family::Audio)
}

/// A frame at the start and, when the head reaches that far, another one
/// right after it. A frame running past the data is accepted (truncated
/// files), except after FF FE: that is also the UTF-16LE byte order mark,
/// and short UTF-16 text would otherwise pass for one MPEG layer I frame.
fn two_frames(head: &[u8], frame_len: fn(&[u8]) -> Option<usize>) -> bool {
    let Some(len) = frame_len(head) else {
        return false;
    };
    match head.get(len..) {
        Some(next) => next.len() < 4 || frame_len(next).is_some(),
        None => !head.starts_with(b"\xFF\xFE"),
    }
}

/// Length of the ADTS frame starting `data`, header included.
fn adts_frame_len(data: &[u8]) -> Option<usize> {
    let [0xFF, b1, b2, b3, b4, b5] = super::array(data, 0)? else {
        return None;
    };
    // Layer bits 00 tell ADTS from MPEG audio; frequency index 13-15 is
    // reserved.
    if b1 & 0xF6 != 0xF0 || (b2 >> 2) & 0x0F >= 13 {
        return None;
    }
    let len = (usize::from(b3 & 3) << 11) | (usize::from(b4) << 3) | usize::from(b5 >> 5);
    (len >= 7).then_some(len)
}

/// Length of the MPEG audio frame starting `data`. Free-format (bitrate
/// index 0) streams are not recognised: their length is not in the header.
fn mpeg_frame_len(data: &[u8]) -> Option<usize> {
    // Bitrates in kbit/s for indices 1-14.
    const V1_LAYER1: [u32; 14] = [
        32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448,
    ];
    const V1_LAYER2: [u32; 14] = [
        32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
    ];
    const V1_LAYER3: [u32; 14] = [
        32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
    ];
    const V2_LAYER1: [u32; 14] = [
        32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256,
    ];
    const V2_LAYER23: [u32; 14] = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
    let [0xFF, b1, b2] = super::array(data, 0)? else {
        return None;
    };
    if b1 & 0xE0 != 0xE0 {
        return None;
    }
    // Version: 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5, 1 reserved.
    // Layer: 3 = I, 2 = II, 1 = III, 0 reserved.
    let (version, layer) = ((b1 >> 3) & 3, (b1 >> 1) & 3);
    let bitrates = match (version, layer) {
        (1, _) | (_, 0) => return None,
        (3, 3) => &V1_LAYER1,
        (3, 2) => &V1_LAYER2,
        (3, _) => &V1_LAYER3,
        (_, 3) => &V2_LAYER1,
        _ => &V2_LAYER23,
    };
    let bitrate = 1000 * bitrates.get(usize::from(b2 >> 4).checked_sub(1)?)?;
    let base_rate = *[44_100, 48_000, 32_000].get(usize::from((b2 >> 2) & 3))?;
    // MPEG-2 halves the MPEG-1 sample rates, MPEG-2.5 quarters them.
    let rate = match version {
        3 => base_rate,
        2 => base_rate / 2,
        _ => base_rate / 4,
    };
    let padding = u32::from((b2 >> 1) & 1);
    let len = match layer {
        3 => (12 * bitrate / rate + padding) * 4,
        1 if version != 3 => 72 * bitrate / rate + padding,
        _ => 144 * bitrate / rate + padding,
    };
    usize::try_from(len).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(data: &[u8]) -> Option<&'static str> {
        sniff(data).map(|s| s.media_type)
    }

    #[test]
    fn frame_sync() {
        // MPEG-1 layer III, 128 kbit/s, 44.1 kHz: 417-byte frames.
        let mut mp3 = vec![0xFF, 0xFB, 0x90, 0x64];
        mp3.resize(417, 0);
        assert_eq!(kind(&mp3), Some("audio/mpeg"));
        mp3.extend_from_slice(&[0xFF, 0xFB, 0x90, 0x64]);
        assert_eq!(kind(&mp3), Some("audio/mpeg"));
        // No second frame where the first one ends.
        mp3.truncate(417);
        mp3.extend_from_slice(b"text");
        assert_eq!(kind(&mp3), None);
        // ADTS with 10-byte frames.
        let adts = [0xFF, 0xF1, 0x50, 0x80, 0x01, 0x40, 0, 0, 0, 0];
        assert_eq!(kind(&adts), Some("audio/aac"));
        assert_eq!(kind(&[adts, adts].concat()), Some("audio/aac"));
        // Reserved version, reserved bitrate, reserved layer, free format.
        assert_eq!(kind(&[0xFF, 0xEB, 0x90, 0x64]), None);
        assert_eq!(kind(&[0xFF, 0xFB, 0xF0, 0x64]), None);
        assert_eq!(kind(&[0xFF, 0xF9, 0x3C, 0x64]), None);
        assert_eq!(kind(&[0xFF, 0xFB, 0x00, 0x64]), None);
        // A UTF-16 little-endian BOM before text is not MPEG audio.
        let text: Vec<u8> =
            "Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\\Software]\r\n"
                .repeat(3)
                .bytes()
                .flat_map(|b| [b, 0])
                .collect();
        assert_eq!(kind(&[b"\xFF\xFE".as_slice(), &text].concat()), None);
    }

    #[test]
    fn id3_then_audio() {
        let mut tag = b"ID3\x04\0\0\0\0\0\x02ab".to_vec();
        assert_eq!(kind(&tag), Some("audio/mpeg"));
        tag.extend_from_slice(b"fLaC");
        assert_eq!(kind(&tag), Some("audio/flac"));
        tag.truncate(12);
        tag.extend_from_slice(&[0xFF, 0xF1, 0x50, 0x80, 0x01, 0x40]);
        assert_eq!(kind(&tag), Some("audio/aac"));
        // A tag size larger than the data does not panic.
        assert_eq!(kind(b"ID3\x04\0\0\x7F\x7F\x7F\x7F"), Some("audio/mpeg"));
    }

    #[test]
    fn containers() {
        assert_eq!(kind(b"RIFF\0\0\0\0WAVEfmt "), Some("audio/wav"));
        assert_eq!(
            kind(b"\0\0\0\x18ftypM4A \0\0\0\0M4A mp42"),
            Some("audio/mp4")
        );
        assert_eq!(
            kind(b"\0\0\0\x18ftypisom\0\0\0\0isommp42"),
            Some("video/mp4")
        );
        assert_eq!(
            kind(b"\x1A\x45\xDF\xA3\x9F\x42\x82\x84webm"),
            Some("video/webm")
        );
        let mut ogg = b"OggS\0\x02".to_vec();
        ogg.resize(26, 0);
        ogg.extend_from_slice(&[1, 19]);
        ogg.extend_from_slice(b"OpusHead");
        assert_eq!(kind(&ogg), Some("audio/opus"));
    }
}
