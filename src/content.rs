//! One MCP content part in, one model part out: the pipeline
//! payload -> classify -> route -> (store) -> part.

use crate::charset;
use crate::classify::{self, Classification};
use crate::media_type;
use crate::note::{self, Label};
use crate::payload::{Base64Output, Data, Payload};
use crate::provider::Profile;
use crate::route::{self, Reason, Route};
use crate::store::ToolOutputStore;
use crate::text;

/// Which MCP (or opencode) part the media came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
    /// opencode's normalised `media` part.
    Media,
    /// An embedded resource with a `blob`.
    Resource,
}

/// A part that carries binary data.
#[derive(Debug, Clone, Copy)]
pub struct MediaPart<'a> {
    pub kind: MediaKind,
    pub uri: Option<&'a str>,
    pub declared_media_type: Option<&'a str>,
    pub payload: Payload<'a>,
}

impl<'a> MediaPart<'a> {
    /// The part as MCP shapes it: an image or audio block has no uri (a
    /// `uri` field there is not MCP's), an embedded resource always has one
    /// (empty when the server left it out), a `media` part may.
    pub fn new(
        kind: MediaKind,
        uri: Option<&'a str>,
        declared_media_type: Option<&'a str>,
        payload: Payload<'a>,
    ) -> Self {
        let uri = match kind {
            MediaKind::Image | MediaKind::Audio => None,
            MediaKind::Media => uri,
            MediaKind::Resource => Some(uri.unwrap_or("")),
        };
        MediaPart {
            kind,
            uri,
            declared_media_type,
            payload,
        }
    }
}

/// What the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelPart {
    Text(String),
    File {
        media_type: &'static str,
        data: Base64Output,
        uri: Option<String>,
        filename: Option<String>,
    },
}

/// Convert a media part for `profile`, saving what cannot be sent in `store`.
pub fn media_to_content(part: &MediaPart, profile: &Profile, store: &ToolOutputStore) -> ModelPart {
    match plan(part, profile) {
        Plan::Done(model_part) => model_part,
        Plan::Save {
            data,
            media_type,
            label,
            reason,
        } => spill(&data, &media_type, label, &reason, store),
    }
}

/// Convert a media part unless that needs a disk write: `None` when the
/// part must be saved, so a caller on the JS thread can hand it to a worker.
pub fn media_to_content_without_disk(part: &MediaPart, profile: &Profile) -> Option<ModelPart> {
    match plan(part, profile) {
        Plan::Done(model_part) => Some(model_part),
        Plan::Save { .. } => None,
    }
}

/// A media part's outcome, short of the disk write a spill needs.
enum Plan<'a> {
    Done(ModelPart),
    Save {
        data: Data<'a>,
        media_type: String,
        label: Label<'a>,
        reason: Reason,
    },
}

fn plan<'a>(part: &MediaPart<'a>, profile: &Profile) -> Plan<'a> {
    let label = match (part.kind, part.uri.filter(|u| !u.is_empty())) {
        (_, Some(uri)) => Label::Resource(uri),
        (MediaKind::Image, None) => Label::Image,
        (MediaKind::Audio, None) => Label::Audio,
        (MediaKind::Media | MediaKind::Resource, None) => Label::Media,
    };
    let declared = part
        .declared_media_type
        .map(media_type::essence)
        .filter(|d| !d.is_empty());

    let data = match Data::open(part.payload) {
        Ok(data) => data,
        Err(error) => {
            let mt = declared.as_deref().unwrap_or("application/octet-stream");
            let problem = format!("invalid base64 data ({error})");
            return Plan::Done(ModelPart::Text(note::unreadable(label, mt, &problem)));
        }
    };
    let charset = part.declared_media_type.and_then(charset::from_media_type);
    let c = classify::classify_data(&data, declared, charset);

    let (save_as, reason) = match route::decide(&c, profile) {
        Route::Unreadable => {
            let problem = c.problem().unwrap_or("unreadable data");
            return Plan::Done(ModelPart::Text(note::unreadable(
                label,
                &c.media_type,
                problem,
            )));
        }
        Route::Attach { media_type } => {
            return Plan::Done(ModelPart::File {
                media_type,
                data: data.canonical_base64(),
                uri: part.uri.map(str::to_owned),
                filename: part.uri.and_then(file_name),
            })
        }
        Route::Text { media_type } => match decoded_text(label, &media_type, &data, &c) {
            Some(note) => return Plan::Done(ModelPart::Text(note)),
            None => (c.media_type, Reason::NotText),
        },
        Route::Spill { media_type, reason } => (media_type, reason),
    };
    Plan::Save {
        data,
        media_type: save_as,
        label,
        reason,
    }
}

