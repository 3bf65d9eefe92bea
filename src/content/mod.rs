//! One MCP content part in, one model part out: the pipeline
//! payload -> classify -> route -> (store) -> part. The part is planned
//! first (`plan`), then carried out here: an image made to fit
//! (`fitting`), data or text saved rather than sent (`spill`).

mod fitting;
mod plan;
mod spill;
#[cfg(test)]
mod tests;
mod uri;

use crate::budget::RequestExcess;
use crate::classify;
use crate::image_fit::{self, FitImages, Target};
use crate::media_type;
use crate::note::{self, Label};
use crate::payload::{Base64Output, Data, Payload};
use crate::provider::{Profile, SizeLimit};
use crate::route::{self, Reason};
use crate::store::ToolOutputStore;
use crate::text_cap::TextCap;
use fitting::Fitting;
use plan::{label, plan, plan_routed, route_part, Plan, Routed};
use spill::{notes, save_original, spill, spill_text};

/// Which MCP (or opencode) part the media came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
    /// opencode's normalised `media` part.
    Media,
    /// An embedded resource with a `blob`.
    Resource,
}

/// A part that carries binary data.
#[derive(Debug, Clone, Copy)]
pub struct MediaPart<'a> {
    pub kind: MediaKind,
    pub uri: Option<&'a str>,
    pub declared_media_type: Option<&'a str>,
    pub payload: Payload<'a>,
}

impl<'a> MediaPart<'a> {
    /// The part as MCP shapes it: an image or audio block has no uri (a
    /// `uri` field there is not MCP's), an embedded resource always has one
    /// (empty when the server left it out), a `media` part may.
    pub fn new(
        kind: MediaKind,
        uri: Option<&'a str>,
        declared_media_type: Option<&'a str>,
        payload: Payload<'a>,
    ) -> Self {
        let uri = match kind {
            MediaKind::Image | MediaKind::Audio => None,
            MediaKind::Media => uri,
            MediaKind::Resource => Some(uri.unwrap_or("")),
        };
        MediaPart {
            kind,
            uri,
            declared_media_type,
            payload,
        }
    }
}

/// What the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelPart {
    Text(String),
    File {
        media_type: &'static str,
        data: Base64Output,
        uri: Option<String>,
        filename: Option<String>,
    },
}

/// How the note for a sendable part held back by a limit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteStyle {
    /// `[Binary image (image/png, <N> bytes): <reason>; saved to <path>]`
    Standard,
    /// decocms' words, beside the `attached below` placeholders of deferred
    /// media: `[image/png image, <KB> KB, not shown to the model: <reason>; saved to <path>]`
    Deferred,
}

/// A converted part and what the conversion found or did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub part: ModelPart,
    /// For a file part: the decoded size and the pixel size, for budgets.
    pub attached: Option<Attached>,
    /// The file a spill wrote, or the original of a fitted image.
    pub saved: Option<Saved>,
    /// For a fitted image: the note to put beside it.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attached {
    pub byte_length: u64,
    pub dimensions: Option<(u32, u32)>,
    /// A PDF's page count, when it could be read.
    pub pages: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub path: String,
    pub byte_length: u64,
    pub media_type: String,
}

impl Converted {
    fn part(part: ModelPart) -> Self {
        Converted {
            part,
            attached: None,
            saved: None,
            note: None,
        }
    }
}

/// How media parts are converted: for which provider, the text cap,
/// whether images are made to fit, and how the note of a part held back
/// reads. The one entry to the per-part pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Conversion<'p> {
    pub profile: &'p Profile,
    pub cap: TextCap,
    pub fit: FitImages,
    pub style: NoteStyle,
}

/// An attachment of a whole result the budget held back.
#[derive(Debug, Clone, Copy)]
pub struct Held<'a> {
    /// Its sniffed type (the original's, when it was made to fit before).
    pub media_type: &'a str,
    pub reason: &'a Reason,
    /// Where it is saved already: the part is then the original of an
    /// image made to fit before (to a larger limit), fitted again from it
    /// and not saved twice; the one note replaces the first.
    pub saved_original: Option<&'a str>,
}

