//! Spill store: writes blobs that cannot go to the model to `tool_<id>.<ext>`
//! files in one folder, atomically, and removes its own expired files.
//!
//! # File names
//!
//! A saved file is named `tool_<id>` or `tool_<id>.<ext>`, where `<id>` is
//! fixed-width, so that the lexical order of names is the order of saves:
//!
//! ```text
//! tool_1764481234567_000042_0000012345.png
//!      ^^^^^^^^^^^^^ ^^^^^^ ^^^^^^^^^^
//!      |             |      process id, 10 digits (separates processes)
//!      |             sequence within that millisecond in this process, 6 digits
//!      milliseconds since the Unix epoch, 13 digits (good until year 2286)
//! ```
//!
//! Within one process ids strictly ascend even if the wall clock steps back
//! (the clock part never goes below the last one used). Across processes a
//! later save sorts after an earlier one whenever they are at least one
//! millisecond apart. Uniqueness does not rest on the id alone: the final name
//! is claimed with a no-replace primitive and a collision (e.g. two containers
//! that both run as pid 1 on a shared volume) just retries with the next id.
//!
//! # Atomicity and symlinks
//!
//! Data is first written to a temp file `.tool_tmp_<pid>_<seq>_<nanos>` in the
//! same folder, opened with `create_new` (`O_CREAT|O_EXCL`, `CREATE_NEW` on
//! Windows: fails on any existing entry, a symlink included, and never follows
//! one) and mode 0600. Once it is completely written and flushed, the final
//! name is claimed with [`std::fs::hard_link`] (`linkat`/`CreateHardLinkW`),
//! which fails with `AlreadyExists` when anything — a file, a folder, a
//! dangling symlink — already has that name, and does not follow a symlink
//! there; then the temp name is removed. The final name therefore never shows
//! a partial file and never replaces or writes through anything.
//!
//! On file systems without hard links (FAT, some network shares) the name is
//! instead reserved with `create_new` (an empty 0600 placeholder) and the temp
//! file is renamed over it; `rename` replaces the placeholder atomically and
//! does not follow symlinks either. The only difference is that the final name
//! holds an empty file for the instant between the two calls.
//!
//! Any failure — the folder cannot be created, the disk is full, the `write`
//! closure of [`ToolOutputStore::save_with`] fails — removes the temp file.
//!
//! Data is flushed to the OS but not `fsync`ed: a spill lives for the length
//! of a conversation in a temp folder. Measured on ext4 (VM, virtio disk),
//! temp file + hard link + unlink per save, without / with `sync_data`:
//! 4 KiB 27 µs / 270 µs, 256 KiB 80 µs / 610 µs, 4 MiB 1.0 ms / 3.7 ms — a
//! 3-10x slowdown, more on a busy or rotating disk. After a power cut a spill
//! may be lost or empty; it is never visible half-written to a running reader.
//!
//! # Folder
//!
//! Every missing level of the folder is created with mode 0700 and, since the
//! mode passed to `mkdir` is filtered by the umask, explicitly set to 0700
//! afterwards. A folder that already existed is not touched. The default
//! folder lives in the shared temp dir, so its per-user level
//! (`mcp-content-<uid>`) is also checked before use: it must be a real folder
//! (not a symlink) owned by this user; if other users could write to it, it
//! is reset to 0700.
//!
//! # Size cap
//!
//! A store holds at most `max_bytes` (default [`DEFAULT_MAX_BYTES`]) in its
//! own files (`tool_<id>[.<ext>]` regular files, whoever wrote them): before a
//! new file is named that would pass the cap, the oldest of them are removed
//! until it fits with an eighth of the cap to spare, so a full folder is
//! listed once per eighth of the cap saved, not with every save. Files a
//! [`KeptFiles`] set names (those one conversion saved: see
//! [`ToolOutputStore::keeping`]) are never removed to make room for another
//! file of the same set; when nothing else can go, the save fails
//! (`STORE_OVER_CAP`) and the part's note says it could not be saved. A blob
//! larger than the whole cap is refused (`STORE_OVER_CAP`) without being
//! written when its size is known first.
//!
//! The cap holds across threads and processes: each save (write, room made,
//! name claimed) runs under an exclusive lock of the folder's lock file
//! `.tool_lock` (`flock`, `LockFileEx`), which also holds the folder's running
//! total, so the folder is listed only when that total says the cap may be
//! reached, whichever store or process saved last. The folder therefore never
//! holds more than `max_bytes` plus the one file being written. Files put
//! there by anything but a store are counted at the next listing. WASI has no
//! file locks: there saves are not serialized across processes.
//!
//! # Free space
//!
//! Before a blob of known size is written, the folder's file system must
//! have room for it and still keep [`FREE_SPACE_RESERVE`] free (or a tenth
//! of the file system, when that is less), so a server cannot fill the disk
//! the agent runs on: otherwise `STORE_NO_SPACE` and nothing is written.
//! Checked on Unix (statvfs) and Windows (`GetDiskFreeSpaceExW`), not on
//! WASI; a full disk during the write is still caught and leaves no file.
//!
//! # Errors
//!
//! Every failure is a [`StoreError`] value; [`StoreError::code`] gives a
//! stable string:
//!
//! | code                      | meaning                                                    |
//! |---------------------------|------------------------------------------------------------|
//! | `INVALID_ARGUMENT`        | bad `retention_days` or extension                          |
//! | `STORE_PERMISSION_DENIED` | the OS refused access, or the default folder is unsafe     |
//! | `STORE_NO_SPACE`          | disk full or too little free space, quota, file too large  |
//! | `STORE_READ_ONLY`         | the file system is read-only                               |
//! | `STORE_NOT_A_DIRECTORY`   | the folder path (or a parent of it) is not a folder        |
//! | `STORE_SOURCE_FAILED`     | the `write` closure of `save_with` failed on its own       |
//! | `STORE_OVER_CAP`          | one blob is larger than the store's whole size cap, or the |
//! |                           | files of its own conversion fill the cap                   |
//! | `STORE_NOT_OWN_FILE`      | `read` of a location that is not one of the store's own    |
//! |                           | files in its folder (elsewhere, `..`, another name, a      |
//! |                           | symlink, not a regular file)                               |
//! | `STORE_NOT_FOUND`         | `read` of an own name no file has (removed, expired)       |
//! | `STORE_S3_UNAVAILABLE`    | an `s3://` store in a build without the S3 client (wasm)   |
//! | `STORE_IO`                | any other I/O error, or an object store's failure other    |
//! |                           | than refused credentials (`STORE_PERMISSION_DENIED`: 401,  |
//! |                           | 403, or a session token refused as expired or invalid)     |
//!
//! # Reading back
//!
//! [`ToolOutputStore::read`] returns a range of a file the store wrote, as
//! a note names it, at most [`MAX_READ_BYTES`] a call (`read.rs`).
//!
//! # Object storage
//!
//! A store made by [`ToolOutputStore::at`] with an `s3://bucket/prefix`
//! location keeps its files as objects in that bucket instead (`s3/`): the
//! same names, cap, cleanup and reads, with the differences its module
//! docs list. Any other URL is refused, never taken for a folder.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

