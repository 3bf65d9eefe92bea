//! [`ObjectStore`]: saves, the size cap, cleanup and reads of a store in a
//! bucket (the rules are in the module docs of `s3`).

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::client::{Client, Endpoint, Failure};
use super::location::BucketPrefix;
use super::upload::{Multipart, Sink, SinkFailure, Written};
use super::{PresignedUrl, S3Options, MAX_PRESIGN_SECONDS, PART_SIZE};
use crate::store::{
    check_extension, final_name, next_id, KeptFiles, Removed, Saved, StoreError, ACTION_PRODUCE,
    FILE_PREFIX, ID_GROUPS, MAX_ATTEMPTS,
};

const ACTION_UPLOAD: &str = "upload";
const ACTION_LIST: &str = "list";
const ACTION_READ: &str = "read";
const ACTION_DELETE: &str = "delete";

/// Where objects go without an endpoint: AWS itself.
const DEFAULT_REGION: &str = "us-east-1";

#[derive(Debug)]
pub struct ObjectStore {
    at: BucketPrefix,
    client: Client,
    /// How long the presigned URL a note gives stays valid; `None`: no URL.
    presign: Option<Duration>,
}

impl ObjectStore {
    /// A store at `url` (`s3://bucket/prefix`). Sends nothing: the bucket is
    /// first reached by a save, a read or a cleanup.
    pub fn new(url: &str, options: &S3Options) -> Result<Self, StoreError> {
        let at = BucketPrefix::parse(url)?;
        let given = |value: &Option<String>| value.clone().filter(|v| !v.is_empty());
        let region = given(&options.region).unwrap_or_else(|| DEFAULT_REGION.to_string());
        let (endpoint, path_style) = match given(&options.endpoint) {
            Some(endpoint) => (endpoint, true),
            None => (format!("https://s3.{region}.amazonaws.com"), false),
        };
        let (Some(access_key_id), Some(secret_access_key)) = (
            given(&options.access_key_id),
            given(&options.secret_access_key),
        ) else {
            return Err(StoreError::InvalidOption(format!(
                "no credentials for {}: give s3.accessKeyId and s3.secretAccessKey, or set \
                 AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                at.url()
            )));
        };
        let endpoint = Endpoint {
            endpoint,
            region,
            path_style: options.force_path_style.unwrap_or(path_style),
            access_key_id,
            secret_access_key,
            session_token: given(&options.session_token),
        };
        let presign = match options.presign_seconds {
            None | Some(0) => None,
            Some(seconds @ 1..=MAX_PRESIGN_SECONDS) => Some(Duration::from_secs(seconds.into())),
            Some(seconds) => {
                return Err(StoreError::InvalidOption(format!(
                    "s3.presignSeconds must be from 0 (no URL) to {MAX_PRESIGN_SECONDS} \
                     (7 days, the longest SigV4 allows), got {seconds}"
                )))
            }
        };
        let client = Client::new(&at.bucket, &endpoint).map_err(StoreError::InvalidOption)?;
        Ok(ObjectStore {
            at,
            client,
            presign,
        })
    }

    /// A presigned HTTPS URL of the own object `location` names, signed now,
    /// when the store gives them (`presign_seconds`); `None` otherwise, and
    /// for any location that is not one of its own objects.
    pub fn presigned_url(&self, location: &str) -> Option<PresignedUrl> {
        let valid_for = self.presign?;
        let key = self.at.own_key(location).ok()?;
        let (url, expires) = self.client.presigned_get(&key, valid_for);
        Some(PresignedUrl {
            url,
            expires: expires.to_string(),
        })
    }

    /// `s3://bucket/prefix/`.
    pub fn url(&self) -> String {
        self.at.url()
    }

    fn remote(&self, action: &'static str, key: &str, failure: Failure) -> StoreError {
        StoreError::Remote {
            action,
            location: self.at.object_url(key),
            status: failure.status(),
            credentials_refused: failure.refuses_credentials(),
            reason: failure.to_string(),
        }
    }

