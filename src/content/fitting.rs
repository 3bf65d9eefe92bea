//! An image made to fit: the file part sent, its note, and the original
//! saved; or, when it cannot be made to fit, the original saved with why.

use super::spill::{save_original, spill, Notes};
use super::uri::file_name;
use super::{Attached, Converted, MediaPart, ModelPart, Saved};
use crate::base64_data;
use crate::image_fit;
use crate::media_type;
use crate::note::{self, Label};
use crate::payload::{Base64Output, Data};
use crate::route::Reason;
use crate::store::ToolOutputStore;

/// An image being made to fit, and what its note needs.
pub(super) struct Fitting<'p, 'a> {
    pub(super) part: &'p MediaPart<'a>,
    pub(super) label: Label<'a>,
    /// The source's (sniffed) type.
    pub(super) media_type: &'p str,
    pub(super) max_long_side: Option<u32>,
    /// Where the source is saved already, if it is (see [`Held`]).
    pub(super) saved_original: Option<&'p str>,
}

impl Fitting<'_, '_> {
    /// Fit the image and save the original; when it cannot be fitted, save
    /// it with the reason (or send it as it is, when it was within limits).
    pub(super) fn run(
        &self,
        data: &Data,
        fitted: Result<image_fit::Fitted, image_fit::FitError>,
        reason: Option<Reason>,
        as_is: Option<(&'static str, Attached)>,
        store: &ToolOutputStore,
        notes: Notes,
    ) -> Converted {
        let fitted = match fitted {
            Ok(fitted) => fitted,
            Err(error) => {
                let held_for = match (reason, as_is) {
                    (None, Some(as_is)) => return self.as_it_is(data, as_is),
                    (Some(reason), _) => reason,
                    (None, None) => Reason::UnknownPixelSize,
                };
                let reason = Reason::NotFitted {
                    reason: Box::new(held_for),
                    problem: error.to_string(),
                };
                let saved = save_original(data, self.media_type, store, self.saved_original);
                return spill(
                    data,
                    self.media_type,
                    self.label,
                    &reason,
                    saved,
                    notes,
                    store,
                );
            }
        };
        let byte_length = data.len() as u64;
        let saved_path = save_original(data, self.media_type, store, self.saved_original);
        let noted = match &saved_path {
            Ok(path) => Ok(store.noted_location(path)),
            Err(error) => Err(error.as_str()),
        };
        // The reason names the source's pixel size, whatever was measured
        // before (a first fit's output, for the many-image rule).
        let reason = reason.map(|r| r.with_pixel_size(fitted.source_width, fitted.source_height));
        let note = note::fitted(
            self.label,
            reason.as_ref(),
            self.max_long_side,
            note::ImageFacts {
                media_type: self.media_type,
                width: fitted.source_width,
                height: fitted.source_height,
                byte_length,
            },
            note::ImageFacts {
                media_type: fitted.media_type,
                width: fitted.width,
                height: fitted.height,
                byte_length: fitted.bytes.len() as u64,
            },
            fitted.first_frame,
            noted.as_deref().map_err(|error| *error),
        );
        let sent_extension = media_type::extension(fitted.media_type);
        Converted {
            part: ModelPart::File {
                media_type: fitted.media_type,
                data: Base64Output::Encoded(base64_data::encode(&fitted.bytes)),
                uri: self.part.uri.map(str::to_owned),
                filename: self
                    .part
                    .uri
                    .and_then(file_name)
                    .map(|name| with_extension(&name, sent_extension)),
            },
            attached: Some(Attached {
                byte_length: fitted.bytes.len() as u64,
                dimensions: Some((fitted.width, fitted.height)),
                pages: None,
            }),
            saved: saved_path.ok().map(|path| Saved {
                path,
                byte_length,
                media_type: self.media_type.to_string(),
            }),
            note: Some(note),
        }
    }

    /// An image within the provider's limits that could not be made
    /// smaller for `maxLongSide`: sent as it is.
    fn as_it_is(&self, data: &Data, as_is: (&'static str, Attached)) -> Converted {
        Converted {
            part: ModelPart::File {
                media_type: as_is.0,
                data: data.canonical_base64(),
                uri: self.part.uri.map(str::to_owned),
                filename: self.part.uri.and_then(file_name),
            },
            attached: Some(as_is.1),
            saved: None,
            note: None,
        }
    }
}

/// `name` with its extension replaced by `extension` (or added).
fn with_extension(name: &str, extension: &str) -> String {
    let stem = match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => name,
    };
    format!("{stem}.{extension}")
}