mod folder;
mod names;
mod preallocate;
mod publish;
mod read;
pub mod s3;
#[cfg(test)]
mod tests;

use folder::*;
use names::*;
use publish::*;

pub use read::MAX_READ_BYTES;
pub use s3::{ObjectStore, PresignedUrl, S3Options};

/// Free space a save leaves on the file system, at least (a tenth of the
/// file system when that is less, for small ones).
pub const FREE_SPACE_RESERVE: u64 = 64 * 1024 * 1024;

/// Retention used when `new` gets `None`.
pub const DEFAULT_RETENTION_DAYS: f64 = 7.0;

/// Size cap used when `with_max_bytes` gets `None`: enough for hundreds of
/// screenshots and PDFs, small enough that a server returning blob after
/// blob cannot fill a disk.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// A full folder is cleared until this fraction (1/n) of its cap is free
/// besides the new file, so the listing that clearing needs (a stat per
/// file) comes once per eighth of the cap saved, not with every save. A
/// save of 4 KB into a full store of 10,000 files took 47 ms with a listing
/// every time, 0.05 ms (p50; 0.13 ms mean) this way.
const CAP_SLACK_DIVISOR: u64 = 8;

/// Longest extension accepted by [`ToolOutputStore::save`].
pub const MAX_EXTENSION_LEN: usize = 32;

