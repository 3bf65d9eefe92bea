//! Node-API binding: converts JS values to the core's types and back, and
//! decides nothing. The package entry (mcp-content.js) is the one reader of
//! MCP parts and options; the exports here take plain values as arguments.
//! None of them is the public API: their types go to `binding.d.ts`, while
//! `index.d.ts` declares the entry's.
//!
//! How JS memory is used:
//! - every argument but the data is converted first, and converting reads
//!   only the value given: no property is read, no getter or callback runs;
//! - a `Uint8Array` is borrowed only inside [`with_bytes`], whose closure gets
//!   a `&[u8]` and does Rust work alone: no JS runs while the bytes are
//!   borrowed, and the borrow cannot outlive the closure;
//! - async work owns its input: bytes are copied on the JS thread before the
//!   task is queued, so no worker reads memory the caller can free, resize or
//!   refill, and the bytes checked are the bytes sent or saved;
//! - a base64 string is always copied (Node-API gives no borrow of a string).

// napi-derive registers exports only outside `cfg(test)`, so a test build
// of this module sees its items as unused.
#![cfg_attr(test, allow(dead_code))]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use napi::bindgen_prelude::*;
use napi::{sys, Env, JsString, Task, Unknown, ValueType};
use napi_derive::napi;

use crate::budget::{Candidate, RequestExcess};
use crate::classify::{self, Classification, Kind};
use crate::content::{self, Converted, MediaKind, MediaPart, ModelPart, NoteStyle};
use crate::image_fit::FitImages;
use crate::payload::{Base64Output, Payload};
use crate::provider::{self, Profile};
use crate::route::Reason;
use crate::save::{self, SaveError};
use crate::store::{self, StoreError};
use crate::text_cap::{self, TextCap};
use crate::tool_result::{self, DeferMode, Verdict};
use crate::{json, media_type, note, text, tokens};

/// Errors thrown to JS carry one of these stable codes in `err.code`.
mod code {
    pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";
    pub const INTERNAL: &str = "INTERNAL_ERROR";
}

/// Exports return napi's `Result<T, String>` (= `Result<T, Error<String>>`):
/// the `String` is the code JS sees as `err.code`.
fn js_error(code: &str, message: impl std::fmt::Display) -> Error<String> {
    Error::new(code.to_string(), message.to_string())
}

fn invalid(message: impl std::fmt::Display) -> Error<String> {
    js_error(code::INVALID_ARGUMENT, message)
}

fn from_napi(error: Error) -> Error<String> {
    invalid(error.reason)
}

fn store_error(error: StoreError) -> Error<String> {
    js_error(error.code(), error)
}

fn save_error(error: SaveError) -> Error<String> {
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

// ---------------------------------------------------------------- arguments

fn is_nullish(value: &Unknown) -> Result<bool, String> {
    Ok(matches!(
        value.get_type().map_err(from_napi)?,
        ValueType::Undefined | ValueType::Null
    ))
}

/// A string argument; `None` when absent, undefined or null. Anything else
/// is refused rather than coerced (coercion would run the value's JS).
fn string_arg(value: Option<Unknown>, name: &str) -> Result<Option<String>, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(None);
    };
    if value.get_type().map_err(from_napi)? != ValueType::String {
        return Err(invalid(format!("`{name}` must be a string")));
    }
    // SAFETY: the value was just checked to be a string.
    unsafe { value.cast::<String>() }
        .map(Some)
        .map_err(from_napi)
}

/// A number argument; `None` when absent, undefined or null.
fn number_arg(value: Option<Unknown>, name: &str) -> Result<Option<f64>, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(None);
    };
    if value.get_type().map_err(from_napi)? != ValueType::Number {
        return Err(invalid(format!("`{name}` must be a number")));
    }
    // SAFETY: the value was just checked to be a number.
    unsafe { value.cast::<f64>() }.map(Some).map_err(from_napi)
}

/// What the entry says about the data it passes (`dataIsLatin1`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DataText {
    /// `false`: a string that may have characters above U+00FF.
    Any,
    /// `true`: a string without characters above U+00FF.
    Latin1,
    /// `'base64Bytes'`: a Uint8Array holding the Latin-1 bytes of a base64
    /// string. The entry sends this to the wasm build only, where emnapi
    /// copies a string into wasm memory one character at a time but bytes
    /// in one block.
    Base64Bytes,
}

/// The entry's word on the data: see [`DataText`].
fn data_text_arg(value: Option<Unknown>) -> Result<DataText, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(DataText::Any);
    };
    let not_valid = || invalid("`dataIsLatin1` must be a boolean or 'base64Bytes'");
    match value.get_type().map_err(from_napi)? {
        ValueType::Boolean => {
            // SAFETY: the value was just checked to be a boolean.
            let latin1 = unsafe { value.cast::<bool>() }.map_err(from_napi)?;
            Ok(if latin1 {
                DataText::Latin1
            } else {
                DataText::Any
            })
        }
        ValueType::String => {
            // SAFETY: the value was just checked to be a string.
            let word = unsafe { value.cast::<String>() }.map_err(from_napi)?;
            if word == "base64Bytes" {
                Ok(DataText::Base64Bytes)
            } else {
                Err(not_valid())
            }
        }
        _ => Err(not_valid()),
    }
}

/// Read a base64 string's bytes. `latin1` is the entry's word that the
/// string has no character above U+00FF (V8 tells it in constant time):
/// then a Latin-1 copy, as fast as a memory copy, is exact. Otherwise one
/// UTF-8 pass into a buffer of one byte per character: an ASCII string fills
/// it exactly, any other comes out short or with bytes >= 0x80, which base64
/// validation reports. (A Latin-1 copy alone would fold U+0141 into 'A'.)
fn read_base64_string(string: JsString, latin1: bool) -> Result<Vec<u8>, String> {
    let len = string.utf16_len().map_err(from_napi)?;
    let mut buffer: Vec<u8> = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    let read = if latin1 {
        sys::napi_get_value_string_latin1
    } else {
        sys::napi_get_value_string_utf8
    };
    // SAFETY: `buffer` has room for `len + 1` bytes, the size passed, and
    // Node-API writes at most that many (the last one a NUL) and reports in
    // `written` how many it wrote before the NUL. The string handle is live
    // for this call.
    let status = unsafe {
        read(
            string.value().env,
            string.raw(),
            buffer.as_mut_ptr().cast(),
            len + 1,
            &mut written,
        )
    };
    if status != sys::Status::napi_ok || written > len {
        return Err(js_error(code::INTERNAL, "could not read the string"));
    }
    // SAFETY: Node-API initialised the first `written` bytes (<= capacity).
    unsafe { buffer.set_len(written) };
    if written < len {
        // Cut short by a multi-byte character: read it whole for the error.
        return string
            .into_utf8()
            .map(|utf8| utf8.take())
            .map_err(from_napi);
    }
    Ok(buffer)
}

/// Borrow a `Uint8Array`'s bytes for the duration of `f`. `f` must do Rust
/// work only (it gets no `Env`, and callers pass none in), so no JS runs
/// while the bytes are borrowed: nothing can detach, resize or free the
/// buffer meanwhile, and the handle keeps it from being collected. The
/// borrow cannot outlive `f`: `f` is generic over the slice's lifetime.
fn with_bytes<R>(value: &Unknown, name: &str, f: impl FnOnce(&[u8]) -> R) -> Result<R, String> {
    let not_bytes = || invalid(format!("`{name}` must be a base64 string or a Uint8Array"));
    let env = value.value().env;
    let raw = value.raw();
    let mut is_typed_array = false;
    // SAFETY: `env` and `raw` are this call's live environment and handle;
    // the out-pointer is a local.
    let status = unsafe { sys::napi_is_typedarray(env, raw, &mut is_typed_array) };
    if status != sys::Status::napi_ok || !is_typed_array {
        return Err(not_bytes());
    }
    let mut kind = 0;
    let mut len = 0usize;
    let mut data = std::ptr::null_mut();
    let mut array_buffer = std::ptr::null_mut();
    let mut offset = 0usize;
    // SAFETY: as above; `raw` is a typed array, and every out-pointer is a
    // local of the matching type.
    let status = unsafe {
        sys::napi_get_typedarray_info(
            env,
            raw,
            &mut kind,
            &mut len,
            &mut data,
            &mut array_buffer,
            &mut offset,
        )
    };
    if status != sys::Status::napi_ok || kind != sys::TypedarrayType::uint8_array {
        return Err(not_bytes());
    }
    let mut is_array_buffer = false;
    // SAFETY: `array_buffer` is the handle Node-API just gave for this
    // typed array's buffer; the out-pointer is a local.
    let status = unsafe { sys::napi_is_arraybuffer(env, array_buffer, &mut is_array_buffer) };
    if status != sys::Status::napi_ok || !is_array_buffer {
        // A SharedArrayBuffer: other threads may write it while it is read.
        // The entry copies such data first; reaching here is a caller bug.
        return Err(invalid(format!(
            "`{name}` must not be backed by a SharedArrayBuffer"
        )));
    }
    let bytes: &[u8] = if len == 0 || data.is_null() {
        &[]
    } else {
        // SAFETY: Node-API reports `len` bytes at `data` (a Uint8Array's
        // element is one byte), live for as long as the buffer is neither
        // detached, resized nor collected; see the function comment for why
        // none of that can happen while `f` runs. The memory is not shared
        // with other threads (checked above).
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }
    };
    Ok(f(bytes))
}

