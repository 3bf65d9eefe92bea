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
//! new file is named, the oldest of them are removed until it fits. Files a
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
//! | `STORE_IO`                | any other I/O error                                        |

use std::collections::HashSet;
use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Free space a save leaves on the file system, at least (a tenth of the
/// file system when that is less, for small ones).
pub const FREE_SPACE_RESERVE: u64 = 64 * 1024 * 1024;

/// Retention used when `new` gets `None`.
pub const DEFAULT_RETENTION_DAYS: f64 = 7.0;

/// Size cap used when `with_max_bytes` gets `None`: enough for hundreds of
/// screenshots and PDFs, small enough that a server returning blob after
/// blob cannot fill a disk.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

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
const WRITE_BUFFER: usize = 64 * 1024;
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
            | StoreError::NoSpace { .. } => None,
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
    /// Full path of the file (the store's folder joined with its name).
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
        })
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
        check_extension(extension)?;
        self.check_fits(data.len() as u64)?;
        let lock = self.lock()?;
        let (tmp, mut file) = self.create_temp()?;
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
        check_extension(extension)?;
        let lock = self.lock()?;
        let (tmp, file) = self.create_temp()?;
        self.stream_and_finish(&lock, tmp, file, extension, write)
    }

    /// The rest of `save_with`: streams into the open temp file `file`
    /// (named `tmp`) and names it, or removes it on failure. Split out so a
    /// test can hand it a file that fails every write.
    fn stream_and_finish(
        &self,
        lock: &FolderLock,
        tmp: PathBuf,
        file: File,
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
        let file = match inner.into_inner() {
            Ok(file) => file,
            Err(e) => {
                let (e, inner) = e.into_parts();
                drop(inner);
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
    /// cap, never one this store keeps; returns the bytes of own files left.
    /// The folder is listed only when the running total in `lock` is
    /// unknown or says the cap may be reached.
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
        files.sort();
        for (path, len) in files {
            if total.saturating_add(incoming) <= self.max_bytes {
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

/// Bytes this user may still write and total bytes of the file system
/// holding `path`, when the OS tells.
#[cfg(unix)]
fn disk_space(path: &Path) -> Option<(u64, u64)> {
    let stats = rustix::fs::statvfs(path).ok()?;
    let unit = stats.f_frsize.max(1);
    Some((
        stats.f_bavail.saturating_mul(unit),
        stats.f_blocks.saturating_mul(unit),
    ))
}

#[cfg(windows)]
fn disk_space(path: &Path) -> Option<(u64, u64)> {
    let stats = fs4::statvfs(path).ok()?;
    Some((stats.available_space(), stats.total_space()))
}

/// WASI preview 1 has no statvfs.
#[cfg(not(any(unix, windows)))]
fn disk_space(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// The folder's lock file, locked exclusively (released when dropped), and
/// the running total it holds: bytes of the folder's own files.
struct FolderLock {
    file: File,
}

impl FolderLock {
    /// Opens and locks `<dir>/.tool_lock`, creating it (0600) when `create`;
    /// `None` when it does not exist and `create` is false. Never follows a
    /// symlink there, nor waits on a FIFO; anything but a regular file is an
    /// error. Waits for the lock. Where the system has no file locks (WASI),
    /// the file is used unlocked.
    /// An error comes with what was being done (creating the file, or
    /// locking it).
    fn acquire(dir: &Path, create: bool) -> Result<Option<FolderLock>, (&'static str, io::Error)> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(create);
        #[cfg(unix)]
        {
            use rustix::fs::OFlags;
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
            options.custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::OpenOptionsExt;
            const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
            options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
        }
        let file = match options.open(dir.join(LOCK_NAME)) {
            Ok(file) => file,
            Err(e) if !create && e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err((ACTION_CREATE_FILE, e)),
        };
        match file.metadata() {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => {
                let e = io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{LOCK_NAME} is not a regular file"),
                );
                return Err((ACTION_LOCK_FOLDER, e));
            }
            Err(e) => return Err((ACTION_LOCK_FOLDER, e)),
        }
        match file.lock() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {}
            Err(e) => return Err((ACTION_LOCK_FOLDER, e)),
        }
        Ok(Some(FolderLock { file }))
    }

    /// The running total, when one was written whole (a new, torn or
    /// foreign file gives `None`: the folder is listed).
    fn total(&self) -> Option<u64> {
        let mut buf = [0u8; 16];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0)).ok()?;
        file.read_exact(&mut buf).ok()?;
        let total = u64::from_le_bytes(buf[..8].try_into().ok()?);
        let check = u64::from_le_bytes(buf[8..].try_into().ok()?);
        (check == total ^ TOTAL_CHECK).then_some(total)
    }

    /// Records the running total; a failure only means a listing later.
    fn set_total(&self, total: u64) {
        let mut buf = [0u8; 16];
        buf[..8].copy_from_slice(&total.to_le_bytes());
        buf[8..].copy_from_slice(&(total ^ TOTAL_CHECK).to_le_bytes());
        let mut file = &self.file;
        let _ = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(&buf));
    }
}

/// Forwards to a buffered file, counting bytes and remembering the file's
/// own error (so that it is reported even if the closure wraps it).
struct CountingWriter {
    inner: BufWriter<File>,
    written: u64,
    failure: Option<io::Error>,
}

impl CountingWriter {
    fn record(&mut self, e: &io::Error) {
        if e.kind() != io::ErrorKind::Interrupted && self.failure.is_none() {
            self.failure = Some(copy_error(e));
        }
    }
}

impl Write for CountingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.inner.write(buf) {
            Ok(n) => {
                self.written += n as u64;
                Ok(n)
            }
            Err(e) => {
                self.record(&e);
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|e| self.record(e))
    }
}