/// A held-back attachment converted: saved with its note, or made to fit
/// again, with the placeholder the result keeps when media are deferred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldPart {
    pub converted: Converted,
    pub placeholder: Option<String>,
}

impl<'p> Conversion<'p> {
    /// For `profile`, texts bounded by `cap`, no image made to fit,
    /// standard notes.
    pub fn new(profile: &'p Profile, cap: TextCap) -> Self {
        Conversion {
            profile,
            cap,
            fit: FitImages::OFF,
            style: NoteStyle::Standard,
        }
    }

    /// Convert a media part, saving in `store` what cannot be sent (and the
    /// original of an image made to fit).
    pub fn convert(&self, part: &MediaPart, store: &ToolOutputStore) -> Converted {
        self.carry_out(part, plan(part, self.profile, self.cap, self.fit), store)
    }

    fn carry_out(&self, part: &MediaPart, planned: Plan, store: &ToolOutputStore) -> Converted {
        let (profile, fit, style) = (self.profile, self.fit, self.style);
        match planned {
            Plan::Done(converted) => converted,
            Plan::Fit {
                data,
                media_type,
                label,
                reason,
                as_is,
                target,
                animated,
                unchecked,
            } => {
                let fitted = image_fit::fit(data.full(), &target, animated);
                // The decode check left to the fit, run when the fit did
                // not decode the image as that check does: what fails it
                // is routed as it would have been.
                let checked = matches!(&fitted, Ok(f) if f.checked);
                if let Some(mut c) = unchecked.filter(|_| !checked).map(|c| *c) {
                    classify::check_decodes(&data, &mut c);
                    if c.defect.is_some() {
                        let route = route::decide_with_fit(&c, profile, fit);
                        let routed = Routed {
                            label,
                            data,
                            c,
                            route,
                        };
                        return self.carry_out(part, plan_routed(part, routed, self.cap), store);
                    }
                }
                let fitting = Fitting {
                    part,
                    label,
                    media_type: &media_type,
                    max_long_side: fit.max_long_side,
                    saved_original: None,
                };
                fitting.run(&data, fitted, reason, as_is, store, notes(style, profile))
            }
            Plan::Save {
                data,
                media_type,
                label,
                reason,
            } => spill(
                &data,
                &media_type,
                label,
                &reason,
                save_original(&data, &media_type, store, None),
                notes(style, profile),
                store,
            ),
            Plan::SaveText {
                data,
                whole,
                media_type,
                header,
                cap,
            } => spill_text(&data, &whole, &media_type, header, cap, store),
        }
    }

    /// [`Conversion::convert`] unless that needs a disk write: `None` for a
    /// part to save and for an image to fit (its original is saved, and
    /// decoding and resizing belong off the JS thread), so a caller on the
    /// JS thread can hand it to a worker.
    pub fn convert_in_memory(&self, part: &MediaPart) -> Option<Converted> {
        let planned = match route_part(part, self.profile, self.fit) {
            // Known before an image is decoded to check it, which is then
            // left to the worker, not done twice.
            Ok(routed) if routed.needs_disk_write() => return None,
            Ok(routed) => plan_routed(part, routed.checked(self.profile, self.fit), self.cap),
            Err(note) => return Some(Converted::part(ModelPart::Text(note))),
        };
        match planned {
            Plan::Done(converted) => Some(converted),
            Plan::Save { .. } | Plan::SaveText { .. } | Plan::Fit { .. } => None,
        }
    }

