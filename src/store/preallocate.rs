//! A file's disk blocks claimed in one call before it is written, where
//! that was measured to be faster than letting the writes claim them.
//!
//! ext4 reserves the blocks of a buffered write one 4 KiB block at a time
//! (delayed allocation: a reservation, an extent-status entry and a quota
//! charge per block); one `fallocate(FALLOC_FL_KEEP_SIZE)` for the whole
//! length replaces those: a new 32 MiB file written in 4.1 ms instead of
//! 6.3 here. Under 256 KiB the extra call cost more than it saved; on tmpfs
//! it made writes slower; other file systems were not measured, so only
//! ext4 is asked (docs/performance.md, "A file's blocks claimed before it
//! is written").
//!
//! `KEEP_SIZE` leaves the file's length to the writes, so a reader never
//! sees bytes that were not written; blocks claimed past the last byte
//! written are given back by [`trim`].

use std::fs::File;

/// Shorter files are written without claiming their blocks first.
pub(super) const CLAIM_FROM: u64 = 256 * 1024;

/// `EXT4_SUPER_MAGIC` (linux/magic.h), the `f_type` of ext2, ext3 and ext4.
#[cfg(target_os = "linux")]
const EXT4_SUPER_MAGIC: u16 = 0xEF53;

/// Claims `len` bytes of blocks for the empty `file` when its file system
/// is one where that is faster; whether it did. Failure is not an error:
/// the writes then claim the blocks themselves, and report a full disk.
pub(super) fn claim(file: &File, len: u64) -> bool {
    len >= CLAIM_FROM && claim_on_ext4(file, len)
}

#[cfg(target_os = "linux")]
fn claim_on_ext4(file: &File, len: u64) -> bool {
    use rustix::fs::{fallocate, fstatfs, FallocateFlags};
    let on_ext4 = fstatfs(file).is_ok_and(|stats| is_magic(stats.f_type, EXT4_SUPER_MAGIC));
    on_ext4 && fallocate(file, FallocateFlags::KEEP_SIZE, 0, len).is_ok()
}

/// `f_type`'s integer type differs by target; every one holds a `u16`.
#[cfg(target_os = "linux")]
fn is_magic<T: PartialEq + From<u16>>(f_type: T, magic: u16) -> bool {
    f_type == T::from(magic)
}

#[cfg(not(target_os = "linux"))]
fn claim_on_ext4(_file: &File, _len: u64) -> bool {
    false
}

/// Gives back the blocks claimed past `written`, the bytes the file got,
/// when fewer than `claimed`: setting the length the file has frees the
/// blocks beyond it.
pub(super) fn trim(file: &File, claimed: u64, written: u64) -> std::io::Result<()> {
    if written < claimed {
        file.set_len(written)?;
    }
    Ok(())
}
