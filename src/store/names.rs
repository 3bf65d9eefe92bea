//! The names of the store's files: ids in save order, temp names, telling
//! its own files from others, and listing them.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{
    StoreError, FILE_PREFIX, ID_GROUPS, MAX_EXTENSION_LEN, SEQ_PER_MS, TEMP_GROUPS, TEMP_PREFIX,
};

pub(super) fn check_extension(ext: &str) -> Result<(), StoreError> {
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
pub(super) fn is_valid_extension(ext: &str) -> bool {
    !ext.is_empty()
        && ext.len() <= MAX_EXTENSION_LEN
        && ext
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

pub(super) fn final_name(id: &str, extension: &str) -> String {
    if extension.is_empty() {
        format!("{FILE_PREFIX}{id}")
    } else {
        format!("{FILE_PREFIX}{id}.{extension}")
    }
}

#[cfg(test)]
thread_local! {
    /// Folder listings made to make room, by this thread (for tests).
    pub(super) static LISTINGS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a listing of the folder (tests check how rarely it happens).
pub(super) fn count_listing() {
    #[cfg(test)]
    LISTINGS.with(|n| n.set(n.get() + 1));
}

/// The store's own files in `dir` (regular files with its names, never
/// followed through symlinks) and their sizes; unreadable entries are left out.
pub(super) fn own_files(dir: &Path) -> Vec<(PathBuf, u64)> {
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

pub(super) fn is_own_file_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(FILE_PREFIX) else {
        return false;
    };
    match rest.split_once('.') {
        Some((id, ext)) => is_digit_groups(id, &ID_GROUPS) && is_valid_extension(ext),
        None => is_digit_groups(rest, &ID_GROUPS),
    }
}

/// `true` for exactly the temp names the store uses.
pub(super) fn is_own_temp_name(name: &str) -> bool {
    name.strip_prefix(TEMP_PREFIX)
        .is_some_and(|rest| is_digit_groups(rest, &TEMP_GROUPS))
}

/// `s` is groups of ASCII digits of the given widths joined by `_`.
pub(super) fn is_digit_groups(s: &str, widths: &[usize]) -> bool {
    let mut parts = s.split('_');
    widths.iter().all(|&w| {
        parts
            .next()
            .is_some_and(|p| p.len() == w && p.bytes().all(|b| b.is_ascii_digit()))
    }) && parts.next().is_none()
}

pub(super) struct IdClock {
    last_ms: u64,
    seq: u32,
}

pub(super) static ID_CLOCK: Mutex<IdClock> = Mutex::new(IdClock { last_ms: 0, seq: 0 });
pub(super) static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// A number no other process can predict, for jumps past planted names.
pub(super) fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    RandomState::new().hash_one(CALLS.fetch_add(1, Ordering::Relaxed))
}

/// The next id of this process: strictly ascending, fixed width. After
/// `collisions` names taken by someone else, it jumps a random distance (up
/// to 2^collisions ids, at most half a millisecond's worth) so that names
/// planted ahead of the sequence cannot block saves.
pub(super) fn next_id(collisions: u32) -> String {
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
pub(super) fn temp_name(collisions: u32) -> String {
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
pub(super) fn process_id() -> u32 {
    std::process::id()
}

#[cfg(target_os = "wasi")]
pub(super) fn process_id() -> u32 {
    static ID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ID.get_or_init(|| u32::try_from(unpredictable() >> 32).unwrap_or(0))
}
