//! The checks the package exports: what bytes are, whether they are
//! UTF-8, whether a media type is text, a text's token estimate.

use napi::bindgen_prelude::*;
use napi::Unknown;
use napi_derive::napi;

use super::args::{is_nullish, string_arg, with_bytes, DataArg};
use super::{guarded, invalid};
use crate::classify::{self, Classification, Kind};
use crate::{content, media_type, text, tokens};

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
    let data = DataArg::read(Some(data), data_is_latin1)?;
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

/// decocms' token estimate: ceil(non-CJK characters / 4) + ceil(CJK characters * 1.5).
#[napi(catch_unwind, ts_args_type = "text: string")]
pub fn estimate_tokens(text: Option<Unknown>) -> Result<f64, String> {
    let text = string_arg(text, "text")?.ok_or_else(|| invalid("`text` must be a string"))?;
    Ok(tokens::estimate(&text) as f64)
}

/// MCP `annotations.audience` (its string roles, as the entry read them):
/// true when the part is for the model.
#[napi(catch_unwind)]
pub fn is_for_model(roles: Vec<String>) -> bool {
    content::is_for_model(Some(&roles))
}

/// The most one UTF-16 unit of text can add to the token estimate.
#[napi]
pub fn most_tokens_per_char() -> f64 {
    tokens::MOST_TOKENS_PER_CHAR
}
