//! Names: the id sequence and the name grammar, collisions, concurrent
//! saves, names planted ahead of the sequence.

use super::*;

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
