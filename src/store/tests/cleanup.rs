//! Cleanup: only expired own files removed, even while saves run.

use super::*;

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