const FILE_PREFIX: &str = "tool_";
const TEMP_PREFIX: &str = ".tool_tmp_";
/// The folder's lock file, which also holds its running total.
pub const LOCK_NAME: &str = ".tool_lock";
/// Marks a running total as written whole (see [`FolderLock::total`]).
const TOTAL_CHECK: u64 = 0x6d63_702d_746f_7461;
/// Digit groups of a final id: milliseconds, sequence, pid.
const ID_GROUPS: [usize; 3] = [13, 6, 10];
/// Digit groups of a temp name: pid, sequence, nanoseconds.
const TEMP_GROUPS: [usize; 3] = [10, 20, 9];
/// Ids per millisecond per process before the clock part is borrowed forward.
const SEQ_PER_MS: u32 = 1_000_000;
/// Tries to claim a final name (or a temp name) before giving up.
const MAX_ATTEMPTS: u32 = 100;
/// Bytes written to a file per call: each call costs the kernel fixed work
/// again (1 MiB in 48 KiB calls took 620-760 us on Bun, in 256 KiB ones 490).
const WRITE_BUFFER: usize = 256 * 1024;
/// A temp file is never removed by `cleanup` before this age, whatever the
/// retention, so that a save in flight in another thread or process (even
/// with retention 0) is not broken.
pub const TEMP_MIN_AGE: Duration = Duration::from_secs(3600);

const ACTION_CREATE_FOLDER: &str = "create folder";
const ACTION_USE_FOLDER: &str = "use folder";
const ACTION_CREATE_FILE: &str = "create a file in";
const ACTION_WRITE_FILE: &str = "write a file in";
const ACTION_NAME_FILE: &str = "name a file in";
const ACTION_PRODUCE: &str = "produce the content of a file in";
const ACTION_READ_FOLDER: &str = "read folder";
const ACTION_LOCK_FOLDER: &str = "lock folder";

/// Failure of a store operation.
#[derive(Debug)]
pub enum StoreError {
    /// An argument was out of range; the text says which.
    InvalidOption(String),
    /// One blob larger than the store's whole size cap.
    OverCap { byte_length: u64, max_bytes: u64 },
    /// The cap is filled by files kept for the same conversion.
    CapTaken { byte_length: u64, max_bytes: u64 },
    /// Writing the blob would leave less than the reserve free on the disk.
    NoSpace {
        byte_length: u64,
        available: u64,
        reserve: u64,
        path: PathBuf,
    },
    /// A location `read` does not take: not one of the store's own files
    /// in its folder; `why` says what it is instead.
    NotOwnFile { location: String, why: &'static str },
    /// An own file name of the folder that no file has.
    NotFound { path: PathBuf },
    /// An `s3://` store, in a build without the S3 client.
    S3Unavailable,
    /// An object store request failed while doing `action` on `location`
    /// (`status`: the server's answer, `None` when there was none;
    /// `credentials_refused`: the answer refused who asks, see
    /// `s3::client::Failure::refuses_credentials`).
    Remote {
        action: &'static str,
        location: String,
        status: Option<u16>,
        credentials_refused: bool,
        reason: String,
    },
    /// An OS call failed while doing `action` on `path`.
    Io {
        /// What was being done, e.g. `"create folder"`.
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
}

impl StoreError {
    /// Stable machine-readable code; see the module docs for the list.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::InvalidOption(_) => "INVALID_ARGUMENT",
            StoreError::OverCap { .. } | StoreError::CapTaken { .. } => "STORE_OVER_CAP",
            StoreError::NoSpace { .. } => "STORE_NO_SPACE",
            StoreError::NotOwnFile { .. } => "STORE_NOT_OWN_FILE",
            StoreError::NotFound { .. } => "STORE_NOT_FOUND",
            StoreError::S3Unavailable => "STORE_S3_UNAVAILABLE",
            StoreError::Remote {
                credentials_refused: true,
                ..
            } => "STORE_PERMISSION_DENIED",
            StoreError::Remote { .. } => "STORE_IO",
            StoreError::Io { action, source, .. } => match source.kind() {
                io::ErrorKind::PermissionDenied => "STORE_PERMISSION_DENIED",
                io::ErrorKind::StorageFull
                | io::ErrorKind::QuotaExceeded
                | io::ErrorKind::FileTooLarge => "STORE_NO_SPACE",
                io::ErrorKind::ReadOnlyFilesystem => "STORE_READ_ONLY",
                io::ErrorKind::NotADirectory => "STORE_NOT_A_DIRECTORY",
                _ if *action == ACTION_PRODUCE => "STORE_SOURCE_FAILED",
                _ => "STORE_IO",
            },
        }
    }