    fn saved(&self, name: &str, key: &str, byte_length: u64, kept: Option<&KeptFiles>) -> Saved {
        if let Some(kept) = kept {
            kept.names().insert(name.into());
        }
        Saved {
            path: PathBuf::from(self.at.object_url(key)),
            byte_length,
        }
    }

    /// `data` as a new object `<prefix>tool_<id>.<extension>`.
    pub fn save(
        &self,
        data: &[u8],
        extension: &str,
        max_bytes: u64,
        kept: Option<&KeptFiles>,
    ) -> Result<Saved, StoreError> {
        check_extension(extension)?;
        let length = data.len() as u64;
        check_cap(length, max_bytes)?;
        self.make_room(length, max_bytes, kept)?;
        self.put_named(data, extension, None, kept)
    }

    /// A whole blob under a fresh name (`first` for the first try), the
    /// name after a collision retried with the next id.
    fn put_named(
        &self,
        data: &[u8],
        extension: &str,
        first: Option<String>,
        kept: Option<&KeptFiles>,
    ) -> Result<Saved, StoreError> {
        let mut name = first.unwrap_or_else(|| final_name(&next_id(0), extension));
        let mut collisions = 0;
        loop {
            let key = self.at.key(&name);
            let put = if data.len() <= PART_SIZE {
                self.client.put(&key, data, true)
            } else {
                self.upload_parts(&key, data)
            };
            match put {
                Ok(()) => return Ok(self.saved(&name, &key, data.len() as u64, kept)),
                Err(f) if f.status() == Some(412) && collisions < MAX_ATTEMPTS => {
                    collisions += 1;
                    name = final_name(&next_id(collisions), extension);
                }
                Err(f) => return Err(self.remote(ACTION_UPLOAD, &key, f)),
            }
        }
    }

    fn upload_parts(&self, key: &str, data: &[u8]) -> Result<(), Failure> {
        let mut upload = Multipart::start(&self.client, key)?;
        for part in data.chunks(PART_SIZE) {
            upload.part(part)?;
        }
        upload.complete(true)
    }

    /// A blob streamed by `write`: one part buffered at a time, uploaded as
    /// it fills; nothing is an object unless all of it was written.
    pub fn save_with(
        &self,
        extension: &str,
        max_bytes: u64,
        kept: Option<&KeptFiles>,
        write: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
    ) -> Result<Saved, StoreError> {
        check_extension(extension)?;
        let name = final_name(&next_id(0), extension);
        let key = self.at.key(&name);
        let mut sink = Sink::new(&self.client, &key, max_bytes);
        let produced = write(&mut sink);
        let written = sink.written;
        // An error of our own upload wins over what the producer made of it;
        // dropping the sink aborts an upload it started.
        match (sink.failure.take(), produced) {
            (Some(SinkFailure::OverLimit(at_least)), _) => {
                return Err(StoreError::OverCap {
                    byte_length: at_least,
                    max_bytes,
                })
            }
            (Some(SinkFailure::Upload(f)), _) => return Err(self.remote(ACTION_UPLOAD, &key, f)),
            (None, Err(e)) => {
                return Err(StoreError::Io {
                    action: ACTION_PRODUCE,
                    path: PathBuf::from(self.at.url()),
                    source: e,
                })
            }
            (None, Ok(_)) => {}
        }
        self.make_room(written, max_bytes, kept)?;
        let written_to = sink.finish();
        match written_to {
            Written::Whole(bytes) => self.put_named(&bytes, extension, Some(name), kept),
            Written::Parts(mut upload, last) => {
                let done = match last.is_empty() {
                    true => Ok(()),
                    false => upload.part(&last),
                };
                done.and_then(|()| upload.complete(true))
                    .map_err(|f| self.remote(ACTION_UPLOAD, &key, f))?;
                Ok(self.saved(&name, &key, written, kept))
            }
        }
    }

