//! Node-API binding: converts JS values to the core's types and back, and
//! decides nothing. The package entry (`lib/`) is the one reader of MCP
//! parts and options; the exports here take plain values and handles. None
//! of them is the public API: their types go to `lib/binding/binding.d.ts`,
//! which `lib/` is type-checked against, while `index.d.ts` declares the
//! entry's.
//!
//! One file per concern: `args` (reading JS values), `answer` (building
//! them), `settings` (options into a handle that owns its store), `media`
//! (`toContent`'s media parts), `result` (whole tool results), `text`,
//! `store`, `notes`, `checks`, `structured`; `allocator` (the system's, tuned
//! for large buffers and images made to fit). A conversion has a sync export
//! (`...Sync`), an async one (a promise of the work done on the libuv thread
//! pool, from data copied first) and, where the entry converts small parts
//! on the spot, an inline one (sync, `undefined` when a disk write is
//! needed).
//!
//! How JS memory is used:
//! - every argument but the data is converted first, and converting reads
//!   only the value given: no property is read, no getter or callback runs;
//! - a `Uint8Array` is borrowed only inside [`args::with_bytes`], whose
//!   closure gets a `&[u8]` and does Rust work alone: no JS runs while the
//!   bytes are borrowed, and the borrow cannot outlive the closure;
//! - async work owns its input: bytes are copied on the JS thread before the
//!   task is queued, so no worker reads memory the caller can free, resize or
//!   refill, and the bytes checked are the bytes sent or saved;
//! - a base64 string is always copied (Node-API gives no borrow of a string).

// napi-derive registers exports only outside `cfg(test)`, so a test build
// of this module sees its items as unused.
#![cfg_attr(test, allow(dead_code))]

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::*;
use napi::Env;

use crate::save::SaveError;
use crate::store::StoreError;

#[cfg(target_os = "linux")]
mod allocator;
#[macro_use]
mod answer;
mod args;
mod checks;
mod media;
mod notes;
mod result;
mod settings;
mod store;
mod structured;
mod text;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: allocator::HugePagesForLargeBuffers = allocator::HugePagesForLargeBuffers;

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

fn internal(message: impl std::fmt::Display) -> Error<String> {
    js_error(code::INTERNAL, format!("internal error: {message}"))
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
        Err(internal(message))
    })
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

/// Work an async export hands to the libuv thread pool: it owns its input
/// and answers once, on the JS thread.
pub trait PoolWork: Send + 'static {
    type Answer: ToNapiValue + TypeName + Send;
    fn run(&mut self) -> Result<Self::Answer, String>;
}

/// The napi task of a [`PoolWork`]: errors reject with our `code`.
pub struct OnPool<W>(W);

impl<W: PoolWork> Task for OnPool<W> {
    type Output = Result<W::Answer, String>;
    type JsValue = W::Answer;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.0.run())
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}

fn on_pool<W: PoolWork>(work: W) -> AsyncTask<OnPool<W>> {
    AsyncTask::new(OnPool(work))
}
