//! `ToolOutputStore`: a store as an opaque handle, saving bytes or base64
//! here or on the libuv thread pool, reading back its files, and its cleanup.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Unknown;
use napi_derive::napi;

use super::answer::List;
use super::args::{bytes_arg, is_nullish, number_arg, string_arg, DataArg, OwnedData};
use super::{guarded, invalid, on_pool, save_error, store_error, OnPool, PoolWork};
use crate::payload::Payload;
use crate::read_back;
use crate::save;
use crate::store::{S3Options, ToolOutputStore};

js_answer! {
    // A file a store saved.
    pub struct StoredFile {
        path: String = "path",
        byte_length: f64 = "byteLength",
    }
}

js_answer! {
    // A file `storeCleanup` removed.
    pub struct RemovedFile {
        name: String = "name",
        byte_length: f64 = "byteLength",
    }
}

/// A store as the entry holds it: an opaque handle (a Node-API external)
/// kept in a private field of the entry's `ToolOutputStore`.
type StoreHandle = External<Arc<ToolOutputStore>>;

/// The store behind a handle. Node-API checks the handle was made by this
/// addon for this type; the store is shared, not borrowed from JS.
pub(super) fn store_of(value: &Unknown) -> Result<Arc<ToolOutputStore>, String> {
    // SAFETY: `from_napi_ref` confirms that the external's payload is a live
    // `StoreHandle` made by this binary; the reference is used here only, to
    // clone the `Arc`, while the handle on this call's stack keeps it alive.
    let handle = unsafe { StoreHandle::from_napi_ref(value.value().env, value.raw()) }
        .map_err(|_| invalid("`store` must be a ToolOutputStore"))?;
    Ok(Arc::clone(handle))
}

/// Where an `s3://` store's bucket is and who asks: the entry's `s3` option
/// with the AWS environment's defaults filled in, each value checked there.
#[napi(object)]
pub struct BucketOptions {
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub force_path_style: Option<bool>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub session_token: Option<String>,
    /// Seconds a note's presigned URL of a saved object stays valid (the
    /// entry checked it is a whole number within SigV4's 7 days; 0: none).
    pub presign_seconds: Option<u32>,
}

impl From<BucketOptions> for S3Options {
    fn from(bucket: BucketOptions) -> Self {
        S3Options {
            endpoint: bucket.endpoint,
            region: bucket.region,
            force_path_style: bucket.force_path_style,
            access_key_id: bucket.access_key_id,
            secret_access_key: bucket.secret_access_key,
            session_token: bucket.session_token,
            presign_seconds: bucket.presign_seconds,
        }
    }
}

/// A new store: `dir` (a folder or an `s3://bucket/prefix` URL; default:
/// the per-user temp folder), the days `cleanup` keeps files, the size cap
/// in bytes, and for an `s3://` store its `bucket`.
#[napi(
    catch_unwind,
    ts_args_type = "dir: unknown, retentionDays: unknown, maxBytes: unknown, bucket: BucketOptions | undefined",
    ts_return_type = "StoreHandle"
)]
pub fn store_new(
    dir: Option<Unknown>,
    retention_days: Option<Unknown>,
    max_bytes: Option<Unknown>,
    bucket: Option<BucketOptions>,
) -> Result<StoreHandle, String> {
    let dir = string_arg(dir, "dir")?;
    let retention_days = number_arg(retention_days, "retentionDays")?;
    let max_bytes = number_arg(max_bytes, "maxBytes")?;
    let s3 = bucket.map(S3Options::from).unwrap_or_default();
    let store = guarded(|| {
        ToolOutputStore::at(dir.as_deref(), &s3, retention_days)
            .and_then(|store| store.with_max_bytes(max_bytes))
            .map_err(store_error)
    })?;
    Ok(External::new(Arc::new(store)))
}

/// The folder a store saves in.
#[napi(catch_unwind, ts_args_type = "store: StoreHandle")]
pub fn store_dir(store: Unknown) -> Result<String, String> {
    Ok(store_of(&store)?.location())
}