/// A part's data as received: read at the last moment, after every other
/// argument, so nothing runs between reading it and using it.
enum DataArg<'env> {
    Absent,
    Base64(Vec<u8>),
    Bytes(Unknown<'env>),
}

/// A part's data owned by Rust, for work on another thread.
enum OwnedData {
    Absent,
    Base64(Vec<u8>),
    Bytes(Vec<u8>),
}

impl<'env> DataArg<'env> {
    fn read(value: Option<Unknown<'env>>, text: DataText) -> Result<Self, String> {
        let Some(value) = value else {
            return Ok(DataArg::Absent);
        };
        match value.get_type().map_err(from_napi)? {
            ValueType::Undefined | ValueType::Null => Ok(DataArg::Absent),
            ValueType::String => {
                // SAFETY: the value was just checked to be a string.
                let string: JsString = unsafe { value.cast() }.map_err(from_napi)?;
                read_base64_string(string, text == DataText::Latin1).map(DataArg::Base64)
            }
            // Base64 text as bytes: copied, as a string's characters are.
            _ if text == DataText::Base64Bytes => {
                with_bytes(&value, "data", <[u8]>::to_vec).map(DataArg::Base64)
            }
            _ => Ok(DataArg::Bytes(value)),
        }
    }

    /// Run `f` on the data; bytes are borrowed only while `f` runs.
    fn with_payload<R>(&self, name: &str, f: impl FnOnce(Payload) -> R) -> Result<R, String> {
        match self {
            // No data at all reads as empty data.
            DataArg::Absent => Ok(f(Payload::Bytes(&[]))),
            DataArg::Base64(text) => Ok(f(Payload::Base64(text))),
            DataArg::Bytes(value) => with_bytes(value, name, |bytes| f(Payload::Bytes(bytes))),
        }
    }

    /// A copy the caller can no longer change.
    fn into_owned(self, name: &str) -> Result<OwnedData, String> {
        match self {
            DataArg::Absent => Ok(OwnedData::Absent),
            DataArg::Base64(text) => Ok(OwnedData::Base64(text)),
            DataArg::Bytes(value) => with_bytes(&value, name, <[u8]>::to_vec).map(OwnedData::Bytes),
        }
    }
}

impl OwnedData {
    fn payload(&self) -> Payload<'_> {
        match self {
            OwnedData::Absent => Payload::Bytes(&[]),
            OwnedData::Base64(text) => Payload::Base64(text),
            OwnedData::Bytes(bytes) => Payload::Bytes(bytes),
        }
    }
}

// ---------------------------------------------------------------- settings

/// The provider profile and the store a conversion uses.
struct Settings {
    profile: &'static Profile,
    text_cap: TextCap,
    fit: FitImages,
    store: Arc<store::ToolOutputStore>,
}

fn settings(
    provider: Option<Unknown>,
    output_dir: Option<Unknown>,
    store: Option<Unknown>,
    max_text_tokens: Option<Unknown>,
    fit: FitImages,
) -> Result<Settings, String> {
    let profile = profile_arg(provider)?;
    let store = store_setting(output_dir, store)?;
    let text_cap = text_cap_arg(max_text_tokens)?;
    Ok(Settings {
        profile,
        text_cap,
        fit,
        store,
    })
}

/// `fitImages` (a boolean, default true) and `maxLongSide` (a whole
/// number of pixels, at least 1).
fn fit_arg(
    fit_images: Option<Unknown>,
    max_long_side: Option<Unknown>,
) -> Result<FitImages, String> {
    let present = |v: &Unknown| !is_nullish(v).unwrap_or(false);
    let enabled = match fit_images.filter(present) {
        None => true,
        Some(value) => bool_arg(Some(value), "fitImages")?,
    };
    let max_long_side = match number_arg(max_long_side, "maxLongSide")? {
        None => None,
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Some(n as u32),
        Some(_) => {
            return Err(invalid(
                "`maxLongSide` must be a whole number of pixels, at least 1",
            ))
        }
    };
    if enabled {
        give_large_frees_back();
    }
    Ok(FitImages {
        enabled,
        max_long_side,
    })
}

/// Makes the allocator give every buffer of 8 MiB or more back to the
/// system when it is freed, once, before the first image is fitted. glibc
/// otherwise raises that size as large buffers are freed (up to 32 MiB)
/// and keeps what a thread frees in that thread's arena, so with the thread
/// pool's arenas the process would grow past the fitting budget
/// (`image_fit::Budget`) with memory no fit holds: 16 fits of 3000x3000 on
/// 16 threads under a 200 MiB budget peaked at 505 MiB resident, and at
/// 107-126 MiB with this (the same as `MALLOC_MMAP_THRESHOLD_=8388608`).
fn give_large_frees_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            extern "C" {
                fn mallopt(
                    param: std::os::raw::c_int,
                    value: std::os::raw::c_int,
                ) -> std::os::raw::c_int;
            }
            /// glibc's `M_MMAP_THRESHOLD` (malloc.h).
            const M_MMAP_THRESHOLD: std::os::raw::c_int = -3;
            // SAFETY: `mallopt` (glibc, the allocator of Rust's `System`
            // allocator and of the host) takes two integers and changes
            // only the size from which allocations are mapped, under the
            // allocator's own lock; memory in use is not touched.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, 8 << 20);
            }
        });
    }
}

/// The text cap a `maxTextTokens` argument asks for.
fn text_cap_arg(max_text_tokens: Option<Unknown>) -> Result<TextCap, String> {
    text_cap::cap_from(number_arg(max_text_tokens, "maxTextTokens")?).map_err(invalid)
}

/// The provider profile named by a `provider` argument (default: "default").
fn profile_arg(provider: Option<Unknown>) -> Result<&'static Profile, String> {
    let name = string_arg(provider, "provider")?;
    provider::profile(name.as_deref()).ok_or_else(|| {
        invalid(format!(
            "unknown provider \"{}\"; known: {}",
            name.as_deref().unwrap_or_default(),
            provider::profile_names().join(", ")
        ))
    })
}

/// The store a conversion saves in: `store`, else one for `outputDir`, else
/// the per-user default.
fn store_setting(
    output_dir: Option<Unknown>,
    store: Option<Unknown>,
) -> Result<Arc<store::ToolOutputStore>, String> {
    Ok(
        match (store_arg(store)?, string_arg(output_dir, "outputDir")?) {
            (Some(store), _) => store,
            (None, Some(dir)) => Arc::new(
                store::ToolOutputStore::new(Some(PathBuf::from(dir)), None).map_err(store_error)?,
            ),
            (None, None) => default_store()?,
        },
    )
}

/// Check a conversion's `provider`, `outputDir` and `maxTextTokens` without
/// converting, so a bad option is refused even for a part that needs no
/// native conversion.
#[napi(
    catch_unwind,
    ts_args_type = "provider: unknown, outputDir: unknown, maxTextTokens: unknown, fitImages: unknown, maxLongSide: unknown"
)]
pub fn check_options(
    provider: Option<Unknown>,
    output_dir: Option<Unknown>,
    max_text_tokens: Option<Unknown>,
    fit_images: Option<Unknown>,
    max_long_side: Option<Unknown>,
) -> Result<(), String> {
    let fit = fit_arg(fit_images, max_long_side)?;
    settings(provider, output_dir, None, max_text_tokens, fit).map(|_| ())
}

