//! The notes for parts the entry turns into text without converting data:
//! an embedded text's header, a resource link, an unknown part type, a
//! resource part without its resource.

use napi::bindgen_prelude::*;
use napi::{Unknown, ValueType};
use napi_derive::napi;

use super::args::{number_arg, string_arg};
use super::{from_napi, invalid};
use crate::content;
use crate::note::{self, LinkNotRead};

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

/// The note for a `resource_link` part; with `notRead` (a reason from
/// `linkNotReadReason`), the note of a link that was to be read and is not.
#[napi(
    catch_unwind,
    ts_args_type = "uri: unknown, name: unknown, mimeType: unknown, size: unknown, description: unknown, notRead?: string"
)]
pub fn resource_link_text(
    uri: Option<Unknown>,
    name: Option<Unknown>,
    mime_type: Option<Unknown>,
    size: Option<Unknown>,
    description: Option<Unknown>,
    not_read: Option<Unknown>,
) -> Result<String, String> {
    // A size that is not a number is left out, not refused: it is only shown.
    let size = match size {
        Some(size) if size.get_type().map_err(from_napi)? == ValueType::Number => {
            number_arg(Some(size), "size")?
        }
        _ => None,
    };
    Ok(note::resource_link_saying(
        &string_arg(uri, "uri")?.unwrap_or_default(),
        string_arg(name, "name")?.as_deref(),
        string_arg(mime_type, "mimeType")?.as_deref(),
        size,
        string_arg(description, "description")?.as_deref(),
        string_arg(not_read, "notRead")?.as_deref(),
    ))
}

/// Why a resource link a caller asked to have read (`readResource`) is not:
/// `why` names the case, `amount` its figure ('link-limit' and
/// 'byte-limit': the limit; 'over-byte-limit': the link's bytes, with
/// `limit`; 'timed-out': milliseconds) or, for 'failed', the message.
#[napi(
    catch_unwind,
    ts_args_type = "why: 'link-limit' | 'byte-limit' | 'over-byte-limit' | 'timed-out' | 'failed', amount: number | string, limit?: number"
)]
pub fn link_not_read_reason(
    why: Option<Unknown>,
    amount: Option<Unknown>,
    limit: Option<Unknown>,
) -> Result<String, String> {
    let count = |value: Option<Unknown>, name: &str| -> Result<u64, String> {
        match number_arg(value, name)? {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(n as u64),
            _ => Err(invalid(format!("`{name}` must be a whole number"))),
        }
    };
    let why = string_arg(why, "why")?.unwrap_or_default();
    let message;
    let why = match why.as_str() {
        "link-limit" => LinkNotRead::OverLinkLimit {
            max: count(amount, "amount")?,
        },
        "byte-limit" => LinkNotRead::ByteLimitReached {
            max: count(amount, "amount")?,
        },
        "over-byte-limit" => LinkNotRead::OverByteLimit {
            bytes: count(amount, "amount")?,
            max: count(limit, "limit")?,
        },
        "timed-out" => LinkNotRead::TimedOut {
            ms: count(amount, "amount")?,
        },
        "failed" => {
            message = string_arg(amount, "amount")?.unwrap_or_default();
            LinkNotRead::Failed(&message)
        }
        _ => return Err(invalid(
            "`why` must be 'link-limit', 'byte-limit', 'over-byte-limit', 'timed-out' or 'failed'",
        )),
    };
    Ok(note::not_read(&why))
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
