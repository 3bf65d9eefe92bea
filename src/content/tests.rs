//! Tests of one part's conversion.

use super::uri::file_name;
use super::*;
use crate::base64_data;
use crate::provider::DEFAULT;
use crate::text_cap;

const CAP: TextCap = Some(text_cap::DEFAULT_MAX_TEXT_TOKENS);

/// The default profile's part for `part`, saving in `store`.
fn to_content(part: &MediaPart, cap: TextCap, store: &ToolOutputStore) -> ModelPart {
    Conversion::new(&DEFAULT, cap).convert(part, store).part
}

/// The default profile's part for `part`, unless that needs a disk write.
fn in_memory(part: &MediaPart, cap: TextCap) -> Option<ModelPart> {
    Conversion::new(&DEFAULT, cap)
        .convert_in_memory(part)
        .map(|c| c.part)
}

/// The default profile's conversion, notes in `style`.
fn styled(style: NoteStyle) -> Conversion<'static> {
    Conversion {
        style,
        ..Conversion::new(&DEFAULT, CAP)
    }
}

fn store() -> (tempfile::TempDir, ToolOutputStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = ToolOutputStore::new(Some(dir.path().join("out")), None).unwrap();
    (dir, store)
}

fn resource<'a>(uri: &'a str, mt: &'a str, b64: &'a str) -> MediaPart<'a> {
    MediaPart {
        kind: MediaKind::Resource,
        uri: Some(uri),
        declared_media_type: Some(mt),
        payload: Payload::Base64(b64.as_bytes()),
    }
}

#[test]
fn markdown_blob_becomes_text() {
    let (_dir, store) = store();
    let b64 = base64_data::encode(b"# Title\n\nBody");
    let part = resource("file:///README.md", "text/markdown", &b64);
    assert_eq!(
        to_content(&part, CAP, &store),
        ModelPart::Text("[Resource file:///README.md (text/markdown)]\n# Title\n\nBody".into())
    );
}

#[test]
fn text_in_other_encodings_names_the_encoding() {
    let (_dir, store) = store();
    let cases: [(&[u8], &str, &str); 4] = [
        (
            b"caf\xe9 \x80\n",
            "text/plain; charset=ISO-8859-1",
            "[Resource file:///a.txt (text/plain, windows-1252)]\ncaf\u{e9} \u{20ac}\n",
        ),
        (
            b"# Na\xefve\n",
            "text/markdown",
            "[Resource file:///a.txt (text/markdown, windows-1252)]\n# Na\u{ef}ve\n",
        ),
        (
            b"\x93\xfa\x96\x7b\x8c\xea",
            "text/plain; charset=shift_jis",
            "[Resource file:///a.txt (text/plain, shift_jis)]\n\u{65e5}\u{672c}\u{8a9e}",
        ),
        (
            b"h\0i\0\n\0",
            "application/octet-stream",
            "[Resource file:///a.txt (text/plain, utf-16le)]\nhi\n",
        ),
    ];
    for (bytes, declared, expected) in cases {
        let b64 = base64_data::encode(bytes);
        let part = resource("file:///a.txt", declared, &b64);
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::Text(expected.into()),
            "{declared}"
        );
    }
}

#[test]
fn binary_declared_shift_jis_is_saved() {
    let (dir, store) = store();
    let mut state = 7u32;
    let bytes: Vec<u8> = (0..2000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        })
        .collect();
    let b64 = base64_data::encode(&bytes);
    let part = resource("file:///x.txt", "text/plain; charset=shift_jis", &b64);
    let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
        panic!("expected a note");
    };
    let prefix = "[Binary resource file:///x.txt (text/plain, 2000 bytes): declared text/plain but the bytes are not text";
    assert!(text.starts_with(prefix), "{text}");
    let saved = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name() != crate::store::LOCK_NAME)
        .count();
    assert_eq!(saved, 1);
}

