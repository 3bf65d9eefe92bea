//! What a store is made from: its options, and a URL (never taken for a
//! folder; `s3://` a bucket store where the build has the client).

use super::*;

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