    fn io(action: &'static str, path: &Path, source: io::Error) -> Self {
        StoreError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::InvalidOption(msg) => write!(f, "invalid option: {msg}"),
            StoreError::OverCap {
                byte_length,
                max_bytes,
            } => write!(
                f,
                "{byte_length} bytes is over the store's size cap of {max_bytes} bytes"
            ),
            StoreError::CapTaken {
                byte_length,
                max_bytes,
            } => write!(
                f,
                "{byte_length} bytes would pass the store's size cap of {max_bytes} bytes, \
                 which files this result saved already fill"
            ),
            StoreError::NoSpace {
                byte_length,
                available,
                reserve,
                path,
            } => write!(
                f,
                "not enough free space in {}: {byte_length} bytes to write, {available} available, {reserve} kept free",
                path.display()
            ),
            StoreError::NotOwnFile { location, why } => write!(
                f,
                "{location:?} is not a file this store wrote: {why}"
            ),
            StoreError::NotFound { path } => write!(
                f,
                "{} is not there any more (removed, or expired and cleaned up)",
                path.display()
            ),
            StoreError::S3Unavailable => write!(
                f,
                "this build of mcp-content has no S3 client (the WebAssembly build): \
                 an s3:// store needs a native build"
            ),
            StoreError::Remote {
                action,
                location,
                reason,
                ..
            } => write!(f, "cannot {action} {location}: {reason}"),
            StoreError::Io {
                action,
                path,
                source,
            } => write!(f, "cannot {action} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::InvalidOption(_)
            | StoreError::OverCap { .. }
            | StoreError::CapTaken { .. }
            | StoreError::NoSpace { .. }
            | StoreError::NotOwnFile { .. }
            | StoreError::NotFound { .. }
            | StoreError::S3Unavailable
            | StoreError::Remote { .. } => None,
            StoreError::Io { source, .. } => Some(source),
        }
    }
}

/// A file [`ToolOutputStore::cleanup_files`] removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// Its name in the store's folder.
    pub name: String,
    /// Its size when it was removed.
    pub byte_length: u64,
}

/// Names of the files one conversion saved: a store [`keeping`] them never
/// removes them to make room (so no note of that conversion names a file it
/// deleted). Shared by the stores of one conversion, dropped with it.
///
/// [`keeping`]: ToolOutputStore::keeping
#[derive(Debug, Default)]
pub struct KeptFiles(Mutex<HashSet<OsString>>);

impl KeptFiles {
    fn names(&self) -> std::sync::MutexGuard<'_, HashSet<OsString>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A file written by [`ToolOutputStore::save`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// Full path of the file (the store's folder joined with its name); of
    /// an object store's object, its `s3://bucket/key` URL.
    pub path: PathBuf,
    /// Number of bytes in the file.
    pub byte_length: u64,
}

/// A folder of spilled tool outputs. Cheap to create; safe to share between
/// threads (`Send + Sync`) and between processes using the same folder.
#[derive(Debug)]
pub struct ToolOutputStore {
    dir: PathBuf,
    retention: Duration,
    /// `Some(tag)` when `dir` is the default per-user folder; `tag` is the
    /// `<user>` part, checked when the folder is first prepared.
    default_user: Option<String>,
    /// The folder was prepared (created / checked) by this store.
    ready: AtomicBool,
    max_bytes: u64,
    /// Files this store saves and never removes to make room.
    kept: Option<Arc<KeptFiles>>,
    /// The bucket an `s3://` store saves in (`dir` is then its URL).
    bucket: Option<Arc<ObjectStore>>,
}

/// Make `dir` absolute and drop `.`/`..` lexically (as `path.resolve`
/// does), so a later chdir of the process does not move the store.
fn resolve(dir: &Path) -> Result<PathBuf, StoreError> {
    let absolute =
        std::path::absolute(dir).map_err(|e| StoreError::io("resolve folder", dir, e))?;
    let mut resolved = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                resolved.pop();
            }
            other => resolved.push(other),
        }
    }
    Ok(resolved)
}