/// A text part's text bounded by the cap: `null` when it is within the cap
/// (the entry keeps the caller's string), else a preview and a note naming
/// the whole text, saved in the store under `mediaType`'s extension. `how`:
/// `"sync"`, or `"async"` for a promise of it done on the libuv thread pool.
/// `result`: the whole result the text is part of, if any (its saved files
/// are not evicted for this one).
#[napi(
    catch_unwind,
    ts_args_type = "how: 'sync' | 'async', text: string, mediaType: unknown, provider: unknown, outputDir: unknown, store: StoreHandle | undefined, maxTextTokens: unknown, result?: ResultHandle",
    ts_return_type = "BoundedText | null | Promise<BoundedText | null>"
)]
#[allow(clippy::too_many_arguments)]
pub fn bound_text(
    how: Unknown,
    text: Unknown,
    media_type: Option<Unknown>,
    provider: Option<Unknown>,
    output_dir: Option<Unknown>,
    store: Option<Unknown>,
    max_text_tokens: Option<Unknown>,
    result: Option<Unknown>,
) -> Result<Either<Option<BoundedAnswer>, AsyncTask<BoundTextTask>>, String> {
    let how = string_arg(Some(how), "how")?;
    let mut settings = settings(provider, output_dir, store, max_text_tokens, FitImages::OFF)?;
    if let Some(result) = result.filter(|v| !is_nullish(v).unwrap_or(false)) {
        settings.store = Arc::new(settings.store.keeping(&plan_of(&result)?.kept));
    }
    let media_type = string_arg(media_type, "mediaType")?;
    let text = string_arg(Some(text), "text")?.unwrap_or_default();
    let task = BoundTextTask {
        text,
        media_type,
        settings,
    };
    match how.as_deref() {
        Some("sync") => task.run().map(Either::A),
        Some("async") => Ok(Either::B(AsyncTask::new(task))),
        _ => Err(invalid("`how` must be 'sync' or 'async'")),
    }
}

/// A text over the cap, for JS: `[text, path, byteLength]`, the last two
/// `null` when the whole text could not be saved (the note says why).
pub struct BoundedAnswer(text_cap::Bounded);

impl TypeName for BoundedAnswer {
    fn type_name() -> &'static str {
        "BoundedText"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for BoundedAnswer {
    unsafe fn to_napi_value(raw_env: sys::napi_env, answer: Self) -> napi::Result<sys::napi_value> {
        let mut array = DefinedArray::new(raw_env);
        array.push(answer.0.text)?;
        match answer.0.saved {
            Some(saved) => {
                array.push(saved.path.to_string_lossy().into_owned())?;
                array.push(saved.byte_length as f64)?;
            }
            None => {
                array.push(Null)?;
                array.push(Null)?;
            }
        }
        array.build()
    }
}

pub struct BoundTextTask {
    text: String,
    media_type: Option<String>,
    settings: Settings,
}

impl BoundTextTask {
    fn run(&self) -> Result<Option<BoundedAnswer>, String> {
        let extension = media_type::extension(self.media_type.as_deref().unwrap_or("text/plain"));
        guarded(|| {
            Ok(text_cap::bound(
                &self.text,
                self.settings.text_cap,
                extension,
                &self.settings.store,
            )
            .map(BoundedAnswer))
        })
    }
}

impl Task for BoundTextTask {
    type Output = Result<Option<BoundedAnswer>, String>;
    type JsValue = Option<BoundedAnswer>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.run())
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

/// The default text cap, in estimated tokens.
#[napi]
pub fn default_max_text_tokens() -> f64 {
    text_cap::DEFAULT_MAX_TEXT_TOKENS as f64
}

/// Every provider profile name, in the core's table order (the `providers` export).
#[napi]
pub fn provider_names() -> Vec<&'static str> {
    provider::profile_names()
}

/// A store handle argument; `None` when absent, undefined or null.
fn store_arg(value: Option<Unknown>) -> Result<Option<Arc<store::ToolOutputStore>>, String> {
    match value.filter(|v| !is_nullish(v).unwrap_or(false)) {
        Some(value) => store_of(&value).map(Some),
        None => Ok(None),
    }
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

// ---------------------------------------------------------------- media parts

/// The fields of a media part other than its data.
struct MediaFields {
    kind: MediaKind,
    uri: Option<String>,
    declared: Option<String>,
}

impl MediaFields {
    fn part<'a>(&'a self, payload: Payload<'a>) -> MediaPart<'a> {
        MediaPart::new(
            self.kind,
            self.uri.as_deref(),
            self.declared.as_deref(),
            payload,
        )
    }
}

fn media_kind(value: Unknown) -> Result<MediaKind, String> {
    match string_arg(Some(value), "kind")?.as_deref() {
        Some("image") => Ok(MediaKind::Image),
        Some("audio") => Ok(MediaKind::Audio),
        Some("media") => Ok(MediaKind::Media),
        Some("resource") => Ok(MediaKind::Resource),
        _ => Err(invalid(
            "`kind` must be 'image', 'audio', 'media' or 'resource'",
        )),
    }
}

/// A converted media part as the entry reads it: the text of a text part,
/// or `[mediaType, data, uri, filename]` for a file part. `data` is a string
/// (re-encoded base64), null (the input itself: a canonical base64 string,
/// or bytes the entry encodes right away, with no JS between check and
/// encoding), or a Buffer (the private copy an async conversion checked,
/// for the entry to encode: Node's encoder writes an external string,
/// where a string made here would be copied into the JS heap).
pub struct MediaAnswer {
    part: ModelPart,
    /// The note beside a fitted image: `[..., note]` in the array.
    note: Option<String>,
    checked_copy: Option<Vec<u8>>,
}

/// A JS array built by defining its elements, not assigning them: a setter
/// planted on `Array.prototype` or `Object.prototype` under an index never
/// runs, and cannot keep an element out of an answer.
struct DefinedArray {
    env: sys::napi_env,
    values: Vec<sys::napi_value>,
}

impl DefinedArray {
    fn new(env: sys::napi_env) -> Self {
        DefinedArray {
            env,
            values: Vec::new(),
        }
    }

    fn push<T: ToNapiValue>(&mut self, value: T) -> napi::Result<()> {
        // SAFETY: `env` is the environment of the call being answered.
        let value = unsafe { T::to_napi_value(self.env, value) }?;
        self.values.push(value);
        Ok(())
    }

    fn build(self) -> napi::Result<sys::napi_value> {
        let status = |status: sys::napi_status, what: &str| {
            if status == sys::Status::napi_ok {
                Ok(())
            } else {
                Err(Error::new(Status::GenericFailure, what.to_string()))
            }
        };
        let mut array = std::ptr::null_mut();
        // SAFETY: `env` is live; the out-pointer is a local.
        let created =
            unsafe { sys::napi_create_array_with_length(self.env, self.values.len(), &mut array) };
        status(created, "could not create an array")?;
        let mut descriptors = Vec::with_capacity(self.values.len());
        for (index, value) in self.values.into_iter().enumerate() {
            // SAFETY: `env` is live; a property name must be a JS string.
            let name = unsafe { String::to_napi_value(self.env, index.to_string()) }?;
            descriptors.push(sys::napi_property_descriptor {
                utf8name: std::ptr::null(),
                name,
                method: None,
                getter: None,
                setter: None,
                value,
                attributes: sys::PropertyAttributes::writable
                    | sys::PropertyAttributes::enumerable
                    | sys::PropertyAttributes::configurable,
                data: std::ptr::null_mut(),
            });
        }
        // SAFETY: `array` was just created in `env`; `descriptors` holds
        // `len` initialised entries whose names and values are live handles
        // of this call.
        let defined = unsafe {
            sys::napi_define_properties(self.env, array, descriptors.len(), descriptors.as_ptr())
        };
        status(defined, "could not define the array's elements")?;
        Ok(array)
    }
}

/// A value already made in the JS heap, handed back as it is.
pub struct RawValue(sys::napi_value);

impl TypeName for RawValue {
    fn type_name() -> &'static str {
        "RawValue"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for RawValue {
    unsafe fn to_napi_value(_: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        Ok(value.0)
    }
}

impl TypeName for MediaAnswer {
    fn type_name() -> &'static str {
        "MediaAnswer"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for MediaAnswer {
    unsafe fn to_napi_value(raw_env: sys::napi_env, answer: Self) -> napi::Result<sys::napi_value> {
        let (media_type, data, uri, filename) = match answer.part {
            // SAFETY: forwarded with the environment napi gave this call.
            ModelPart::Text(text) => return unsafe { String::to_napi_value(raw_env, text) },
            ModelPart::File {
                media_type,
                data,
                uri,
                filename,
            } => (media_type, data, uri, filename),
        };
        let env = Env::from_raw(raw_env);
        let mut array = DefinedArray::new(raw_env);
        array.push(media_type)?;
        match (data, answer.checked_copy) {
            // Base64 is ASCII: a Latin-1 string is made without transcoding.
            (Base64Output::Encoded(text), _) => array.push(env.create_string_latin1(text)?)?,
            (Base64Output::InputBytes, Some(copy)) => array.push(Buffer::from(copy))?,
            (Base64Output::InputString | Base64Output::InputBytes, _) => array.push(Null)?,
        }
        array.push(uri)?;
        array.push(filename)?;
        array.push(answer.note)?;
        array.build()
    }
}

/// Convert a media part whose data is at hand (borrowed or owned).
fn convert_now(
    fields: &MediaFields,
    payload: Payload,
    settings: &Settings,
    disk: bool,
) -> Result<Option<Converted>, String> {
    let part = fields.part(payload);
    let (profile, cap, fit) = (settings.profile, settings.text_cap, settings.fit);
    guarded(|| {
        Ok(if disk {
            Some(content::convert_fitting(
                &part,
                profile,
                cap,
                fit,
                &settings.store,
                NoteStyle::Standard,
            ))
        } else {
            content::convert_without_disk_fitting(&part, profile, cap, fit)
        })
    })
}

/// A conversion allowed to write to disk always answers.
fn answered(converted: Option<Converted>) -> Result<Converted, String> {
    converted.ok_or_else(|| js_error(code::INTERNAL, "internal error: no answer"))
}

fn answer(converted: Converted) -> MediaAnswer {
    MediaAnswer {
        part: converted.part,
        note: converted.note,
        checked_copy: None,
    }
}

pub struct MediaTask {
    fields: MediaFields,
    data: OwnedData,
    settings: Settings,
}

impl Task for MediaTask {
    type Output = Result<Converted, String>;
    type JsValue = MediaAnswer;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let part = convert_now(&self.fields, self.data.payload(), &self.settings, true);
        Ok(part.and_then(answered))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        let Converted { part, note, .. } = output.map_err(|e| rejection(&env, e))?;
        // The bytes checked go back to be sent: never the caller's buffer.
        let checked_copy = match (&part, &mut self.data) {
            (
                ModelPart::File {
                    data: Base64Output::InputBytes,
                    ..
                },
                OwnedData::Bytes(bytes),
            ) => Some(std::mem::take(bytes)),
            _ => None,
        };
        Ok(MediaAnswer {
            part,
            note,
            checked_copy,
        })
    }
}

/// A JS Error whose `code` is ours, for rejecting a promise.
fn rejection(env: &Env, error: Error<String>) -> Error {
    let build = || -> napi::Result<Error> {
        let mut object =
            env.create_error(Error::new(Status::GenericFailure, error.reason.clone()))?;
        object.set_named_property("code", error.status.as_str())?;
        // Not `Error::from`: on wasm that keeps only the message, dropping `code`.
        Ok(Error::from_unknown_without_coercion(object.to_unknown()))
    };
    build().unwrap_or_else(|e| e)
}

/// Convert a media part (image, audio, media, a resource with a blob).
/// `how`: `"sync"` converts here; `"inline"` too, but gives `undefined`
/// when the part needs a disk write; `"async"` copies the data and gives a
/// promise of the conversion on the libuv thread pool.
#[napi(
    catch_unwind,
    ts_args_type = "how: 'sync' | 'inline' | 'async', kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, provider: unknown, outputDir: unknown, store: StoreHandle | undefined, maxTextTokens: unknown, dataIsLatin1: boolean | 'base64Bytes', fitImages: unknown, maxLongSide: unknown",
    ts_return_type = "MediaAnswer | undefined | Promise<MediaAnswer>"
)]
#[allow(clippy::too_many_arguments)]
pub fn convert_media<'env>(
    how: Unknown<'env>,
    kind: Unknown<'env>,
    data: Option<Unknown<'env>>,
    mime_type: Option<Unknown<'env>>,
    uri: Option<Unknown<'env>>,
    provider: Option<Unknown<'env>>,
    output_dir: Option<Unknown<'env>>,
    store: Option<Unknown<'env>>,
    max_text_tokens: Option<Unknown<'env>>,
    data_is_latin1: Option<Unknown<'env>>,
    fit_images: Option<Unknown<'env>>,
    max_long_side: Option<Unknown<'env>>,
) -> Result<Either3<MediaAnswer, (), AsyncTask<MediaTask>>, String> {
    let how = string_arg(Some(how), "how")?;
    let fields = MediaFields {
        kind: media_kind(kind)?,
        declared: string_arg(mime_type, "mimeType")?,
        uri: string_arg(uri, "uri")?,
    };
    let fit = fit_arg(fit_images, max_long_side)?;
    let settings = settings(provider, output_dir, store, max_text_tokens, fit)?;
    let data = DataArg::read(data, data_text_arg(data_is_latin1)?)?;
    match how.as_deref() {
        Some("sync") => {
            let part =
                data.with_payload("data", |p| convert_now(&fields, p, &settings, true))??;
            Ok(Either3::A(answer(answered(part)?)))
        }
        Some("inline") => {
            let part =
                data.with_payload("data", |p| convert_now(&fields, p, &settings, false))??;
            Ok(part.map_or(Either3::B(()), |part| Either3::A(answer(part))))
        }
        Some("async") => Ok(Either3::C(AsyncTask::new(MediaTask {
            fields,
            data: data.into_owned("data")?,
            settings,
        }))),
        _ => Err(invalid("`how` must be 'sync', 'inline' or 'async'")),
    }
}

