//! Reading back a file the store wrote, as a note names it: only a regular
//! file directly in the store's folder whose name is one the store gives
//! (never its lock file, a temp file, a symlink or anything elsewhere), a
//! bounded range at a time.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use super::{is_own_file_name, StoreError, ToolOutputStore};

/// The most one [`ToolOutputStore::read`] returns: a longer range is cut to
/// it (read again from where it ended). Enough for any text page or image a
/// provider takes in one piece, small enough that a model asking for a
/// whole 1 GiB store file cannot make the process hold it.
pub const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;

const ACTION_READ_FILE: &str = "read a file in";

impl ToolOutputStore {
    /// Up to `length` bytes (default: the rest; at most [`MAX_READ_BYTES`])
    /// from `offset` of the file `location` names, which must be one this
    /// store's folder holds under one of the store's own names (see the
    /// module docs). An offset at or past the end gives no bytes.
    /// Errors: `STORE_NOT_OWN_FILE` for any other location,
    /// `STORE_NOT_FOUND` when the file is not there (removed, expired).
    pub fn read(
        &self,
        location: &str,
        offset: u64,
        length: Option<u64>,
    ) -> Result<Vec<u8>, StoreError> {
        self.read_sized(location, offset, length)
            .map(|(bytes, _)| bytes)
    }

    /// [`read`](Self::read), with the file's whole size.
    pub fn read_sized(
        &self,
        location: &str,
        offset: u64,
        length: Option<u64>,
    ) -> Result<(Vec<u8>, u64), StoreError> {
        if let Some(bucket) = &self.bucket {
            return bucket.read(location, offset, length, MAX_READ_BYTES);
        }
        let path = self.own_file(location)?;
        let mut file = open_regular(&path, location)?;
        let size = file
            .metadata()
            .map_err(|e| StoreError::io(ACTION_READ_FILE, &self.dir, e))?
            .len();
        let wanted = length
            .unwrap_or(u64::MAX)
            .min(MAX_READ_BYTES)
            .min(size.saturating_sub(offset));
        if wanted == 0 {
            return Ok((Vec::new(), size));
        }
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| StoreError::io(ACTION_READ_FILE, &self.dir, e))?;
        // `wanted` is at most MAX_READ_BYTES: it fits a usize.
        let mut bytes = Vec::with_capacity(usize::try_from(wanted).unwrap_or(0));
        file.take(wanted)
            .read_to_end(&mut bytes)
            .map_err(|e| StoreError::io(ACTION_READ_FILE, &self.dir, e))?;
        Ok((bytes, size))
    }

    /// The path `location` names when it is one of this store's own file
    /// names directly in its folder; the file itself is not looked at.
    fn own_file(&self, location: &str) -> Result<PathBuf, StoreError> {
        let refuse = |why: &'static str| StoreError::NotOwnFile {
            location: location.to_string(),
            why,
        };
        if location.is_empty() {
            return Err(refuse("it is empty"));
        }
        let given = Path::new(location);
        // Nothing is resolved through `..`: a path the store wrote has none.
        if given.components().any(|c| c == Component::ParentDir) {
            return Err(refuse("it holds a `..` segment"));
        }
        let path = std::path::absolute(given).map_err(|_| refuse("it cannot be made absolute"))?;
        let name = path.file_name().and_then(|name| name.to_str());
        if !name.is_some_and(is_own_file_name) {
            return Err(refuse("its name is not one the store gives its files"));
        }
        let Some(parent) = path.parent() else {
            return Err(refuse("it has no folder"));
        };
        if parent != self.dir && !same_folder(parent, &self.dir) {
            return Err(refuse("it is not in the store's folder"));
        }
        Ok(path)
    }
}