impl ToolOutputStore {
    /// A store in `dir`, or by default in
    /// `<temp dir>/mcp-content-<user>/tool-output` (`<user>` is the uid on
    /// Unix, `USERNAME` on Windows). Does not touch the disk: the folder is
    /// created on the first save. `retention_days` (default
    /// [`DEFAULT_RETENTION_DAYS`]) must be finite and `>= 0`.
    pub fn new(dir: Option<PathBuf>, retention_days: Option<f64>) -> Result<Self, StoreError> {
        let days = retention_days.unwrap_or(DEFAULT_RETENTION_DAYS);
        if !days.is_finite() || days < 0.0 {
            return Err(StoreError::InvalidOption(format!(
                "retention_days must be a finite number >= 0, got {days}"
            )));
        }
        // Saturate absurdly long retentions (1e300 days) to "never expires".
        let retention = Duration::try_from_secs_f64(days * 86_400.0).unwrap_or(Duration::MAX);
        let (dir, default_user) = match dir {
            Some(dir) => {
                if dir.as_os_str().is_empty() {
                    return Err(StoreError::InvalidOption(
                        "dir must not be an empty path".to_string(),
                    ));
                }
                // `s3://b/p` would be the relative folder `./s3:/b/p`.
                if dir.to_str().is_some_and(s3::looks_like_url) {
                    return Err(StoreError::InvalidOption(format!(
                        "{} is a URL, not a folder: a store takes a folder or an \
                         s3://bucket/prefix location",
                        dir.display()
                    )));
                }
                (resolve(&dir)?, None)
            }
            None => {
                let user = current_user_tag();
                let dir = temp_dir()
                    .join(format!("mcp-content-{user}"))
                    .join("tool-output");
                (dir, Some(user))
            }
        };
        Ok(ToolOutputStore {
            dir,
            retention,
            default_user,
            ready: AtomicBool::new(false),
            max_bytes: DEFAULT_MAX_BYTES,
            kept: None,
            bucket: None,
        })
    }

    /// A store at `location`: an `s3://bucket/prefix` URL (reached with
    /// `s3`), any other URL refused, else a folder as [`new`](Self::new)
    /// takes it.
    pub fn at(
        location: Option<&str>,
        s3: &S3Options,
        retention_days: Option<f64>,
    ) -> Result<Self, StoreError> {
        match location {
            Some(url) if url.starts_with(s3::location::SCHEME) => {
                let bucket = ObjectStore::new(url, s3)?;
                let mut store = Self::new(None, retention_days)?;
                store.dir = PathBuf::from(bucket.url());
                store.default_user = None;
                store.bucket = Some(Arc::new(bucket));
                Ok(store)
            }
            location => Self::new(location.map(PathBuf::from), retention_days),
        }
    }

    /// The store's location as a note names it: its folder, or its
    /// `s3://bucket/prefix/` URL.
    pub fn location(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }

    /// A saved file's `path` as notes name it: the path, and for a bucket
    /// store that gives presigned URLs (`s3.presignSeconds`), a URL of the
    /// object signed now ([`note::location`](crate::note::location) writes it).
    pub fn noted_location(&self, path: &str) -> String {
        let url = self
            .bucket
            .as_ref()
            .and_then(|bucket| bucket.presigned_url(path));
        crate::note::location(path, url.as_ref())
    }

    /// Whether the store keeps its files in a bucket.
    pub fn is_object_store(&self) -> bool {
        self.bucket.is_some()
    }

    /// The same store, remembering in `kept` what it saves and never
    /// removing those files to make room (see [`KeptFiles`]).
    pub fn keeping(&self, kept: &Arc<KeptFiles>) -> ToolOutputStore {
        ToolOutputStore {
            dir: self.dir.clone(),
            retention: self.retention,
            default_user: self.default_user.clone(),
            ready: AtomicBool::new(self.ready.load(Ordering::Acquire)),
            max_bytes: self.max_bytes,
            kept: Some(Arc::clone(kept)),
            bucket: self.bucket.clone(),
        }
    }

    /// The same store with a size cap of `max_bytes` (default
    /// [`DEFAULT_MAX_BYTES`]): a whole number >= 1.
    pub fn with_max_bytes(mut self, max_bytes: Option<f64>) -> Result<Self, StoreError> {
        if let Some(max) = max_bytes {
            if !(max >= 1.0 && max.fract() == 0.0 && max <= u64::MAX as f64) {
                return Err(StoreError::InvalidOption(format!(
                    "max_bytes must be a whole number >= 1, got {max}"
                )));
            }
            self.max_bytes = max as u64;
        }
        Ok(self)
    }

    /// The size cap, in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The folder files are saved in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How long a file is kept by [`cleanup`](Self::cleanup).
    pub fn retention(&self) -> Duration {
        self.retention
    }