// ---------------------------------------------------------------- whole tool results

/// One tool result being converted: its provider, whether media are
/// deferred, and its attachments in content order with the core's verdicts.
/// The entry holds it as an opaque handle for the duration of one
/// `convertToolResult`.
pub struct ResultPlan {
    profile: &'static Profile,
    defer: bool,
    fit: FitImages,
    /// Images the request carries already (`priorImages`).
    prior_images: u32,
    candidates: Vec<OwnedCandidate>,
    verdicts: Vec<Verdict>,
    /// What this result saved: never evicted to make room for its next file.
    kept: Arc<store::KeptFiles>,
}

/// The store a result's conversion saves in, keeping what it saved.
fn result_store(
    plan: &ResultPlan,
    output_dir: Option<Unknown>,
    store: Option<Unknown>,
) -> Result<Arc<store::ToolOutputStore>, String> {
    Ok(Arc::new(
        store_setting(output_dir, store)?.keeping(&plan.kept),
    ))
}

struct OwnedCandidate {
    media_type: String,
    byte_length: u64,
    dimensions: Option<(u32, u32)>,
    pages: Option<u32>,
}

type ResultHandle = External<ResultPlan>;

/// The plan behind a handle. Node-API checks the handle was made by this
/// addon for this type.
fn plan_of<'a>(value: &Unknown<'a>) -> Result<&'a mut ResultPlan, String> {
    // SAFETY: `from_napi_mut_ref` confirms that the external's payload is a
    // live `ResultHandle` made by this binary. The reference is used within
    // the current native call only (no JS runs meanwhile), while the handle
    // on this call's stack keeps the external alive, so no other reference
    // to it exists while this one does.
    let handle = unsafe { ResultHandle::from_napi_mut_ref(value.value().env, value.raw()) }
        .map_err(|_| invalid("`result` must be a result handle"))?;
    Ok(&mut **handle)
}

/// `deferMedia`: true, false, 'auto', or absent (= 'auto').
fn defer_arg(value: Option<Unknown>) -> Result<DeferMode, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(DeferMode::Auto);
    };
    let refused = || invalid("`deferMedia` must be true, false or 'auto'");
    match value.get_type().map_err(from_napi)? {
        ValueType::Boolean => {
            // SAFETY: the value was just checked to be a boolean.
            let on: bool = unsafe { value.cast() }.map_err(from_napi)?;
            Ok(if on {
                DeferMode::Always
            } else {
                DeferMode::Never
            })
        }
        ValueType::String => match string_arg(Some(value), "deferMedia")?.as_deref() {
            Some("auto") => Ok(DeferMode::Auto),
            _ => Err(refused()),
        },
        _ => Err(refused()),
    }
}

fn bool_arg(value: Option<Unknown>, name: &str) -> Result<bool, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(false);
    };
    if value.get_type().map_err(from_napi)? != ValueType::Boolean {
        return Err(invalid(format!("`{name}` must be a boolean")));
    }
    // SAFETY: the value was just checked to be a boolean.
    unsafe { value.cast::<bool>() }.map_err(from_napi)
}