#[test]
fn a_hostile_declared_type_is_escaped_and_cut_in_every_note() {
    let (_dir, store) = store();
    let bmp = b"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00";
    let mut state = 7u32;
    let noise: Vec<u8> = (0..2000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        })
        .collect();
    // Lower case: the declared type's essence is.
    let tail = "\n]\u{1b}[2j\u{9b}31m\u{202e}(y)";
    let shown_tail = "%0A%5D%1B%5B2j%C2%9B31m%E2%80%AE%28y%29";
    let long = "b".repeat(100_000);
    let cases: [(&[u8], String); 6] = [
        // declared X but the bytes are image/bmp, which is not accepted
        (bmp, format!("image/x{tail}")),
        (bmp, format!("image/x{long}")),
        // declared text/X but the bytes are not text
        (&noise, format!("text/x{tail}")),
        (&noise, format!("text/x{long}")),
        // X is not accepted
        (&noise, format!("application/x{tail}")),
        (&noise, format!("application/x{long}")),
    ];
    for (bytes, declared) in cases {
        let b64 = base64_data::encode(bytes);
        let part = resource("file:///a", &declared, &b64);
        let ModelPart::Text(note) = to_content(&part, CAP, &store) else {
            panic!("{declared:?} was attached");
        };
        assert_eq!(note.lines().count(), 1, "{note:?}");
        assert_eq!(note.matches(']').count(), 1, "{note:?}");
        assert!(
            !note.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{note:?}"
        );
        if declared.ends_with(tail) {
            assert!(note.contains(shown_tail), "{note:?}");
        } else {
            // Twice a cut type, and the words around them.
            assert!(note.len() < 1_400, "{} characters: {note}", note.len());
        }
    }
    // classify's `problem` (inspect prints it) is escaped the same way.
    let b64 = base64_data::encode(&noise);
    let c = classify::classify(Payload::Base64(b64.as_bytes()), Some("text/x\u{1b}]"));
    assert_eq!(
        c.problem(),
        Some("declared text/x%1B%5D but the bytes are not text (neither UTF-8 nor UTF-16)")
    );
}

#[test]
fn unknown_binary_is_saved_whole() {
    let (_dir, store) = store();
    let bytes = b"PAR1\x00\x01\x02\xffPAR1";
    let b64 = base64_data::encode(bytes);
    let part = resource(
        "file:///data.parquet",
        "application/vnd.apache.parquet",
        &b64,
    );
    let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
        panic!("expected a note");
    };
    let prefix = "[Binary resource file:///data.parquet (application/vnd.apache.parquet, 12 bytes): application/vnd.apache.parquet is not accepted; saved to ";
    assert!(text.starts_with(prefix), "{text}");
    let path = text[prefix.len()..text.len() - 1].to_string();
    assert!(path.ends_with(".parquet"));
    assert_eq!(std::fs::read(path).unwrap(), bytes);
}

#[test]
fn image_limit_on_canonical_base64_and_the_reason_in_the_note() {
    use crate::route::tests::{line_broken_unpadded, png_of_len};
    let (_dir, store) = store();
    let at_limit = png_of_len(3_932_160);
    let canonical = base64_data::encode(&at_limit);
    let wrapped = line_broken_unpadded(&canonical);
    let part = MediaPart::new(
        MediaKind::Image,
        None,
        Some("image/png"),
        Payload::Base64(wrapped.as_bytes()),
    );
    assert_eq!(
        to_content(&part, CAP, &store),
        ModelPart::File {
            media_type: "image/png",
            data: Base64Output::Encoded(canonical),
            uri: None,
            filename: None,
        }
    );

    let over = png_of_len(3_932_161);
    let wrapped = line_broken_unpadded(&base64_data::encode(&over));
    for payload in [Payload::Base64(wrapped.as_bytes()), Payload::Bytes(&over)] {
        let part = MediaPart::new(MediaKind::Image, None, Some("image/png"), payload);
        let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
            panic!("an image over the limit was attached");
        };
        let prefix = "[Binary image (image/png, 3932161 bytes): 5.3 MB as base64, over the 5.2 MB limit; saved to ";
        assert!(text.starts_with(prefix), "{text}");
        assert_eq!(
            std::fs::read(&text[prefix.len()..text.len() - 1]).unwrap(),
            over
        );
    }
}