    /// Writes `data` to a new file `tool_<id>.<extension>` (no dot when
    /// `extension` is empty). `extension` is given without its leading dot
    /// and may only hold ASCII letters, digits, `-` and `_`, no dot (at
    /// most [`MAX_EXTENSION_LEN`] bytes).
    pub fn save(&self, data: &[u8], extension: &str) -> Result<Saved, StoreError> {
        if let Some(bucket) = &self.bucket {
            return bucket.save(data, extension, self.max_bytes, self.kept.as_deref());
        }
        check_extension(extension)?;
        self.check_fits(data.len() as u64)?;
        let lock = self.lock()?;
        let (tmp, mut file) = self.create_temp()?;
        preallocate::claim(&file, data.len() as u64);
        if let Err(e) = file.write_all(data) {
            drop(file);
            discard(&tmp);
            return Err(StoreError::io(ACTION_WRITE_FILE, &self.dir, e));
        }
        self.finish(&lock, tmp, file, data.len() as u64, extension)
    }

    /// Like [`save`](Self::save), but the content is streamed into the file
    /// by `write` (buffered). The returned `byte_length` counts the bytes
    /// actually written, whatever `write` returns on success. If `write`
    /// fails, no file is left behind and the error is returned.
    pub fn save_with(
        &self,
        extension: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
    ) -> Result<Saved, StoreError> {
        self.save_streamed(extension, None, write)
    }

    /// [`save_with`](Self::save_with) for content of a known length,
    /// `byte_length` (what [`check_fits`](Self::check_fits) was asked
    /// about): where that is faster, the file's blocks are claimed before
    /// it is written (`preallocate`). The file holds what `write` wrote,
    /// more or fewer bytes alike.
    pub fn save_sized_with(
        &self,
        extension: &str,
        byte_length: u64,
        write: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
    ) -> Result<Saved, StoreError> {
        self.save_streamed(extension, Some(byte_length), write)
    }

    fn save_streamed(
        &self,
        extension: &str,
        byte_length: Option<u64>,
        write: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
    ) -> Result<Saved, StoreError> {
        if let Some(bucket) = &self.bucket {
            return bucket.save_with(extension, self.max_bytes, self.kept.as_deref(), write);
        }
        check_extension(extension)?;
        let lock = self.lock()?;
        let (tmp, file) = self.create_temp()?;
        let claimed = match byte_length {
            Some(len) if preallocate::claim(&file, len) => len,
            _ => 0,
        };
        self.stream_and_finish(&lock, tmp, file, claimed, extension, write)
    }

    /// The rest of `save_with`: streams into the open temp file `file`
    /// (named `tmp`, `claimed` bytes of blocks claimed for it) and names
    /// it, or removes it on failure. Split out so a test can hand it a file
    /// that fails every write.
    fn stream_and_finish(
        &self,
        lock: &FolderLock,
        tmp: PathBuf,
        file: File,
        claimed: u64,
        extension: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
    ) -> Result<Saved, StoreError> {
        let mut sink = CountingWriter {
            inner: BufWriter::with_capacity(WRITE_BUFFER, file),
            written: 0,
            failure: None,
        };
        let produced = write(&mut sink);
        let flushed = match produced {
            Ok(_) => sink.flush(),
            Err(e) => Err(e),
        };
        let CountingWriter {
            inner,
            written,
            failure,
        } = sink;
        if let Err(e) = flushed {
            drop(inner);
            discard(&tmp);
            // An error of our own file wins over whatever the closure made of it.
            return Err(match failure {
                Some(own) => StoreError::io(ACTION_WRITE_FILE, &self.dir, own),
                None => StoreError::io(ACTION_PRODUCE, &self.dir, e),
            });
        }
        // On either error the file is closed before its temp name is removed.
        let trimmed = inner
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
            .and_then(|file| preallocate::trim(&file, claimed, written).map(|()| file));
        let file = match trimmed {
            Ok(file) => file,
            Err(e) => {
                discard(&tmp);
                return Err(StoreError::io(ACTION_WRITE_FILE, &self.dir, e));
            }
        };
        self.finish(lock, tmp, file, written, extension)
    }

    /// Deletes this store's expired files: regular files directly in the
    /// folder whose name is exactly one `save` produces (`tool_<id>` or
    /// `tool_<id>.<ext>`) or one of its temp names, and whose modification
    /// time is older than the retention (temp files: and older than
    /// [`TEMP_MIN_AGE`]). Symlinks, folders and any other
    /// name are left alone; nothing is followed or descended into. Returns
    /// how many files were removed; a missing folder gives `Ok(0)`. A file
    /// that cannot be removed (or vanished meanwhile) is skipped; only
    /// failing to list the folder is an error.
    pub fn cleanup(&self) -> Result<usize, StoreError> {
        self.cleanup_files().map(|removed| removed.len())
    }

