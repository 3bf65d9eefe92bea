//! The spill store's name handling, through its public API, in a sandbox
//! folder under the system temp dir: `<tmp>/mcp-content-fuzz-<pid>/store`.
//!
//! Input: a mode byte, then a name (up to the first newline, read as UTF-8
//! with replacement characters) and the data (the rest). Modes:
//! - 0 `ToolOutputStore::save(data, name)`: accepted exactly when `name` is
//!   empty or a valid extension (the documented grammar, restated in
//!   `names`), else `INVALID_ARGUMENT` with nothing written;
//! - 1 `save_blob` with the name as the caller's extension (one leading dot
//!   dropped) and a declared type from the dictionary;
//! - 2 `save_blob` with a declared type only;
//! - 3 a file planted under the name, two hours old, then `cleanup()` with
//!   a retention of 0: removed exactly when the name is one the store makes
//!   (`tool_<id>[.<ext>]` or its temp name), and never when it is a symlink;
//! - 4 the same planted file, then a save into a store capped at one byte:
//!   the eviction removes exactly the store's own names (a symlink planted
//!   at the lock file's name makes the save fail, never followed).
//!
//! After every save: the file is `tool_<id>[.<ext>]` directly in the store
//! folder with the data in it, and nothing else exists in the sandbox but
//! the store's lock file.

#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use libfuzzer_sys::fuzz_target;
use mcp_content::payload::Payload;
use mcp_content::save;
use mcp_content::store::{Saved, ToolOutputStore, LOCK_NAME};
use mcp_content_fuzz::{declared, names, Input};

fn sandbox() -> &'static Path {
    static SANDBOX: OnceLock<PathBuf> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("mcp-content-fuzz-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the sandbox");
        dir
    })
}

/// The names in `dir`, the store's lock file aside.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("list").file_name().to_string_lossy().into_owned())
                .filter(|name| name != LOCK_NAME)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The sandbox holds the store folder only, and that holds `expected` only.
fn assert_contents(store_dir: &Path, expected: &[&str]) {
    let outside = listing(sandbox());
    assert!(
        outside.is_empty() || outside == ["store"],
        "written outside the store folder: {outside:?}"
    );
    assert_eq!(listing(store_dir), expected, "the store folder");
}

fn empty(store_dir: &Path) {
    let _ = fs::remove_file(store_dir.join(LOCK_NAME));
    for name in listing(store_dir) {
        fs::remove_file(store_dir.join(name)).expect("empty the store folder");
    }
}

/// A successful save: `tool_<id>.<extension>` in the store folder, holding `data`.
fn check_saved(store_dir: &Path, saved: &Saved, extension: &str, data: &[u8]) {
    assert_eq!(saved.path.parent(), Some(store_dir));
    let name = saved
        .path
        .file_name()
        .unwrap()
        .to_str()
        .expect("UTF-8 name");
    assert!(names::own_file(name), "{name}");
    match extension {
        "" => assert!(!name.contains('.'), "{name}"),
        ext => assert!(name.ends_with(&format!(".{ext}")), "{name}"),
    }
    assert_eq!(saved.byte_length, data.len() as u64);
    assert_eq!(fs::read(&saved.path).expect("read the saved file"), data);
    assert_contents(store_dir, &[name]);
}

/// A name a file can have directly in the folder.
fn plantable(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\0'])
        && name.len() < 250
}