/// Start converting a tool result for `provider`, deferring media as
/// `deferMedia` says.
#[napi(
    catch_unwind,
    ts_args_type = "provider: unknown, deferMedia: unknown, fitImages: unknown, maxLongSide: unknown, priorImages: unknown",
    ts_return_type = "ResultHandle"
)]
pub fn result_new(
    provider: Option<Unknown>,
    defer_media: Option<Unknown>,
    fit_images: Option<Unknown>,
    max_long_side: Option<Unknown>,
    prior_images: Option<Unknown>,
) -> Result<ResultHandle, String> {
    let profile = profile_arg(provider)?;
    let defer = defer_arg(defer_media)?.defers(profile);
    let fit = fit_arg(fit_images, max_long_side)?;
    let prior_images = match number_arg(prior_images, "priorImages")? {
        None => 0,
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => n as u32,
        Some(_) => return Err(invalid("`priorImages` must be a whole number, at least 0")),
    };
    Ok(External::new(ResultPlan {
        profile,
        defer,
        fit,
        prior_images,
        candidates: Vec::new(),
        verdicts: Vec::new(),
        kept: Arc::default(),
    }))
}

/// A media part of a result converted, and what the conversion found: for
/// the entry, `['file', mediaType, data, uri, filename, byteLength, width,
/// height, note, savedPath, savedByteLength, savedMediaType, placeholder]`
/// (`data` as in [`MediaAnswer`]; `note` and the saved original for a
/// fitted image; `placeholder` for one fitted after the budget while media
/// are deferred) or `['text', text, savedPath, savedByteLength,
/// savedMediaType]` (the last three null when nothing was saved).
pub struct ResultAnswer {
    converted: Converted,
    checked_copy: Option<Vec<u8>>,
    placeholder: Option<String>,
}

/// A saved file as the answer gives it: path, byte length, media type.
fn saved_fields(saved: Option<content::Saved>) -> (Option<String>, Option<f64>, Option<String>) {
    match saved {
        Some(saved) => (
            Some(saved.path),
            Some(saved.byte_length as f64),
            Some(saved.media_type),
        ),
        None => (None, None, None),
    }
}

impl TypeName for ResultAnswer {
    fn type_name() -> &'static str {
        "ResultAnswer"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for ResultAnswer {
    unsafe fn to_napi_value(raw_env: sys::napi_env, answer: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(raw_env);
        let Converted {
            part,
            attached,
            saved,
            note,
        } = answer.converted;
        let array = match part {
            ModelPart::Text(text) => {
                let mut array = DefinedArray::new(raw_env);
                array.push("text")?;
                array.push(text)?;
                let (path, byte_length, media_type) = saved_fields(saved);
                array.push(path)?;
                array.push(byte_length)?;
                array.push(media_type)?;
                array
            }
            ModelPart::File {
                media_type,
                data,
                uri,
                filename,
            } => {
                let mut array = DefinedArray::new(raw_env);
                array.push("file")?;
                array.push(media_type)?;
                match (data, answer.checked_copy) {
                    (Base64Output::Encoded(text), _) => {
                        array.push(env.create_string_latin1(text.as_bytes())?)?
                    }
                    (Base64Output::InputBytes, Some(copy)) => array.push(Buffer::from(copy))?,
                    (Base64Output::InputString | Base64Output::InputBytes, _) => {
                        array.push(Null)?
                    }
                }
                array.push(uri)?;
                array.push(filename)?;
                let byte_length = attached.map(|a| a.byte_length as f64);
                let dimensions = attached.and_then(|a| a.dimensions);
                array.push(byte_length)?;
                array.push(dimensions.map(|d| d.0))?;
                array.push(dimensions.map(|d| d.1))?;
                array.push(note)?;
                let (path, byte_length, media_type) = saved_fields(saved);
                array.push(path)?;
                array.push(byte_length)?;
                array.push(media_type)?;
                array.push(answer.placeholder)?;
                array.push(attached.and_then(|a| a.pages))?;
                array
            }
        };
        array.build()
    }
}

/// The bytes an async task checked, when the answer is a file part made
/// from them: they go back to be encoded, never the caller's buffer.
fn checked_copy(converted: &Converted, data: &mut OwnedData) -> Option<Vec<u8>> {
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

fn style(defer: bool) -> NoteStyle {
    if defer {
        NoteStyle::Deferred
    } else {
        NoteStyle::Standard
    }
}

/// What converting one media part of a result needs, owned.
struct ResultMedia {
    fields: MediaFields,
    profile: &'static Profile,
    text_cap: TextCap,
    fit: FitImages,
    store: Arc<store::ToolOutputStore>,
    style: NoteStyle,
}

impl ResultMedia {
    fn convert(&self, payload: Payload, disk: bool) -> Result<Option<Converted>, String> {
        let part = self.fields.part(payload);
        guarded(|| {
            Ok(if disk {
                Some(content::convert_fitting(
                    &part,
                    self.profile,
                    self.text_cap,
                    self.fit,
                    &self.store,
                    self.style,
                ))
            } else {
                content::convert_without_disk_fitting(&part, self.profile, self.text_cap, self.fit)
            })
        })
    }
}

pub struct ResultMediaTask {
    media: ResultMedia,
    data: OwnedData,
}

impl Task for ResultMediaTask {
    type Output = Result<Converted, String>;
    type JsValue = ResultAnswer;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let converted = self.media.convert(self.data.payload(), true);
        Ok(converted.and_then(|c| c.ok_or_else(|| js_error(code::INTERNAL, "no answer"))))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        let converted = output.map_err(|e| rejection(&env, e))?;
        let checked_copy = checked_copy(&converted, &mut self.data);
        Ok(ResultAnswer {
            converted,
            checked_copy,
            placeholder: None,
        })
    }
}

/// Convert a media part of a result as `convertMedia` does (`how` the
/// same), with the result's provider and note style, telling what was
/// attached or saved.
#[napi(
    catch_unwind,
    ts_args_type = "how: 'sync' | 'inline' | 'async', result: ResultHandle, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, outputDir: unknown, store: StoreHandle | undefined, maxTextTokens: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "ResultAnswer | undefined | Promise<ResultAnswer>"
)]
#[allow(clippy::too_many_arguments)]
pub fn result_media<'env>(
    how: Unknown<'env>,
    result: Unknown<'env>,
    kind: Unknown<'env>,
    data: Option<Unknown<'env>>,
    mime_type: Option<Unknown<'env>>,
    uri: Option<Unknown<'env>>,
    output_dir: Option<Unknown<'env>>,
    store: Option<Unknown<'env>>,
    max_text_tokens: Option<Unknown<'env>>,
    data_is_latin1: Option<Unknown<'env>>,
) -> Result<Either3<ResultAnswer, (), AsyncTask<ResultMediaTask>>, String> {
    let how = string_arg(Some(how), "how")?;
    let plan = plan_of(&result)?;
    let media = ResultMedia {
        fields: MediaFields {
            kind: media_kind(kind)?,
            declared: string_arg(mime_type, "mimeType")?,
            uri: string_arg(uri, "uri")?,
        },
        profile: plan.profile,
        text_cap: text_cap_arg(max_text_tokens)?,
        fit: plan.fit,
        store: result_store(plan, output_dir, store)?,
        style: style(plan.defer),
    };
    let data = DataArg::read(data, data_text_arg(data_is_latin1)?)?;
    let now = |disk: bool| data.with_payload("data", |p| media.convert(p, disk))?;
    let answer = |converted| ResultAnswer {
        converted,
        checked_copy: None,
        placeholder: None,
    };
    match how.as_deref() {
        Some("sync") => {
            let converted = now(true)?.ok_or_else(|| js_error(code::INTERNAL, "no answer"))?;
            Ok(Either3::A(answer(converted)))
        }
        Some("inline") => Ok(now(false)?.map_or(Either3::B(()), |c| Either3::A(answer(c)))),
        Some("async") => Ok(Either3::C(AsyncTask::new(ResultMediaTask {
            data: data.into_owned("data")?,
            media,
        }))),
        _ => Err(invalid("`how` must be 'sync', 'inline' or 'async'")),
    }
}

/// Add an attachment of the result, in content order: the media type,
/// decoded size and pixel size of a file part `resultMedia` answered.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, mediaType: string, byteLength: number, width: number | null, height: number | null, pages: number | null"
)]
pub fn result_attachment(
    result: Unknown,
    media_type: Option<Unknown>,
    byte_length: Option<Unknown>,
    width: Option<Unknown>,
    height: Option<Unknown>,
    pages: Option<Unknown>,
) -> Result<(), String> {
    let plan = plan_of(&result)?;
    let media_type =
        string_arg(media_type, "mediaType")?.ok_or_else(|| invalid("`mediaType` is required"))?;
    let byte_length = number_arg(byte_length, "byteLength")?.unwrap_or(0.0);
    let side = |v: Option<f64>| v.filter(|v| (0.0..=f64::from(u32::MAX)).contains(v));
    let dimensions = match (
        side(number_arg(width, "width")?),
        side(number_arg(height, "height")?),
    ) {
        (Some(w), Some(h)) => Some((w as u32, h as u32)),
        _ => None,
    };
    let pages = side(number_arg(pages, "pages")?).map(|p| p as u32);
    plan.candidates.push(OwnedCandidate {
        media_type,
        byte_length: byte_length.max(0.0) as u64,
        dimensions,
        pages,
    });
    Ok(())
}