/// A save's input, owned.
pub struct SaveWork {
    store: Arc<ToolOutputStore>,
    media_type: Option<String>,
    extension: Option<String>,
    data: OwnedData,
}

impl SaveWork {
    fn read(
        store: &Unknown,
        media_type: Option<Unknown>,
        extension: Option<Unknown>,
        data: &Unknown,
    ) -> Result<Self, String> {
        let work = SaveWork {
            store: store_of(store)?,
            media_type: string_arg(media_type, "mediaType")?,
            extension: string_arg(extension, "extension")?,
            data: OwnedData::Absent,
        };
        if is_nullish(data)? {
            return Err(invalid("`data` is required"));
        }
        Ok(work)
    }

    fn save(&self, payload: Payload) -> Result<StoredFile, String> {
        guarded(|| {
            let saved = save::save_blob(
                &self.store,
                payload,
                self.media_type.as_deref(),
                self.extension.as_deref(),
            )
            .map_err(save_error)?;
            Ok(StoredFile {
                path: saved.path.to_string_lossy().into_owned(),
                byte_length: saved.byte_length as f64,
            })
        })
    }
}

impl PoolWork for SaveWork {
    type Answer = StoredFile;

    fn run(&mut self) -> Result<StoredFile, String> {
        self.save(self.data.payload())
    }
}

/// Save bytes or base64 (decoded) in a store, here.
#[napi(
    catch_unwind,
    ts_args_type = "store: StoreHandle, data: string | Uint8Array, mediaType: unknown, extension: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "StoredFile"
)]
pub fn store_save_sync(
    store: Unknown,
    data: Unknown,
    media_type: Option<Unknown>,
    extension: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<StoredFile, String> {
    let work = SaveWork::read(&store, media_type, extension, &data)?;
    let data = DataArg::read(Some(data), data_is_latin1)?;
    data.with_payload("data", |payload| work.save(payload))?
}

/// A promise of `storeSaveSync` done on the libuv thread pool, from a copy
/// of the data.
#[napi(
    catch_unwind,
    ts_args_type = "store: StoreHandle, data: string | Uint8Array, mediaType: unknown, extension: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "Promise<StoredFile>"
)]
pub fn store_save(
    store: Unknown,
    data: Unknown,
    media_type: Option<Unknown>,
    extension: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<AsyncTask<OnPool<SaveWork>>, String> {
    let mut work = SaveWork::read(&store, media_type, extension, &data)?;
    work.data = DataArg::read(Some(data), data_is_latin1)?.into_owned("data")?;
    Ok(on_pool(work))
}

/// Delete a store's own files older than its retention (and its temp files
/// left by a crash); returns them, in name order.
#[napi(
    catch_unwind,
    ts_args_type = "store: StoreHandle",
    ts_return_type = "RemovedFile[]"
)]
pub fn store_cleanup(store: Unknown) -> Result<List<RemovedFile>, String> {
    let store = store_of(&store)?;
    guarded(|| {
        let removed = store.cleanup_files().map_err(store_error)?;
        Ok(List(
            removed
                .into_iter()
                .map(|file| RemovedFile {
                    name: file.name,
                    byte_length: file.byte_length as f64,
                })
                .collect(),
        ))
    })
}

/// Bytes answered as a Node.js Buffer (the Vec's memory is handed over).
pub struct Bytes(Vec<u8>);

impl TypeName for Bytes {
    fn type_name() -> &'static str {
        "Buffer"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::Object
    }
}

impl ToNapiValue for Bytes {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        value: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        // SAFETY: forwarded with the environment of this call.
        unsafe { Buffer::to_napi_value(env, value.0.into()) }
    }
}

