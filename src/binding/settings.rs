//! A conversion's options, read once into a handle that owns its store:
//! the entry makes one when the options change and passes it to every
//! conversion made with them.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use napi::bindgen_prelude::*;
use napi::Unknown;
use napi_derive::napi;

use super::args::{bool_arg, is_nullish, number_arg, string_arg};
use super::result::plan_of;
use super::store::store_of;
use super::{invalid, store_error};
use crate::content::{Conversion, NoteStyle};
use crate::image_fit::FitImages;
use crate::provider::{self, Profile};
use crate::store::ToolOutputStore;
use crate::text_cap::{self, TextCap};

/// The provider profile, limits and store a conversion uses.
#[derive(Clone)]
pub(super) struct Settings {
    pub profile: &'static Profile,
    pub text_cap: TextCap,
    pub fit: FitImages,
    pub store: Arc<ToolOutputStore>,
}

impl Settings {
    /// The core's conversion with these settings, notes in `style`.
    pub fn conversion(&self, style: NoteStyle) -> Conversion<'static> {
        Conversion {
            profile: self.profile,
            cap: self.text_cap,
            fit: self.fit,
            style,
        }
    }
}

type SettingsHandle = External<Settings>;

/// Settings for `provider` (default "default"), saving in `store`, else a
/// store for `outputDir` (made here, once for the handle), else the
/// per-user default; `maxTextTokens`, `fitImages` and `maxLongSide` as the
/// options say. Refuses a bad option with `INVALID_ARGUMENT`.
#[napi(
    catch_unwind,
    ts_args_type = "provider: unknown, outputDir: unknown, store: StoreHandle | undefined, maxTextTokens: unknown, fitImages: unknown, maxLongSide: unknown",
    ts_return_type = "SettingsHandle"
)]
pub fn settings_new(
    provider: Option<Unknown>,
    output_dir: Option<Unknown>,
    store: Option<Unknown>,
    max_text_tokens: Option<Unknown>,
    fit_images: Option<Unknown>,
    max_long_side: Option<Unknown>,
) -> Result<SettingsHandle, String> {
    let profile = profile_arg(provider)?;
    let text_cap = text_cap_arg(max_text_tokens)?;
    let fit = fit_arg(fit_images, max_long_side)?;
    let store = match (
        store.filter(|v| !is_nullish(v).unwrap_or(false)),
        string_arg(output_dir, "outputDir")?,
    ) {
        (Some(store), _) => store_of(&store)?,
        (None, Some(dir)) => {
            Arc::new(ToolOutputStore::new(Some(PathBuf::from(dir)), None).map_err(store_error)?)
        }
        (None, None) => default_store()?,
    };
    Ok(External::new(Settings {
        profile,
        text_cap,
        fit,
        store,
    }))
}

/// The settings behind a settings handle, or a result handle's (whose
/// store keeps what the result saved).
pub(super) fn settings_of(value: &Unknown) -> Result<Settings, String> {
    // SAFETY: `from_napi_ref` confirms that the external's payload is a live
    // `SettingsHandle` made by this binary; the reference is used here only,
    // to clone the settings, while the handle on this call's stack keeps it
    // alive.
    if let Ok(handle) = unsafe { SettingsHandle::from_napi_ref(value.value().env, value.raw()) } {
        return Ok(Settings::clone(handle));
    }
    plan_of(value)
        .map(|plan| plan.settings.clone())
        .map_err(|_| invalid("`settings` must be a settings or result handle"))
}

/// `fitImages` (a boolean, default true) and `maxLongSide` (a whole
/// number of pixels, at least 1).
fn fit_arg(
    fit_images: Option<Unknown>,
    max_long_side: Option<Unknown>,
) -> Result<FitImages, String> {
    let present = |v: &Unknown| !is_nullish(v).unwrap_or(false);
    let enabled = match fit_images.filter(present) {
        None => true,
        Some(value) => bool_arg(Some(value), "fitImages")?,
    };
    let max_long_side = match number_arg(max_long_side, "maxLongSide")? {
        None => None,
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Some(n as u32),
        Some(_) => {
            return Err(invalid(
                "`maxLongSide` must be a whole number of pixels, at least 1",
            ))
        }
    };
    #[cfg(target_os = "linux")]
    if enabled {
        super::allocator::prepare_for_fits();
    }
    Ok(FitImages {
        enabled,
        max_long_side,
    })
}

/// The text cap a `maxTextTokens` argument asks for.
fn text_cap_arg(max_text_tokens: Option<Unknown>) -> Result<TextCap, String> {
    text_cap::cap_from(number_arg(max_text_tokens, "maxTextTokens")?).map_err(invalid)
}

/// The provider profile named by a `provider` argument (default: "default").
fn profile_arg(provider: Option<Unknown>) -> Result<&'static Profile, String> {
    let name = string_arg(provider, "provider")?;
    provider::profile(name.as_deref()).ok_or_else(|| {
        invalid(format!(
            "unknown provider \"{}\"; known: {}",
            name.as_deref().unwrap_or_default(),
            provider::profile_names().join(", ")
        ))
    })
}

/// The per-user temp-folder store, made once: finding the user's folder
/// takes system calls that need not run for every part.
fn default_store() -> Result<Arc<ToolOutputStore>, String> {
    static DEFAULT: OnceLock<Arc<ToolOutputStore>> = OnceLock::new();
    if let Some(store) = DEFAULT.get() {
        return Ok(store.clone());
    }
    let store = Arc::new(ToolOutputStore::new(None, None).map_err(store_error)?);
    Ok(DEFAULT.get_or_init(|| store).clone())
}

/// The default text cap, in estimated tokens.
#[napi]
pub fn default_max_text_tokens() -> f64 {
    text_cap::DEFAULT_MAX_TEXT_TOKENS as f64
}

/// Every provider profile name, in the core's table order (the `providers` export).
#[napi]
pub fn provider_names() -> Vec<&'static str> {
    provider::profile_names()
}
