//! The notes for parts the entry turns into text without converting data:
//! an embedded text's header, a resource link, an unknown part type, a
//! resource part without its resource.

use napi::bindgen_prelude::*;
use napi::{Unknown, ValueType};
use napi_derive::napi;

use super::args::{number_arg, string_arg};
use super::from_napi;
use crate::{content, note};

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