fn copy_error(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

/// Best-effort removal of a temp file after a failure.
fn discard(tmp: &Path) {
    let _ = fs::remove_file(tmp);
}

/// `create_new` + write-only + mode 0600: fails on any existing entry,
/// symlinks included, without following it.
fn open_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Gives the complete file `tmp` a final name in `dir`, asking `next_name`
/// for a new name after each collision, and removes the temp name. Never
/// replaces or follows an existing entry. Returns the final path.
/// `next_name` gets the number of collisions so far.
fn publish(
    tmp: &Path,
    dir: &Path,
    mut next_name: impl FnMut(u32) -> String,
) -> io::Result<PathBuf> {
    let mut use_rename = false;
    let mut attempts = 0;
    loop {
        let target = dir.join(next_name(attempts));
        let claimed = if use_rename {
            claim_by_rename(tmp, &target)
        } else {
            match claim_by_link(tmp, &target) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                    // No hard links here (FAT, some shares): reserve + rename.
                    use_rename = true;
                    claim_by_rename(tmp, &target)
                }
                other => other,
            }
        };
        match claimed {
            Ok(()) => return Ok(target),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < MAX_ATTEMPTS => {
                attempts += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Links `tmp` to `target` (fails with `AlreadyExists` on any existing
/// entry, a dangling symlink included) and drops the temp name.
fn claim_by_link(tmp: &Path, target: &Path) -> io::Result<()> {
    fs::hard_link(tmp, target)?;
    // The file is published; a leftover temp name (an extra link to the same
    // file) is harmless and removed later by `cleanup`.
    discard(tmp);
    Ok(())
}

/// Reserves `target` with an exclusive empty file, then renames `tmp` over
/// it (`rename` replaces the entry itself, never a symlink's target).
fn claim_by_rename(tmp: &Path, target: &Path) -> io::Result<()> {
    drop(open_new(target)?);
    fs::rename(tmp, target).inspect_err(|_| discard(target))
}

/// Creates `path` and its missing parents with mode 0700 (set explicitly,
/// as `mkdir` applies the umask); existing folders are left untouched. On
/// failure, returns the level that failed.
fn create_dirs(path: &Path) -> Result<(), (PathBuf, io::Error)> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => return Err((path.to_path_buf(), not_a_directory())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err((path.to_path_buf(), e)),
    }
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            create_dirs(parent)?;
        }
    }
    match private_dir_builder().create(path) {
        Ok(()) => set_private(path).map_err(|e| (path.to_path_buf(), e)),
        // Someone else created it meanwhile: theirs, leave it alone.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => Ok(()),
            _ => Err((path.to_path_buf(), not_a_directory())),
        },
        Err(e) => Err((path.to_path_buf(), e)),
    }
}

#[cfg(unix)]
fn private_dir_builder() -> fs::DirBuilder {
    use std::os::unix::fs::DirBuilderExt;
    let mut builder = fs::DirBuilder::new();
    builder.mode(0o700);
    builder
}

#[cfg(not(unix))]
fn private_dir_builder() -> fs::DirBuilder {
    fs::DirBuilder::new()
}

fn not_a_directory() -> io::Error {
    io::Error::new(io::ErrorKind::NotADirectory, "not a folder")
}

#[cfg(unix)]
fn set_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn set_private(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// `path` must be a folder itself, not a symlink to one.
fn check_real_dir(path: &Path) -> io::Result<fs::Metadata> {
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "is a symlink, refusing to use it",
        ));
    }
    if !meta.is_dir() {
        return Err(not_a_directory());
    }
    Ok(meta)
}

/// The per-user level of the default folder sits in the shared temp dir:
/// it must be a real folder owned by us; if others can write to it, it is
/// made private again (it is ours, so that is safe).
fn check_private_dir(path: &Path, user: &str) -> io::Result<()> {
    let meta = check_real_dir(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if let Ok(uid) = user.parse::<u32>() {
            if meta.uid() != uid {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("is owned by uid {}, not by this user ({uid})", meta.uid()),
                ));
            }
        }
        if meta.mode() & 0o022 != 0 {
            fs::set_permissions(path, fs::Permissions::from_mode(0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, user);
    Ok(())
}

/// The `<user>` part of the default folder name.
#[cfg(unix)]
fn current_user_tag() -> String {
    use std::os::unix::fs::MetadataExt;
    // Linux (and any system with procfs): /proc/self belongs to our euid.
    if let Ok(meta) = fs::metadata("/proc/self") {
        return meta.uid().to_string();
    }
    // macOS: the temp dir is per user (/var/folders/..) and private.
    if let Ok(meta) = fs::metadata(temp_dir()) {
        if meta.is_dir() && meta.mode() & 0o077 == 0 {
            return meta.uid().to_string();
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        if let Ok(meta) = fs::metadata(home) {
            return meta.uid().to_string();
        }
    }
    sanitize_user(
        std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .ok(),
    )
}

#[cfg(not(unix))]
fn current_user_tag() -> String {
    // USERNAME on Windows; USER or LOGNAME on a Unix host running the wasm build.
    sanitize_user(
        std::env::var("USERNAME")
            .or_else(|_| std::env::var("USER"))
            .or_else(|_| std::env::var("LOGNAME"))
            .ok(),
    )
}

fn sanitize_user(name: Option<String>) -> String {
    let name: String = name
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "unknown".to_string()
    } else {
        name
    }
}

fn check_extension(ext: &str) -> Result<(), StoreError> {
    if ext.is_empty() || is_valid_extension(ext) {
        Ok(())
    } else {
        Err(StoreError::InvalidOption(format!(
            "extension {ext:?} must be at most {MAX_EXTENSION_LEN} ASCII letters, digits, \
             '-' or '_' (one segment, no dot)"
        )))
    }
}

/// One segment: a name `tool_<id>.png.bak` (a copy someone made) is then
/// never taken for the store's own.
fn is_valid_extension(ext: &str) -> bool {
    !ext.is_empty()
        && ext.len() <= MAX_EXTENSION_LEN
        && ext
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

fn final_name(id: &str, extension: &str) -> String {
    if extension.is_empty() {
        format!("{FILE_PREFIX}{id}")
    } else {
        format!("{FILE_PREFIX}{id}.{extension}")
    }
}

#[cfg(test)]
thread_local! {
    /// Folder listings made to make room, by this thread (for tests).
    static LISTINGS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a listing of the folder (tests check how rarely it happens).
fn count_listing() {
    #[cfg(test)]
    LISTINGS.with(|n| n.set(n.get() + 1));
}

/// The store's own files in `dir` (regular files with its names, never
/// followed through symlinks) and their sizes; unreadable entries are left out.
fn own_files(dir: &Path) -> Vec<(PathBuf, u64)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_str().is_some_and(is_own_file_name))
        .filter_map(|entry| {
            // `DirEntry::metadata` does not follow symlinks.
            let meta = entry.metadata().ok().filter(fs::Metadata::is_file)?;
            Some((entry.path(), meta.len()))
        })
        .collect()
}

fn is_own_file_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(FILE_PREFIX) else {
        return false;
    };
    match rest.split_once('.') {
        Some((id, ext)) => is_digit_groups(id, &ID_GROUPS) && is_valid_extension(ext),
        None => is_digit_groups(rest, &ID_GROUPS),
    }
}

/// `true` for exactly the temp names the store uses.
fn is_own_temp_name(name: &str) -> bool {
    name.strip_prefix(TEMP_PREFIX)
        .is_some_and(|rest| is_digit_groups(rest, &TEMP_GROUPS))
}

/// `s` is groups of ASCII digits of the given widths joined by `_`.
fn is_digit_groups(s: &str, widths: &[usize]) -> bool {
    let mut parts = s.split('_');
    widths.iter().all(|&w| {
        parts
            .next()
            .is_some_and(|p| p.len() == w && p.bytes().all(|b| b.is_ascii_digit()))
    }) && parts.next().is_none()
}

struct IdClock {
    last_ms: u64,
    seq: u32,
}

static ID_CLOCK: Mutex<IdClock> = Mutex::new(IdClock { last_ms: 0, seq: 0 });
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// A number no other process can predict, for jumps past planted names.
fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    RandomState::new().hash_one(CALLS.fetch_add(1, Ordering::Relaxed))
}