/// Whether two paths name one folder once symlinks in them are resolved
/// (macOS's `/tmp` is `/private/tmp`). A folder that cannot be resolved
/// (missing; WASI has no `canonicalize`) is not the same.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Opens `path` for reading when it is a regular file itself: a symlink
/// (even to a file of the store) is refused, not followed; a FIFO is not
/// waited on.
fn open_regular(path: &Path, location: &str) -> Result<File, StoreError> {
    let refuse = |why: &'static str| StoreError::NotOwnFile {
        location: location.to_string(),
        why,
    };
    let missing = || StoreError::NotFound {
        path: path.to_path_buf(),
    };
    let dir = path.parent().unwrap_or(path);
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(refuse("it is a symlink")),
        Ok(meta) if !meta.is_file() => return Err(refuse("it is not a regular file")),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(missing()),
        Err(e) => return Err(StoreError::io(ACTION_READ_FILE, dir, e)),
    }
    // Checked again on the open file: the name may have been swapped for a
    // symlink or a FIFO since.
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
        options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(missing()),
        Err(e) => return Err(StoreError::io(ACTION_READ_FILE, dir, e)),
    };
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok(file),
        Ok(_) => Err(refuse("it is not a regular file")),
        Err(e) => Err(StoreError::io(ACTION_READ_FILE, dir, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LOCK_NAME, TEMP_PREFIX};
    use super::*;

    fn store() -> (tempfile::TempDir, ToolOutputStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = ToolOutputStore::new(Some(dir.path().join("out")), None).unwrap();
        (dir, store)
    }

    fn code(result: Result<Vec<u8>, StoreError>) -> &'static str {
        result.unwrap_err().code()
    }

    fn text(path: &Path) -> &str {
        path.to_str().unwrap()
    }

    #[test]
    fn reads_what_it_saved_whole_and_in_ranges() {
        let (_tmp, store) = store();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let saved = store.save(&data, "bin").unwrap();
        let location = text(&saved.path);
        assert_eq!(store.read(location, 0, None).unwrap(), data);
        assert_eq!(
            store.read(location, 100, Some(50)).unwrap(),
            &data[100..150]
        );
        assert_eq!(
            store.read(location, 9_990, Some(50)).unwrap(),
            &data[9_990..]
        );
        assert!(store.read(location, 10_000, None).unwrap().is_empty());
        assert!(store.read(location, u64::MAX, Some(1)).unwrap().is_empty());
        assert!(store.read(location, 0, Some(0)).unwrap().is_empty());
        // A `.` segment names the same file.
        let dotted = store.dir().join(".").join(saved.path.file_name().unwrap());
        assert_eq!(store.read(text(&dotted), 0, Some(3)).unwrap(), &data[..3]);
    }

    #[test]
    fn a_long_range_is_cut_to_the_bound() {
        let (_tmp, store) = store();
        let len = usize::try_from(MAX_READ_BYTES).unwrap() + 10;
        let data: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
        let saved = store.save(&data, "").unwrap();
        let location = text(&saved.path);
        let first = store.read(location, 0, None).unwrap();
        assert_eq!(first.len() as u64, MAX_READ_BYTES);
        assert_eq!(first, &data[..first.len()]);
        let rest = store
            .read(location, MAX_READ_BYTES, Some(u64::MAX))
            .unwrap();
        assert_eq!(rest, &data[first.len()..]);
    }

    #[cfg(unix)]
    #[test]
    fn the_canonical_folder_is_the_same_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        fs::create_dir(&real).unwrap();
        // A store named through a symlinked folder, the file named through the real one.
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let store = ToolOutputStore::new(Some(link), None).unwrap();
        let saved = store.save(b"abc", "txt").unwrap();
        let through_real = real.join(saved.path.file_name().unwrap());
        assert_eq!(store.read(text(&through_real), 0, None).unwrap(), b"abc");
    }

    #[test]
    fn refuses_locations_outside_or_not_its_own() {
        let (tmp, store) = store();
        let saved = store.save(b"secret-free", "txt").unwrap();
        let name = saved
            .path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let dir = store.dir().to_path_buf();
        // A file with an own name, outside the folder.
        let outside = tmp.path().join(&name);
        fs::write(&outside, b"outside").unwrap();
        let refused = [
            String::new(),
            // `..` back into the folder, and out of it.
            format!("{}/../out/{name}", dir.display()),
            format!("{}/../{name}", dir.display()),
            text(&outside).to_string(),
            // Names the store does not give.
            text(&dir.join(LOCK_NAME)).to_string(),
            text(&dir.join(format!(
                "{TEMP_PREFIX}0000000001_00000000000000000001_000000001"
            )))
            .to_string(),
            text(&dir.join(format!("{name}.bak"))).to_string(),
            text(&dir).to_string(),
            "/etc/passwd".to_string(),
        ];
        for location in refused {
            assert_eq!(
                code(store.read(&location, 0, None)),
                "STORE_NOT_OWN_FILE",
                "{location}"
            );
        }
        // The same name in another store's folder is that store's, not this one's.
        let other = ToolOutputStore::new(Some(tmp.path().join("other")), None).unwrap();
        let theirs = other.save(b"theirs", "txt").unwrap();
        assert_eq!(
            code(store.read(text(&theirs.path), 0, None)),
            "STORE_NOT_OWN_FILE"
        );
        assert_eq!(other.read(text(&theirs.path), 0, None).unwrap(), b"theirs");
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_symlink_and_a_fifo_in_the_folder() {
        let (tmp, store) = store();
        let saved = store.save(b"x", "txt").unwrap();
        let outside = tmp.path().join("target.txt");
        fs::write(&outside, b"not the store's").unwrap();
        let planted = store.dir().join("tool_1764481234567_000042_0000012345.txt");
        std::os::unix::fs::symlink(&outside, &planted).unwrap();
        assert_eq!(
            code(store.read(text(&planted), 0, None)),
            "STORE_NOT_OWN_FILE"
        );
        // Even one pointing at a file of the store.
        let to_own = store.dir().join("tool_1764481234567_000043_0000012345.txt");
        std::os::unix::fs::symlink(&saved.path, &to_own).unwrap();
        assert_eq!(
            code(store.read(text(&to_own), 0, None)),
            "STORE_NOT_OWN_FILE"
        );
        #[cfg(target_os = "linux")]
        {
            let fifo = store.dir().join("tool_1764481234567_000044_0000012345");
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &fifo,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o600),
                0,
            )
            .unwrap();
            assert_eq!(code(store.read(text(&fifo), 0, None)), "STORE_NOT_OWN_FILE");
        }
        let folder = store.dir().join("tool_1764481234567_000045_0000012345");
        fs::create_dir(&folder).unwrap();
        assert_eq!(
            code(store.read(text(&folder), 0, None)),
            "STORE_NOT_OWN_FILE"
        );
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let (_tmp, store) = store();
        let saved = store.save(b"gone soon", "txt").unwrap();
        fs::remove_file(&saved.path).unwrap();
        assert_eq!(
            code(store.read(text(&saved.path), 0, None)),
            "STORE_NOT_FOUND"
        );
        // A store whose folder was never made: its own names are missing too.
        let tmp = tempfile::tempdir().unwrap();
        let fresh = ToolOutputStore::new(Some(tmp.path().join("never")), None).unwrap();
        let name = fresh.dir().join("tool_1764481234567_000042_0000012345.txt");
        assert_eq!(code(fresh.read(text(&name), 0, None)), "STORE_NOT_FOUND");
    }
}