/// Decide where each attachment goes: an array with, per attachment in
/// order, `true` (stays in the result), a string (deferred: the placeholder
/// the result keeps) or `false` (held back: `resultSpill` saves it); and the
/// text an error result without text gets first, or null.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, isError: boolean, hasText: boolean",
    ts_return_type = "[Array<boolean | string>, string | null]"
)]
pub fn result_decide<'env>(
    env: &'env Env,
    result: Unknown<'env>,
    is_error: Option<Unknown<'env>>,
    has_text: Option<Unknown<'env>>,
) -> Result<RawValue, String> {
    let plan = plan_of(&result)?;
    let is_error = bool_arg(is_error, "isError")?;
    let has_text = bool_arg(has_text, "hasText")?;
    let candidates: Vec<Candidate> = plan
        .candidates
        .iter()
        .map(|c| Candidate {
            media_type: &c.media_type,
            byte_length: c.byte_length,
            dimensions: c.dimensions,
            pages: c.pages,
        })
        .collect();
    let fit = plan.fit.enabled;
    let verdicts = guarded(|| {
        Ok(tool_result::decide_fitting(
            plan.profile,
            plan.defer,
            &candidates,
            fit,
            plan.prior_images,
        ))
    })?;
    let build = || -> napi::Result<RawValue> {
        let mut list = DefinedArray::new(env.raw());
        for verdict in &verdicts {
            match verdict {
                Verdict::InResult => list.push(true)?,
                Verdict::Deferred { placeholder } => list.push(placeholder.as_str())?,
                Verdict::Held(_) => list.push(false)?,
            }
        }
        let mut answer = DefinedArray::new(env.raw());
        answer.push(RawValue(list.build()?))?;
        answer.push(tool_result::error_text(is_error, has_text))?;
        Ok(RawValue(answer.build()?))
    };
    let answer = build().map_err(from_napi)?;
    plan.verdicts = verdicts;
    Ok(answer)
}

/// What saving a held-back attachment needs, owned.
struct HeldMedia {
    kind: MediaKind,
    uri: Option<String>,
    media_type: String,
    reason: Reason,
    profile: &'static Profile,
    fit: FitImages,
    defer: bool,
    store: Arc<store::ToolOutputStore>,
    style: NoteStyle,
    /// Where the original is saved already: `data` is then that original,
    /// of `media_type`, whose first fit is being replaced.
    saved_original: Option<String>,
}

impl HeldMedia {
    /// Save it; or, when it is held back by the many-image rule or the
    /// request's size shared by its images and images are made to fit, fit
    /// it to that rule's side limit and its share.
    fn spill(&self, payload: Payload) -> Result<ResultAnswer, String> {
        let part = MediaPart::new(self.kind, self.uri.as_deref(), None, payload);
        // The side and the size (in the request limit's unit) to fit it to.
        let fit_to = match self.reason {
            Reason::Request(RequestExcess::ManyImages { max_side, .. }) if self.fit.enabled => {
                Some((Some(max_side), None))
            }
            Reason::Request(RequestExcess::Share {
                limit, share, many, ..
            }) if self.fit.enabled => Some((many.map(|m| m.max_side), Some((limit, share)))),
            _ => None,
        };
        let converted = guarded(|| {
            Ok(match fit_to {
                Some((max_side, share)) => content::fit_attachment(
                    &part,
                    &self.media_type,
                    &self.reason,
                    max_side,
                    share,
                    self.fit,
                    self.profile,
                    &self.store,
                    self.style,
                    self.saved_original.as_deref(),
                ),
                None => content::spill_attachment(
                    &part,
                    &self.media_type,
                    &self.reason,
                    self.profile,
                    &self.store,
                    self.style,
                    self.saved_original.as_deref(),
                ),
            })
        })?;
        // A fitted image goes where the others go: deferred, when they are.
        let placeholder = match (&converted.part, self.defer) {
            (ModelPart::File { media_type, .. }, true) => converted
                .attached
                .map(|a| note::attached_below(media_type, "image", a.byte_length)),
            _ => None,
        };
        Ok(ResultAnswer {
            converted,
            checked_copy: None,
            placeholder,
        })
    }
}

pub struct ResultSpillTask {
    held: HeldMedia,
    data: OwnedData,
}

impl Task for ResultSpillTask {
    type Output = Result<ResultAnswer, String>;
    type JsValue = ResultAnswer;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.held.spill(self.data.payload()))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

/// Save the attachment at `index` that `resultDecide` held back (`data`:
/// its file part's base64), with the reason the core gave: the note and
/// the saved file, as `resultMedia` answers. For an image `resultMedia`
/// made to fit, `data` is the original instead, saved at `savedPath` as
/// `savedMediaType`: it is fitted again or noted, never saved twice.
#[napi(
    catch_unwind,
    ts_args_type = "how: 'sync' | 'async', result: ResultHandle, index: number, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array, uri: unknown, outputDir: unknown, store: StoreHandle | undefined, savedPath: string | null, savedMediaType: string | null, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "ResultAnswer | Promise<ResultAnswer>"
)]
#[allow(clippy::too_many_arguments)]
pub fn result_spill<'env>(
    how: Unknown<'env>,
    result: Unknown<'env>,
    index: Unknown<'env>,
    kind: Unknown<'env>,
    data: Unknown<'env>,
    uri: Option<Unknown<'env>>,
    output_dir: Option<Unknown<'env>>,
    store: Option<Unknown<'env>>,
    saved_path: Option<Unknown<'env>>,
    saved_media_type: Option<Unknown<'env>>,
    data_is_latin1: Option<Unknown<'env>>,
) -> Result<Either<ResultAnswer, AsyncTask<ResultSpillTask>>, String> {
    let how = string_arg(Some(how), "how")?;
    let plan = plan_of(&result)?;
    let index = number_arg(Some(index), "index")?.unwrap_or(-1.0);
    let position = (index >= 0.0 && index.fract() == 0.0).then_some(index as usize);
    let (candidate, reason) =
        match position.and_then(|i| Some((plan.candidates.get(i)?, plan.verdicts.get(i)?))) {
            Some((candidate, Verdict::Held(reason))) => (candidate, reason.clone()),
            _ => return Err(invalid("`index` must name an attachment held back")),
        };
    let saved_original = string_arg(saved_path, "savedPath")?;
    let media_type = match (
        &saved_original,
        string_arg(saved_media_type, "savedMediaType")?,
    ) {
        (Some(_), Some(original)) => original,
        (Some(_), None) => return Err(invalid("`savedMediaType` must come with `savedPath`")),
        (None, _) => candidate.media_type.clone(),
    };
    let held = HeldMedia {
        kind: media_kind(kind)?,
        uri: string_arg(uri, "uri")?,
        media_type,
        reason,
        profile: plan.profile,
        fit: plan.fit,
        defer: plan.defer,
        store: result_store(plan, output_dir, store)?,
        style: style(plan.defer),
        saved_original,
    };
    let data = DataArg::read(Some(data), data_text_arg(data_is_latin1)?)?;
    match how.as_deref() {
        Some("sync") => Ok(Either::A(data.with_payload("data", |p| held.spill(p))??)),
        Some("async") => Ok(Either::B(AsyncTask::new(ResultSpillTask {
            data: data.into_owned("data")?,
            held,
        }))),
        _ => Err(invalid("`how` must be 'sync' or 'async'")),
    }
}

/// True when both texts are JSON of the same value (key order, layout and
/// number spelling aside).
#[napi(catch_unwind, ts_args_type = "a: string, b: string")]
pub fn same_json(a: Option<Unknown>, b: Option<Unknown>) -> Result<bool, String> {
    let a = string_arg(a, "a")?.unwrap_or_default();
    let b = string_arg(b, "b")?.unwrap_or_default();
    guarded(|| Ok(json::same_value(&a, &b)))
}

/// decocms' token estimate: ceil(non-CJK characters / 4) + ceil(CJK characters * 1.5).
#[napi(catch_unwind, ts_args_type = "text: string")]
pub fn estimate_tokens(text: Option<Unknown>) -> Result<f64, String> {
    let text = string_arg(text, "text")?.ok_or_else(|| invalid("`text` must be a string"))?;
    Ok(tokens::estimate(&text) as f64)
}

// ---------------------------------------------------------------- notes

