//! The store's folder: created private, checked before use, locked while
//! a save runs (the lock file holds the running total), its free space.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{ACTION_CREATE_FILE, ACTION_LOCK_FOLDER, LOCK_NAME, TOTAL_CHECK};

/// Bytes this user may still write and total bytes of the file system
/// holding `path`, when the OS tells.
#[cfg(unix)]
pub(super) fn disk_space(path: &Path) -> Option<(u64, u64)> {
    let stats = rustix::fs::statvfs(path).ok()?;
    let unit = stats.f_frsize.max(1);
    Some((
        stats.f_bavail.saturating_mul(unit),
        stats.f_blocks.saturating_mul(unit),
    ))
}

#[cfg(windows)]
pub(super) fn disk_space(path: &Path) -> Option<(u64, u64)> {
    let stats = fs4::statvfs(path).ok()?;
    Some((stats.available_space(), stats.total_space()))
}

/// WASI preview 1 has no statvfs.
#[cfg(not(any(unix, windows)))]
pub(super) fn disk_space(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// The folder's lock file, locked exclusively (released when dropped), and
/// the running total it holds: bytes of the folder's own files.
pub(super) struct FolderLock {
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
    pub(super) fn acquire(
        dir: &Path,
        create: bool,
    ) -> Result<Option<FolderLock>, (&'static str, io::Error)> {
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
    pub(super) fn total(&self) -> Option<u64> {
        let mut buf = [0u8; 16];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0)).ok()?;
        file.read_exact(&mut buf).ok()?;
        let total = u64::from_le_bytes(buf[..8].try_into().ok()?);
        let check = u64::from_le_bytes(buf[8..].try_into().ok()?);
        (check == total ^ TOTAL_CHECK).then_some(total)
    }

    /// Records the running total; a failure only means a listing later.
    pub(super) fn set_total(&self, total: u64) {
        let mut buf = [0u8; 16];
        buf[..8].copy_from_slice(&total.to_le_bytes());
        buf[8..].copy_from_slice(&(total ^ TOTAL_CHECK).to_le_bytes());
        let mut file = &self.file;
        let _ = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(&buf));
    }
}

/// Creates `path` and its missing parents with mode 0700 (set explicitly,
/// as `mkdir` applies the umask); existing folders are left untouched. On
/// failure, returns the level that failed.
pub(super) fn create_dirs(path: &Path) -> Result<(), (PathBuf, io::Error)> {
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
pub(super) fn private_dir_builder() -> fs::DirBuilder {
    use std::os::unix::fs::DirBuilderExt;
    let mut builder = fs::DirBuilder::new();
    builder.mode(0o700);
    builder
}

#[cfg(not(unix))]
pub(super) fn private_dir_builder() -> fs::DirBuilder {
    fs::DirBuilder::new()
}

pub(super) fn not_a_directory() -> io::Error {
    io::Error::new(io::ErrorKind::NotADirectory, "not a folder")
}

#[cfg(unix)]
pub(super) fn set_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
pub(super) fn set_private(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// `path` must be a folder itself, not a symlink to one.
pub(super) fn check_real_dir(path: &Path) -> io::Result<fs::Metadata> {
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
pub(super) fn check_private_dir(path: &Path, user: &str) -> io::Result<()> {
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
pub(super) fn current_user_tag() -> String {
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
pub(super) fn current_user_tag() -> String {
    // USERNAME on Windows; USER or LOGNAME on a Unix host running the wasm build.
    sanitize_user(
        std::env::var("USERNAME")
            .or_else(|_| std::env::var("USER"))
            .or_else(|_| std::env::var("LOGNAME"))
            .ok(),
    )
}

pub(super) fn sanitize_user(name: Option<String>) -> String {
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

/// The system temp folder. WASI's std has none (it panics), so the wasm
/// build takes `TMPDIR` (the loader passes the host's environment) or `/tmp`.
#[cfg(not(target_os = "wasi"))]
pub(super) fn temp_dir() -> PathBuf {
    std::env::temp_dir()
}

#[cfg(target_os = "wasi")]
pub(super) fn temp_dir() -> PathBuf {
    std::env::var_os("TMPDIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
}