    /// The store's own objects (name, key, size), listed now.
    fn own_objects(&self) -> Result<Vec<(String, String, u64)>, StoreError> {
        let listed = self
            .client
            .list(&self.at.prefix)
            .map_err(|f| self.remote(ACTION_LIST, &self.at.prefix, f))?;
        Ok(listed
            .into_iter()
            .filter_map(|object| {
                let name = self.at.own_name(&object.key)?.to_string();
                Some((name, object.key, object.size))
            })
            .collect())
    }

    /// Deletes the oldest own objects until `incoming` more bytes fit under
    /// the cap, never one `kept` names.
    fn make_room(
        &self,
        incoming: u64,
        max_bytes: u64,
        kept: Option<&KeptFiles>,
    ) -> Result<(), StoreError> {
        check_cap(incoming, max_bytes)?;
        let mut objects = self.own_objects()?;
        let mut total: u64 = objects.iter().map(|(_, _, size)| size).sum();
        if total.saturating_add(incoming) <= max_bytes {
            return Ok(());
        }
        let kept = kept.map(KeptFiles::names);
        let is_kept = |name: &str| {
            kept.as_ref()
                .is_some_and(|names| names.contains(std::ffi::OsStr::new(name)))
        };
        let kept_bytes: u64 = objects
            .iter()
            .filter(|(name, _, _)| is_kept(name))
            .map(|(_, _, size)| size)
            .sum();
        if kept_bytes.saturating_add(incoming) > max_bytes {
            return Err(StoreError::CapTaken {
                byte_length: incoming,
                max_bytes,
            });
        }
        // Names sort in save order: the oldest go first.
        objects.sort();
        for (name, key, size) in objects {
            if total.saturating_add(incoming) <= max_bytes {
                break;
            }
            if is_kept(&name) {
                continue;
            }
            self.client
                .delete(&key)
                .map_err(|f| self.remote(ACTION_DELETE, &key, f))?;
            total -= size;
        }
        Ok(())
    }

    /// Deletes own objects whose id (the save's time) is older than
    /// `retention`; returns them in name order.
    pub fn cleanup(&self, retention: Duration) -> Result<Vec<Removed>, StoreError> {
        let Some(cutoff) = SystemTime::now().checked_sub(retention) else {
            return Ok(Vec::new());
        };
        let cutoff_ms = cutoff
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut removed = Vec::new();
        for (name, key, size) in self.own_objects()? {
            if saved_ms(&name).is_some_and(|ms| ms < cutoff_ms) && self.client.delete(&key).is_ok()
            {
                removed.push(Removed {
                    name,
                    byte_length: size,
                });
            }
        }
        removed.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(removed)
    }

    /// Bytes of an own object (see `BucketPrefix::own_key`), and its size.
    pub fn read(
        &self,
        location: &str,
        offset: u64,
        length: Option<u64>,
        most: u64,
    ) -> Result<(Vec<u8>, u64), StoreError> {
        let key = self.at.own_key(location)?;
        let missing = || StoreError::NotFound {
            path: PathBuf::from(location),
        };
        let size = self
            .client
            .size(&key)
            .map_err(|f| self.remote(ACTION_READ, &key, f))?
            .ok_or_else(missing)?;
        let wanted = length
            .unwrap_or(u64::MAX)
            .min(most)
            .min(size.saturating_sub(offset));
        if wanted == 0 {
            return Ok((Vec::new(), size));
        }
        let bytes = self
            .client
            .get_range(&key, offset, wanted)
            .map_err(|f| self.remote(ACTION_READ, &key, f))?
            .ok_or_else(missing)?;
        Ok((bytes, size))
    }
}

fn check_cap(byte_length: u64, max_bytes: u64) -> Result<(), StoreError> {
    if byte_length > max_bytes {
        return Err(StoreError::OverCap {
            byte_length,
            max_bytes,
        });
    }
    Ok(())
}