#[test]
fn convert_tells_what_was_attached_and_what_was_saved() {
    use crate::route::tests::png_of_len;
    let (_dir, store) = store();
    let png = png_of_len(60_000);
    let part = MediaPart::new(
        MediaKind::Image,
        None,
        Some("image/png"),
        Payload::Bytes(&png),
    );
    let converted = styled(NoteStyle::Standard).convert(&part, &store);
    assert!(matches!(converted.part, ModelPart::File { .. }));
    let attached = converted.attached.unwrap();
    assert_eq!(attached.byte_length, 60_000);
    assert!(attached.dimensions.is_some());
    assert_eq!(converted.saved, None);

    let over = png_of_len(3_932_161);
    let part = MediaPart::new(
        MediaKind::Image,
        None,
        Some("image/png"),
        Payload::Bytes(&over),
    );
    let standard = styled(NoteStyle::Standard).convert(&part, &store);
    let saved = standard.saved.clone().unwrap();
    assert_eq!(
        (saved.byte_length, saved.media_type.as_str()),
        (3_932_161, "image/png")
    );
    assert_eq!(std::fs::read(&saved.path).unwrap(), over);
    let ModelPart::Text(text) = standard.part else {
        panic!("an image over the limit was attached");
    };
    assert!(
        text.starts_with("[Binary image (image/png, 3932161 bytes): "),
        "{text}"
    );
    // Deferred style: decocms' words, the reason and the path.
    let deferred = styled(NoteStyle::Deferred).convert(&part, &store);
    let path = deferred.saved.unwrap().path;
    assert_eq!(
        deferred.part,
        ModelPart::Text(format!(
            "[image/png image, 3840 KB, not shown to the model: 5.3 MB as base64, over the 5.2 MB limit; saved to {path}]"
        ))
    );
    // A type the provider does not take keeps the binary note.
    let bmp = b"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00";
    let part = MediaPart::new(MediaKind::Image, None, None, Payload::Bytes(bmp));
    let ModelPart::Text(text) = styled(NoteStyle::Deferred).convert(&part, &store).part else {
        panic!("a bmp was attached");
    };
    assert!(
        text.starts_with(
            "[Binary image (image/bmp, 58 bytes): image/bmp is not accepted; saved to "
        ),
        "{text}"
    );
}

#[test]
fn a_held_image_is_made_to_fit_the_rule_and_deferred_like_the_others() {
    use crate::budget::RequestExcess;
    let (_dir, store) = store();
    let (width, height) = (2500u32, 100u32);
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        let pixels: Vec<u8> = (0..width * height * 3).map(|i| (i % 251) as u8).collect();
        writer.write_image_data(&pixels).unwrap();
    }
    let b64 = base64_data::encode(&bytes);
    let part = MediaPart::new(
        MediaKind::Image,
        None,
        None,
        Payload::Base64(b64.as_bytes()),
    );
    let reason = Reason::Request(RequestExcess::ManyImages {
        width,
        height,
        max_side: 2000,
        over: 20,
    });
    let held = Held {
        media_type: "image/png",
        reason: &reason,
        saved_original: None,
    };
    let fitting = |style| Conversion {
        fit: FitImages {
            enabled: true,
            max_long_side: None,
        },
        ..styled(style)
    };
    let deferred = fitting(NoteStyle::Deferred).hold(&part, held, &store);
    let ModelPart::File { media_type, .. } = deferred.converted.part else {
        panic!("not fitted: {:?}", deferred.converted.part);
    };
    let attached = deferred.converted.attached.unwrap();
    assert_eq!(attached.dimensions, Some((2000, 80)));
    assert_eq!(
        deferred.placeholder,
        Some(note::attached_below(
            media_type,
            "image",
            attached.byte_length
        ))
    );
    assert_eq!(
        deferred.converted.saved.unwrap().byte_length,
        bytes.len() as u64
    );
    // Kept in the result when media are not deferred; saved when images
    // are not made to fit.
    let standard = fitting(NoteStyle::Standard).hold(&part, held, &store);
    assert!(matches!(standard.converted.part, ModelPart::File { .. }));
    assert_eq!(standard.placeholder, None);
    let saved = styled(NoteStyle::Deferred).hold(&part, held, &store);
    assert!(matches!(saved.converted.part, ModelPart::Text(_)));
    assert_eq!(saved.placeholder, None);
}