/// The header line (with its newline) of an embedded text resource; the
/// entry appends the text, so a long text is never copied.
#[napi(catch_unwind, ts_args_type = "uri: unknown, mimeType: unknown")]
pub fn embedded_text_header(
    uri: Option<Unknown>,
    mime_type: Option<Unknown>,
) -> Result<String, String> {
    let uri = string_arg(uri, "uri")?.unwrap_or_default();
    let mime_type = string_arg(mime_type, "mimeType")?;
    Ok(content::embedded_text(&uri, mime_type.as_deref(), ""))
}

/// The note for a `resource_link` part.
#[napi(
    catch_unwind,
    ts_args_type = "uri: unknown, name: unknown, mimeType: unknown, size: unknown, description: unknown"
)]
pub fn resource_link_text(
    uri: Option<Unknown>,
    name: Option<Unknown>,
    mime_type: Option<Unknown>,
    size: Option<Unknown>,
    description: Option<Unknown>,
) -> Result<String, String> {
    // A size that is not a number is left out, not refused: it is only shown.
    let size = match size {
        Some(size) if size.get_type().map_err(from_napi)? == ValueType::Number => {
            number_arg(Some(size), "size")?
        }
        _ => None,
    };
    Ok(note::resource_link(
        &string_arg(uri, "uri")?.unwrap_or_default(),
        string_arg(name, "name")?.as_deref(),
        string_arg(mime_type, "mimeType")?.as_deref(),
        size,
        string_arg(description, "description")?.as_deref(),
    ))
}

/// The note for a part of a type this library does not know.
#[napi(catch_unwind, ts_args_type = "type: unknown")]
pub fn unsupported_part_text(part_type: Option<Unknown>) -> Result<String, String> {
    let part_type = string_arg(part_type, "type")?.unwrap_or_default();
    Ok(note::unsupported_part(&part_type))
}

/// The note for a `resource` part without a `resource` object.
#[napi(catch_unwind)]
pub fn missing_resource_text() -> String {
    note::missing_resource()
}

// ---------------------------------------------------------------- classify

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
    #[napi(
        ts_type = "'ascii' | 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'shift_jis' | 'euc-jp' | 'iso-2022-jp' | 'gbk' | 'gb18030' | 'big5' | 'euc-kr' | 'koi8-r' | 'koi8-u' | 'ibm866' | 'macintosh' | 'x-mac-cyrillic' | 'windows-874' | 'windows-1250' | 'windows-1251' | 'windows-1253' | 'windows-1254' | 'windows-1255' | 'windows-1256' | 'windows-1257' | 'windows-1258' | 'iso-8859-2' | 'iso-8859-3' | 'iso-8859-4' | 'iso-8859-5' | 'iso-8859-6' | 'iso-8859-7' | 'iso-8859-8' | 'iso-8859-8-i' | 'iso-8859-10' | 'iso-8859-13' | 'iso-8859-14' | 'iso-8859-15' | 'iso-8859-16'"
    )]
    pub text_encoding: Option<String>,
    pub problem: Option<String>,
    pub repair: Option<String>,
    pub animated: Option<bool>,
    pub pages: Option<u32>,
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
            repair: c.repair.map(|r| r.words),
            animated: (c.kind == Kind::Image).then_some(c.animated),
            pages: c.pages,
        }
    }
}

/// Classify bytes or a base64 string.
#[napi(
    catch_unwind,
    ts_args_type = "data: string | Uint8Array, declaredMediaType: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "Classification"
)]
pub fn classify(
    data: Unknown,
    declared_media_type: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<JsClassification, String> {
    let declared = string_arg(declared_media_type, "declaredMediaType")?;
    if is_nullish(&data)? {
        return Err(invalid("`data` is required"));
    }
    let data = DataArg::read(Some(data), data_text_arg(data_is_latin1)?)?;
    data.with_payload("data", |payload| {
        guarded(|| Ok(classify::classify(payload, declared.as_deref()).into()))
    })?
}

/// True when the bytes are valid UTF-8.
#[napi(catch_unwind, ts_args_type = "data: Uint8Array")]
pub fn is_utf8(data: Unknown) -> Result<bool, String> {
    with_bytes(&data, "data", text::is_utf8)
}

/// True for media types whose content is text a model can read.
#[napi(catch_unwind, ts_args_type = "mediaType: unknown")]
pub fn is_textual_media_type(media_type: Option<Unknown>) -> Result<bool, String> {
    let media_type =
        string_arg(media_type, "mediaType")?.ok_or_else(|| invalid("`mediaType` is required"))?;
    Ok(media_type::is_textual(&media_type))
}

// ---------------------------------------------------------------- store

#[napi(object, object_from_js = false)]
pub struct SavedFile {
    pub path: String,
    pub byte_length: f64,
}

impl From<store::Saved> for SavedFile {
    fn from(saved: store::Saved) -> Self {
        SavedFile {
            path: saved.path.to_string_lossy().into_owned(),
            byte_length: saved.byte_length as f64,
        }
    }
}

/// A store as the entry holds it: an opaque handle (a Node-API external)
/// kept in a private field of the entry's `ToolOutputStore`.
type StoreHandle = External<Arc<store::ToolOutputStore>>;

/// The store behind a handle. Node-API checks the handle was made by this
/// addon for this type; the store is shared, not borrowed from JS.
fn store_of(value: &Unknown) -> Result<Arc<store::ToolOutputStore>, String> {
    // SAFETY: `from_napi_ref` confirms that the external's payload is a live
    // `StoreHandle` made by this binary; the reference is used here only, to
    // clone the `Arc`, while the handle on this call's stack keeps it alive.
    let handle = unsafe { StoreHandle::from_napi_ref(value.value().env, value.raw()) }
        .map_err(|_| invalid("`store` must be a ToolOutputStore"))?;
    Ok(Arc::clone(handle))
}

/// A save's input, owned, for the libuv thread pool.
pub struct SaveTask {
    store: Arc<store::ToolOutputStore>,
    data: OwnedData,
    media_type: Option<String>,
    extension: Option<String>,
}

fn save_now(
    store: &store::ToolOutputStore,
    payload: Payload,
    media_type: Option<&str>,
    extension: Option<&str>,
) -> Result<SavedFile, String> {
    guarded(|| {
        let saved = save::save_blob(store, payload, media_type, extension).map_err(save_error)?;
        Ok(SavedFile::from(saved))
    })
}

impl Task for SaveTask {
    type Output = Result<SavedFile, String>;
    type JsValue = SavedFile;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(save_now(
            &self.store,
            self.data.payload(),
            self.media_type.as_deref(),
            self.extension.as_deref(),
        ))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

/// A new store: `dir` (default: the per-user temp folder), the days
/// `cleanup` keeps files, and the size cap in bytes.
#[napi(
    catch_unwind,
    ts_args_type = "dir: unknown, retentionDays: unknown, maxBytes: unknown",
    ts_return_type = "StoreHandle"
)]
pub fn store_new(
    dir: Option<Unknown>,
    retention_days: Option<Unknown>,
    max_bytes: Option<Unknown>,
) -> Result<StoreHandle, String> {
    let dir = string_arg(dir, "dir")?;
    let retention_days = number_arg(retention_days, "retentionDays")?;
    let max_bytes = number_arg(max_bytes, "maxBytes")?;
    let store = store::ToolOutputStore::new(dir.map(PathBuf::from), retention_days)
        .and_then(|store| store.with_max_bytes(max_bytes))
        .map_err(store_error)?;
    Ok(External::new(Arc::new(store)))
}

/// The folder a store saves in.
#[napi(catch_unwind, ts_args_type = "store: StoreHandle")]
pub fn store_dir(store: Unknown) -> Result<String, String> {
    Ok(store_of(&store)?.dir().to_string_lossy().into_owned())
}

