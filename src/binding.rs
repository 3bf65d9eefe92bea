//! Node-API binding: converts JS values to the core's types and back. No
//! decisions are made here; every export catches panics.

// napi-derive registers exports only outside `cfg(test)`, so a test build
// of this module sees its items as unused.
#![cfg_attr(test, allow(dead_code))]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use napi::bindgen_prelude::*;
use napi::{Env, JsString, Task, Unknown, ValueType};
use napi_derive::napi;

use crate::classify::{self, Classification};
use crate::content::{self, MediaKind, MediaPart, ModelPart};
use crate::media_type;
use crate::note;
use crate::payload::{Base64Output, Payload};
use crate::provider::{self, Profile};
use crate::store::{self, StoreError};
use crate::{base64_data, text};

/// Errors thrown to JS carry one of these stable codes in `err.code`.
mod code {
    pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";
    pub const INVALID_BASE64: &str = "INVALID_BASE64";
    pub const INTERNAL: &str = "INTERNAL_ERROR";
}

/// Exports return napi's `Result<T, String>` (= `Result<T, Error<String>>`):
/// the `String` is the code JS sees as `err.code`.
fn js_error(code: &str, message: impl std::fmt::Display) -> Error<String> {
    Error::new(code.to_string(), message.to_string())
}

fn from_napi(error: Error) -> Error<String> {
    js_error(code::INVALID_ARGUMENT, error.reason)
}

fn store_error(error: StoreError) -> Error<String> {
    js_error(error.code(), error)
}

/// Run core code, turning a panic into a JS error instead of an abort.
fn guarded<T>(work: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(js_error(
            code::INTERNAL,
            format!("internal error: {message}"),
        ))
    })
}

// ---------------------------------------------------------------- inputs

/// A part's `data`/`blob` as read from JS.
pub enum InputData {
    /// Bytes borrowed for the current call only: the sync exports. A
    /// `Uint8Array` reference would cost a Node-API reference and its
    /// release, several times the work on a small image.
    Borrowed(&'static [u8]),
    /// Bytes kept alive by a reference, so they can cross to a worker thread.
    Shared(Uint8Array),
    /// The base64 string's bytes (UTF-8; only ASCII is valid base64).
    Base64(Vec<u8>),
}

/// Whether the data must outlive the current call (async work).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    ForThisCall,
    ForATask,
}

impl InputData {
    fn as_payload(&self) -> Payload<'_> {
        match self {
            InputData::Borrowed(bytes) => Payload::Bytes(bytes),
            InputData::Shared(bytes) => Payload::Bytes(bytes),
            InputData::Base64(text) => Payload::Base64(text),
        }
    }
}

/// Read a base64 string's bytes. `latin1` is the caller's word that the
/// string has no character above U+00FF (the entry knows it from V8 in
/// constant time): then a Latin-1 copy, as fast as a memory copy, is exact.
/// Otherwise one UTF-8 pass into a buffer of one byte per character: an
/// ASCII string fills it exactly, any other string comes out shorter or
/// with bytes >= 0x80, which base64 validation reports. (A Latin-1 copy
/// alone would fold U+0141 into 'A'.)
fn read_base64_string(string: JsString, latin1: bool) -> Result<InputData, String> {
    let len = string.utf16_len().map_err(from_napi)?;
    let mut buffer: Vec<u8> = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    let read = if latin1 {
        napi::sys::napi_get_value_string_latin1
    } else {
        napi::sys::napi_get_value_string_utf8
    };
    let status = unsafe {
        read(
            string.value().env,
            string.raw(),
            buffer.as_mut_ptr().cast(),
            len + 1,
            &mut written,
        )
    };
    if status != napi::sys::Status::napi_ok || written > len {
        return Err(js_error(code::INTERNAL, "could not read the string"));
    }
    // SAFETY: napi wrote `written` bytes (plus a NUL we leave out).
    unsafe { buffer.set_len(written) };
    if written < len {
        // Cut short by a multi-byte character: read it whole for the error.
        return Ok(InputData::Base64(
            string.into_utf8().map_err(from_napi)?.take(),
        ));
    }
    Ok(InputData::Base64(buffer))
}

