//! The store's tests, one module per concern, and the helpers they share.

use super::*;
use std::collections::HashSet;
use std::fs::OpenOptions;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

mod cap;
mod cleanup;
mod folder;
mod names;
mod options;
mod planted;
mod preallocate;
mod writes;

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
