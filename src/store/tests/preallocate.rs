//! Blocks claimed before a write: the file holds exactly what was written
//! whatever length was announced, and claimed blocks past it are given back.

use super::*;
use crate::store::preallocate::{claim, CLAIM_FROM};

const MIB: usize = 1 << 20;

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 % 253) as u8).collect()
}

/// Whether blocks are claimed for a file of `len` bytes in `dir` (ext4).
fn claims_in(dir: &Path, len: u64) -> bool {
    let path = dir.join("probe");
    let file = File::create(&path).unwrap();
    let claimed = claim(&file, len);
    drop(file);
    fs::remove_file(path).unwrap();
    claimed
}

#[test]
fn a_sized_save_holds_what_was_written_whatever_was_announced() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let data = pattern(MIB + 7);
    for (announced, written) in [
        (data.len(), data.len()),
        (data.len(), 300_000), // fewer bytes than announced
        (300_000, data.len()), // more
        (data.len(), 0),       // none
        (1000, 1000),          // under the size blocks are claimed from
    ] {
        let saved = store
            .save_sized_with("bin", announced as u64, |w| {
                w.write_all(&data[..written]).map(|()| written as u64)
            })
            .unwrap();
        assert_eq!(saved.byte_length, written as u64, "{announced} announced");
        assert_eq!(
            fs::read(&saved.path).unwrap(),
            &data[..written],
            "{announced} announced"
        );
    }
}

#[test]
fn a_failed_sized_save_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    let err = store
        .save_sized_with("bin", 4 * MIB as u64, |w| {
            w.write_all(&pattern(300_000))?;
            Err(io::Error::other("the source failed"))
        })
        .unwrap_err();
    assert_eq!(err.code(), "STORE_SOURCE_FAILED");
    assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
}

#[cfg(target_os = "linux")]
#[test]
fn blocks_claimed_past_the_last_byte_written_are_given_back() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    if !claims_in(tmp.path(), 4 * MIB as u64) {
        println!(
            "not checked: no blocks are claimed in {} (claimed on ext4 only)",
            tmp.path().display()
        );
        return;
    }
    assert!(
        !claims_in(tmp.path(), CLAIM_FROM - 1),
        "claimed under CLAIM_FROM"
    );
    let store = store_in(tmp.path());
    let written = 300_000usize;
    let saved = store
        .save_sized_with("bin", 4 * MIB as u64, |w| {
            w.write_all(&pattern(written)).map(|()| written as u64)
        })
        .unwrap();
    // st_blocks counts 512-byte units: 4 MiB claimed would be 8192.
    let blocks = fs::metadata(&saved.path).unwrap().blocks();
    let needed = (written as u64).div_ceil(4096) * 8;
    assert!(
        blocks <= needed,
        "{blocks} blocks of 512 bytes held, {needed} needed"
    );
}

#[test]
fn tmpfs_is_written_without_claiming() {
    let shm = Path::new("/dev/shm");
    if !cfg!(target_os = "linux") || !shm.is_dir() {
        println!("not checked: no /dev/shm here");
        return;
    }
    let Ok(tmp) = tempfile::tempdir_in(shm) else {
        println!("not checked: /dev/shm is not writable");
        return;
    };
    assert!(!claims_in(tmp.path(), 4 * MIB as u64));
}