    /// [`cleanup`](Self::cleanup), telling which files it removed (temp
    /// files included), in name order.
    pub fn cleanup_files(&self) -> Result<Vec<Removed>, StoreError> {
        if let Some(bucket) = &self.bucket {
            return bucket.cleanup(self.retention);
        }
        // Under the folder's lock when it has one: no save of a store is in
        // flight meanwhile, and the running total is kept right.
        let lock = FolderLock::acquire(&self.dir, false).ok().flatten();
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(ACTION_READ_FOLDER, &self.dir, e)),
        };
        let now = SystemTime::now();
        // `None`: nothing can be that old (retention saturated to "never").
        let cutoff = now.checked_sub(self.retention);
        let temp_cutoff = now.checked_sub(self.retention.max(TEMP_MIN_AGE));
        let mut removed = Vec::new();
        let mut own_bytes: u64 = 0;
        for entry in entries {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let own = is_own_file_name(name);
            let cutoff = if own {
                cutoff
            } else if is_own_temp_name(name) {
                temp_cutoff
            } else {
                continue;
            };
            let Some(cutoff) = cutoff else { continue };
            // `DirEntry::metadata` does not follow symlinks.
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let Ok(modified) = meta.modified() else {
                continue;
            };
            if modified >= cutoff {
                continue;
            }
            // `remove_file` unlinks the name itself; it never touches what a
            // symlink (swapped in meanwhile) would point to.
            if fs::remove_file(entry.path()).is_ok() {
                if own {
                    own_bytes = own_bytes.saturating_add(meta.len());
                }
                removed.push(Removed {
                    name: name.to_string(),
                    byte_length: meta.len(),
                });
            }
        }
        if let Some(lock) = &lock {
            if let Some(total) = lock.total() {
                lock.set_total(total.saturating_sub(own_bytes));
            }
        }
        removed.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(removed)
    }

    /// Locks the folder (creating it and its lock file if needed) for one
    /// save; the lock lasts as long as the value.
    fn lock(&self) -> Result<FolderLock, StoreError> {
        if !self.ready.load(Ordering::Acquire) {
            self.prepare_dir()?;
        }
        let locked = match FolderLock::acquire(&self.dir, true) {
            // The folder vanished (e.g. a temp cleaner): recreate it once.
            Err((_, e)) if e.kind() == io::ErrorKind::NotFound => {
                self.prepare_dir()?;
                FolderLock::acquire(&self.dir, true)
            }
            other => other,
        };
        match locked {
            Ok(Some(lock)) => Ok(lock),
            Ok(None) => Err(StoreError::io(
                ACTION_CREATE_FILE,
                &self.dir,
                io::ErrorKind::NotFound.into(),
            )),
            Err((action, e)) => Err(StoreError::io(action, &self.dir, e)),
        }
    }

    /// Creates and opens a fresh temp file (creating the folder if needed).
    fn create_temp(&self) -> Result<(PathBuf, File), StoreError> {
        if !self.ready.load(Ordering::Acquire) {
            self.prepare_dir()?;
        }
        let mut prepared_again = false;
        let mut attempts = 0;
        loop {
            let tmp = self.dir.join(temp_name(attempts));
            match open_new(&tmp) {
                Ok(file) => return Ok((tmp, file)),
                // The folder vanished (e.g. a temp cleaner): recreate it once.
                Err(e) if e.kind() == io::ErrorKind::NotFound && !prepared_again => {
                    prepared_again = true;
                    self.prepare_dir()?;
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < MAX_ATTEMPTS => {
                    attempts += 1;
                }
                Err(e) => return Err(StoreError::io(ACTION_CREATE_FILE, &self.dir, e)),
            }
        }
    }

    /// Closes the complete temp file, makes room for it and gives it its
    /// final name, under the folder's `lock`.
    fn finish(
        &self,
        lock: &FolderLock,
        tmp: PathBuf,
        file: File,
        byte_length: u64,
        extension: &str,
    ) -> Result<Saved, StoreError> {
        // Closing reports nothing in std; data is already in the OS cache
        // (see the module docs on fsync).
        drop(file);
        let total = match self.make_room(lock, byte_length) {
            Ok(total) => total,
            Err(e) => {
                discard(&tmp);
                return Err(e);
            }
        };
        // Counted before it is named: a crash between the two leaves the
        // total too high (a listing sooner), never too low.
        lock.set_total(total.saturating_add(byte_length));
        match publish(&tmp, &self.dir, |collisions| {
            final_name(&next_id(collisions), extension)
        }) {
            Ok(path) => {
                if let (Some(kept), Some(name)) = (&self.kept, path.file_name()) {
                    kept.names().insert(name.to_os_string());
                }
                Ok(Saved { path, byte_length })
            }
            Err(e) => {
                lock.set_total(total);
                discard(&tmp);
                Err(StoreError::io(ACTION_NAME_FILE, &self.dir, e))
            }
        }
    }

    /// Whether a blob of `byte_length` bytes may be written: under the size
    /// cap, and with room on the disk (see the module docs). Call it before
    /// writing; nothing is written when it fails.
    pub fn check_fits(&self, byte_length: u64) -> Result<(), StoreError> {
        self.check_cap(byte_length)?;
        if self.bucket.is_some() {
            // A bucket's room is its provider's: the cap is all we check.
            return Ok(());
        }
        self.check_free_space(byte_length)
    }

    fn check_free_space(&self, byte_length: u64) -> Result<(), StoreError> {
        // A folder not made yet: its nearest existing parent's file system.
        let Some(existing) = self.dir.ancestors().find(|p| p.exists()) else {
            return Ok(());
        };
        // Unknown (the OS refused): the write itself still reports a full disk.
        let Some((available, total)) = disk_space(existing) else {
            return Ok(());
        };
        let reserve = FREE_SPACE_RESERVE.min(total / 10);
        if byte_length.saturating_add(reserve) > available {
            return Err(StoreError::NoSpace {
                byte_length,
                available,
                reserve,
                path: self.dir.clone(),
            });
        }
        Ok(())
    }

    /// A blob of `byte_length` bytes can never fit: refuse it before writing.
    fn check_cap(&self, byte_length: u64) -> Result<(), StoreError> {
        if byte_length > self.max_bytes {
            return Err(StoreError::OverCap {
                byte_length,
                max_bytes: self.max_bytes,
            });
        }
        Ok(())
    }

    /// Removes the oldest own files until `incoming` more bytes fit under the
    /// cap with an eighth of it ([`CAP_SLACK_DIVISOR`]) to spare, never one
    /// this store keeps; returns the bytes of own files left. The folder is
    /// listed only when the running total in `lock` is unknown or says the
    /// cap may be reached.
    fn make_room(&self, lock: &FolderLock, incoming: u64) -> Result<u64, StoreError> {
        // The file is written already: only the cap is checked here.
        self.check_cap(incoming)?;
        if let Some(total) = lock.total() {
            if total.saturating_add(incoming) <= self.max_bytes {
                return Ok(total);
            }
        }
        count_listing();
        let mut files = own_files(&self.dir);
        let mut total: u64 = files.iter().map(|(_, len)| len).sum();
        let kept = self.kept.as_ref().map(|kept| kept.names());
        let is_kept = |path: &Path| {
            kept.as_ref()
                .is_some_and(|names| path.file_name().is_some_and(|n| names.contains(n)))
        };
        let kept_bytes: u64 = files
            .iter()
            .filter(|(path, _)| is_kept(path))
            .map(|(_, len)| len)
            .sum();
        // Nothing is removed for a file that cannot fit anyway.
        if kept_bytes.saturating_add(incoming) > self.max_bytes {
            lock.set_total(total);
            return Err(StoreError::CapTaken {
                byte_length: incoming,
                max_bytes: self.max_bytes,
            });
        }
        // Names sort in creation order: the oldest go first.
        let goal = self.max_bytes - self.max_bytes / CAP_SLACK_DIVISOR;
        files.sort();
        for (path, len) in files {
            if total.saturating_add(incoming) <= goal {
                break;
            }
            if !is_kept(&path) && fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
        Ok(total)
    }

    /// Creates the folder (0700 for every level created here) and, for the
    /// default per-user folder, checks its per-user level is safe.
    fn prepare_dir(&self) -> Result<(), StoreError> {
        let create = |dir: &Path| {
            create_dirs(dir).map_err(|(path, e)| StoreError::io(ACTION_CREATE_FOLDER, &path, e))
        };
        match (&self.default_user, self.dir.parent()) {
            (Some(user), Some(base)) => {
                // Check the per-user level before creating anything in it.
                create(base)?;
                check_private_dir(base, user)
                    .map_err(|e| StoreError::io(ACTION_USE_FOLDER, base, e))?;
                create(&self.dir)?;
                check_real_dir(&self.dir)
                    .map_err(|e| StoreError::io(ACTION_USE_FOLDER, &self.dir, e))?;
            }
            _ => create(&self.dir)?,
        }
        self.ready.store(true, Ordering::Release);
        Ok(())
    }
}
