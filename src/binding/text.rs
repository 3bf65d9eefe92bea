//! Texts: one bounded by the text cap (a preview and a note, the whole
//! text saved), and a text saved whole (a result's structured content).

use napi::bindgen_prelude::*;
use napi::Unknown;
use napi_derive::napi;

use super::answer::SavedFile;
use super::args::string_arg;
use super::settings::{settings_of, Settings};
use super::{guarded, on_pool, store_error, OnPool, PoolWork};
use crate::{media_type, text_cap};

js_answer! {
    // A text over the cap: its preview and note, and the file holding the
    // whole text (`null` when it could not be saved: the note says why).
    pub struct BoundedText {
        text: String = "text",
        saved: Option<SavedFile> = "saved",
    }
}

/// A text and its media type (default text/plain), owned.
pub struct TextWork {
    text: String,
    media_type: String,
    settings: Settings,
}

impl TextWork {
    fn read(
        settings: &Unknown,
        text: Unknown,
        media_type: Option<Unknown>,
    ) -> Result<Self, String> {
        Ok(TextWork {
            settings: settings_of(settings)?,
            media_type: string_arg(media_type, "mediaType")?.unwrap_or_else(|| "text/plain".into()),
            text: string_arg(Some(text), "text")?.unwrap_or_default(),
        })
    }

    fn saved_file(&self, saved: crate::store::Saved) -> SavedFile {
        SavedFile {
            path: saved.path.to_string_lossy().into_owned(),
            byte_length: saved.byte_length as f64,
            media_type: self.media_type.clone(),
        }
    }

    fn bounded(&self) -> Result<Option<BoundedText>, String> {
        let extension = media_type::extension(&self.media_type);
        let bounded = guarded(|| {
            Ok(text_cap::bound(
                &self.text,
                self.settings.text_cap,
                extension,
                &self.settings.store,
            ))
        })?;
        Ok(bounded.map(|b| BoundedText {
            text: b.text,
            saved: b.saved.map(|saved| self.saved_file(saved)),
        }))
    }

    fn save(&self) -> Result<SavedFile, String> {
        let extension = media_type::extension(&self.media_type);
        guarded(|| {
            let saved = self
                .settings
                .store
                .save(self.text.as_bytes(), extension)
                .map_err(store_error)?;
            Ok(self.saved_file(saved))
        })
    }
}

/// A text bounded on the thread pool.
pub struct BoundTextWork(TextWork);

/// A text saved on the thread pool.
pub struct SaveTextWork(TextWork);

impl PoolWork for BoundTextWork {
    type Answer = Option<BoundedText>;

    fn run(&mut self) -> Result<Self::Answer, String> {
        self.0.bounded()
    }
}

impl PoolWork for SaveTextWork {
    type Answer = SavedFile;

    fn run(&mut self) -> Result<Self::Answer, String> {
        self.0.save()
    }
}

/// A text bounded by the cap of `settings` (a settings or result handle:
/// a result's saved files are not evicted for this one): `null` when it is
/// within the cap, else a preview and a note naming the whole text, saved
/// under `mediaType`'s extension.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle | ResultHandle, text: string, mediaType: unknown",
    ts_return_type = "BoundedText | null"
)]
pub fn bound_text_sync(
    settings: Unknown,
    text: Unknown,
    media_type: Option<Unknown>,
) -> Result<Option<BoundedText>, String> {
    TextWork::read(&settings, text, media_type)?.bounded()
}

/// A promise of `boundTextSync` done on the libuv thread pool.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle | ResultHandle, text: string, mediaType: unknown",
    ts_return_type = "Promise<BoundedText | null>"
)]
pub fn bound_text(
    settings: Unknown,
    text: Unknown,
    media_type: Option<Unknown>,
) -> Result<AsyncTask<OnPool<BoundTextWork>>, String> {
    Ok(on_pool(BoundTextWork(TextWork::read(
        &settings, text, media_type,
    )?)))
}

/// Save a text (UTF-8) whole in the store of `settings` under `mediaType`'s
/// extension (for a result handle, kept with the result's other files).
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle | ResultHandle, text: string, mediaType: string",
    ts_return_type = "SavedFile"
)]
pub fn save_text_sync(
    settings: Unknown,
    text: Unknown,
    media_type: Option<Unknown>,
) -> Result<SavedFile, String> {
    TextWork::read(&settings, text, media_type)?.save()
}

/// A promise of `saveTextSync` done on the libuv thread pool.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle | ResultHandle, text: string, mediaType: string",
    ts_return_type = "Promise<SavedFile>"
)]
pub fn save_text(
    settings: Unknown,
    text: Unknown,
    media_type: Option<Unknown>,
) -> Result<AsyncTask<OnPool<SaveTextWork>>, String> {
    Ok(on_pool(SaveTextWork(TextWork::read(
        &settings, text, media_type,
    )?)))
}