    /// A whole result's attachment the budget held back: when images are
    /// made to fit and it is held by the many-image rule or the request's
    /// size shared by its images, made to fit that rule's side and its
    /// share; else (or when it cannot be) saved with its note.
    pub fn hold(&self, part: &MediaPart, held: Held, store: &ToolOutputStore) -> HeldPart {
        // The side and the size (in the request limit's unit) to fit it to.
        let fit_to = match *held.reason {
            Reason::Request(RequestExcess::ManyImages { max_side, .. }) if self.fit.enabled => {
                Some((Some(max_side), None))
            }
            Reason::Request(RequestExcess::Share {
                limit, share, many, ..
            }) if self.fit.enabled => Some((many.map(|m| m.max_side), Some((limit, share)))),
            _ => None,
        };
        let converted = match fit_to {
            Some((max_side, share)) => self.fit_attachment(part, held, max_side, share, store),
            None => self.spill_attachment(part, held, store),
        };
        // A fitted image goes where the others go: deferred, when they are.
        let placeholder = match (&converted.part, self.style) {
            (ModelPart::File { media_type, .. }, NoteStyle::Deferred) => converted
                .attached
                .map(|a| note::attached_below(media_type, "image", a.byte_length)),
            _ => None,
        };
        HeldPart {
            converted,
            placeholder,
        }
    }

    /// A held-back attachment made to fit `max_side` and its `share` of the
    /// request's size (a limit and the share, in that limit's unit); saved
    /// as [`Conversion::spill_attachment`] does when it cannot be.
    fn fit_attachment(
        &self,
        part: &MediaPart,
        held: Held,
        max_side: Option<u32>,
        share: Option<(SizeLimit, u64)>,
        store: &ToolOutputStore,
    ) -> Converted {
        let Held {
            media_type,
            reason,
            saved_original,
        } = held;
        let (profile, fit, style) = (self.profile, self.fit, self.style);
        let target = route::fit_target(profile, fit.max_long_side).map(|t| Target {
            max_side: match (t.max_side, max_side) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            // A share in base64 characters is 3 decoded bytes for every 4.
            max_bytes: share.map_or(t.max_bytes, |(limit, share)| {
                let decoded = match limit {
                    SizeLimit::DecodedBytes(_) => share,
                    SizeLimit::Base64Chars(_) => share / 4 * 3,
                };
                t.max_bytes.min(decoded)
            }),
            ..t
        });
        let (Some(target), Ok(data)) = (target, Data::open_for_routing(part.payload)) else {
            return self.spill_attachment(part, held, store);
        };
        let fitting = Fitting {
            part,
            label: label(part),
            media_type,
            max_long_side: fit.max_long_side,
            saved_original,
        };
        fitting.run(
            &data,
            image_fit::fit(data.full(), &target, false),
            Some(reason.clone()),
            None,
            store,
            notes(style, profile),
        )
    }

    /// Save a part that could be attached but is held back: `held` says its
    /// sniffed type, why it stays out and where it is saved already.
    fn spill_attachment(&self, part: &MediaPart, held: Held, store: &ToolOutputStore) -> Converted {
        let Held {
            media_type,
            reason,
            saved_original,
        } = held;
        let label = label(part);
        match Data::open(part.payload) {
            Ok(data) => spill(
                &data,
                media_type,
                label,
                reason,
                save_original(&data, media_type, store, saved_original),
                notes(self.style, self.profile),
                store,
            ),
            Err(error) => {
                let problem = format!("invalid base64 data ({error})");
                Converted::part(ModelPart::Text(note::unreadable(
                    label, media_type, &problem,
                )))
            }
        }
    }
}

/// `[Resource <uri> (<mimeType>)]\n<text>` for an embedded text resource;
/// the declared parameters that matter stay in the label.
pub fn embedded_text(uri: &str, declared_media_type: Option<&str>, text: &str) -> String {
    let mt = declared_media_type
        .map(media_type::essence)
        .filter(|d| !d.is_empty())
        .map(|essence| media_type::label(&essence, declared_media_type))
        .unwrap_or_else(|| "text/plain".into());
    let label = if uri.is_empty() {
        Label::Media
    } else {
        Label::Resource(uri)
    };
    note::text(label, &mt, text)
}

/// MCP `annotations.audience`: a part is for the model unless an audience is
/// given that leaves the assistant out.
pub fn is_for_model<S: AsRef<str>>(audience: Option<&[S]>) -> bool {
    match audience {
        None => true,
        Some(roles) => roles.iter().any(|r| r.as_ref() == "assistant"),
    }
}
