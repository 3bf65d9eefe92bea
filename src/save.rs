//! `ToolOutputStore.save`: a caller's blob (bytes or base64) written to the
//! store under an extension taken from the caller, the declared media type or
//! the sniffed bytes, in that order.

use std::fmt;

use crate::base64_data::Base64Error;
use crate::classify;
use crate::media_type;
use crate::payload::{Data, Payload};
use crate::store::{Saved, StoreError, ToolOutputStore};

/// Why a save did not happen.
#[derive(Debug)]
pub enum SaveError {
    InvalidBase64(Base64Error),
    Store(StoreError),
}

impl SaveError {
    /// Stable machine-readable code (`err.code` in JS).
    pub fn code(&self) -> &'static str {
        match self {
            SaveError::InvalidBase64(_) => "INVALID_BASE64",
            SaveError::Store(error) => error.code(),
        }
    }
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::InvalidBase64(error) => write!(f, "invalid base64 data ({error})"),
            SaveError::Store(error) => error.fmt(f),
        }
    }
}

/// Save `payload` decoded. `extension` (a leading dot is dropped) wins over
/// `media_type`; with neither, the bytes are sniffed. Base64 is decoded
/// straight into the file, never whole into memory.
pub fn save_blob(
    store: &ToolOutputStore,
    payload: Payload,
    media_type: Option<&str>,
    extension: Option<&str>,
) -> Result<Saved, SaveError> {
    let data = Data::open(payload).map_err(SaveError::InvalidBase64)?;
    let extension = match (extension, media_type) {
        (Some(extension), _) => extension.strip_prefix('.').unwrap_or(extension),
        (None, Some(media_type)) => media_type::extension(media_type),
        (None, None) => {
            let sniffed = classify::classify_data(&data, None, None).media_type;
            media_type::extension(&sniffed)
        }
    };
    store
        .check_fits(data.len() as u64)
        .and_then(|()| {
            store.save_sized_with(extension, data.len() as u64, |writer| data.write_to(writer))
        })
        .map_err(SaveError::Store)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base64_data;

    fn store() -> (tempfile::TempDir, ToolOutputStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = ToolOutputStore::new(Some(dir.path().to_path_buf()), None).unwrap();
        (dir, store)
    }

    #[test]
    fn extension_from_caller_then_media_type_then_bytes() {
        let (_dir, store) = store();
        let png = b"\x89PNG\r\n\x1a\n rest";
        let saved =
            save_blob(&store, Payload::Bytes(png), Some("image/png"), Some(".bin")).unwrap();
        assert!(saved.path.to_string_lossy().ends_with(".bin"));
        let saved = save_blob(&store, Payload::Bytes(png), Some("image/gif"), None).unwrap();
        assert!(saved.path.to_string_lossy().ends_with(".gif"));
        let encoded = base64_data::encode(png);
        let saved = save_blob(&store, Payload::Base64(encoded.as_bytes()), None, None).unwrap();
        assert!(saved.path.to_string_lossy().ends_with(".png"));
        assert_eq!(std::fs::read(&saved.path).unwrap(), png);
        assert_eq!(saved.byte_length, png.len() as u64);
    }

    #[test]
    fn invalid_base64_and_bad_extension_have_codes() {
        let (dir, store) = store();
        let error = save_blob(&store, Payload::Base64(b"ab!d"), None, None).unwrap_err();
        assert_eq!(error.code(), "INVALID_BASE64");
        let error = save_blob(&store, Payload::Bytes(b"x"), None, Some("../x")).unwrap_err();
        assert_eq!(error.code(), "INVALID_ARGUMENT");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
