//! The size cap: the oldest own files removed first, a conversion's own
//! files kept, a blob over the cap refused, the folder listed once.

use super::*;

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

/// A full folder is cleared to an eighth below its cap: it is listed once
/// per eighth of the cap saved, not with every save, and never holds more
/// than the cap.
#[test]
fn a_full_folder_is_listed_once_per_eighth_of_the_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path()).with_max_bytes(Some(10_000.0)).unwrap();
    let before = LISTINGS.with(|n| n.get());
    for i in 0..1000u32 {
        store.save(&[i as u8; 100], "bin").unwrap();
        let held: u64 = own_files(tmp.path()).iter().map(|(_, len)| len).sum();
        assert!(held <= 10_000, "save {i}: {held} bytes held");
    }
    let listed = LISTINGS.with(|n| n.get()) - before;
    // The first 100 saves fill the cap; each listing then frees room for 13
    // more (a listing with every one of the 900 saves before).
    assert!((60..=75).contains(&listed), "listed {listed} times");
    let held = own_files(tmp.path()).len();
    assert!((87..=100).contains(&held), "{held} files held");
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