#[test]
fn a_held_attachment_is_saved_with_the_reason_given() {
    use crate::budget::RequestExcess;
    let (_dir, store) = store();
    let bytes = crate::route::tests::png_of_len(60_000);
    let b64 = base64_data::encode(&bytes);
    let part = resource("file:///shot.png", "image/png", &b64);
    let reason = Reason::Request(RequestExcess::Images { max: 20 });
    let spill = |style, saved_original| {
        let held = Held {
            media_type: "image/png",
            reason: &reason,
            saved_original,
        };
        let held = styled(style).hold(&part, held, &store);
        // Nothing fitted, so nothing is deferred in its place.
        assert_eq!(held.placeholder, None);
        held.converted
    };
    let converted = spill(NoteStyle::Standard, None);
    let path = converted.saved.unwrap().path;
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(
        converted.part,
        ModelPart::Text(format!(
            "[Binary resource file:///shot.png (image/png, 60000 bytes): over the limit of 20 images per request; saved to {path}]"
        ))
    );
    let converted = spill(NoteStyle::Deferred, None);
    let path = converted.saved.unwrap().path;
    assert_eq!(
        converted.part,
        ModelPart::Text(format!(
            "[image/png image, 59 KB, not shown to the model: over the limit of 20 images per request; saved to {path}]"
        ))
    );
    // Saved already (the original of an image fitted before): named, not written again.
    let files = std::fs::read_dir(store.dir()).unwrap().count();
    let converted = spill(NoteStyle::Standard, Some(&path));
    assert_eq!(converted.saved.unwrap().path, path);
    assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), files);
}

#[test]
fn invalid_and_empty_save_nothing() {
    let (dir, store) = store();
    let part = resource("file:///x.png", "image/png", "ab!d");
    assert_eq!(
        to_content(&part, CAP, &store),
        ModelPart::Text(
            "[Resource file:///x.png (image/png): invalid base64 data (unexpected character '!' at symbol 2); nothing was saved]".into()
        )
    );
    let part = MediaPart {
        kind: MediaKind::Image,
        uri: None,
        declared_media_type: Some("image/png"),
        payload: Payload::Base64(b""),
    };
    assert_eq!(
        to_content(&part, CAP, &store),
        ModelPart::Text("[Image (image/png): empty data; nothing was saved]".into())
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn save_failure_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let store = ToolOutputStore::new(Some(file.join("sub")), None).unwrap();
    let part = MediaPart {
        kind: MediaKind::Audio,
        uri: None,
        declared_media_type: Some("audio/x-thing"),
        payload: Payload::Bytes(b"\x00\x01\x02\x03"),
    };
    let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
        panic!("expected a note");
    };
    assert!(
        text.starts_with(
            "[Binary audio (audio/x-thing, 4 bytes): audio/x-thing is not accepted; could not be saved: "
        ),
        "{text}"
    );
}

#[test]
fn without_disk_converts_all_but_what_must_be_saved() {
    let markdown = base64_data::encode(b"# Title");
    let part = resource("file:///README.md", "text/markdown", &markdown);
    assert_eq!(
        in_memory(&part, CAP),
        Some(ModelPart::Text(
            "[Resource file:///README.md (text/markdown)]\n# Title".into()
        ))
    );
    let parquet = base64_data::encode(b"PAR1\x00\x01PAR1");
    let part = resource(
        "file:///d.parquet",
        "application/vnd.apache.parquet",
        &parquet,
    );
    assert_eq!(in_memory(&part, CAP), None);
}

#[test]
fn file_names_from_uris() {
    let cases = [
        ("file:///tmp/a.pdf", Some("a.pdf")),
        ("https://x.test/doc.pdf?x=1#p2", Some("doc.pdf")),
        (
            "file:///tmp/My%20report%20%C3%A9.pdf",
            Some("My report é.pdf"),
        ),
        ("file:///tmp/r%c3%a9sum%C3%A9.pdf", Some("résumé.pdf")),
        ("file:///tmp/100%25.png", Some("100%.png")),
        ("file:///tmp/é.pdf", Some("é.pdf")),
        ("a.pdf", Some("a.pdf")),
        ("urn:x:a.pdf", Some("x:a.pdf")),
        ("file:///tmp/", None),
        ("https://x.test", None),
        ("https://x.test/", None),
        ("https://x.test?a=b/c", None),
        ("file:", None),
        // Malformed escapes, and escapes that are not UTF-8.
        ("file:///tmp/a%2.pdf", None),
        ("file:///tmp/a%zz.pdf", None),
        ("file:///tmp/a%", None),
        ("file:///tmp/a%FF.pdf", None),
        ("file:///tmp/a%C3.pdf", None),
        // Decoded separators and control characters; dot names.
        ("file:///tmp/..%2F..%2Fetc%2Fpasswd", None),
        ("file:///tmp/a%5Cb.pdf", None),
        ("file:///tmp/a%00.pdf", None),
        ("file:///tmp/a%0A.pdf", None),
        ("file:///tmp/a%7F.pdf", None),
        ("file:///tmp/a%C2%85.pdf", None),
        ("file:///tmp/a\\b.pdf", None),
        ("file:///tmp/%2E%2E", None),
        ("file:///tmp/.", None),
    ];
    for (uri, want) in cases {
        assert_eq!(file_name(uri).as_deref(), want, "{uri}");
    }
}