fn read_payload(value: Unknown, field: &str, hold: Hold) -> Result<Option<InputData>, String> {
    read_payload_with(value, field, hold, false)
}

fn read_payload_with(
    value: Unknown,
    field: &str,
    hold: Hold,
    latin1: bool,
) -> Result<Option<InputData>, String> {
    match value.get_type().map_err(from_napi)? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        ValueType::String => {
            let string: JsString = unsafe { value.cast() }.map_err(from_napi)?;
            read_base64_string(string, latin1).map(Some)
        }
        _ => {
            let bytes = match hold {
                // SAFETY: the slice is used only until this export returns.
                Hold::ForThisCall => unsafe { value.cast::<&[u8]>() }.map(InputData::Borrowed),
                Hold::ForATask => unsafe { value.cast::<Uint8Array>() }.map(InputData::Shared),
            };
            bytes.map(Some).map_err(|_| {
                js_error(
                    code::INVALID_ARGUMENT,
                    format!("`{field}` must be a base64 string or a Uint8Array"),
                )
            })
        }
    }
}

fn get_string(object: &Object, field: &str) -> Result<Option<String>, String> {
    string_arg(object.get::<Unknown>(field).map_err(from_napi)?, field)
}

/// A string argument or field; `None` when absent or null.
fn string_arg(value: Option<Unknown>, name: &str) -> Result<Option<String>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.get_type().map_err(from_napi)? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        ValueType::String => unsafe { value.cast::<String>() }
            .map(Some)
            .map_err(from_napi),
        _ => Err(js_error(
            code::INVALID_ARGUMENT,
            format!("`{name}` must be a string"),
        )),
    }
}

/// An argument converted by napi, its failure reported as INVALID_ARGUMENT
/// (napi's own codes, such as `StringExpected`, are not part of our API).
fn optional_arg<T: FromNapiValue>(value: Option<Unknown>, name: &str) -> Result<Option<T>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.get_type().map_err(from_napi)? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        _ => unsafe { value.cast::<T>() }.map(Some).map_err(|e| {
            js_error(
                code::INVALID_ARGUMENT,
                format!("invalid `{name}`: {}", e.reason),
            )
        }),
    }
}

fn required_arg<T: FromNapiValue>(value: Unknown, name: &str) -> Result<T, String> {
    optional_arg(Some(value), name)?
        .ok_or_else(|| js_error(code::INVALID_ARGUMENT, format!("`{name}` is required")))
}

/// `object[field]` when it is an object; `None` when absent or null.
fn get_object<'env>(object: &Object<'env>, field: &str) -> Result<Option<Object<'env>>, String> {
    let Some(value) = object.get::<Unknown>(field).map_err(from_napi)? else {
        return Ok(None);
    };
    match value.get_type().map_err(from_napi)? {
        ValueType::Object => unsafe { value.cast::<Object>() }
            .map(Some)
            .map_err(from_napi),
        _ => Ok(None),
    }
}

/// A content part, parsed into owned values.
pub enum Parsed {
    /// Not for the model (audience without "assistant").
    Hidden,
    /// Text to hand back as is.
    Text(String),
    Media {
        kind: MediaKind,
        uri: Option<String>,
        declared: Option<String>,
        payload: Option<InputData>,
    },
}

