//! Several processes saving into one folder at once: every file gets its own
//! name and keeps its own content.
//!
//! The test binary re-runs itself as the children: with `CHILD_DIR` set, the
//! test saves its share of files instead of spawning.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_content::store::ToolOutputStore;

const CHILD_DIR: &str = "MCP_CONTENT_STORE_TEST_CHILD_DIR";
const CHILD_INDEX: &str = "MCP_CONTENT_STORE_TEST_CHILD_INDEX";
const CHILD_GO: &str = "MCP_CONTENT_STORE_TEST_CHILD_GO";
const PROCESSES: usize = 6;
const PER_PROCESS: usize = 300;
const TEST_NAME: &str = "store_saves_from_many_processes_are_distinct";

/// Content of file `item` of process `proc`: a header then a size-varying body.
fn body(proc: usize, item: usize) -> String {
    let header = format!("proc={proc} item={item}\n");
    format!("{header}{}", "0123456789abcdef".repeat(item % 17 * 40))
}

fn parse_header(text: &str) -> (usize, usize) {
    let line = text.lines().next().expect("header line");
    let mut fields = line.split(' ').map(|f| f.split_once('=').unwrap().1);
    let proc = fields.next().unwrap().parse().unwrap();
    let item = fields.next().unwrap().parse().unwrap();
    (proc, item)
}

fn run_child(dir: PathBuf) {
    let index: usize = std::env::var(CHILD_INDEX).unwrap().parse().unwrap();
    let go = PathBuf::from(std::env::var(CHILD_GO).unwrap());
    // Start together: wait for the parent's go file.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !go.exists() {
        assert!(Instant::now() < deadline, "no go signal");
        std::thread::sleep(Duration::from_millis(1));
    }
    let store = ToolOutputStore::new(Some(dir), None).unwrap();
    for item in 0..PER_PROCESS {
        let data = body(index, item);
        let saved = if item % 2 == 0 {
            store.save(data.as_bytes(), "txt").unwrap()
        } else {
            store
                .save_with("txt", |w| {
                    for chunk in data.as_bytes().chunks(100) {
                        w.write_all(chunk)?;
                    }
                    Ok(data.len() as u64)
                })
                .unwrap()
        };
        assert_eq!(saved.byte_length, data.len() as u64);
    }
}

/// The names in `dir`, the store's lock file aside.
fn list(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != mcp_content::store::LOCK_NAME)
        .collect();
    names.sort();
    names
}

#[test]
fn store_saves_from_many_processes_are_distinct() {
    if let Some(dir) = std::env::var_os(CHILD_DIR) {
        run_child(PathBuf::from(dir));
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("shared").join("tool-output");
    let go = root.path().join("go");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|index| {
            Command::new(&exe)
                .args([TEST_NAME, "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD_DIR, &dir)
                .env(CHILD_INDEX, index.to_string())
                .env(CHILD_GO, &go)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    fs::write(&go, b"").unwrap();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "child failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let names = list(&dir);
    assert_eq!(
        names.len(),
        PROCESSES * PER_PROCESS,
        "no temp file left, none lost"
    );
    // Every (process, item) exactly once, with its full content; within one
    // process, names ascend with the order of saves.
    let mut seen: HashMap<(usize, usize), String> = HashMap::new();
    let mut last_item: HashMap<usize, usize> = HashMap::new();
    for name in &names {
        assert!(
            name.starts_with("tool_") && name.ends_with(".txt"),
            "{name}"
        );
        let text = fs::read_to_string(dir.join(name)).unwrap();
        let (proc, item) = parse_header(&text);
        assert_eq!(text, body(proc, item), "{name}");
        if let Some(prev) = last_item.insert(proc, item) {
            assert!(
                item > prev,
                "{name}: item {item} of proc {proc} after {prev}"
            );
        }
        assert!(seen.insert((proc, item), name.clone()).is_none(), "{name}");
    }
    assert_eq!(seen.len(), PROCESSES * PER_PROCESS);

    // The children's files are fresh: cleanup keeps them all.
    let store = ToolOutputStore::new(Some(dir.clone()), None).unwrap();
    assert_eq!(store.cleanup().unwrap(), 0);
    assert_eq!(list(&dir).len(), PROCESSES * PER_PROCESS);
}
