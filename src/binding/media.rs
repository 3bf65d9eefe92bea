//! `toContent`'s media parts (image, audio, media, a resource with a blob):
//! converted here, inline, or on the libuv thread pool.

use napi::bindgen_prelude::*;
use napi::Unknown;
use napi_derive::napi;

use super::answer::Base64Value;
use super::args::{string_arg, DataArg, OwnedData};
use super::settings::{settings_of, Settings};
use super::{guarded, internal, invalid, on_pool, OnPool, PoolWork};
use crate::content::{Converted, MediaKind, MediaPart, ModelPart, NoteStyle};
use crate::payload::{Base64Output, Payload};

/// The fields of a media part other than its data.
pub(super) struct MediaFields {
    pub kind: MediaKind,
    pub uri: Option<String>,
    pub declared: Option<String>,
}

impl MediaFields {
    /// `kind`, `mimeType` and `uri` as the entry read them from the part.
    pub(super) fn read(
        kind: Unknown,
        mime_type: Option<Unknown>,
        uri: Option<Unknown>,
    ) -> Result<Self, String> {
        let kind = match string_arg(Some(kind), "kind")?.as_deref() {
            Some("image") => MediaKind::Image,
            Some("audio") => MediaKind::Audio,
            Some("media") => MediaKind::Media,
            Some("resource") => MediaKind::Resource,
            _ => {
                return Err(invalid(
                    "`kind` must be 'image', 'audio', 'media' or 'resource'",
                ))
            }
        };
        Ok(MediaFields {
            kind,
            declared: string_arg(mime_type, "mimeType")?,
            uri: string_arg(uri, "uri")?,
        })
    }

    pub(super) fn part<'a>(&'a self, payload: Payload<'a>) -> MediaPart<'a> {
        MediaPart::new(
            self.kind,
            self.uri.as_deref(),
            self.declared.as_deref(),
            payload,
        )
    }
}

/// Convert a part with `settings`: `disk` false gives `None` when the part
/// needs a disk write.
pub(super) fn convert(
    fields: &MediaFields,
    payload: Payload,
    settings: &Settings,
    style: NoteStyle,
    disk: bool,
) -> Result<Option<Converted>, String> {
    let part = fields.part(payload);
    let conversion = settings.conversion(style);
    guarded(|| {
        Ok(if disk {
            Some(conversion.convert(&part, &settings.store))
        } else {
            conversion.convert_in_memory(&part)
        })
    })
}

/// A conversion allowed to write to disk always answers.
pub(super) fn answered(converted: Option<Converted>) -> Result<Converted, String> {
    converted.ok_or_else(|| internal("no answer"))
}

/// The bytes an async conversion checked, when its answer is a file part
/// made from them: they go back to be encoded, never the caller's buffer.
pub(super) fn checked_copy(converted: &Converted, data: &mut OwnedData) -> Option<Vec<u8>> {
    match (&converted.part, data) {
        (
            ModelPart::File {
                data: Base64Output::InputBytes,
                ..
            },
            OwnedData::Bytes(bytes),
        ) => Some(std::mem::take(bytes)),
        _ => None,
    }
}

js_answer! {
    // A media part converted to a file part.
    pub struct FileAnswer {
        media_type: String = "mediaType",
        #[ts("string | Buffer | null")]
        data: Base64Value = "data",
        uri: Option<String> = "uri",
        filename: Option<String> = "filename",
        // What goes beside an image made to fit.
        note: Option<String> = "note",
    }
}

/// A converted media part: the text of a text part, or a file part.
type MediaAnswer = Either<String, FileAnswer>;

fn media_answer(converted: Converted, checked_copy: Option<Vec<u8>>) -> MediaAnswer {
    match converted.part {
        ModelPart::Text(text) => Either::A(text),
        ModelPart::File {
            media_type,
            data,
            uri,
            filename,
        } => Either::B(FileAnswer {
            media_type: media_type.to_string(),
            data: Base64Value::new(data, checked_copy),
            uri,
            filename,
            note: converted.note,
        }),
    }
}

/// The arguments of `convertMediaSync` and `convertMediaInline` read, and
/// the part converted here (`disk`: as `convert` says).
fn convert_here(
    settings: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
    disk: bool,
) -> Result<Option<Converted>, String> {
    let settings = settings_of(&settings)?;
    let fields = MediaFields::read(kind, mime_type, uri)?;
    let data = DataArg::read(data, data_is_latin1)?;
    data.with_payload("data", |p| {
        convert(&fields, p, &settings, NoteStyle::Standard, disk)
    })?
}

/// Convert a media part here.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "string | FileAnswer"
)]
pub fn convert_media_sync(
    settings: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<MediaAnswer, String> {
    let converted = convert_here(settings, kind, data, mime_type, uri, data_is_latin1, true)?;
    Ok(media_answer(answered(converted)?, None))
}

/// `convertMediaSync`, or `undefined` when the part needs a disk write.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "string | FileAnswer | undefined"
)]
pub fn convert_media_inline(
    settings: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<Either<MediaAnswer, Undefined>, String> {
    let converted = convert_here(settings, kind, data, mime_type, uri, data_is_latin1, false)?;
    // `undefined`, not `null`: the entry tells the two apart from an answer.
    Ok(converted.map_or(Either::B(()), |c| Either::A(media_answer(c, None))))
}

pub struct MediaWork {
    fields: MediaFields,
    data: OwnedData,
    settings: Settings,
}

impl PoolWork for MediaWork {
    type Answer = MediaAnswer;

    fn run(&mut self) -> Result<MediaAnswer, String> {
        let payload = self.data.payload();
        let converted = convert(
            &self.fields,
            payload,
            &self.settings,
            NoteStyle::Standard,
            true,
        );
        let converted = answered(converted?)?;
        let copy = checked_copy(&converted, &mut self.data);
        Ok(media_answer(converted, copy))
    }
}

/// A promise of `convertMediaSync` done on the libuv thread pool, from a
/// copy of the data.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "Promise<string | FileAnswer>"
)]
pub fn convert_media(
    settings: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<AsyncTask<OnPool<MediaWork>>, String> {
    let settings = settings_of(&settings)?;
    let fields = MediaFields::read(kind, mime_type, uri)?;
    let data = DataArg::read(data, data_is_latin1)?.into_owned("data")?;
    Ok(on_pool(MediaWork {
        fields,
        data,
        settings,
    }))
}