/// Parse a part, reading each field once.
fn parse_part(part: &Object, hold: Hold) -> Result<Parsed, String> {
    if !audience_includes_model(part)? {
        return Ok(Parsed::Hidden);
    }
    let kind = get_string(part, "type")?.unwrap_or_default();
    let media = |kind: MediaKind, holder: &Object, field: &str, uri: Option<String>| {
        let payload = match holder.get::<Unknown>(field).map_err(from_napi)? {
            Some(value) => read_payload(value, field, hold)?,
            None => None,
        };
        Ok(Parsed::Media {
            kind,
            uri,
            declared: get_string(holder, "mimeType")?,
            payload,
        })
    };
    let text = |text: String| Ok(Parsed::Text(text));
    match kind.as_str() {
        "text" => text(get_string(part, "text")?.unwrap_or_default()),
        "image" => media(MediaKind::Image, part, "data", None),
        "audio" => media(MediaKind::Audio, part, "data", None),
        "media" => media(MediaKind::Media, part, "data", get_string(part, "uri")?),
        "resource" => {
            let Some(resource) = get_object(part, "resource")? else {
                return text("[Resource part without a `resource` object]".into());
            };
            let uri = get_string(&resource, "uri")?.unwrap_or_default();
            if let Some(body) = get_string(&resource, "text")? {
                let mime = get_string(&resource, "mimeType")?;
                return text(content::embedded_text(&uri, mime.as_deref(), &body));
            }
            media(MediaKind::Resource, &resource, "blob", Some(uri))
        }
        "resource_link" => text(resource_link_note(
            get_string(part, "uri")?,
            get_string(part, "name")?,
            get_string(part, "mimeType")?,
            part.get::<Unknown>("size").map_err(from_napi)?,
            get_string(part, "description")?,
        )?),
        other => text(format!("[Unsupported content part of type \"{other}\"]")),
    }
}

fn resource_link_note(
    uri: Option<String>,
    name: Option<String>,
    media_type: Option<String>,
    size: Option<Unknown>,
    description: Option<String>,
) -> Result<String, String> {
    let size = match size {
        Some(v) if v.get_type().map_err(from_napi)? == ValueType::Number => {
            Some(unsafe { v.cast::<f64>() }.map_err(from_napi)?)
        }
        _ => None,
    };
    Ok(note::resource_link(
        &uri.unwrap_or_default(),
        name.as_deref(),
        media_type.as_deref(),
        // A byte count is a whole number; anything else is left out.
        size.filter(|s| s.is_finite() && *s >= 0.0 && s.fract() == 0.0)
            .map(|s| s as u64),
        description.as_deref(),
    ))
}

fn audience_includes_model(part: &Object) -> Result<bool, String> {
    let Some(annotations) = get_object(part, "annotations")? else {
        return Ok(true);
    };
    let Some(audience) = get_object(&annotations, "audience")? else {
        return Ok(true);
    };
    if !audience.is_array().map_err(from_napi)? {
        return Ok(true);
    }
    let roles: Vec<Unknown> = unsafe { audience.to_unknown().cast() }.map_err(from_napi)?;
    let roles: Vec<String> = roles
        .into_iter()
        .filter(|r| r.get_type().ok() == Some(ValueType::String))
        .filter_map(|r| unsafe { r.cast::<String>() }.ok())
        .collect();
    Ok(content::is_for_model(Some(&roles)))
}

/// Options shared by `toContent` and `toContentAsync`.
#[napi(object, object_to_js = false)]
pub struct ToContentOptions {
    /// Target provider profile; `"default"` attaches png, jpeg, gif, webp, pdf.
    #[napi(ts_type = "ProviderName")]
    pub provider: Option<String>,
    /// Folder for binaries that cannot be sent (default: a per-user temp folder).
    pub output_dir: Option<String>,
    /// A store to save into instead of `outputDir`.
    #[napi(ts_type = "ToolOutputStore")]
    pub store: Option<ClassInstance<'static, ToolOutputStore>>,
}

pub struct Settings {
    profile: &'static Profile,
    store: Arc<store::ToolOutputStore>,
}

fn settings(options: Option<ToContentOptions>) -> Result<Settings, String> {
    let options = options.unwrap_or(ToContentOptions {
        provider: None,
        output_dir: None,
        store: None,
    });
    let name = options.provider.as_deref().unwrap_or("default");
    let profile = provider::profile(name).ok_or_else(|| {
        js_error(
            code::INVALID_ARGUMENT,
            format!(
                "unknown provider \"{name}\"; known: {}",
                provider::profile_names().join(", ")
            ),
        )
    })?;
    let store = match (options.store, options.output_dir) {
        (Some(store), _) => store.inner.clone(),
        (None, Some(dir)) => Arc::new(
            store::ToolOutputStore::new(Some(PathBuf::from(dir)), None).map_err(store_error)?,
        ),
        (None, None) => default_store()?,
    };
    Ok(Settings { profile, store })
}

