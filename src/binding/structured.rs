//! A result's `structuredContent` in the model's JSON: long strings
//! replaced by markers, the line that says so, and the test that the JSON
//! text a part repeats is the same value.

use napi::bindgen_prelude::*;
use napi::Unknown;
use napi_derive::napi;

use super::args::{number_arg, string_arg, DataArg};
use super::guarded;
use super::settings::settings_of;
use crate::json;

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
    let data = DataArg::read(Some(data), data_is_latin1)?;
    data.with_payload("data", |payload| {
        guarded(|| Ok(crate::structured::base64_marker(payload)))
    })?
}

/// The line above the model's JSON when strings were left out (`null` when
/// none was): `savedPath` and `savedByteLength` name the whole JSON the
/// store of `settings` saved, or `saveError` says why it could not be saved.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle | ResultHandle, repeats: number, base64: number, savedPath: string | null, savedByteLength: number | null, saveError: string | null"
)]
pub fn structured_header(
    settings: Unknown,
    repeats: Option<Unknown>,
    base64: Option<Unknown>,
    saved_path: Option<Unknown>,
    saved_byte_length: Option<Unknown>,
    save_error: Option<Unknown>,
) -> Result<Option<String>, String> {
    let count = |value, name| number_arg(value, name).map(|n| n.unwrap_or(0.0) as usize);
    let repeats = count(repeats, "repeats")?;
    let base64 = count(base64, "base64")?;
    let store = settings_of(&settings)?.store;
    let path = string_arg(saved_path, "savedPath")?.map(|path| store.noted_location(&path));
    let byte_length = number_arg(saved_byte_length, "savedByteLength")?.unwrap_or(0.0) as u64;
    let error = string_arg(save_error, "saveError")?;
    let whole = match (&path, &error) {
        (Some(path), _) => crate::structured::WholeJson::Saved { path, byte_length },
        (None, Some(error)) => crate::structured::WholeJson::NotSaved { error },
        (None, None) => crate::structured::WholeJson::NotNeeded,
    };
    Ok(crate::structured::header(repeats, base64, whole))
}

/// True when both texts are JSON of the same value (key order, layout and
/// number spelling aside).
#[napi(catch_unwind, ts_args_type = "a: string, b: string")]
pub fn same_json(a: Option<Unknown>, b: Option<Unknown>) -> Result<bool, String> {
    let a = string_arg(a, "a")?.unwrap_or_default();
    let b = string_arg(b, "b")?.unwrap_or_default();
    guarded(|| Ok(json::same_value(&a, &b)))
}