js_answer! {
    // What a file a store saved is, from its head (`storeLook`).
    pub struct SavedLook {
        #[ts("'image' | 'pdf' | 'audio' | 'video' | 'text' | 'binary' | 'empty'")]
        kind: String = "kind",
        media_type: String = "mediaType",
        text_encoding: Option<String> = "textEncoding",
        // A text whose lines end at `\n` bytes, pageable a range at a time.
        paged_by_lines: bool = "pagedByLines",
        byte_length: f64 = "byteLength",
    }
}

/// A read's input, owned.
pub struct ReadWork {
    store: Arc<ToolOutputStore>,
    location: String,
    offset: u64,
    length: Option<u64>,
}

impl ReadWork {
    fn read(
        store: &Unknown,
        location: Option<Unknown>,
        offset: Option<Unknown>,
        length: Option<Unknown>,
    ) -> Result<Self, String> {
        Ok(ReadWork {
            store: store_of(store)?,
            location: string_arg(location, "location")?
                .ok_or_else(|| invalid("`location` must be a string"))?,
            offset: bytes_arg(offset, "offset")?.unwrap_or(0),
            length: bytes_arg(length, "length")?,
        })
    }
}

impl PoolWork for ReadWork {
    type Answer = Bytes;

    fn run(&mut self) -> Result<Bytes, String> {
        guarded(|| {
            self.store
                .read(&self.location, self.offset, self.length)
                .map(Bytes)
                .map_err(store_error)
        })
    }
}

/// Bytes of a file the store wrote (`location` as a note names it), from
/// `offset`, at most `length` and at most the core's bound, here.
#[napi(
    catch_unwind,
    ts_args_type = "store: StoreHandle, location: string, offset: number | undefined, length: number | undefined",
    ts_return_type = "Buffer"
)]
pub fn store_read_sync(
    store: Unknown,
    location: Option<Unknown>,
    offset: Option<Unknown>,
    length: Option<Unknown>,
) -> Result<Bytes, String> {
    ReadWork::read(&store, location, offset, length)?.run()
}

/// A promise of `storeReadSync` done on the libuv thread pool.
#[napi(
    catch_unwind,
    ts_args_type = "store: StoreHandle, location: string, offset: number | undefined, length: number | undefined",
    ts_return_type = "Promise<Buffer>"
)]
pub fn store_read(
    store: Unknown,
    location: Option<Unknown>,
    offset: Option<Unknown>,
    length: Option<Unknown>,
) -> Result<AsyncTask<OnPool<ReadWork>>, String> {
    Ok(on_pool(ReadWork::read(&store, location, offset, length)?))
}

/// A look at a saved file's input, owned.
pub struct LookWork {
    store: Arc<ToolOutputStore>,
    location: String,
}

impl PoolWork for LookWork {
    type Answer = SavedLook;

    fn run(&mut self) -> Result<SavedLook, String> {
        guarded(|| {
            let look = read_back::look(&self.store, &self.location).map_err(store_error)?;
            Ok(SavedLook {
                kind: look.kind.as_str().to_string(),
                media_type: look.media_type.to_string(),
                text_encoding: look.text_encoding.map(|e| e.as_str().to_string()),
                paged_by_lines: look.paged_by_lines,
                byte_length: look.byte_length as f64,
            })
        })
    }
}

/// A promise of what a file the store wrote is (`location` as a note names
/// it), from its head, on the libuv thread pool.
#[napi(
    catch_unwind,
    ts_args_type = "store: StoreHandle, location: string",
    ts_return_type = "Promise<SavedLook>"
)]
pub fn store_look(
    store: Unknown,
    location: Option<Unknown>,
) -> Result<AsyncTask<OnPool<LookWork>>, String> {
    Ok(on_pool(LookWork {
        store: store_of(&store)?,
        location: string_arg(location, "location")?
            .ok_or_else(|| invalid("`location` must be a string"))?,
    }))
}

/// The most one read returns, in bytes.
#[napi]
pub fn store_max_read_bytes() -> f64 {
    crate::store::MAX_READ_BYTES as f64
}
