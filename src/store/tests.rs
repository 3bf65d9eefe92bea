use super::*;
use std::collections::HashSet;
use std::fs::OpenOptions;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

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
        bucket: None,
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

#[test]
fn a_url_is_never_taken_for_a_folder() {
    // Issue 20: this used to save into ./s3:/spills/agent-1/.
    let err = ToolOutputStore::new(Some(PathBuf::from("s3://spills/agent-1")), None).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    assert!(err.to_string().contains("is a URL, not a folder"), "{err}");
    let err = ToolOutputStore::at(Some("https://example.com/x"), &S3Options::default(), None)
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    // One slash: a relative folder whose first level is `s3:`.
    assert!(ToolOutputStore::at(Some("s3:/spills"), &S3Options::default(), None).is_ok());
    let options = S3Options {
        endpoint: Some("http://127.0.0.1:9".into()),
        access_key_id: Some("key".into()),
        secret_access_key: Some("secret".into()),
        ..S3Options::default()
    };
    let store = ToolOutputStore::at(Some("s3://spills/agent-1"), &options, None);
    if cfg!(all(feature = "s3", not(target_family = "wasm"))) {
        let store = store.unwrap();
        assert!(store.is_object_store());
        assert_eq!(store.location(), "s3://spills/agent-1/");
        // The same bucket and prefix, through `keeping` too.
        let kept = Arc::new(KeptFiles::default());
        assert!(store.keeping(&kept).is_object_store());
    } else {
        assert_eq!(store.unwrap_err().code(), "STORE_S3_UNAVAILABLE");
    }
}