/// The per-user temp-folder store, made once: finding the user's folder
/// takes system calls that need not run for every part.
fn default_store() -> Result<Arc<store::ToolOutputStore>, String> {
    static DEFAULT: OnceLock<Arc<store::ToolOutputStore>> = OnceLock::new();
    if let Some(store) = DEFAULT.get() {
        return Ok(store.clone());
    }
    let store = Arc::new(store::ToolOutputStore::new(None, None).map_err(store_error)?);
    Ok(DEFAULT.get_or_init(|| store).clone())
}

// ---------------------------------------------------------------- outputs

/// The core's answer for one part, before it becomes a JS object.
pub enum Converted {
    Hidden,
    Text(String),
    Part(ModelPart),
}

fn convert(parsed: &Parsed, settings: &Settings) -> Converted {
    match step(parsed) {
        Step::Answer(converted) => converted,
        Step::Convert(part) => Converted::Part(content::media_to_content(
            &part,
            settings.profile,
            &settings.store,
        )),
    }
}

/// `convert`, or `None` when the part needs a disk write.
fn convert_without_disk(parsed: &Parsed, settings: &Settings) -> Option<Converted> {
    match step(parsed) {
        Step::Answer(converted) => Some(converted),
        Step::Convert(part) => {
            content::media_to_content_without_disk(&part, settings.profile).map(Converted::Part)
        }
    }
}

/// What a parsed part needs: nothing more, or the conversion of its data.
enum Step<'a> {
    Answer(Converted),
    Convert(MediaPart<'a>),
}

fn step(parsed: &Parsed) -> Step<'_> {
    match parsed {
        Parsed::Hidden => Step::Answer(Converted::Hidden),
        Parsed::Text(text) => Step::Answer(Converted::Text(text.clone())),
        Parsed::Media {
            kind,
            uri,
            declared,
            payload,
        } => Step::Convert(MediaPart {
            kind: *kind,
            uri: uri.as_deref(),
            declared_media_type: declared.as_deref(),
            // No data at all reads as empty data.
            payload: payload
                .as_ref()
                .map_or(Payload::Bytes(&[]), InputData::as_payload),
        }),
    }
}

fn text_object<'env>(env: &'env Env, text: &str) -> Result<Object<'env>, String> {
    let mut object = Object::new(env).map_err(from_napi)?;
    object
        .set_named_property("type", "text")
        .map_err(from_napi)?;
    object.set_named_property("text", text).map_err(from_napi)?;
    Ok(object)
}

/// Build the JS result. A file part whose data is the caller's own input
/// (a canonical base64 string, or bytes) gets `data: undefined`: the package
/// entry (mcp-content.js) puts the input string there, or encodes the bytes
/// with Node's encoder, so no multi-megabyte string is copied here.
fn to_js<'env>(env: &'env Env, converted: Converted) -> Result<Option<Object<'env>>, String> {
    let (media_type, data, uri, filename) = match converted {
        Converted::Hidden => return Ok(None),
        Converted::Text(text) | Converted::Part(ModelPart::Text(text)) => {
            return text_object(env, &text).map(Some)
        }
        Converted::Part(ModelPart::File {
            media_type,
            data,
            uri,
            filename,
        }) => (media_type, data, uri, filename),
    };
    let mut object = Object::new(env).map_err(from_napi)?;
    object
        .set_named_property("type", "file")
        .map_err(from_napi)?;
    object
        .set_named_property("mediaType", media_type)
        .map_err(from_napi)?;
    match data {
        Base64Output::InputString | Base64Output::InputBytes => {
            object.set_named_property("data", ()).map_err(from_napi)?;
        }
        Base64Output::Encoded(text) => {
            let string = env
                .create_string_latin1(text.as_bytes())
                .map_err(from_napi)?;
            object
                .set_named_property("data", string)
                .map_err(from_napi)?;
        }
    }
    if let Some(uri) = uri {
        object.set_named_property("uri", uri).map_err(from_napi)?;
    }
    if let Some(filename) = filename {
        object
            .set_named_property("filename", filename)
            .map_err(from_napi)?;
    }
    Ok(Some(object))
}

