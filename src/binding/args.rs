//! Reading the exports' arguments: each as the type it must be, refused
//! (never coerced: coercion would run the value's JS) when it is not; a
//! part's data read last, borrowed only while Rust works on it.

use napi::bindgen_prelude::*;
use napi::{sys, JsString, Unknown, ValueType};

use super::{code, from_napi, invalid, js_error};
use crate::payload::Payload;

pub(super) fn is_nullish(value: &Unknown) -> Result<bool, String> {
    Ok(matches!(
        value.get_type().map_err(from_napi)?,
        ValueType::Undefined | ValueType::Null
    ))
}

/// A string argument; `None` when absent, undefined or null. Anything else
/// is refused rather than coerced (coercion would run the value's JS).
pub(super) fn string_arg(value: Option<Unknown>, name: &str) -> Result<Option<String>, String> {
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
pub(super) fn number_arg(value: Option<Unknown>, name: &str) -> Result<Option<f64>, String> {
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
pub(super) fn with_bytes<R>(
    value: &Unknown,
    name: &str,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
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
pub(super) enum DataArg<'env> {
    Absent,
    Base64(Vec<u8>),
    Bytes(Unknown<'env>),
}

/// A part's data owned by Rust, for work on another thread.
pub(super) enum OwnedData {
    Absent,
    Base64(Vec<u8>),
    Bytes(Vec<u8>),
}

impl<'env> DataArg<'env> {
    /// The data, and the entry's word on it (`dataIsLatin1`, see [`DataText`]).
    pub(super) fn read(
        value: Option<Unknown<'env>>,
        data_is_latin1: Option<Unknown>,
    ) -> Result<Self, String> {
        let text = data_text_arg(data_is_latin1)?;
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
    pub(super) fn with_payload<R>(
        &self,
        name: &str,
        f: impl FnOnce(Payload) -> R,
    ) -> Result<R, String> {
        match self {
            // No data at all reads as empty data.
            DataArg::Absent => Ok(f(Payload::Bytes(&[]))),
            DataArg::Base64(text) => Ok(f(Payload::Base64(text))),
            DataArg::Bytes(value) => with_bytes(value, name, |bytes| f(Payload::Bytes(bytes))),
        }
    }

    /// A copy the caller can no longer change.
    pub(super) fn into_owned(self, name: &str) -> Result<OwnedData, String> {
        match self {
            DataArg::Absent => Ok(OwnedData::Absent),
            DataArg::Base64(text) => Ok(OwnedData::Base64(text)),
            DataArg::Bytes(value) => with_bytes(&value, name, <[u8]>::to_vec).map(OwnedData::Bytes),
        }
    }
}

impl OwnedData {
    pub(super) fn payload(&self) -> Payload<'_> {
        match self {
            OwnedData::Absent => Payload::Bytes(&[]),
            OwnedData::Base64(text) => Payload::Base64(text),
            OwnedData::Bytes(bytes) => Payload::Bytes(bytes),
        }
    }
}

/// A boolean argument; `false` when absent, undefined or null.
pub(super) fn bool_arg(value: Option<Unknown>, name: &str) -> Result<bool, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(false);
    };
    if value.get_type().map_err(from_napi)? != ValueType::Boolean {
        return Err(invalid(format!("`{name}` must be a boolean")));
    }
    // SAFETY: the value was just checked to be a boolean.
    unsafe { value.cast::<bool>() }.map_err(from_napi)
}

/// A byte count argument: a whole number from 0 to 2^53 - 1.
pub(super) fn bytes_arg(value: Option<Unknown>, name: &str) -> Result<Option<u64>, String> {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    match number_arg(value, name)? {
        None => Ok(None),
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => Ok(Some(n as u64)),
        Some(_) => Err(invalid(format!(
            "`{name}` must be a whole number of bytes, at least 0"
        ))),
    }
}

/// A whole number argument from 0 to `u32::MAX`; `None` when absent.
pub(super) fn count_arg(value: Option<Unknown>, name: &str) -> Result<Option<u32>, String> {
    match number_arg(value, name)? {
        None => Ok(None),
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Ok(Some(n as u32)),
        Some(_) => Err(invalid(format!(
            "`{name}` must be a whole number, at least 0"
        ))),
    }
}