fuzz_target!(|input: &[u8]| {
    let mut input = Input::new(input);
    let mode = input.byte();
    let type_index = input.byte();
    let rest = input.rest();
    let (name, data) = match rest.iter().position(|&b| b == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let name = String::from_utf8_lossy(name);
    let store_dir = sandbox().join("store");
    empty(&store_dir);

    match mode % 5 {
        0 => {
            let store = ToolOutputStore::new(Some(store_dir.clone()), None).unwrap();
            match store.save(data, &name) {
                Ok(saved) => {
                    assert!(name.is_empty() || names::valid_extension(&name), "{name:?}");
                    check_saved(&store_dir, &saved, &name, data);
                }
                Err(error) => {
                    assert!(
                        !name.is_empty() && !names::valid_extension(&name),
                        "{error}"
                    );
                    assert_eq!(error.code(), "INVALID_ARGUMENT", "{error}");
                    assert_contents(&store_dir, &[]);
                }
            }
        }
        1 | 2 => {
            let store = ToolOutputStore::new(Some(store_dir.clone()), None).unwrap();
            let extension = (mode % 5 == 1).then_some(&*name);
            let media_type = declared(type_index);
            let result = save::save_blob(&store, Payload::Bytes(data), media_type, extension);
            // The extension the save must use; `None` when the bytes choose it.
            let expected_ext = match (extension, media_type) {
                (Some(ext), _) => Some(ext.strip_prefix('.').unwrap_or(ext)),
                (None, Some(media_type)) => Some(mcp_content::media_type::extension(media_type)),
                (None, None) => None,
            };
            match (result, expected_ext) {
                (Ok(saved), Some(ext)) => {
                    assert!(ext.is_empty() || names::valid_extension(ext), "{ext:?}");
                    check_saved(&store_dir, &saved, ext, data);
                }
                (Ok(saved), None) => {
                    let name = saved.path.file_name().unwrap().to_str().unwrap();
                    let ext = name.split_once('.').map_or("", |(_, ext)| ext);
                    check_saved(&store_dir, &saved, ext, data);
                }
                (Err(error), ext) => {
                    let ext = ext.unwrap_or("");
                    assert!(!ext.is_empty() && !names::valid_extension(ext), "{error}");
                    assert_eq!(error.code(), "INVALID_ARGUMENT", "{error}");
                    assert_contents(&store_dir, &[]);
                }
            }
        }
        mode => {
            if !plantable(&name) {
                return;
            }
            fs::create_dir_all(&store_dir).unwrap();
            let planted = store_dir.join(&*name);
            let symlink = type_index & 1 != 0;
            let target = sandbox().join("target");
            fs::write(&target, b"outside").unwrap();
            if symlink {
                std::os::unix::fs::symlink(&target, &planted).unwrap();
            } else {
                // One byte, so that the eviction has something to free.
                fs::write(&planted, b"p").unwrap();
                let file = fs::File::options().write(true).open(&planted).unwrap();
                let two_hours_ago = SystemTime::now() - Duration::from_secs(7200);
                file.set_modified(two_hours_ago).unwrap();
            }
            let own = names::own_file(&name);
            let expected_removed = !symlink
                && if mode == 3 {
                    own || names::own_temp(&name)
                } else {
                    own
                };
            if mode == 3 {
                let store = ToolOutputStore::new(Some(store_dir.clone()), Some(0.0)).unwrap();
                let removed = store.cleanup().unwrap();
                assert_eq!(removed, usize::from(expected_removed), "{name:?}");
            } else {
                let store = ToolOutputStore::new(Some(store_dir.clone()), None)
                    .unwrap()
                    .with_max_bytes(Some(1.0))
                    .unwrap();
                match store.save(b"x", "") {
                    Ok(saved) => fs::remove_file(&saved.path).unwrap(),
                    Err(error) => assert!(symlink && name == LOCK_NAME, "{name:?}: {error}"),
                }
            }
            let exists = fs::symlink_metadata(&planted).is_ok();
            assert_eq!(!exists, expected_removed, "{name:?}");
            assert_eq!(fs::read(&target).unwrap(), b"outside");
            fs::remove_file(&target).unwrap();
            // A file planted at the lock file's name is the lock file now.
            let left: &[&str] = if expected_removed || name == LOCK_NAME {
                &[]
            } else {
                &[&name]
            };
            assert_contents(&store_dir, left);
        }
    }
    empty(&store_dir);
});
