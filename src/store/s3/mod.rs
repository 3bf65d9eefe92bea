//! The object-store backend: a store given `s3://bucket/prefix` saves its
//! objects in that bucket under that prefix, with the folder store's names,
//! size cap and cleanup where S3 allows (docs/store.md, "Object storage").
//!
//! - A saved object is complete or absent: one PUT up to [`PART_SIZE`],
//!   above it a multipart upload that is aborted on any failure (the parts
//!   of an upload never completed are no object; a bucket lifecycle rule
//!   `AbortIncompleteMultipartUpload` removes those an abort could not).
//! - Names come from the folder store's id sequence; the PUT (and the
//!   upload's completion) carry `If-None-Match: *`, so on a server that
//!   honours it a name someone else took is retried with the next id.
//! - The size cap is kept by listing the prefix before each save and
//!   deleting the oldest own objects: S3 has no lock, so saves in several
//!   processes at once can pass the cap by what they write together.
//! - `cleanup` deletes own objects whose id is older than the retention; a
//!   lifecycle rule on the prefix does the same without a caller.
//! - Reads take only `s3://bucket/<prefix><own name>` (location.rs).
//!
//! The client (client.rs, upload.rs) is built with the `s3` feature and not
//! for wasm; elsewhere [`ObjectStore`] has no value and every `s3://` store
//! is refused with `STORE_S3_UNAVAILABLE`.

pub mod location;

#[cfg(all(feature = "s3", not(target_family = "wasm")))]
mod client;
#[cfg(all(feature = "s3", not(target_family = "wasm")))]
mod store;
#[cfg(all(feature = "s3", not(target_family = "wasm")))]
mod upload;

#[cfg(all(feature = "s3", not(target_family = "wasm")))]
pub use store::ObjectStore;

pub use location::{looks_like_url, BucketPrefix};

/// A time-limited HTTPS URL of a saved object (a presigned GET): anyone
/// holding it reads the object until `expires`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresignedUrl {
    pub url: String,
    /// When it stops working, in RFC 3339 UTC (`2026-12-02T17:00:00Z`).
    pub expires: String,
}

/// Parts of a multipart upload, and the size up to which one PUT is used:
/// above S3's 5 MiB minimum part, and the most a streamed save buffers.
pub const PART_SIZE: usize = 8 * 1024 * 1024;

/// The longest a presigned URL may be valid: SigV4's 7 days.
pub const MAX_PRESIGN_SECONDS: u32 = 7 * 24 * 60 * 60;

/// Where the bucket is and who is asking, as the caller gave them (the JS
/// entry fills the defaults from the AWS environment variables).
#[derive(Debug, Clone, Default)]
pub struct S3Options {
    /// `https://host[:port]`; default `https://s3.<region>.amazonaws.com`.
    pub endpoint: Option<String>,
    /// Default `us-east-1`.
    pub region: Option<String>,
    /// Bucket in the path (`endpoint/bucket/key`) rather than the host name;
    /// default: path style when an endpoint is given (self-hosted servers),
    /// virtual-host style for AWS.
    pub force_path_style: Option<bool>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub session_token: Option<String>,
    /// Seconds a presigned HTTPS URL of a saved object stays valid, given in
    /// its notes beside the `s3://` location; `None` or 0: no URL.
    pub presign_seconds: Option<u32>,
}

/// The store of a build without an S3 client: no value exists.
#[cfg(not(all(feature = "s3", not(target_family = "wasm"))))]
#[derive(Debug)]
pub enum ObjectStore {}

#[cfg(not(all(feature = "s3", not(target_family = "wasm"))))]
mod unavailable {
    use super::super::{KeptFiles, Removed, Saved, StoreError};
    use super::{ObjectStore, PresignedUrl, S3Options};
    use std::io::{self, Write};
    use std::time::Duration;

    impl ObjectStore {
        pub fn new(_url: &str, _options: &S3Options) -> Result<Self, StoreError> {
            Err(StoreError::S3Unavailable)
        }
        pub fn url(&self) -> String {
            match *self {}
        }
        pub fn save(
            &self,
            _: &[u8],
            _: &str,
            _: u64,
            _: Option<&KeptFiles>,
        ) -> Result<Saved, StoreError> {
            match *self {}
        }
        pub fn save_with(
            &self,
            _: &str,
            _: u64,
            _: Option<&KeptFiles>,
            _: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
        ) -> Result<Saved, StoreError> {
            match *self {}
        }
        pub fn read(
            &self,
            _: &str,
            _: u64,
            _: Option<u64>,
            _: u64,
        ) -> Result<(Vec<u8>, u64), StoreError> {
            match *self {}
        }
        pub fn cleanup(&self, _: Duration) -> Result<Vec<Removed>, StoreError> {
            match *self {}
        }
        pub fn presigned_url(&self, _: &str) -> Option<PresignedUrl> {
            match *self {}
        }
    }
}