/// The text note: the header (naming an encoding other than UTF-8) and the
/// decoded text, decoded straight into the note so a large text is held
/// once next to its bytes.
fn decoded_text(label: Label, media_type: &str, data: &Data, c: &Classification) -> Option<String> {
    let encoding = c.text_encoding?;
    let named = (!encoding.is_utf8()).then(|| encoding.as_str());
    let mut note = note::text_header(label, media_type, named);
    text::decode_into(data.full(), encoding, &mut note).then_some(note)
}

fn spill(
    data: &Data,
    media_type: &str,
    label: Label,
    reason: &Reason,
    store: &ToolOutputStore,
) -> ModelPart {
    let byte_length = data.len() as u64;
    let extension = media_type::extension(media_type);
    let text = match store.save_with(extension, |writer| data.write_to(writer)) {
        Ok(saved) => note::saved(
            label,
            media_type,
            byte_length,
            reason,
            &saved.path.to_string_lossy(),
        ),
        Err(error) => note::save_failed(label, media_type, byte_length, reason, &error.to_string()),
    };
    ModelPart::Text(text)
}

/// The last path segment of a uri, as a file name for providers that want one.
fn file_name(uri: &str) -> Option<String> {
    let path = uri.split(['?', '#']).next()?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty() && !path.ends_with(':')).then(|| name.to_string())
}

/// `[Resource <uri> (<mimeType>)]\n<text>` for an embedded text resource.
pub fn embedded_text(uri: &str, declared_media_type: Option<&str>, text: &str) -> String {
    let mt = declared_media_type
        .map(media_type::essence)
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "text/plain".into());
    let label = if uri.is_empty() {
        Label::Media
    } else {
        Label::Resource(uri)
    };
    note::text(label, &mt, text)
}

/// MCP `annotations.audience`: a part is for the model unless an audience is
/// given that leaves the assistant out.
pub fn is_for_model<S: AsRef<str>>(audience: Option<&[S]>) -> bool {
    match audience {
        None => true,
        Some(roles) => roles.iter().any(|r| r.as_ref() == "assistant"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base64_data;
    use crate::provider::DEFAULT;

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
            media_to_content(&part, &DEFAULT, &store),
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
                media_to_content(&part, &DEFAULT, &store),
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
        let ModelPart::Text(text) = media_to_content(&part, &DEFAULT, &store) else {
            panic!("expected a note");
        };
        let prefix = "[Binary resource file:///x.txt (text/plain, 2000 bytes): declared text/plain but the bytes are not text";
        assert!(text.starts_with(prefix), "{text}");
        assert_eq!(
            std::fs::read_dir(dir.path().join("out")).unwrap().count(),
            1
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
        let ModelPart::Text(text) = media_to_content(&part, &DEFAULT, &store) else {
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
            media_to_content(&part, &DEFAULT, &store),
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
            let ModelPart::Text(text) = media_to_content(&part, &DEFAULT, &store) else {
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
    fn invalid_and_empty_save_nothing() {
        let (dir, store) = store();
        let part = resource("file:///x.png", "image/png", "ab!d");
        assert_eq!(
            media_to_content(&part, &DEFAULT, &store),
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
            media_to_content(&part, &DEFAULT, &store),
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
        let ModelPart::Text(text) = media_to_content(&part, &DEFAULT, &store) else {
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
            media_to_content_without_disk(&part, &DEFAULT),
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
        assert_eq!(media_to_content_without_disk(&part, &DEFAULT), None);
    }

    #[test]
    fn file_names_from_uris() {
        assert_eq!(file_name("file:///tmp/a.pdf").as_deref(), Some("a.pdf"));
        assert_eq!(
            file_name("https://x.test/doc.pdf?x=1").as_deref(),
            Some("doc.pdf")
        );
        assert_eq!(file_name("file:///tmp/"), None);
    }

    #[test]
    fn audience() {
        assert!(is_for_model::<&str>(None));
        assert!(is_for_model(Some(&["user", "assistant"][..])));
        assert!(!is_for_model(Some(&["user"][..])));
    }
}