fn require_object<'env>(value: Unknown<'env>) -> Result<Object<'env>, String> {
    if value.get_type().map_err(from_napi)? != ValueType::Object {
        return Err(js_error(
            code::INVALID_ARGUMENT,
            "a content part must be an object with a `type`",
        ));
    }
    unsafe { value.cast::<Object>() }.map_err(from_napi)
}

/// Check and read the arguments every conversion export takes.
fn read_arguments(
    part: Unknown,
    options: Option<Unknown>,
    hold: Hold,
) -> Result<(Parsed, Settings), String> {
    let part = require_object(part)?;
    let settings = settings(optional_arg(options, "options")?)?;
    Ok((parse_part(&part, hold)?, settings))
}

// ---------------------------------------------------------------- exports

/// The native half of `toContent`, for the package entry: a file part
/// carrying the caller's own data (canonical base64 string or bytes) has
/// `data: undefined` for the caller to fill in. Use `toContent`.
#[napi(
    catch_unwind,
    ts_args_type = "part: McpContent, options?: ToContentOptions",
    ts_return_type = "RawContentPart | null"
)]
pub fn convert_content<'env>(
    env: &'env Env,
    part: Unknown<'env>,
    options: Option<Unknown<'env>>,
) -> Result<Option<Object<'env>>, String> {
    let (parsed, settings) = read_arguments(part, options, Hold::ForThisCall)?;
    let converted = guarded(|| Ok(convert(&parsed, &settings)))?;
    to_js(env, converted)
}

/// kind, data, mimeType, uri, options, dataIsLatin1.
type MediaArguments<'a> = (
    Unknown<'a>,
    Option<Unknown<'a>>,
    Option<Unknown<'a>>,
    Option<Unknown<'a>>,
    Option<Unknown<'a>>,
    Option<Unknown<'a>>,
);

/// A media part's fields, read once each by the entry and passed one by one:
/// reading them from an object through Node-API, and building a result
/// object there, cost more than converting a small image.
fn read_media_arguments(
    (kind, data, mime_type, uri, options, latin1): MediaArguments,
    hold: Hold,
) -> Result<(Parsed, Settings), String> {
    let kind = match string_arg(Some(kind), "kind")?.as_deref() {
        Some("image") => MediaKind::Image,
        Some("audio") => MediaKind::Audio,
        Some("media") => MediaKind::Media,
        Some("resource") => MediaKind::Resource,
        _ => {
            return Err(js_error(
                code::INVALID_ARGUMENT,
                "`kind` must be 'image', 'audio', 'media' or 'resource'",
            ))
        }
    };
    let settings = settings(optional_arg(options, "options")?)?;
    let latin1 = optional_arg::<bool>(latin1, "dataIsLatin1")?.unwrap_or(false);
    let payload = match data {
        Some(value) => read_payload_with(value, "data", hold, latin1)?,
        None => None,
    };
    let declared = string_arg(mime_type, "mimeType")?;
    let uri = string_arg(uri, "uri")?;
    // As parse_part reads them: a resource always has a uri, an image or
    // audio block none.
    let uri = match kind {
        MediaKind::Image | MediaKind::Audio => None,
        MediaKind::Media => uri,
        MediaKind::Resource => Some(uri.unwrap_or_default()),
    };
    let parsed = Parsed::Media {
        kind,
        uri,
        declared,
        payload,
    };
    Ok((parsed, settings))
}

/// `convertMedia`'s answer: the text of a text part, or a file part's
/// `[mediaType, data, uri, filename]` (`data` null when it is the input).
type MediaResult = Either<String, Vec<Option<String>>>;

fn media_result(converted: Converted) -> MediaResult {
    match converted {
        Converted::Part(ModelPart::File {
            media_type,
            data,
            uri,
            filename,
        }) => {
            let data = match data {
                Base64Output::Encoded(text) => Some(text),
                Base64Output::InputString | Base64Output::InputBytes => None,
            };
            Either::B(vec![Some(media_type.to_string()), data, uri, filename])
        }
        Converted::Part(ModelPart::Text(text)) | Converted::Text(text) => Either::A(text),
        // Media parts come with their audience already checked.
        Converted::Hidden => Either::A(String::new()),
    }
}