/// The next id of this process: strictly ascending, fixed width. After
/// `collisions` names taken by someone else, it jumps a random distance (up
/// to 2^collisions ids, at most half a millisecond's worth) so that names
/// planted ahead of the sequence cannot block saves.
fn next_id(collisions: u32) -> String {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let skip = match collisions {
        0 => 0,
        n => {
            let span = (1u64 << n.min(19)).min(u64::from(SEQ_PER_MS / 2));
            u32::try_from(unpredictable() % span).unwrap_or(0)
        }
    };
    let (ms, seq) = {
        let mut clock = ID_CLOCK
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if now_ms > clock.last_ms && skip == 0 {
            clock.last_ms = now_ms;
            clock.seq = 0;
        } else {
            clock.seq += 1 + skip;
            if clock.seq >= SEQ_PER_MS {
                clock.last_ms += 1;
                clock.seq %= SEQ_PER_MS;
            }
        }
        (clock.last_ms, clock.seq)
    };
    format!("{ms:013}_{seq:06}_{:010}", process_id())
}

/// A fresh temp name; after a collision the sequence jumps a random distance.
fn temp_name(collisions: u32) -> String {
    let skip = if collisions == 0 {
        0
    } else {
        unpredictable() >> 16
    };
    let seq = TEMP_SEQ.fetch_add(1 + skip, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{TEMP_PREFIX}{:010}_{seq:020}_{nanos:09}", process_id())
}

/// This process's id, for file names. WASI has no process ids (std panics
/// there), so the wasm build draws one random number per process instead.
#[cfg(not(target_os = "wasi"))]
fn process_id() -> u32 {
    std::process::id()
}

#[cfg(target_os = "wasi")]
fn process_id() -> u32 {
    static ID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ID.get_or_init(|| u32::try_from(unpredictable() >> 32).unwrap_or(0))
}

/// The system temp folder. WASI's std has none (it panics), so the wasm
/// build takes `TMPDIR` (the loader passes the host's environment) or `/tmp`.
#[cfg(not(target_os = "wasi"))]
fn temp_dir() -> PathBuf {
    std::env::temp_dir()
}

#[cfg(target_os = "wasi")]
fn temp_dir() -> PathBuf {
    std::env::var_os("TMPDIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    fn store_in(dir: &Path) -> ToolOutputStore {
        ToolOutputStore::new(Some(dir.to_path_buf()), None).unwrap()
    }

    /// The names in `dir`, the store's lock file aside.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name != LOCK_NAME)
            .collect();
        names.sort();
        names
    }

    fn file_name(path: &Path) -> &str {
        path.file_name().unwrap().to_str().unwrap()
    }

    #[test]
    fn store_names_match_pattern_and_ascend() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        let exts = ["png", "", "tar_gz", "bin"];
        let mut previous = String::new();
        for i in 0..200 {
            let ext = exts[i % exts.len()];
            let saved = store.save(b"x", ext).unwrap();
            assert_eq!(saved.path.parent().unwrap(), tmp.path());
            let name = file_name(&saved.path).to_string();
            assert!(is_own_file_name(&name), "{name}");
            let id_len = FILE_PREFIX.len() + 13 + 1 + 6 + 1 + 10;
            if ext.is_empty() {
                assert_eq!(name.len(), id_len, "{name}");
            } else {
                assert_eq!(&name[id_len..], format!(".{ext}"), "{name}");
            }
            // Compare the id part only: extensions would disturb the order.
            let id = name[..id_len].to_string();
            assert!(id > previous, "{id} should sort after {previous}");
            previous = id;
        }
        let pid = format!("_{:010}", std::process::id());
        assert!(previous.ends_with(&pid), "{previous}");
        assert_eq!(names(tmp.path()).len(), 200, "no temp file left behind");
    }

    #[test]
    fn store_name_grammar() {
        assert!(is_own_file_name("tool_1764481234567_000042_0000012345.png"));
        assert!(is_own_file_name("tool_1764481234567_000042_0000012345"));
        assert!(is_own_file_name(
            "tool_1764481234567_000042_0000012345.tar_gz"
        ));
        for bad in [
            // A copy or backup of a saved file is not the store's own.
            "tool_1764481234567_000042_0000012345.tar.gz",
            "tool_1764481234567_000042_0000012345.png.bak",
            "tool_1764481234567_000042_0000012345.png~",
            LOCK_NAME,
            "tool_x",
            "tool_",
            "tool_1764481234567_000042_0000012345.",
            "tool_1764481234567_000042_0000012345..png",
            "tool_1764481234567_00042_0000012345.png",
            "tool_1764481234567_000042_0000012345_1.png",
            "tool_176448123456a_000042_0000012345",
            "xtool_1764481234567_000042_0000012345",
            "other.txt",
        ] {
            assert!(!is_own_file_name(bad), "{bad}");
        }
        let tmp = temp_name(0);
        assert!(is_own_temp_name(&tmp), "{tmp}");
        assert!(!is_own_file_name(&tmp));
        assert!(!is_own_temp_name(".tool_tmp_1_2_3"));
        assert!(!is_own_temp_name(&format!("{tmp}x")));
    }

    #[test]
    fn store_content_round_trips() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        let big: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for data in [&b""[..], b"hello", &big[..]] {
            let saved = store.save(data, "bin").unwrap();
            assert_eq!(saved.byte_length, data.len() as u64);
            assert_eq!(fs::read(&saved.path).unwrap(), data);
        }
        // Streamed in many small writes (through the buffer).
        let saved = store
            .save_with("dat", |w| {
                for chunk in big.chunks(1000) {
                    w.write_all(chunk)?;
                }
                Ok(big.len() as u64)
            })
            .unwrap();
        assert_eq!(saved.byte_length, big.len() as u64);
        assert_eq!(fs::read(&saved.path).unwrap(), big);
        // byte_length is what was really written.
        let saved = store
            .save_with("", |w| w.write_all(b"abc").map(|_| 99))
            .unwrap();
        assert_eq!(saved.byte_length, 3);
        assert_eq!(fs::read(&saved.path).unwrap(), b"abc");
        assert_eq!(names(tmp.path()).len(), 5);
    }

    #[test]
    fn store_creates_folder_lazily() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a").join("b");
        let store = store_in(&dir);
        assert_eq!(store.dir(), dir);
        assert!(
            !tmp.path().join("a").exists(),
            "new() must not touch the disk"
        );
        assert_eq!(store.cleanup().unwrap(), 0, "missing folder");
        let saved = store.save(b"1", "txt").unwrap();
        assert_eq!(fs::read(saved.path).unwrap(), b"1");
        // Removed behind our back (temp cleaner): recreated on the next save.
        fs::remove_dir_all(&dir).unwrap();
        let saved = store.save(b"2", "txt").unwrap();
        assert_eq!(fs::read(saved.path).unwrap(), b"2");
    }

    #[test]
    fn store_default_folder_is_per_user() {
        let store = ToolOutputStore::new(None, None).unwrap();
        let dir = store.dir();
        assert_eq!(dir.file_name().unwrap(), "tool-output");
        let base = dir.parent().unwrap();
        let base_name = base.file_name().unwrap().to_str().unwrap();
        let user = base_name.strip_prefix("mcp-content-").unwrap();
        assert!(!user.is_empty());
        assert_eq!(base.parent().unwrap(), std::env::temp_dir());
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // We made a file just now: its owner is our uid.
            let probe = tempfile::NamedTempFile::new().unwrap();
            let uid = probe.as_file().metadata().unwrap().uid();
            assert_eq!(user, uid.to_string());
        }
        assert_eq!(store.retention(), Duration::from_secs(7 * 86_400));
    }

    #[test]
    fn store_rejects_invalid_options() {
        for days in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, -0.001] {
            let err = ToolOutputStore::new(None, Some(days)).unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT", "{days}");
            assert!(err.to_string().contains("retention_days"), "{err}");
        }
        let zero = ToolOutputStore::new(None, Some(0.0)).unwrap();
        assert_eq!(zero.retention(), Duration::ZERO);
        let huge = ToolOutputStore::new(None, Some(1e300)).unwrap();
        assert_eq!(huge.retention(), Duration::MAX);
        assert_eq!(
            ToolOutputStore::new(Some(PathBuf::new()), None)
                .unwrap_err()
                .code(),
            "INVALID_ARGUMENT"
        );

        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        let too_long = "a".repeat(MAX_EXTENSION_LEN + 1);
        for ext in [
            ".png", "a/b", "..", "a\\b", "png.", "a..b", "é", "a b", &too_long,
        ] {
            let err = store.save(b"x", ext).unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT", "{ext}");
            let err = store.save_with(ext, |_| Ok(0)).unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT", "{ext}");
        }
        assert!(names(tmp.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn store_permissions_0700_and_0600() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let tmp = tempfile::tempdir().unwrap();
        // A folder the user chose and that exists already is not touched.
        let chosen = tmp.path().join("chosen");
        fs::create_dir(&chosen).unwrap();
        fs::set_permissions(&chosen, fs::Permissions::from_mode(0o755)).unwrap();
        let dir = chosen.join("x").join("y");
        let store = store_in(&dir);
        let saved = store.save(b"secret", "txt").unwrap();
        assert_eq!(mode(&chosen), 0o755);
        assert_eq!(mode(&chosen.join("x")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&saved.path), 0o600);
        let saved = store
            .save_with("", |w| w.write_all(b"s").map(|_| 1))
            .unwrap();
        assert_eq!(mode(&saved.path), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn store_never_follows_a_planted_symlink() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("store");
        fs::create_dir(&dir).unwrap();
        let victim = tmp.path().join("victim.txt");
        fs::write(&victim, b"precious").unwrap();

        // Claiming a name where a symlink (live or dangling) sits fails.
        let src = dir.join(temp_name(0));
        fs::write(&src, b"payload").unwrap();
        let live = dir.join("tool_live");
        let dangling = dir.join("tool_dangling");
        symlink(&victim, &live).unwrap();
        symlink(tmp.path().join("nowhere"), &dangling).unwrap();
        for target in [&live, &dangling] {
            let err = claim_by_link(&src, target).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
            let err = claim_by_rename(&src, target).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
            assert!(fs::symlink_metadata(target)
                .unwrap()
                .file_type()
                .is_symlink());
        }
        assert!(!tmp.path().join("nowhere").exists());
        // Creating a temp file where a symlink sits fails too.
        let err = open_new(&live).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&victim).unwrap(), b"precious");

        // publish() moves on to the next name instead.
        let mut queue = vec!["tool_fresh".to_string(), "tool_live".to_string()];
        let path = publish(&src, &dir, |_| queue.pop().unwrap()).unwrap();
        assert_eq!(path, dir.join("tool_fresh"));
        assert_eq!(fs::read(&path).unwrap(), b"payload");
        assert!(!src.exists(), "temp name removed");
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert_eq!(fs::read_link(&live).unwrap(), victim);

        // The rename fallback behaves the same.
        let src = dir.join(temp_name(0));
        fs::write(&src, b"second").unwrap();
        claim_by_rename(&src, &dir.join("tool_renamed")).unwrap();
        assert_eq!(fs::read(dir.join("tool_renamed")).unwrap(), b"second");
        assert!(!src.exists());
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
    }

    #[test]
    fn store_publish_gives_up_after_many_collisions() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join(temp_name(0));
        fs::write(&src, b"x").unwrap();
        fs::write(tmp.path().join("tool_taken"), b"old").unwrap();
        let err = publish(&src, tmp.path(), |_| "tool_taken".to_string()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(tmp.path().join("tool_taken")).unwrap(), b"old");
    }

    #[test]
    fn store_failed_save_with_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        let err = store
            .save_with("png", |w| {
                w.write_all(&[1u8; 200_000])?;
                Err(io::Error::new(io::ErrorKind::InvalidData, "bad base64"))
            })
            .unwrap_err();
        assert_eq!(err.code(), "STORE_SOURCE_FAILED");
        let msg = err.to_string();
        assert!(msg.contains("bad base64"), "{msg}");
        assert!(msg.contains(&tmp.path().display().to_string()), "{msg}");
        assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));

        // Also after a successful flush: the closure has the last word.
        let err = store
            .save_with("png", |w| {
                w.write_all(b"abc")?;
                w.flush()?;
                Err(io::Error::other("wrapped"))
            })
            .unwrap_err();
        assert_eq!(err.code(), "STORE_SOURCE_FAILED");
        assert!(names(tmp.path()).is_empty());
    }

    /// /dev/full fails every write with ENOSPC. It exists on every Linux
    /// system and container, so its absence is a failure, not a skip.
    #[cfg(target_os = "linux")]
    fn dev_full() -> File {
        OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap_or_else(|e| panic!("cannot open /dev/full, needed for the ENOSPC test: {e}"))
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn store_own_write_failure_is_classified() {
        const ENOSPC: i32 = 28;
        let is_enospc = |e: &io::Error| {
            assert_eq!(e.raw_os_error(), Some(ENOSPC), "{e}");
            assert_eq!(e.kind(), io::ErrorKind::StorageFull, "{e}");
        };
        // CountingWriter alone: a buffered write succeeds, the flush fails
        // and the device's own error is recorded.
        let mut w = CountingWriter {
            inner: BufWriter::with_capacity(16, dev_full()),
            written: 0,
            failure: None,
        };
        w.write_all(&[0u8; 8]).unwrap();
        assert_eq!(w.written, 8);
        is_enospc(&w.flush().unwrap_err());
        let own = w.failure.take().expect("failure recorded");
        is_enospc(&own);
        let err = StoreError::io(ACTION_WRITE_FILE, Path::new("/x"), own);
        assert_eq!(err.code(), "STORE_NO_SPACE");
        assert_eq!(
            err.to_string(),
            format!(
                "cannot write a file in /x: {}",
                io::Error::from_raw_os_error(ENOSPC)
            )
        );

        // Through save_with: the device's error wins whether the closure
        // wraps it or the final flush meets it, and the temp file goes.
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        type Produce = fn(&mut dyn Write) -> io::Result<u64>;
        let wrapped: Produce = |w| {
            w.write_all(&[0u8; 2 * WRITE_BUFFER])
                .map_err(|e| io::Error::other(format!("wrapped: {e}")))?;
            Ok(0)
        };
        let small: Produce = |w| w.write_all(b"abc").map(|_| 3);
        for produce in [wrapped, small] {
            let temp = tmp.path().join(temp_name(0));
            drop(open_new(&temp).unwrap());
            let err = store
                .stream_and_finish(&store.lock().unwrap(), temp, dev_full(), "bin", produce)
                .unwrap_err();
            assert_eq!(err.code(), "STORE_NO_SPACE", "{err}");
            let StoreError::Io { action, source, .. } = &err else {
                panic!("{err:?}");
            };
            assert_eq!(*action, ACTION_WRITE_FILE);
            is_enospc(source);
            assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
        }
    }

    #[test]
    fn store_unwritable_folder_gives_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        // A regular file where the folder (or a parent) should be.
        let file = tmp.path().join("plain");
        fs::write(&file, b"").unwrap();
        for dir in [file.clone(), file.join("sub")] {
            let store = store_in(&dir);
            let err = store.save(b"x", "txt").unwrap_err();
            let msg = err.to_string();
            assert!(msg.starts_with("cannot create folder "), "{msg}");
            assert!(msg.contains(&file.display().to_string()), "{msg}");
            assert_eq!(err.code(), "STORE_NOT_A_DIRECTORY", "{msg}");
            assert!(std::error::Error::source(&err).is_some());
            assert!(store.save_with("", |_| Ok(0)).is_err());
        }
    }

    /// Set in the child run of `store_read_only_folder_is_permission_denied`:
    /// the folder to check, as the unprivileged user.
    #[cfg(unix)]
    const UNPRIVILEGED_DIR: &str = "MCP_CONTENT_STORE_TEST_UNPRIVILEGED_DIR";

    /// Saving into an existing folder without write permission is refused.
    /// Root ignores permission bits, so as root (CI containers) the check
    /// runs in a child of this test binary under uid/gid 65534 (`nobody`).
    #[cfg(unix)]
    #[test]
    fn store_read_only_folder_is_permission_denied() {
        use std::os::unix::fs::PermissionsExt;
        if let Some(dir) = std::env::var_os(UNPRIVILEGED_DIR) {
            assert!(
                !can_create_in(Path::new(&dir)),
                "the child still bypasses permission bits"
            );
            assert_permission_denied(Path::new(&dir));
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let ro = tmp.path().join("ro");
        fs::create_dir(&ro).unwrap();
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o500)).unwrap();
        if can_create_in(&ro) {
            run_unprivileged(
                tmp.path(),
                &ro,
                "store_read_only_folder_is_permission_denied",
            );
        } else {
            assert_permission_denied(&ro);
        }
    }

    /// Whether this process can create a file in `dir` despite its mode.
    #[cfg(unix)]
    fn can_create_in(dir: &Path) -> bool {
        let probe = dir.join("probe");
        match open_new(&probe) {
            Ok(_) => {
                fs::remove_file(&probe).unwrap();
                true
            }
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => false,
            Err(e) => panic!("probe {}: {e}", probe.display()),
        }
    }

    #[cfg(unix)]
    fn assert_permission_denied(ro: &Path) {
        let store = store_in(ro);
        // Twice: the second save finds the folder already prepared.
        for _ in 0..2 {
            let err = store.save(b"x", "txt").unwrap_err();
            assert_eq!(err.code(), "STORE_PERMISSION_DENIED", "{err}");
            let msg = err.to_string();
            assert!(msg.starts_with("cannot create a file in "), "{msg}");
            assert!(msg.contains(&ro.display().to_string()), "{msg}");
            assert!(msg.contains("ermission denied"), "{msg}");
        }
        let err = store
            .save_with("txt", |w| w.write_all(b"x").map(|_| 1))
            .unwrap_err();
        assert_eq!(err.code(), "STORE_PERMISSION_DENIED", "{err}");
        assert!(names(ro).is_empty(), "{:?}", names(ro));
    }

    /// Runs test `name` of this binary as uid/gid 65534 with
    /// `UNPRIVILEGED_DIR=ro` and asserts that it ran and passed. `ro` is
    /// handed to that user; `tmp` (holding it) is opened to others.
    #[cfg(target_os = "linux")]
    fn run_unprivileged(tmp: &Path, ro: &Path, name: &str) {
        use std::os::unix::fs::{chown, MetadataExt, PermissionsExt};
        use std::process::Command;
        const NOBODY: u32 = 65534;
        // procfs shows /proc/self as owned by our effective uid.
        let euid = fs::metadata("/proc/self").expect("procfs").uid();
        if euid != 0 {
            eprintln!(
                "{name}: NOT RUN: permission bits do not bind this process (uid {euid}, \
                 e.g. CAP_DAC_OVERRIDE) and only root can switch to an unprivileged uid"
            );
            return;
        }
        fs::set_permissions(tmp, fs::Permissions::from_mode(0o755)).unwrap();
        chown(ro, Some(NOBODY), Some(NOBODY)).unwrap();
        // A link (or copy) of the test binary where that user can reach it:
        // the checkout may sit under a private home.
        let exe = tmp.join("store-test");
        let current = std::env::current_exe().unwrap();
        if fs::hard_link(&current, &exe).is_err() {
            fs::copy(&current, &exe).unwrap();
        }
        let (_, module) = module_path!().split_once("::").unwrap();
        let test = format!("{module}::{name}");
        let ids = NOBODY.to_string();
        let out = Command::new("setpriv")
            .args(["--reuid", &ids, "--regid", &ids, "--clear-groups", "--"])
            .arg(&exe)
            .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
            .env(UNPRIVILEGED_DIR, ro)
            .current_dir(tmp)
            .output()
            .unwrap_or_else(|e| {
                panic!("running as root, {name} needs setpriv (util-linux) to drop to uid {NOBODY}: {e}")
            });
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains(&format!("test {test} ... ok")),
            "child as uid {NOBODY} failed ({}); if it could not start, every folder \
             above {} must be searchable by others\n{stdout}\n{stderr}",
            out.status,
            tmp.display()
        );
    }

    #[cfg(all(unix, not(target_os = "linux")))]
    fn run_unprivileged(_tmp: &Path, _ro: &Path, name: &str) {
        eprintln!(
            "{name}: NOT RUN: permission bits do not bind this process (root?) and \
             dropping privileges is only implemented for Linux (setpriv)"
        );
    }

    /// Wherever the OS tells the free space (Unix, Windows), a blob larger
    /// than the disk is refused before anything is written, and the error
    /// says what was free.
    #[cfg(any(unix, windows))]
    #[test]
    fn store_refuses_a_blob_larger_than_the_disk() {
        let tmp = tempfile::tempdir().unwrap();
        // A cap far above any disk, so the free-space check decides.
        let store = store_in(tmp.path()).with_max_bytes(Some(1e19)).unwrap();
        let huge = 1u64 << 62;
        let err = store.check_fits(huge).unwrap_err();
        assert_eq!(err.code(), "STORE_NO_SPACE", "{err}");
        match err {
            StoreError::NoSpace {
                byte_length,
                available,
                reserve,
                ..
            } => {
                assert_eq!(byte_length, huge);
                assert!(available > 0 && available < huge, "{available}");
                assert!(reserve > 0 && reserve <= FREE_SPACE_RESERVE, "{reserve}");
            }
            other => panic!("{other:?}"),
        }
        store.check_fits(1).unwrap();
        assert!(names(tmp.path()).is_empty());
    }

    #[test]
    fn store_concurrent_saves_are_distinct() {
        const THREADS: usize = 8;
        const PER_THREAD: usize = 200;
        let tmp = tempfile::tempdir().unwrap();
        let store = Arc::new(store_in(tmp.path()));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    let mut saved = Vec::with_capacity(PER_THREAD);
                    for i in 0..PER_THREAD {
                        let body = format!("thread {t} item {i} ").repeat(i % 7 + 1);
                        let s = if i % 2 == 0 {
                            store.save(body.as_bytes(), "txt").unwrap()
                        } else {
                            store
                                .save_with("txt", |w| w.write_all(body.as_bytes()).map(|_| 0))
                                .unwrap()
                        };
                        saved.push((s, body));
                    }
                    saved
                })
            })
            .collect();
        let mut paths = HashSet::new();
        for handle in handles {
            let mut previous: Option<PathBuf> = None;
            for (saved, body) in handle.join().unwrap() {
                assert_eq!(fs::read_to_string(&saved.path).unwrap(), body);
                assert_eq!(saved.byte_length, body.len() as u64);
                if let Some(prev) = previous {
                    assert!(saved.path > prev, "ascending within a thread");
                }
                previous = Some(saved.path.clone());
                assert!(paths.insert(saved.path));
            }
        }
        assert_eq!(paths.len(), THREADS * PER_THREAD);
        assert_eq!(names(tmp.path()).len(), THREADS * PER_THREAD);
    }

    #[test]
    fn store_cleanup_removes_only_expired_own_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let store = ToolOutputStore::new(Some(dir.to_path_buf()), Some(1.0)).unwrap();
        let old = SystemTime::now() - Duration::from_secs(3 * 86_400);
        let age = |path: &Path| {
            File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        };

        let expired: Vec<PathBuf> = ["png", "", "gz"]
            .iter()
            .map(|ext| store.save(b"old", ext).unwrap().path)
            .collect();
        let fresh = store.save(b"new", "png").unwrap().path;
        let stale_tmp = dir.join(temp_name(0));
        fs::write(&stale_tmp, b"half").unwrap();
        let fresh_tmp = dir.join(temp_name(0));
        fs::write(&fresh_tmp, b"in flight").unwrap();
        let other = dir.join("other.txt");
        fs::write(&other, b"keep").unwrap();
        // Look-alikes that are not exactly our names.
        let lookalike = dir.join("tool_1764481234567_000001_0000000001.png.bak~");
        fs::write(&lookalike, b"keep").unwrap();
        let subdir = dir.join("tool_dir");
        fs::create_dir(&subdir).unwrap();
        let nested = subdir.join(file_name(&expired[0]));
        fs::write(&nested, b"keep").unwrap();
        let own_named_dir = dir.join("tool_1764481234567_000002_0000000001");
        fs::create_dir(&own_named_dir).unwrap();
        for path in [&stale_tmp, &other, &lookalike, &nested] {
            age(path);
        }
        for path in &expired {
            age(path);
        }
        // Symlinks are never removed nor followed, even with our names.
        #[cfg(unix)]
        let (link_x, link_own, _outside, target) = {
            use std::os::unix::fs::symlink;
            let outside = tempfile::tempdir().unwrap();
            let target = outside.path().join("t.txt");
            fs::write(&target, b"outside").unwrap();
            age(&target);
            let link_x = dir.join("tool_x");
            symlink(&target, &link_x).unwrap();
            let link_own = dir.join("tool_1764481234567_000003_0000000001.png");
            symlink(&target, &link_own).unwrap();
            (link_x, link_own, outside, target)
        };

        assert_eq!(
            store.cleanup().unwrap(),
            4,
            "3 expired files + 1 stale temp"
        );
        for path in &expired {
            assert!(!path.exists(), "{}", path.display());
        }
        assert!(!stale_tmp.exists());
        for path in [
            &fresh,
            &fresh_tmp,
            &other,
            &lookalike,
            &subdir,
            &nested,
            &own_named_dir,
        ] {
            assert!(path.exists(), "{} must stay", path.display());
        }
        #[cfg(unix)]
        {
            for link in [&link_x, &link_own] {
                assert!(fs::symlink_metadata(link).unwrap().file_type().is_symlink());
            }
            assert_eq!(fs::read(&target).unwrap(), b"outside");
        }
        assert_eq!(store.cleanup().unwrap(), 0, "idempotent");

        // Retention 0: every own file is expired, but a temp file younger
        // than TEMP_MIN_AGE (maybe a save in flight) stays.
        let zero = ToolOutputStore::new(Some(dir.to_path_buf()), Some(0.0)).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(zero.cleanup().unwrap(), 1);
        assert!(!fresh.exists());
        assert!(fresh_tmp.exists());
        assert!(other.exists());
    }

    /// A default-style store in `tmp` for the user `user`.
    #[cfg(unix)]
    fn default_style_store(tmp: &Path, user: &str) -> ToolOutputStore {
        ToolOutputStore {
            dir: tmp.join(format!("mcp-content-{user}")).join("tool-output"),
            retention: Duration::from_secs(60),
            default_user: Some(user.to_string()),
            ready: AtomicBool::new(false),
            max_bytes: DEFAULT_MAX_BYTES,
            kept: None,
        }
    }

    #[cfg(unix)]
    #[test]
    fn store_default_folder_refuses_planted_base_before_using_it() {
        use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
        let tmp = tempfile::tempdir().unwrap();
        let uid = fs::metadata(tmp.path()).unwrap().uid();

        // Our own: created 0700 at both levels, works.
        let store = default_style_store(tmp.path(), &uid.to_string());
        let saved = store.save(b"ok", "txt").unwrap();
        assert_eq!(fs::read(&saved.path).unwrap(), b"ok");
        let base = store.dir().parent().unwrap();
        for dir in [base, store.dir()] {
            let mode = fs::metadata(dir).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", dir.display());
        }

        // Planted by "someone else" (we claim another uid): refused, and
        // nothing is created inside it.
        let other = "4000000000";
        let store = default_style_store(tmp.path(), other);
        let planted = store.dir().parent().unwrap().to_path_buf();
        fs::create_dir(&planted).unwrap();
        let err = store.save(b"x", "txt").unwrap_err();
        assert_eq!(err.code(), "STORE_PERMISSION_DENIED");
        assert!(err.to_string().contains("owned by uid"), "{err}");
        assert!(fs::read_dir(&planted).unwrap().next().is_none());

        // A symlink planted at the per-user level: refused, target untouched.
        let target = tmp.path().join("target");
        fs::create_dir(&target).unwrap();
        let store = default_style_store(tmp.path(), "77");
        symlink(&target, store.dir().parent().unwrap()).unwrap();
        let err = store.save(b"x", "txt").unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert!(fs::read_dir(&target).unwrap().next().is_none());
    }

    #[cfg(unix)]
    #[test]
    fn store_default_base_folder_checks() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("mcp-content-x");
        // A symlink is refused.
        symlink(tmp.path(), &base).unwrap();
        assert_eq!(
            check_private_dir(&base, "x").unwrap_err().kind(),
            io::ErrorKind::PermissionDenied
        );
        fs::remove_file(&base).unwrap();
        // Owned by someone else (we pretend to be another uid) is refused.
        fs::create_dir(&base).unwrap();
        let err = check_private_dir(&base, "4000000000").unwrap_err();
        assert!(err.to_string().contains("owned by uid"), "{err}");
        // Our own folder left group-writable is made private again.
        fs::set_permissions(&base, fs::Permissions::from_mode(0o777)).unwrap();
        let uid = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(&base).unwrap().uid()
        };
        check_private_dir(&base, &uid.to_string()).unwrap();
        assert_eq!(
            fs::metadata(&base).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }

    /// What `outputDir` does: a new store for every call. The folder's
    /// running total is kept in the folder, so none of them lists it again.
    #[test]
    fn new_stores_on_one_folder_list_it_once() {
        let tmp = tempfile::tempdir().unwrap();
        let before = LISTINGS.with(|n| n.get());
        for i in 0..300u32 {
            let store = store_in(tmp.path()).with_max_bytes(Some(1e6)).unwrap();
            store.save(&i.to_le_bytes(), "bin").unwrap();
        }
        let listed = LISTINGS.with(|n| n.get()) - before;
        assert!(
            listed <= 1,
            "listed the folder {listed} times for 300 saves"
        );
        assert_eq!(own_files(tmp.path()).len(), 300);
    }

    #[test]
    fn files_kept_for_one_conversion_are_never_evicted_for_it() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path()).with_max_bytes(Some(1000.0)).unwrap();
        let earlier = store.save(&[0; 400], "bin").unwrap();
        let kept = Arc::new(KeptFiles::default());
        let conversion = store.keeping(&kept);
        let a = conversion.save(&[1; 400], "bin").unwrap();
        // The earlier file makes room; the conversion's own do not.
        let b = conversion.save(&[2; 400], "bin").unwrap();
        assert!(!earlier.path.exists());
        let err = conversion.save(&[3; 400], "bin").unwrap_err();
        assert_eq!(err.code(), "STORE_OVER_CAP");
        assert_eq!(
            err.to_string(),
            "400 bytes would pass the store's size cap of 1000 bytes, \
             which files this result saved already fill"
        );
        assert!(a.path.exists() && b.path.exists());
        assert_eq!(names(tmp.path()).len(), 2, "no temp file left");
        // Another conversion (or a plain save) may evict them.
        let c = store.save(&[4; 400], "bin").unwrap();
        assert!(!a.path.exists() && b.path.exists() && c.path.exists());
    }

    #[test]
    fn cleanup_files_lists_what_it_removed_and_keeps_the_total() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let store = ToolOutputStore::new(Some(dir.to_path_buf()), Some(0.0))
            .unwrap()
            .with_max_bytes(Some(100.0))
            .unwrap();
        let saved = store.save(&[1; 60], "png").unwrap();
        let stale_tmp = dir.join(temp_name(0));
        fs::write(&stale_tmp, b"half").unwrap();
        let old = SystemTime::now() - Duration::from_secs(2 * 3600);
        for path in [&saved.path, &stale_tmp] {
            File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let removed = store.cleanup_files().unwrap();
        let mut expected = vec![
            Removed {
                name: file_name(&saved.path).to_string(),
                byte_length: 60,
            },
            Removed {
                name: file_name(&stale_tmp).to_string(),
                byte_length: 4,
            },
        ];
        expected.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(removed, expected);
        // The running total went down with it: the next save lists nothing.
        let before = LISTINGS.with(|n| n.get());
        store.save(&[2; 60], "png").unwrap();
        assert_eq!(LISTINGS.with(|n| n.get()), before);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_or_fifo_at_the_lock_name_is_never_followed_or_opened() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("store");
        fs::create_dir(&dir).unwrap();
        let victim = tmp.path().join("victim.txt");
        fs::write(&victim, b"precious").unwrap();
        symlink(&victim, dir.join(LOCK_NAME)).unwrap();
        let store = store_in(&dir);
        let err = store.save(b"x", "bin").unwrap_err();
        assert!(
            err.to_string().starts_with("cannot create a file in "),
            "{err}"
        );
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert!(names(&dir).is_empty());
        // cleanup still works, unlocked, and leaves the link alone.
        assert_eq!(store.cleanup().unwrap(), 0);
        assert!(fs::symlink_metadata(dir.join(LOCK_NAME))
            .unwrap()
            .is_symlink());

        fs::remove_file(dir.join(LOCK_NAME)).unwrap();
        if !make_fifo(&dir.join(LOCK_NAME)) {
            return;
        }
        let err = store.save(b"x", "bin").unwrap_err();
        assert!(err.to_string().contains("is not a regular file"), "{err}");
        assert!(names(&dir).is_empty());
    }

    #[test]
    fn cap_removes_the_oldest_own_files_first() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path()).with_max_bytes(Some(1000.0)).unwrap();
        let stranger = tmp.path().join("notes.txt");
        fs::write(&stranger, [0u8; 700]).unwrap();
        let a = store.save(&[1; 400], "bin").unwrap();
        let b = store.save(&[2; 400], "bin").unwrap();
        // 400 + 400 + 400 > 1000: the oldest (a) makes room.
        let c = store.save(&[3; 400], "bin").unwrap();
        assert!(!a.path.exists() && b.path.exists() && c.path.exists());
        // Files that are not the store's own are neither counted nor removed.
        assert!(stranger.exists());
        // Another store on the same folder counts what is there.
        let other = store_in(tmp.path()).with_max_bytes(Some(1000.0)).unwrap();
        let d = other.save(&[4; 300], "bin").unwrap();
        assert!(!b.path.exists() && c.path.exists() && d.path.exists());
    }

    #[test]
    fn a_blob_over_the_whole_cap_is_refused_unwritten() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path()).with_max_bytes(Some(10.0)).unwrap();
        let kept = store.save(b"0123456789", "bin").unwrap();
        let err = store.save(&[0; 11], "bin").unwrap_err();
        assert_eq!(err.code(), "STORE_OVER_CAP");
        assert_eq!(
            err.to_string(),
            "11 bytes is over the store's size cap of 10 bytes"
        );
        let err = store
            .save_with("bin", |w| w.write_all(&[0; 11]).map(|_| 11))
            .unwrap_err();
        assert_eq!(err.code(), "STORE_OVER_CAP");
        assert!(kept.path.exists());
        assert_eq!(names(tmp.path()).len(), 1, "no temp file left");
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert!(
                store_in(tmp.path()).with_max_bytes(Some(bad)).is_err(),
                "{bad}"
            );
        }
        assert_eq!(store_in(tmp.path()).max_bytes(), DEFAULT_MAX_BYTES);
    }

    #[test]
    fn names_planted_ahead_do_not_block_saves() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        // Plant every name this process would use for the next 3 ms, 2,000
        // per ms: far more than the attempts a save makes.
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let pid = std::process::id();
        let mut planted = 0;
        for ms in now_ms..now_ms + 3 {
            for seq in 0..2000 {
                let name = format!("tool_{ms:013}_{seq:06}_{pid:010}.bin");
                fs::write(tmp.path().join(name), b"planted").unwrap();
                planted += 1;
            }
        }
        for _ in 0..20 {
            let saved = store.save(b"mine", "bin").unwrap();
            assert_eq!(fs::read(&saved.path).unwrap(), b"mine");
        }
        let own = own_files(tmp.path()).len();
        assert_eq!(own, planted + 20);
    }

    /// Makes a FIFO with the system's `mkfifo`; `false` (with the reason
    /// printed) where there is none.
    #[cfg(unix)]
    fn make_fifo(path: &Path) -> bool {
        match std::process::Command::new("mkfifo").arg(path).status() {
            Ok(status) if status.success() => true,
            other => {
                eprintln!("skipped: mkfifo failed ({other:?})");
                false
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_planted_at_a_name_is_never_opened_or_removed() {
        use std::os::unix::fs::FileTypeExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let own_name = "tool_1764481234567_000001_0000000001.bin";
        let fifo = dir.join(own_name);
        let temp_fifo = dir.join(temp_name(0));
        if !(make_fifo(&fifo) && make_fifo(&temp_fifo)) {
            return;
        }
        let is_fifo = |path: &Path| fs::symlink_metadata(path).unwrap().file_type().is_fifo();
        // Opening a FIFO to write would wait for a reader; a new file fails at once.
        for path in [&fifo, &temp_fifo] {
            assert_eq!(
                open_new(path).unwrap_err().kind(),
                io::ErrorKind::AlreadyExists
            );
        }
        // Publishing moves on to the next name.
        let src = dir.join(temp_name(0));
        fs::write(&src, b"payload").unwrap();
        let fresh = "tool_1764481234567_000002_0000000001.bin";
        let mut queue = vec![fresh.to_string(), own_name.to_string()];
        let path = publish(&src, dir, |_| queue.pop().unwrap()).unwrap();
        assert_eq!(path, dir.join(fresh));
        assert_eq!(fs::read(&path).unwrap(), b"payload");
        // Retention 0 makes every own name old enough; a FIFO is still no file
        // of the store's, for cleanup and for the cap alike.
        let store = ToolOutputStore::new(Some(dir.to_path_buf()), Some(0.0)).unwrap();
        assert_eq!(store.cleanup().unwrap(), 1, "only the published file");
        assert!(is_fifo(&fifo) && is_fifo(&temp_fifo));
        let store = store_in(dir).with_max_bytes(Some(10.0)).unwrap();
        let saved = store.save(b"0123456789", "bin").unwrap();
        assert_eq!(fs::read(&saved.path).unwrap(), b"0123456789");
        assert!(is_fifo(&fifo) && is_fifo(&temp_fifo));
    }

    #[test]
    fn cleanup_racing_with_saves_removes_only_expired_own_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let store = Arc::new(ToolOutputStore::new(Some(dir.to_path_buf()), Some(1.0)).unwrap());
        let old = SystemTime::now() - Duration::from_secs(3 * 86_400);
        let age = |path: &Path| {
            let file = File::options().write(true).open(path).unwrap();
            file.set_modified(old).unwrap();
        };
        let expired: Vec<PathBuf> = (0..200)
            .map(|i| store.save(&[i as u8; 10], "bin").unwrap().path)
            .collect();
        expired.iter().for_each(|path| age(path));
        let stranger = dir.join("notes.txt");
        fs::write(&stranger, b"keep").unwrap();
        age(&stranger);

        let done = Arc::new(AtomicBool::new(false));
        let cleaner = {
            let (store, done) = (Arc::clone(&store), Arc::clone(&done));
            std::thread::spawn(move || {
                let (mut removed, mut rounds) = (0, 0);
                loop {
                    removed += store.cleanup().unwrap();
                    rounds += 1;
                    // Two rounds at least, however the threads are scheduled.
                    if done.load(Ordering::Acquire) && rounds >= 2 {
                        return removed;
                    }
                }
            })
        };
        let savers: Vec<_> = (0..2)
            .map(|t| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    (0..500)
                        .map(|i| {
                            let data = format!("saver {t}, file {i}\n").repeat(50);
                            (store.save(data.as_bytes(), "txt").unwrap().path, data)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let saved: Vec<(PathBuf, String)> = savers
            .into_iter()
            .flat_map(|saver| saver.join().unwrap())
            .collect();
        done.store(true, Ordering::Release);
        let removed = cleaner.join().unwrap();

        assert_eq!(removed, expired.len(), "every expired file, once");
        assert!(expired.iter().all(|path| !path.exists()));
        for (path, data) in &saved {
            assert_eq!(fs::read_to_string(path).unwrap(), *data, "{path:?}");
        }
        assert_eq!(fs::read(&stranger).unwrap(), b"keep");
        let left = names(dir);
        assert_eq!(
            left.len(),
            saved.len() + 1,
            "saved files and notes.txt only"
        );
        assert!(!left.iter().any(|name| name.starts_with(TEMP_PREFIX)));
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_named_through_a_symlink_is_used_as_the_system_resolves_it() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        // The caller's own choice (macOS's /tmp is such a link): followed.
        let real = tmp.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        symlink(&real, &link).unwrap();
        let saved = store_in(&link).save(b"x", "bin").unwrap();
        assert_eq!(saved.path.parent().unwrap(), link);
        assert_eq!(names(&real), [file_name(&saved.path)]);
        // A link to nowhere is not made into a folder: a clear error, nothing
        // created at either end.
        let dangling = tmp.path().join("dangling");
        let nowhere = tmp.path().join("nowhere");
        symlink(&nowhere, &dangling).unwrap();
        let err = store_in(&dangling).save(b"x", "bin").unwrap_err();
        assert!(err.to_string().contains("not a folder"), "{err}");
        assert!(!nowhere.exists());
        assert!(fs::symlink_metadata(&dangling).unwrap().is_symlink());
    }
}
