//! What others plant in the folder (symlinks, FIFOs, at a file's name or
//! the lock's) is never followed, opened or removed.

use super::*;

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