/// The milliseconds part of an own name's id.
fn saved_ms(name: &str) -> Option<u64> {
    name.strip_prefix(FILE_PREFIX)?
        .get(..ID_GROUPS[0])?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_save_time_is_read_from_the_name() {
        assert_eq!(
            saved_ms("tool_1764481234567_000042_0000012345.png"),
            Some(1_764_481_234_567)
        );
        assert_eq!(saved_ms("x"), None);
    }

    #[test]
    fn credentials_are_required() {
        let err = ObjectStore::new("s3://spills/a", &S3Options::default()).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(err.to_string().contains("AWS_ACCESS_KEY_ID"), "{err}");
        let options = S3Options {
            endpoint: Some("ftp://127.0.0.1:1".into()),
            access_key_id: Some("k".into()),
            secret_access_key: Some("s".into()),
            ..S3Options::default()
        };
        let err = ObjectStore::new("s3://spills/a", &options).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        // Host names are ASCII: Cargo.lock pins idna_adapter 1.0 (no Unicode
        // tables in the addon), so an internationalized one is refused.
        let options = S3Options {
            endpoint: Some("https://bücket.example".into()),
            ..options
        };
        let err = ObjectStore::new("s3://spills/a", &options).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(err.to_string().contains("is not a URL"), "{err}");
    }

    #[test]
    fn presigned_urls_of_own_objects_when_asked() {
        const OWN: &str = "s3://spills/a/tool_1764481234567_000042_0000012345.png";
        let with = |presign_seconds| S3Options {
            endpoint: Some("http://127.0.0.1:1".into()),
            access_key_id: Some("GKkey".into()),
            secret_access_key: Some("secret".into()),
            presign_seconds,
            ..S3Options::default()
        };
        for off in [None, Some(0)] {
            let store = ObjectStore::new("s3://spills/a", &with(off)).unwrap();
            assert_eq!(store.presigned_url(OWN), None);
        }
        let store = ObjectStore::new("s3://spills/a", &with(Some(3600))).unwrap();
        let url = store.presigned_url(OWN).unwrap();
        assert!(
            url.url.starts_with(
                "http://127.0.0.1:1/spills/a/tool_1764481234567_000042_0000012345.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=GKkey%2F"
            ),
            "{}",
            url.url
        );
        assert!(url.url.contains("&X-Amz-Expires=3600&"), "{}", url.url);
        assert!(
            !url.url.contains(['(', ')', '[', ']', ';', ' ']),
            "{}",
            url.url
        );
        // `2026-12-02T17:00:00Z`: whole seconds, UTC.
        assert_eq!(url.expires.len(), 20, "{}", url.expires);
        assert!(url.expires.ends_with('Z'), "{}", url.expires);
        // Never for what is not an own object of the store.
        for other in [
            "s3://spills/b/tool_1764481234567_000042_0000012345.png",
            "s3://spills/a/secret.txt",
            "/tmp/tool_1764481234567_000042_0000012345.png",
        ] {
            assert_eq!(store.presigned_url(other), None, "{other}");
        }
        assert!(ObjectStore::new("s3://spills/a", &with(Some(604_800))).is_ok());
        let err = ObjectStore::new("s3://spills/a", &with(Some(604_801))).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(err.to_string().contains("604800"), "{err}");
    }

    #[test]
    fn an_unreachable_server_is_a_clear_error() {
        // A port nothing listens on: connection refused, at once.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options = S3Options {
            endpoint: Some(format!("http://127.0.0.1:{port}")),
            access_key_id: Some("k".into()),
            secret_access_key: Some("s".into()),
            ..S3Options::default()
        };
        let store = ObjectStore::new("s3://spills/a", &options).unwrap();
        let err = store.save(b"hello", "txt", 1 << 20, None).unwrap_err();
        assert_eq!(err.code(), "STORE_IO");
        assert!(
            err.to_string().starts_with("cannot list s3://spills/a/"),
            "{err}"
        );
        let err = store.save(&[0; 10], "txt", 5, None).unwrap_err();
        assert_eq!(err.code(), "STORE_OVER_CAP");
    }
}
