//! mcp-content: turn MCP tool result content into parts a model provider
//! accepts. The core is plain Rust over `&[u8]`/`&str`; `binding` (behind the
//! default `binding` feature) is the thin Node-API layer.
//!
//! Data flows one way:
//! payload (base64 / bytes) -> sniff -> text detection (with a declared
//! charset) -> classify -> route (reads the provider table) -> store (spill)
//! -> model part; for a whole tool result, `tool_result` then decides which
//! attachments stay, move to a following user message, or are saved
//! (`budget`: per-request limits), and `tool_result::layout` the order of
//! its answer.

// The core has no unsafe code but the base64 kernels (allowed on their
// module, `base64_data::engine`); the Node-API layer may (allowed on
// `mod binding` below). Every block says why it is sound.
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(clippy::all)]

pub mod base64_data;
pub mod budget;
pub mod charset;
pub mod classify;
pub mod content;
pub mod decode_check;
pub mod image_fit;
pub mod json;
pub mod media_type;
pub mod note;
pub mod payload;
pub mod provider;
pub mod read_back;
pub mod route;
pub mod save;
pub mod sniff;
pub mod store;
pub mod structured;
pub mod text;
pub mod text_cap;
pub mod tokens;
pub mod tool_result;

#[cfg(feature = "binding")]
#[allow(unsafe_code)]
mod binding;