#[test]
fn text_labels_keep_the_declared_parameters() {
    assert_eq!(
        embedded_text(
            "file:///a.txt",
            Some("Text/Plain; charset=utf-8; name=a"),
            "hi"
        ),
        "[Resource file:///a.txt (text/plain; charset=utf-8)]\nhi"
    );
    assert_eq!(embedded_text("", None, "hi"), "[Media (text/plain)]\nhi");
    let (_dir, store) = store();
    let b64 = base64_data::encode(b"a,b\n1,2\n");
    let part = resource("file:///t.csv", "text/csv; header=present", &b64);
    assert_eq!(
        to_content(&part, CAP, &store),
        ModelPart::Text("[Resource file:///t.csv (text/csv; header=present)]\na,b\n1,2\n".into())
    );
    // Sent as text/plain, not as the declared type: its parameters go.
    let part = resource("file:///t", "application/octet-stream; charset=utf-8", &b64);
    assert_eq!(
        to_content(&part, CAP, &store),
        ModelPart::Text("[Resource file:///t (text/plain)]\na,b\n1,2\n".into())
    );
}

/// A 200x100 PNG (IHDR, one IDAT, IEND) with `damage` done to its
/// zlib stream, the IDAT's CRC written anew: sound in structure.
fn png_with_zlib(damage: impl Fn(&mut [u8])) -> Vec<u8> {
    let pixels = image::RgbImage::from_fn(200, 100, |x, y| {
        image::Rgb([x as u8, (y * 2) as u8, (x ^ y) as u8])
    });
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixels)
        .write_to(&mut png, image::ImageFormat::Png)
        .unwrap();
    let mut png = png.into_inner();
    let at = 33;
    assert_eq!(&png[at + 4..at + 8], b"IDAT");
    let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
    damage(&mut png[at + 8..at + 8 + len]);
    let crc = crc32fast::hash(&png[at + 4..at + 8 + len]);
    png[at + 8 + len..at + 12 + len].copy_from_slice(&crc.to_be_bytes());
    png
}

#[test]
fn a_png_to_make_fit_is_checked_by_the_fit_that_decodes_it() {
    let (_dir, store) = store();
    let fitting = Conversion {
        fit: FitImages {
            enabled: true,
            max_long_side: Some(64),
        },
        ..Conversion::new(&DEFAULT, CAP)
    };
    let convert = |png: &[u8]| {
        let part = MediaPart::new(MediaKind::Image, None, None, Payload::Bytes(png));
        fitting.convert(&part, &store)
    };
    // Sound: fitted, its decode check the fit's own.
    let sound = convert(&png_with_zlib(|_| {}));
    assert!(
        matches!(
            sound.part,
            ModelPart::File {
                media_type: "image/png",
                ..
            }
        ),
        "{:?}",
        sound.part
    );
    assert_eq!(sound.attached.unwrap().dimensions, Some((64, 32)));
    // Deflate data broken midway (the fit fails), and only zlib's
    // Adler-32 wrong (every row decodes; the fit reads on to the end):
    // refused as the decode check refuses them, nothing fitted.
    let broken = |zlib: &mut [u8]| {
        let middle = zlib.len() / 2;
        zlib[middle..middle + 4].iter_mut().for_each(|b| *b ^= 0x5a);
    };
    let adler = |zlib: &mut [u8]| {
        let end = zlib.len();
        zlib[end - 1] ^= 1;
    };
    for damage in [&broken as &dyn Fn(&mut [u8]), &adler] {
        let png = png_with_zlib(damage);
        let converted = convert(&png);
        let ModelPart::Text(text) = &converted.part else {
            panic!("a damaged PNG was sent: {:?}", converted.note);
        };
        assert!(
            text.contains("corrupt PNG: its image data does not decode"),
            "{text}"
        );
        assert_eq!(converted.saved.unwrap().byte_length, png.len() as u64);
    }
}