/// The native half of `toContent` for a media part (image, audio, media, a
/// resource with a blob). Use `toContent`.
#[napi(
    catch_unwind,
    ts_args_type = "kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType?: string | null, uri?: string | null, options?: ToContentOptions, dataIsLatin1?: boolean",
    ts_return_type = "MediaResult"
)]
pub fn convert_media(
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    options: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<MediaResult, String> {
    let arguments = (kind, data, mime_type, uri, options, data_is_latin1);
    let (parsed, settings) = read_media_arguments(arguments, Hold::ForThisCall)?;
    guarded(|| Ok(media_result(convert(&parsed, &settings))))
}

/// `convertMedia` for a part that needs no disk write, for the entry's
/// `toContentAsync` on small parts (a thread-pool round trip costs more
/// than their whole conversion); `undefined` when the part must be saved,
/// which is left to `convertMediaAsync`.
#[napi(
    catch_unwind,
    ts_args_type = "kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType?: string | null, uri?: string | null, options?: ToContentOptions, dataIsLatin1?: boolean",
    ts_return_type = "MediaResult | undefined"
)]
pub fn convert_media_without_disk(
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    options: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<Either<MediaResult, ()>, String> {
    let arguments = (kind, data, mime_type, uri, options, data_is_latin1);
    let (parsed, settings) = read_media_arguments(arguments, Hold::ForThisCall)?;
    guarded(|| {
        Ok(match convert_without_disk(&parsed, &settings) {
            Some(converted) => Either::A(media_result(converted)),
            None => Either::B(()),
        })
    })
}

pub struct MediaTask {
    parsed: Parsed,
    settings: Settings,
}

impl Task for MediaTask {
    type Output = Result<MediaResult, String>;
    type JsValue = MediaResult;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(guarded(|| {
            Ok(media_result(convert(&self.parsed, &self.settings)))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

/// A JS Error whose `code` is ours, for rejecting a promise.
fn rejection(env: &Env, error: Error<String>) -> Error {
    let build = || -> Result<Error> {
        let mut object =
            env.create_error(Error::new(Status::GenericFailure, error.reason.clone()))?;
        object.set_named_property("code", error.status.as_str())?;
        Ok(Error::from(object.to_unknown()))
    };
    build().unwrap_or_else(|e| e)
}

/// `convertMedia` with the decoding, checks and disk writes on the libuv
/// thread pool; the JS thread only reads the arguments. Use `toContentAsync`.
#[napi(
    catch_unwind,
    ts_args_type = "kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType?: string | null, uri?: string | null, options?: ToContentOptions, dataIsLatin1?: boolean",
    ts_return_type = "Promise<MediaResult>"
)]
pub fn convert_media_async(
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    options: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<AsyncTask<MediaTask>, String> {
    let arguments = (kind, data, mime_type, uri, options, data_is_latin1);
    let (parsed, settings) = read_media_arguments(arguments, Hold::ForATask)?;
    Ok(AsyncTask::new(MediaTask { parsed, settings }))
}

/// The note for a `resource_link` part, from its fields. Used by `toContent`.
#[napi(
    catch_unwind,
    ts_args_type = "uri?: string | null, name?: string | null, mimeType?: string | null, size?: number | null, description?: string | null"
)]
pub fn resource_link_text(
    uri: Option<Unknown>,
    name: Option<Unknown>,
    mime_type: Option<Unknown>,
    size: Option<Unknown>,
    description: Option<Unknown>,
) -> Result<String, String> {
    resource_link_note(
        string_arg(uri, "uri")?,
        string_arg(name, "name")?,
        string_arg(mime_type, "mimeType")?,
        size,
        string_arg(description, "description")?,
    )
}

/// The header line (with its newline) of an embedded text resource; the
/// caller appends the text, so a long text is never copied. Used by `toContent`.
#[napi(
    catch_unwind,
    ts_args_type = "uri?: string | null, mimeType?: string | null"
)]
pub fn embedded_text_header(
    uri: Option<Unknown>,
    mime_type: Option<Unknown>,
) -> Result<String, String> {
    let uri = string_arg(uri, "uri")?.unwrap_or_default();
    let mime_type = string_arg(mime_type, "mimeType")?;
    Ok(content::embedded_text(&uri, mime_type.as_deref(), ""))
}

