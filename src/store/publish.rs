//! Writing a file and giving it its final name: counted writes, then a
//! claim that never replaces or follows an existing entry.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::MAX_ATTEMPTS;

/// Forwards to a buffered file, counting bytes and remembering the file's
/// own error (so that it is reported even if the closure wraps it).
pub(super) struct CountingWriter {
    pub inner: BufWriter<File>,
    pub written: u64,
    pub failure: Option<io::Error>,
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

pub(super) fn copy_error(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

/// Best-effort removal of a temp file after a failure.
pub(super) fn discard(tmp: &Path) {
    let _ = fs::remove_file(tmp);
}

/// `create_new` + write-only + mode 0600: fails on any existing entry,
/// symlinks included, without following it.
pub(super) fn open_new(path: &Path) -> io::Result<File> {
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
pub(super) fn publish(
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
pub(super) fn claim_by_link(tmp: &Path, target: &Path) -> io::Result<()> {
    fs::hard_link(tmp, target)?;
    // The file is published; a leftover temp name (an extra link to the same
    // file) is harmless and removed later by `cleanup`.
    discard(tmp);
    Ok(())
}

/// Reserves `target` with an exclusive empty file, then renames `tmp` over
/// it (`rename` replaces the entry itself, never a symlink's target).
pub(super) fn claim_by_rename(tmp: &Path, target: &Path) -> io::Result<()> {
    drop(open_new(target)?);
    fs::rename(tmp, target).inspect_err(|_| discard(target))
}