#[test]
fn a_repairable_png_is_attached_as_its_repaired_copy() {
    use crate::sniff::png_tests::{chunk, png};
    let (dir, store) = store();
    let ihdr = chunk(b"IHDR", &[0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
    let idat = chunk(
        b"IDAT",
        &[0x78, 0xDA, 0x63, 0x60, 0xC0, 0x04, 0, 0, 0x14, 0, 0x01],
    );
    let iend = chunk(b"IEND", &[]);
    let mut text = chunk(b"tEXt", b"Comment\0hi");
    let last = text.len() - 1;
    text[last] ^= 0x80;
    let damaged = png(&[ihdr.clone(), text, idat.clone(), iend.clone()]);
    let repaired = base64_data::encode(&png(&[ihdr, idat, iend]));
    let b64 = base64_data::encode(&damaged);
    for payload in [Payload::Bytes(&damaged), Payload::Base64(b64.as_bytes())] {
        let part = MediaPart::new(
            MediaKind::Resource,
            Some("file:///x/logo%201.png"),
            Some("image/png"),
            payload,
        );
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::File {
                media_type: "image/png",
                data: Base64Output::Encoded(repaired.clone()),
                uri: Some("file:///x/logo%201.png".into()),
                filename: Some("logo 1.png".into()),
            }
        );
    }
    assert!(!dir.path().join("out").exists(), "nothing is saved");
}

#[test]
fn audience() {
    assert!(is_for_model::<&str>(None));
    assert!(is_for_model(Some(&["user", "assistant"][..])));
    assert!(!is_for_model(Some(&["user"][..])));
}

fn saved_path(note: &str) -> &str {
    note.rsplit_once(" saved to ")
        .unwrap()
        .1
        .trim_end_matches(']')
}

#[test]
fn a_text_blob_over_the_cap_is_previewed_and_saved_whole() {
    let (_dir, store) = store();
    let text: String = (0..2000)
        .map(|i| format!("row {i}: some words\n"))
        .collect();
    let b64 = base64_data::encode(text.as_bytes());
    let part = resource("file:///big.md", "text/markdown", &b64);
    assert_eq!(in_memory(&part, Some(1000)), None);
    let ModelPart::Text(out) = to_content(&part, Some(1000), &store) else {
        panic!("expected text");
    };
    assert!(out.starts_with("[Resource file:///big.md (text/markdown)]\nrow 0: some words\n"));
    let note = out.lines().last().unwrap();
    assert!(
        note.contains(" of 2000 lines are shown above; the whole text ("),
        "{note}"
    );
    assert_eq!(std::fs::read_to_string(saved_path(note)).unwrap(), text);
    assert!(saved_path(note).ends_with(".md"));
    // Off: the whole text.
    let ModelPart::Text(out) = to_content(&part, None, &store) else {
        panic!("expected text");
    };
    assert!(out.ends_with("row 1999: some words\n"));
}

#[test]
fn a_huge_utf8_blob_is_streamed_not_decoded_whole() {
    let (_dir, store) = store();
    // 16 bytes per token of the cap and more: over without counting.
    let line = "é".repeat(40) + "\n";
    let text = line.repeat(300);
    let part = MediaPart::new(
        MediaKind::Media,
        Some("file:///accents.txt"),
        Some("text/plain"),
        Payload::Bytes(text.as_bytes()),
    );
    let ModelPart::Text(out) = to_content(&part, Some(100), &store) else {
        panic!("expected text");
    };
    let body = out
        .strip_prefix("[Resource file:///accents.txt (text/plain)]\n")
        .unwrap();
    assert!(body.starts_with(&line), "{out}");
    let note = out.lines().last().unwrap();
    assert!(note.contains(" of 300 lines are shown above"), "{note}");
    assert!(note.contains(&format!("({} bytes)", text.len())), "{note}");
    assert_eq!(std::fs::read(saved_path(note)).unwrap(), text.as_bytes());
}