/// Save bytes or base64 (decoded) in a store: `how` is `"sync"`, or
/// `"async"` for a promise of the save on the libuv thread pool, made from a
/// copy of the data.
#[napi(
    catch_unwind,
    ts_args_type = "how: 'sync' | 'async', store: StoreHandle, data: string | Uint8Array, mediaType: unknown, extension: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "SavedFile | Promise<SavedFile>"
)]
pub fn store_save(
    how: Unknown,
    store: Unknown,
    data: Unknown,
    media_type: Option<Unknown>,
    extension: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<Either<SavedFile, AsyncTask<SaveTask>>, String> {
    let how = string_arg(Some(how), "how")?;
    let store = store_of(&store)?;
    let media_type = string_arg(media_type, "mediaType")?;
    let extension = string_arg(extension, "extension")?;
    if is_nullish(&data)? {
        return Err(invalid("`data` is required"));
    }
    let data = DataArg::read(Some(data), data_text_arg(data_is_latin1)?)?;
    match how.as_deref() {
        Some("sync") => data
            .with_payload("data", |payload| {
                save_now(&store, payload, media_type.as_deref(), extension.as_deref())
            })?
            .map(Either::A),
        Some("async") => Ok(Either::B(AsyncTask::new(SaveTask {
            store,
            data: data.into_owned("data")?,
            media_type,
            extension,
        }))),
        _ => Err(invalid("`how` must be 'sync' or 'async'")),
    }
}

/// A file `storeCleanup` removed.
#[napi(object, object_from_js = false)]
pub struct RemovedFile {
    pub name: String,
    pub byte_length: f64,
}

/// Delete a store's own files older than its retention (and its temp files
/// left by a crash); returns them, in name order.
#[napi(catch_unwind, ts_args_type = "store: StoreHandle")]
pub fn store_cleanup(store: Unknown) -> Result<Vec<RemovedFile>, String> {
    let store = store_of(&store)?;
    guarded(|| {
        let removed = store.cleanup_files().map_err(store_error)?;
        Ok(removed
            .into_iter()
            .map(|file| RemovedFile {
                name: file.name,
                byte_length: file.byte_length as f64,
            })
            .collect())
    })
}

// ---------------------------------------------------------------- structured content

/// Strings of `structuredContent` shorter than this stay as they are.
#[napi]
pub fn structured_long_string_chars() -> u32 {
    crate::structured::LONG_STRING_CHARS as u32
}

/// The marker that replaces a long string of `structuredContent` in the
/// model's JSON, or `null` when it stays: `repeatsPart` (1-based) when the
/// entry found it repeats a content part, else a base64 check of the string.
#[napi(
    catch_unwind,
    ts_args_type = "data: string | Uint8Array, dataIsLatin1: unknown, repeatsPart: number | null"
)]
pub fn structured_marker(
    data: Unknown,
    data_is_latin1: Option<Unknown>,
    repeats_part: Option<Unknown>,
) -> Result<Option<String>, String> {
    if let Some(part) = number_arg(repeats_part, "repeatsPart")? {
        return Ok(Some(crate::structured::repeat_marker(part as usize)));
    }
    let data = DataArg::read(Some(data), data_text_arg(data_is_latin1)?)?;
    data.with_payload("data", |payload| {
        guarded(|| Ok(crate::structured::base64_marker(payload)))
    })?
}

/// The line above the model's JSON when strings were left out (`null` when
/// none was): `savedPath` and `savedByteLength` name the whole JSON, or
/// `saveError` says why it could not be saved.
#[napi(
    catch_unwind,
    ts_args_type = "repeats: number, base64: number, savedPath: string | null, savedByteLength: number | null, saveError: string | null"
)]
pub fn structured_header(
    repeats: Option<Unknown>,
    base64: Option<Unknown>,
    saved_path: Option<Unknown>,
    saved_byte_length: Option<Unknown>,
    save_error: Option<Unknown>,
) -> Result<Option<String>, String> {
    let count = |value, name| number_arg(value, name).map(|n| n.unwrap_or(0.0) as usize);
    let repeats = count(repeats, "repeats")?;
    let base64 = count(base64, "base64")?;
    let path = string_arg(saved_path, "savedPath")?;
    let byte_length = number_arg(saved_byte_length, "savedByteLength")?.unwrap_or(0.0) as u64;
    let error = string_arg(save_error, "saveError")?;
    let whole = match (&path, &error) {
        (Some(path), _) => crate::structured::WholeJson::Saved { path, byte_length },
        (None, Some(error)) => crate::structured::WholeJson::NotSaved { error },
        (None, None) => crate::structured::WholeJson::NotNeeded,
    };
    Ok(crate::structured::header(repeats, base64, whole))
}

/// Save a text (UTF-8) in the conversion's store under `mediaType`'s
/// extension. `how`: `"sync"`, or `"async"` for a promise of it done on the
/// libuv thread pool. `result`: the whole result it is saved for, if any
/// (its saved files are not evicted for this one, nor this one for them).
#[napi(
    catch_unwind,
    ts_args_type = "how: 'sync' | 'async', text: string, mediaType: string, outputDir: unknown, store: StoreHandle | undefined, result?: ResultHandle",
    ts_return_type = "SavedFile | Promise<SavedFile>"
)]
pub fn save_text(
    how: Unknown,
    text: Unknown,
    media_type: Option<Unknown>,
    output_dir: Option<Unknown>,
    store: Option<Unknown>,
    result: Option<Unknown>,
) -> Result<Either<SavedFile, AsyncTask<SaveTextTask>>, String> {
    let how = string_arg(Some(how), "how")?;
    let media_type = string_arg(media_type, "mediaType")?;
    let text = string_arg(Some(text), "text")?.unwrap_or_default();
    let store = match result.filter(|v| !is_nullish(v).unwrap_or(false)) {
        Some(result) => result_store(plan_of(&result)?, output_dir, store)?,
        None => store_setting(output_dir, store)?,
    };
    let task = SaveTextTask {
        text,
        extension: media_type::extension(media_type.as_deref().unwrap_or("text/plain")),
        store,
    };
    match how.as_deref() {
        Some("sync") => task.run().map(Either::A),
        Some("async") => Ok(Either::B(AsyncTask::new(task))),
        _ => Err(invalid("`how` must be 'sync' or 'async'")),
    }
}

pub struct SaveTextTask {
    text: String,
    extension: &'static str,
    store: Arc<store::ToolOutputStore>,
}

impl SaveTextTask {
    fn run(&self) -> Result<SavedFile, String> {
        guarded(|| {
            let saved = self
                .store
                .save(self.text.as_bytes(), self.extension)
                .map_err(store_error)?;
            Ok(SavedFile::from(saved))
        })
    }
}

impl Task for SaveTextTask {
    type Output = Result<SavedFile, String>;
    type JsValue = SavedFile;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.run())
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

// ================================================================
// Resource links read on request (lib/resource-links.js). Kept in a block
// of its own at the end of the file, apart from the boundary above.

/// The note for a `resource_link` part that was to be read and is not:
/// the link's note with why. `why` names the case, `amount` its figure
/// ('link-limit' and 'byte-limit': the limit; 'over-byte-limit': the
/// link's bytes, with `limit`; 'timed-out': milliseconds) or, for
/// 'failed', the message.
#[napi(
    catch_unwind,
    ts_args_type = "uri: unknown, name: unknown, mimeType: unknown, size: unknown, description: unknown, why: 'link-limit' | 'byte-limit' | 'over-byte-limit' | 'timed-out' | 'failed', amount: number | string, limit?: number"
)]
#[allow(clippy::too_many_arguments)]
pub fn resource_link_not_read_text(
    uri: Option<Unknown>,
    name: Option<Unknown>,
    mime_type: Option<Unknown>,
    size: Option<Unknown>,
    description: Option<Unknown>,
    why: Option<Unknown>,
    amount: Option<Unknown>,
    limit: Option<Unknown>,
) -> Result<String, String> {
    // A size that is not a number is left out, as resource_link_text does.
    let size = match size {
        Some(size) if size.get_type().map_err(from_napi)? == ValueType::Number => {
            number_arg(Some(size), "size")?
        }
        _ => None,
    };
    let count = |value: Option<Unknown>, name: &str| -> Result<u64, String> {
        match number_arg(value, name)? {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(n as u64),
            _ => Err(invalid(format!("`{name}` must be a whole number"))),
        }
    };
    let why = string_arg(why, "why")?.unwrap_or_default();
    let message;
    let why = match why.as_str() {
        "link-limit" => note::LinkNotRead::OverLinkLimit {
            max: count(amount, "amount")?,
        },
        "byte-limit" => note::LinkNotRead::ByteLimitReached {
            max: count(amount, "amount")?,
        },
        "over-byte-limit" => note::LinkNotRead::OverByteLimit {
            bytes: count(amount, "amount")?,
            max: count(limit, "limit")?,
        },
        "timed-out" => note::LinkNotRead::TimedOut {
            ms: count(amount, "amount")?,
        },
        "failed" => {
            message = string_arg(amount, "amount")?.unwrap_or_default();
            note::LinkNotRead::Failed(&message)
        }
        _ => return Err(invalid(
            "`why` must be 'link-limit', 'byte-limit', 'over-byte-limit', 'timed-out' or 'failed'",
        )),
    };
    Ok(note::resource_link_not_read(
        &string_arg(uri, "uri")?.unwrap_or_default(),
        string_arg(name, "name")?.as_deref(),
        string_arg(mime_type, "mimeType")?.as_deref(),
        size,
        string_arg(description, "description")?.as_deref(),
        &why,
    ))
}