/// What the bytes are, set against the declared media type.
#[napi(object, object_from_js = false, js_name = "Classification")]
pub struct JsClassification {
    #[napi(
        ts_type = "'image' | 'pdf' | 'audio' | 'video' | 'text' | 'binary' | 'empty' | 'invalid'"
    )]
    pub kind: String,
    pub media_type: String,
    pub declared_media_type: Option<String>,
    pub sniffed_media_type: Option<String>,
    pub byte_length: f64,
    pub width: Option<u32>,
    pub height: Option<u32>,
    #[napi(ts_type = "'ascii' | 'utf-8' | 'utf-16le' | 'utf-16be'")]
    pub text_encoding: Option<String>,
    pub problem: Option<String>,
}

impl From<Classification> for JsClassification {
    fn from(c: Classification) -> Self {
        JsClassification {
            kind: c.kind.as_str().to_string(),
            problem: c.problem().map(str::to_owned),
            media_type: c.media_type,
            declared_media_type: c.declared_media_type,
            sniffed_media_type: c.sniffed_media_type.map(str::to_owned),
            byte_length: c.byte_length as f64,
            width: c.dimensions.map(|d| d.0),
            height: c.dimensions.map(|d| d.1),
            text_encoding: c.text_encoding.map(|e| e.as_str().to_string()),
        }
    }
}

/// Classify bytes (a `Uint8Array`) or a base64 string. Only the head of a
/// base64 string is decoded for sniffing; the whole string is validated.
#[napi(
    catch_unwind,
    ts_args_type = "data: Uint8Array | string, declaredMediaType?: string",
    ts_return_type = "Classification"
)]
pub fn classify(
    data: Unknown,
    declared_media_type: Option<Unknown>,
) -> Result<JsClassification, String> {
    let declared_media_type: Option<String> =
        optional_arg(declared_media_type, "declaredMediaType")?;
    let payload = read_payload(data, "data", Hold::ForThisCall)?
        .ok_or_else(|| js_error(code::INVALID_ARGUMENT, "`data` is required"))?;
    guarded(|| {
        let c = classify::classify(payload.as_payload(), declared_media_type.as_deref());
        Ok(c.into())
    })
}

/// True when the bytes are valid UTF-8.
#[napi(catch_unwind, ts_args_type = "data: Uint8Array")]
pub fn is_utf8(data: Unknown) -> Result<bool, String> {
    let data: &[u8] = unsafe { data.cast() }
        .map_err(|_| js_error(code::INVALID_ARGUMENT, "`data` must be a Uint8Array"))?;
    Ok(text::is_utf8(data))
}

/// True for media types whose content is text a model can read.
#[napi(catch_unwind, ts_args_type = "mediaType: string")]
pub fn is_textual_media_type(media_type: Unknown) -> Result<bool, String> {
    let media_type: String = required_arg(media_type, "mediaType")?;
    Ok(media_type::is_textual(&media_type))
}

// ---------------------------------------------------------------- store

#[napi(object, object_to_js = false)]
pub struct ToolOutputStoreOptions {
    /// Files older than this many days are removed by `cleanup()` (default 7).
    pub retention_days: Option<f64>,
}

#[napi(object, object_to_js = false)]
pub struct SaveOptions {
    /// Media type of the data; picks the file extension.
    pub media_type: Option<String>,
    /// File extension (without dot); wins over `mediaType`.
    pub extension: Option<String>,
}

#[napi(object, object_from_js = false)]
pub struct SavedFile {
    pub path: String,
    pub byte_length: f64,
}

/// Saves blobs as `tool_<ascending id>.<ext>` files, atomically, 0600 in a
/// 0700 folder, and removes its own expired files.
#[napi]
pub struct ToolOutputStore {
    inner: Arc<store::ToolOutputStore>,
}

/// Owned input of a save, decoded on the calling or on a worker thread.
pub struct SaveJob {
    payload: InputData,
    options: Option<SaveOptions>,
    store: Arc<store::ToolOutputStore>,
}

