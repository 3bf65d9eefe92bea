//! mcp-content: turn MCP tool result content into parts a model provider
//! accepts. The core is plain Rust over `&[u8]`/`&str`; `binding` (behind the
//! default `binding` feature) is the thin Node-API layer.
//!
//! Data flows one way:
//! payload (base64 / bytes) -> sniff -> text detection -> classify -> route
//! (reads the provider table) -> store (spill) -> model part.

pub mod base64_data;
pub mod classify;
pub mod content;
pub mod media_type;
pub mod note;
pub mod payload;
pub mod provider;
pub mod route;
pub mod save;
pub mod sniff;
pub mod store;
pub mod text;

#[cfg(feature = "binding")]
mod binding;
