//! The folder: made on the first save, the per-user default and its
//! checks, modes, a folder named through a symlink.

use super::*;

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