impl SaveJob {
    fn run(&self) -> Result<SavedFile, String> {
        let decoded;
        let bytes: &[u8] = match &self.payload {
            InputData::Borrowed(bytes) => bytes,
            InputData::Shared(bytes) => bytes,
            InputData::Base64(text) => {
                let b64 = base64_data::inspect(text).map_err(|e| {
                    js_error(code::INVALID_BASE64, format!("invalid base64 data ({e})"))
                })?;
                decoded = b64.decode();
                &decoded
            }
        };
        let extension = self.extension(bytes)?;
        let saved = self.store.save(bytes, &extension).map_err(store_error)?;
        Ok(SavedFile {
            path: saved.path.to_string_lossy().into_owned(),
            byte_length: saved.byte_length as f64,
        })
    }

    fn extension(&self, bytes: &[u8]) -> Result<String, String> {
        let options = self.options.as_ref();
        if let Some(extension) = options.and_then(|o| o.extension.as_deref()) {
            let extension = extension.trim_start_matches('.');
            let valid =
                extension.len() <= 16 && extension.bytes().all(|b| b.is_ascii_alphanumeric());
            if !valid {
                return Err(js_error(
                    code::INVALID_ARGUMENT,
                    "`extension` must be at most 16 ASCII letters or digits",
                ));
            }
            return Ok(extension.to_string());
        }
        let media_type = match options.and_then(|o| o.media_type.as_deref()) {
            Some(mt) => mt.to_string(),
            None => classify::classify(Payload::Bytes(bytes), None).media_type,
        };
        Ok(media_type::extension(&media_type).to_string())
    }
}

pub struct SaveTask(SaveJob);

impl Task for SaveTask {
    type Output = Result<SavedFile, String>;
    type JsValue = SavedFile;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(guarded(|| self.0.run()))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

#[napi]
impl ToolOutputStore {
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "dir?: string, options?: ToolOutputStoreOptions"
    )]
    pub fn new(dir: Option<Unknown>, options: Option<Unknown>) -> Result<Self, String> {
        let dir: Option<String> = optional_arg(dir, "dir")?;
        let options: Option<ToolOutputStoreOptions> = optional_arg(options, "options")?;
        let retention = options.and_then(|o| o.retention_days);
        let inner =
            store::ToolOutputStore::new(dir.map(PathBuf::from), retention).map_err(store_error)?;
        Ok(ToolOutputStore {
            inner: Arc::new(inner),
        })
    }

    /// The folder files are saved in.
    #[napi(getter)]
    pub fn dir(&self) -> String {
        self.inner.dir().to_string_lossy().into_owned()
    }

    /// Save bytes, or a base64 string decoded first.
    #[napi(
        catch_unwind,
        ts_args_type = "data: Uint8Array | string, options?: SaveOptions"
    )]
    pub fn save(&self, data: Unknown, options: Option<Unknown>) -> Result<SavedFile, String> {
        let job = self.job(data, options, Hold::ForThisCall)?;
        guarded(|| job.run())
    }

    /// `save` with the decoding and the write on the libuv thread pool.
    #[napi(
        catch_unwind,
        ts_args_type = "data: Uint8Array | string, options?: SaveOptions",
        ts_return_type = "Promise<SavedFile>"
    )]
    pub fn save_async(
        &self,
        data: Unknown,
        options: Option<Unknown>,
    ) -> Result<AsyncTask<SaveTask>, String> {
        Ok(AsyncTask::new(SaveTask(self.job(
            data,
            options,
            Hold::ForATask,
        )?)))
    }

    /// Delete this store's own files older than the retention; returns how many.
    #[napi(catch_unwind)]
    pub fn cleanup(&self) -> Result<u32, String> {
        guarded(|| {
            let removed = self.inner.cleanup().map_err(store_error)?;
            Ok(removed as u32)
        })
    }

    fn job(&self, data: Unknown, options: Option<Unknown>, hold: Hold) -> Result<SaveJob, String> {
        let options: Option<SaveOptions> = optional_arg(options, "options")?;
        let payload = read_payload(data, "data", hold)?
            .ok_or_else(|| js_error(code::INVALID_ARGUMENT, "`data` is required"))?;
        Ok(SaveJob {
            payload,
            options,
            store: self.inner.clone(),
        })
    }
}
