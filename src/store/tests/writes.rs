//! Saves: what is written reads back, and failed writes (a full disk,
//! an unwritable folder) leave nothing and say why.

use super::*;

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
            .stream_and_finish(&store.lock().unwrap(), temp, dev_full(), 0, "bin", produce)
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
            panic!(
                "running as root, {name} needs setpriv (util-linux) to drop to uid {NOBODY}: {e}"
            )
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
