//! One MCP content part in, one model part out: the pipeline
//! payload -> classify -> route -> (store) -> part.

use std::io::{self, Write};

use crate::base64_data;
use crate::budget::RequestExcess;
use crate::charset;
use crate::classify::{self, Classification};
use crate::image_fit::{self, FitImages, Target};
use crate::media_type;
use crate::note::{self, Label};
use crate::payload::{Base64Output, Data, Payload};
use crate::provider::{Profile, SizeLimit};
use crate::route::{self, Reason, Route};
use crate::store::ToolOutputStore;
use crate::text::{self, TextEncoding};
use crate::text_cap::{self, TextCap};

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
        let (Some(target), Ok(data)) = (target, Data::open(part.payload)) else {
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

/// An image being made to fit, and what its note needs.
struct Fitting<'p, 'a> {
    part: &'p MediaPart<'a>,
    label: Label<'a>,
    /// The source's (sniffed) type.
    media_type: &'p str,
    max_long_side: Option<u32>,
    /// Where the source is saved already, if it is (see [`Held`]).
    saved_original: Option<&'p str>,
}

impl Fitting<'_, '_> {
    /// Fit the image and save the original; when it cannot be fitted, save
    /// it with the reason (or send it as it is, when it was within limits).
    fn run(
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

/// A media part's outcome, short of the disk write a spill needs.
enum Plan<'a> {
    Done(Converted),
    /// An image to make fit `target`, its original saved.
    Fit {
        data: Data<'a>,
        media_type: String,
        label: Label<'a>,
        reason: Option<Reason>,
        /// Without a reason: the file part to send if fitting fails.
        as_is: Option<(&'static str, Attached)>,
        target: Target,
        animated: bool,
        /// An image whose decode check is left to the fit, which decodes
        /// it anyway ([`Routed::checked`]).
        unchecked: Option<Box<Classification>>,
    },
    Save {
        data: Data<'a>,
        media_type: String,
        label: Label<'a>,
        reason: Reason,
    },
    /// Text over the cap: a preview, and the whole saved.
    SaveText {
        data: Data<'a>,
        whole: WholeText,
        media_type: String,
        /// `[<label> (<mediaType>)]\n`
        header: String,
        cap: u64,
    },
}

/// The whole text of a [`Plan::SaveText`].
enum WholeText {
    /// Decoded already, to tell it was over the cap.
    Decoded(String),
    /// Too long to need counting: not decoded whole, but streamed to the
    /// store from the data in this encoding, decoded piece by piece.
    Streamed(TextEncoding),
}

fn label<'a>(part: &MediaPart<'a>) -> Label<'a> {
    match (part.kind, part.uri.filter(|u| !u.is_empty())) {
        (_, Some(uri)) => Label::Resource(uri),
        (MediaKind::Image, None) => Label::Image,
        (MediaKind::Audio, None) => Label::Audio,
        (MediaKind::Media | MediaKind::Resource, None) => Label::Media,
    }
}

/// A part's data opened, classified and routed, an image's decode check
/// left out (`Routed::checked` runs it).
struct Routed<'a> {
    label: Label<'a>,
    data: Data<'a>,
    c: Classification,
    route: Route,
}

/// `part` opened and routed; `Err` holds the note for data that is not
/// valid base64.
fn route_part<'a>(
    part: &MediaPart<'a>,
    profile: &Profile,
    fit: FitImages,
) -> Result<Routed<'a>, String> {
    let label = label(part);
    let declared = part
        .declared_media_type
        .map(media_type::essence)
        .filter(|d| !d.is_empty());
    let data = match Data::open(part.payload) {
        Ok(data) => data,
        Err(error) => {
            let mt = declared.as_deref().unwrap_or("application/octet-stream");
            let problem = format!("invalid base64 data ({error})");
            return Err(note::unreadable(label, mt, &problem));
        }
    };
    let charset = part.declared_media_type.and_then(charset::from_media_type);
    let c = classify::classify_data_undecoded(&data, declared, charset);
    let route = route::decide_with_fit(&c, profile, fit);
    Ok(Routed {
        label,
        data,
        c,
        route,
    })
}

impl Routed<'_> {
    /// Whether the part is made to fit or saved (should it decode): work
    /// for the thread that writes to disk, where its decode check runs.
    fn needs_disk_write(&self) -> bool {
        matches!(self.route, Route::Fit { .. } | Route::Spill { .. })
    }

    /// The decode check run; an image it fails routed again. A PNG to make
    /// fit is left to the fit, which reads it the same way when it reads
    /// it a row at a time (`image_fit::Fitted::checked`): it is decoded
    /// once, not twice.
    fn checked(mut self, profile: &Profile, fit: FitImages) -> Self {
        let left_to_fit = matches!(self.route, Route::Fit { .. })
            && self.c.sniffed_media_type == Some("image/png");
        if classify::decode_check_pending(&self.c) && !left_to_fit {
            classify::check_decodes(&self.data, &mut self.c);
            if self.c.defect.is_some() {
                self.route = route::decide_with_fit(&self.c, profile, fit);
            }
        }
        self
    }
}

/// What to do with `part`, every check run.
fn plan<'a>(part: &MediaPart<'a>, profile: &Profile, cap: TextCap, fit: FitImages) -> Plan<'a> {
    match route_part(part, profile, fit) {
        Ok(routed) => plan_routed(part, routed.checked(profile, fit), cap),
        Err(note) => Plan::Done(Converted::part(ModelPart::Text(note))),
    }
}

fn plan_routed<'a>(part: &MediaPart<'a>, routed: Routed<'a>, cap: TextCap) -> Plan<'a> {
    let Routed {
        label,
        data,
        c,
        route,
    } = routed;
    let done = |text: String| Plan::Done(Converted::part(ModelPart::Text(text)));
    let (save_as, reason) = match route {
        Route::Unreadable => {
            let problem = c.problem().unwrap_or("unreadable data");
            return done(note::unreadable(label, &c.media_type, problem));
        }
        Route::Attach { media_type } => {
            // A repairable PNG goes out as its copy without the damaged
            // chunks; `classify` decoded all of it to find them.
            let sent = match &c.repair {
                Some(repair) => {
                    Base64Output::Encoded(base64_data::encode(&repair.apply(data.full())))
                }
                None => data.canonical_base64(),
            };
            return Plan::Done(Converted {
                part: ModelPart::File {
                    media_type,
                    data: sent,
                    uri: part.uri.map(str::to_owned),
                    filename: part.uri.and_then(file_name),
                },
                attached: Some(Attached {
                    byte_length: c.byte_length,
                    dimensions: c.dimensions,
                    pages: c.pages,
                }),
                saved: None,
                note: None,
            });
        }
        Route::Text { media_type } => {
            let encoding = c.text_encoding;
            // The header keeps the declared parameters that matter and names
            // an encoding other than UTF-8, which then replaces the declared
            // charset: the model reads the text decoded, not the bytes.
            let named = encoding.filter(|e| !e.is_utf8()).map(TextEncoding::as_str);
            let mut shown = media_type::label(&media_type, part.declared_media_type);
            if named.is_some() {
                shown = media_type::without_parameter(&shown, "charset");
            }
            let header = note::text_header(label, &shown, named);
            // Too long to be within the cap whatever it says: not decoded whole.
            if let (Some(cap), Some(encoding)) = (cap, encoding) {
                if text_cap::surely_over(data.len(), Some(cap)) {
                    return Plan::SaveText {
                        data,
                        whole: WholeText::Streamed(encoding),
                        media_type,
                        header,
                        cap,
                    };
                }
            }
            match decoded_text(&data, &c) {
                Some(text) => match cap.filter(|_| text_cap::is_over(&text, cap)) {
                    Some(cap) => {
                        return Plan::SaveText {
                            data,
                            whole: WholeText::Decoded(text),
                            media_type,
                            header,
                            cap,
                        }
                    }
                    None => return done(header + &text),
                },
                None => (c.media_type, Reason::NotText),
            }
        }
        Route::Spill { media_type, reason } => (media_type, reason),
        Route::Fit {
            media_type,
            reason,
            target,
        } => {
            let as_is = c.sniffed_media_type.map(|sniffed| {
                let attached = Attached {
                    byte_length: c.byte_length,
                    dimensions: c.dimensions,
                    pages: c.pages,
                };
                (sniffed, attached)
            });
            let animated = c.animated;
            return Plan::Fit {
                data,
                media_type,
                label,
                reason,
                as_is,
                target,
                animated,
                unchecked: classify::decode_check_pending(&c).then(|| Box::new(c)),
            };
        }
    };
    Plan::Save {
        data,
        media_type: save_as,
        label,
        reason,
    }
}

/// The text note: the header (naming an encoding other than UTF-8) and the
/// decoded text, decoded straight into the note so a large text is held
/// once next to its bytes.
/// The whole text of the data, decoded from its encoding.
fn decoded_text(data: &Data, c: &Classification) -> Option<String> {
    let mut text = String::new();
    text::decode_into(data.full(), c.text_encoding?, &mut text).then_some(text)
}

/// How notes about held-back parts read, with what the deferred words need.
#[derive(Clone, Copy)]
struct Notes<'p> {
    style: NoteStyle,
    profile: &'p Profile,
}

fn notes(style: NoteStyle, profile: &Profile) -> Notes<'_> {
    Notes { style, profile }
}

impl Notes<'_> {
    /// The noun of the deferred words (`image`, `document`, `audio`), for a
    /// sendable type held back by a limit while media are deferred.
    fn deferred_noun(&self, media_type: &str, reason: &Reason) -> Option<&'static str> {
        if self.style != NoteStyle::Deferred || !reason.is_limit() {
            return None;
        }
        self.profile.attachable(media_type).map(|a| a.class.noun())
    }
}

/// Save `data` (of `media_type`) whole, unless it is saved already at
/// `saved_at`: its path, or the store's words for why not.
fn save_original(
    data: &Data,
    media_type: &str,
    store: &ToolOutputStore,
    saved_at: Option<&str>,
) -> Result<String, String> {
    if let Some(path) = saved_at {
        return Ok(path.to_owned());
    }
    let extension = media_type::extension(media_type);
    store
        .check_fits(data.len() as u64)
        .and_then(|()| store.save_with(extension, |writer| data.write_to(writer)))
        .map(|saved| saved.path.to_string_lossy().into_owned())
        .map_err(|error| error.to_string())
}

/// The note for a part saved (`saved`: [`save_original`]'s answer, in
/// `store`) rather than sent, with the reason.
fn spill(
    data: &Data,
    media_type: &str,
    label: Label,
    reason: &Reason,
    saved: Result<String, String>,
    notes: Notes,
    store: &ToolOutputStore,
) -> Converted {
    let byte_length = data.len() as u64;
    let noun = notes.deferred_noun(media_type, reason);
    match saved {
        Ok(path) => {
            let location = store.noted_location(&path);
            let text = match noun {
                Some(noun) => {
                    note::not_shown_saved(media_type, noun, byte_length, reason, &location)
                }
                None => note::saved(label, media_type, byte_length, reason, &location),
            };
            Converted {
                part: ModelPart::Text(text),
                attached: None,
                saved: Some(Saved {
                    path,
                    byte_length,
                    media_type: media_type.to_string(),
                }),
                note: None,
            }
        }
        Err(error) => {
            let text = match noun {
                Some(noun) => {
                    note::not_shown_save_failed(media_type, noun, byte_length, reason, &error)
                }
                None => note::save_failed(label, media_type, byte_length, reason, &error),
            };
            Converted::part(ModelPart::Text(text))
        }
    }
}

/// A text over the cap: its header, a preview, and the whole text saved
/// (the decoded text, or the data streamed: UTF-8 as it is, any other
/// encoding decoded piece by piece).
fn spill_text(
    data: &Data,
    whole: &WholeText,
    media_type: &str,
    header: String,
    cap: u64,
    store: &ToolOutputStore,
) -> Converted {
    let extension = media_type::extension(media_type);
    let quarters = text_cap::preview_quarters(cap);
    let head_len = text_cap::preview_bytes(quarters);
    let head;
    let head_text;
    let start = match whole {
        WholeText::Decoded(text) => text.as_str(),
        WholeText::Streamed(encoding) if encoding.is_utf8() => {
            head = data.prefix(head_len);
            // The head may end inside a character: stop before it.
            match std::str::from_utf8(&head) {
                Ok(text) => text,
                Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
            }
        }
        WholeText::Streamed(encoding) => {
            // No character of any encoding takes more than 4 bytes, as in
            // UTF-8: the same head holds the preview.
            head = data.prefix(head_len);
            head_text = text::decode_head(&head, *encoding);
            head_text.as_str()
        }
    };
    let preview = text_cap::preview(start, quarters);
    let (whole, saved) = match whole {
        WholeText::Decoded(text) => (
            text_cap::LineCounter::of(text.as_bytes()),
            store.save(text.as_bytes(), extension),
        ),
        WholeText::Streamed(encoding) => {
            // Streamed: counted on the way to the file, or to nowhere if the
            // save failed before all of it was written.
            let encoding = *encoding;
            let write = |writer: &mut dyn Write| -> io::Result<u64> {
                if encoding.is_utf8() {
                    data.write_to(writer)
                } else {
                    text::decode_to(data.full(), encoding, writer)
                }
            };
            let length = if encoding.is_utf8() {
                data.len() as u64
            } else {
                text::decoded_len(data.full(), encoding)
            };
            let mut whole = text_cap::LineCounter::default();
            let saved = store.check_fits(length).and_then(|()| {
                store.save_with(extension, |writer: &mut dyn Write| {
                    write(&mut whole.wrap(writer))
                })
            });
            if saved.is_err() {
                whole = text_cap::LineCounter::default();
                let _ = write(&mut whole.wrap(&mut io::sink()));
            }
            (whole, saved)
        }
    };
    let file = saved.as_ref().ok().map(|saved| Saved {
        path: saved.path.to_string_lossy().into_owned(),
        byte_length: saved.byte_length,
        media_type: media_type.to_string(),
    });
    Converted {
        part: ModelPart::Text(header + &text_cap::with_note(&preview, &whole, saved, store)),
        attached: None,
        saved: file,
        note: None,
    }
}

/// The last path segment of a uri, percent-decoded, as a file name for
/// providers that want one (`file:///tmp/My%20report.pdf` -> `My report.pdf`).
/// None when there is no path segment (`https://host`, `file:///tmp/`), an
/// escape is not two hex digits, the decoded bytes are not UTF-8, or the
/// name would hold a `/`, `\`, NUL or other control character, or be `.` or
/// `..`: a provider or a program downstream may use it as a path.
fn file_name(uri: &str) -> Option<String> {
    let path = uri.split(['?', '#']).next()?;
    // The authority (`//host`) is not a path segment.
    let path = match path.split_once(':') {
        Some((scheme, rest)) if is_scheme(scheme) => rest,
        _ => path,
    };
    let path = match path.strip_prefix("//") {
        Some(rest) => &rest[rest.find('/')?..],
        None => path,
    };
    let name = percent_decode(path.rsplit('/').next()?)?;
    let safe = !matches!(name.as_str(), "" | "." | "..")
        && !name
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control());
    safe.then_some(name)
}

/// RFC 3986: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `%XX` escapes decoded; `None` when one is malformed or the result is not
/// UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b != b'%' {
            out.push(b);
            continue;
        }
        let hex = |b: Option<u8>| char::from(b?).to_digit(16);
        let (high, low) = (hex(bytes.next())?, hex(bytes.next())?);
        out.push(u8::try_from(high * 16 + low).ok()?);
    }
    String::from_utf8(out).ok()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base64_data;
    use crate::provider::DEFAULT;

    const CAP: TextCap = Some(text_cap::DEFAULT_MAX_TEXT_TOKENS);

    /// The default profile's part for `part`, saving in `store`.
    fn to_content(part: &MediaPart, cap: TextCap, store: &ToolOutputStore) -> ModelPart {
        Conversion::new(&DEFAULT, cap).convert(part, store).part
    }

    /// The default profile's part for `part`, unless that needs a disk write.
    fn in_memory(part: &MediaPart, cap: TextCap) -> Option<ModelPart> {
        Conversion::new(&DEFAULT, cap)
            .convert_in_memory(part)
            .map(|c| c.part)
    }

    /// The default profile's conversion, notes in `style`.
    fn styled(style: NoteStyle) -> Conversion<'static> {
        Conversion {
            style,
            ..Conversion::new(&DEFAULT, CAP)
        }
    }

    fn store() -> (tempfile::TempDir, ToolOutputStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = ToolOutputStore::new(Some(dir.path().join("out")), None).unwrap();
        (dir, store)
    }

    fn resource<'a>(uri: &'a str, mt: &'a str, b64: &'a str) -> MediaPart<'a> {
        MediaPart {
            kind: MediaKind::Resource,
            uri: Some(uri),
            declared_media_type: Some(mt),
            payload: Payload::Base64(b64.as_bytes()),
        }
    }

    #[test]
    fn markdown_blob_becomes_text() {
        let (_dir, store) = store();
        let b64 = base64_data::encode(b"# Title\n\nBody");
        let part = resource("file:///README.md", "text/markdown", &b64);
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::Text("[Resource file:///README.md (text/markdown)]\n# Title\n\nBody".into())
        );
    }

    #[test]
    fn text_in_other_encodings_names_the_encoding() {
        let (_dir, store) = store();
        let cases: [(&[u8], &str, &str); 4] = [
            (
                b"caf\xe9 \x80\n",
                "text/plain; charset=ISO-8859-1",
                "[Resource file:///a.txt (text/plain, windows-1252)]\ncaf\u{e9} \u{20ac}\n",
            ),
            (
                b"# Na\xefve\n",
                "text/markdown",
                "[Resource file:///a.txt (text/markdown, windows-1252)]\n# Na\u{ef}ve\n",
            ),
            (
                b"\x93\xfa\x96\x7b\x8c\xea",
                "text/plain; charset=shift_jis",
                "[Resource file:///a.txt (text/plain, shift_jis)]\n\u{65e5}\u{672c}\u{8a9e}",
            ),
            (
                b"h\0i\0\n\0",
                "application/octet-stream",
                "[Resource file:///a.txt (text/plain, utf-16le)]\nhi\n",
            ),
        ];
        for (bytes, declared, expected) in cases {
            let b64 = base64_data::encode(bytes);
            let part = resource("file:///a.txt", declared, &b64);
            assert_eq!(
                to_content(&part, CAP, &store),
                ModelPart::Text(expected.into()),
                "{declared}"
            );
        }
    }

    #[test]
    fn binary_declared_shift_jis_is_saved() {
        let (dir, store) = store();
        let mut state = 7u32;
        let bytes: Vec<u8> = (0..2000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as u8
            })
            .collect();
        let b64 = base64_data::encode(&bytes);
        let part = resource("file:///x.txt", "text/plain; charset=shift_jis", &b64);
        let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
            panic!("expected a note");
        };
        let prefix = "[Binary resource file:///x.txt (text/plain, 2000 bytes): declared text/plain but the bytes are not text";
        assert!(text.starts_with(prefix), "{text}");
        let saved = std::fs::read_dir(dir.path().join("out"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name() != crate::store::LOCK_NAME)
            .count();
        assert_eq!(saved, 1);
    }

    #[test]
    fn a_hostile_declared_type_is_escaped_and_cut_in_every_note() {
        let (_dir, store) = store();
        let bmp = b"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00";
        let mut state = 7u32;
        let noise: Vec<u8> = (0..2000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as u8
            })
            .collect();
        // Lower case: the declared type's essence is.
        let tail = "\n]\u{1b}[2j\u{9b}31m\u{202e}(y)";
        let shown_tail = "%0A%5D%1B%5B2j%C2%9B31m%E2%80%AE%28y%29";
        let long = "b".repeat(100_000);
        let cases: [(&[u8], String); 6] = [
            // declared X but the bytes are image/bmp, which is not accepted
            (bmp, format!("image/x{tail}")),
            (bmp, format!("image/x{long}")),
            // declared text/X but the bytes are not text
            (&noise, format!("text/x{tail}")),
            (&noise, format!("text/x{long}")),
            // X is not accepted
            (&noise, format!("application/x{tail}")),
            (&noise, format!("application/x{long}")),
        ];
        for (bytes, declared) in cases {
            let b64 = base64_data::encode(bytes);
            let part = resource("file:///a", &declared, &b64);
            let ModelPart::Text(note) = to_content(&part, CAP, &store) else {
                panic!("{declared:?} was attached");
            };
            assert_eq!(note.lines().count(), 1, "{note:?}");
            assert_eq!(note.matches(']').count(), 1, "{note:?}");
            assert!(
                !note.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{note:?}"
            );
            if declared.ends_with(tail) {
                assert!(note.contains(shown_tail), "{note:?}");
            } else {
                // Twice a cut type, and the words around them.
                assert!(note.len() < 1_400, "{} characters: {note}", note.len());
            }
        }
        // classify's `problem` (inspect prints it) is escaped the same way.
        let b64 = base64_data::encode(&noise);
        let c = classify::classify(Payload::Base64(b64.as_bytes()), Some("text/x\u{1b}]"));
        assert_eq!(
            c.problem(),
            Some("declared text/x%1B%5D but the bytes are not text (neither UTF-8 nor UTF-16)")
        );
    }

    #[test]
    fn unknown_binary_is_saved_whole() {
        let (_dir, store) = store();
        let bytes = b"PAR1\x00\x01\x02\xffPAR1";
        let b64 = base64_data::encode(bytes);
        let part = resource(
            "file:///data.parquet",
            "application/vnd.apache.parquet",
            &b64,
        );
        let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
            panic!("expected a note");
        };
        let prefix = "[Binary resource file:///data.parquet (application/vnd.apache.parquet, 12 bytes): application/vnd.apache.parquet is not accepted; saved to ";
        assert!(text.starts_with(prefix), "{text}");
        let path = text[prefix.len()..text.len() - 1].to_string();
        assert!(path.ends_with(".parquet"));
        assert_eq!(std::fs::read(path).unwrap(), bytes);
    }

    #[test]
    fn image_limit_on_canonical_base64_and_the_reason_in_the_note() {
        use crate::route::tests::{line_broken_unpadded, png_of_len};
        let (_dir, store) = store();
        let at_limit = png_of_len(3_932_160);
        let canonical = base64_data::encode(&at_limit);
        let wrapped = line_broken_unpadded(&canonical);
        let part = MediaPart::new(
            MediaKind::Image,
            None,
            Some("image/png"),
            Payload::Base64(wrapped.as_bytes()),
        );
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::File {
                media_type: "image/png",
                data: Base64Output::Encoded(canonical),
                uri: None,
                filename: None,
            }
        );

        let over = png_of_len(3_932_161);
        let wrapped = line_broken_unpadded(&base64_data::encode(&over));
        for payload in [Payload::Base64(wrapped.as_bytes()), Payload::Bytes(&over)] {
            let part = MediaPart::new(MediaKind::Image, None, Some("image/png"), payload);
            let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
                panic!("an image over the limit was attached");
            };
            let prefix = "[Binary image (image/png, 3932161 bytes): 5.3 MB as base64, over the 5.2 MB limit; saved to ";
            assert!(text.starts_with(prefix), "{text}");
            assert_eq!(
                std::fs::read(&text[prefix.len()..text.len() - 1]).unwrap(),
                over
            );
        }
    }

    #[test]
    fn convert_tells_what_was_attached_and_what_was_saved() {
        use crate::route::tests::png_of_len;
        let (_dir, store) = store();
        let png = png_of_len(60_000);
        let part = MediaPart::new(
            MediaKind::Image,
            None,
            Some("image/png"),
            Payload::Bytes(&png),
        );
        let converted = styled(NoteStyle::Standard).convert(&part, &store);
        assert!(matches!(converted.part, ModelPart::File { .. }));
        let attached = converted.attached.unwrap();
        assert_eq!(attached.byte_length, 60_000);
        assert!(attached.dimensions.is_some());
        assert_eq!(converted.saved, None);

        let over = png_of_len(3_932_161);
        let part = MediaPart::new(
            MediaKind::Image,
            None,
            Some("image/png"),
            Payload::Bytes(&over),
        );
        let standard = styled(NoteStyle::Standard).convert(&part, &store);
        let saved = standard.saved.clone().unwrap();
        assert_eq!(
            (saved.byte_length, saved.media_type.as_str()),
            (3_932_161, "image/png")
        );
        assert_eq!(std::fs::read(&saved.path).unwrap(), over);
        let ModelPart::Text(text) = standard.part else {
            panic!("an image over the limit was attached");
        };
        assert!(
            text.starts_with("[Binary image (image/png, 3932161 bytes): "),
            "{text}"
        );
        // Deferred style: decocms' words, the reason and the path.
        let deferred = styled(NoteStyle::Deferred).convert(&part, &store);
        let path = deferred.saved.unwrap().path;
        assert_eq!(
            deferred.part,
            ModelPart::Text(format!(
                "[image/png image, 3840 KB, not shown to the model: 5.3 MB as base64, over the 5.2 MB limit; saved to {path}]"
            ))
        );
        // A type the provider does not take keeps the binary note.
        let bmp = b"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00";
        let part = MediaPart::new(MediaKind::Image, None, None, Payload::Bytes(bmp));
        let ModelPart::Text(text) = styled(NoteStyle::Deferred).convert(&part, &store).part else {
            panic!("a bmp was attached");
        };
        assert!(
            text.starts_with(
                "[Binary image (image/bmp, 58 bytes): image/bmp is not accepted; saved to "
            ),
            "{text}"
        );
    }

    #[test]
    fn a_held_image_is_made_to_fit_the_rule_and_deferred_like_the_others() {
        use crate::budget::RequestExcess;
        let (_dir, store) = store();
        let (width, height) = (2500u32, 100u32);
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, width, height);
            encoder.set_color(png::ColorType::Rgb);
            let mut writer = encoder.write_header().unwrap();
            let pixels: Vec<u8> = (0..width * height * 3).map(|i| (i % 251) as u8).collect();
            writer.write_image_data(&pixels).unwrap();
        }
        let b64 = base64_data::encode(&bytes);
        let part = MediaPart::new(
            MediaKind::Image,
            None,
            None,
            Payload::Base64(b64.as_bytes()),
        );
        let reason = Reason::Request(RequestExcess::ManyImages {
            width,
            height,
            max_side: 2000,
            over: 20,
        });
        let held = Held {
            media_type: "image/png",
            reason: &reason,
            saved_original: None,
        };
        let fitting = |style| Conversion {
            fit: FitImages {
                enabled: true,
                max_long_side: None,
            },
            ..styled(style)
        };
        let deferred = fitting(NoteStyle::Deferred).hold(&part, held, &store);
        let ModelPart::File { media_type, .. } = deferred.converted.part else {
            panic!("not fitted: {:?}", deferred.converted.part);
        };
        let attached = deferred.converted.attached.unwrap();
        assert_eq!(attached.dimensions, Some((2000, 80)));
        assert_eq!(
            deferred.placeholder,
            Some(note::attached_below(
                media_type,
                "image",
                attached.byte_length
            ))
        );
        assert_eq!(
            deferred.converted.saved.unwrap().byte_length,
            bytes.len() as u64
        );
        // Kept in the result when media are not deferred; saved when images
        // are not made to fit.
        let standard = fitting(NoteStyle::Standard).hold(&part, held, &store);
        assert!(matches!(standard.converted.part, ModelPart::File { .. }));
        assert_eq!(standard.placeholder, None);
        let saved = styled(NoteStyle::Deferred).hold(&part, held, &store);
        assert!(matches!(saved.converted.part, ModelPart::Text(_)));
        assert_eq!(saved.placeholder, None);
    }

    #[test]
    fn a_held_attachment_is_saved_with_the_reason_given() {
        use crate::budget::RequestExcess;
        let (_dir, store) = store();
        let bytes = crate::route::tests::png_of_len(60_000);
        let b64 = base64_data::encode(&bytes);
        let part = resource("file:///shot.png", "image/png", &b64);
        let reason = Reason::Request(RequestExcess::Images { max: 20 });
        let spill = |style, saved_original| {
            let held = Held {
                media_type: "image/png",
                reason: &reason,
                saved_original,
            };
            let held = styled(style).hold(&part, held, &store);
            // Nothing fitted, so nothing is deferred in its place.
            assert_eq!(held.placeholder, None);
            held.converted
        };
        let converted = spill(NoteStyle::Standard, None);
        let path = converted.saved.unwrap().path;
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert_eq!(
            converted.part,
            ModelPart::Text(format!(
                "[Binary resource file:///shot.png (image/png, 60000 bytes): over the limit of 20 images per request; saved to {path}]"
            ))
        );
        let converted = spill(NoteStyle::Deferred, None);
        let path = converted.saved.unwrap().path;
        assert_eq!(
            converted.part,
            ModelPart::Text(format!(
                "[image/png image, 59 KB, not shown to the model: over the limit of 20 images per request; saved to {path}]"
            ))
        );
        // Saved already (the original of an image fitted before): named, not written again.
        let files = std::fs::read_dir(store.dir()).unwrap().count();
        let converted = spill(NoteStyle::Standard, Some(&path));
        assert_eq!(converted.saved.unwrap().path, path);
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), files);
    }

    #[test]
    fn invalid_and_empty_save_nothing() {
        let (dir, store) = store();
        let part = resource("file:///x.png", "image/png", "ab!d");
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::Text(
                "[Resource file:///x.png (image/png): invalid base64 data (unexpected character '!' at symbol 2); nothing was saved]".into()
            )
        );
        let part = MediaPart {
            kind: MediaKind::Image,
            uri: None,
            declared_media_type: Some("image/png"),
            payload: Payload::Base64(b""),
        };
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::Text("[Image (image/png): empty data; nothing was saved]".into())
        );
        assert!(!dir.path().join("out").exists());
    }

    #[test]
    fn save_failure_is_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        std::fs::write(&file, b"x").unwrap();
        let store = ToolOutputStore::new(Some(file.join("sub")), None).unwrap();
        let part = MediaPart {
            kind: MediaKind::Audio,
            uri: None,
            declared_media_type: Some("audio/x-thing"),
            payload: Payload::Bytes(b"\x00\x01\x02\x03"),
        };
        let ModelPart::Text(text) = to_content(&part, CAP, &store) else {
            panic!("expected a note");
        };
        assert!(
            text.starts_with(
                "[Binary audio (audio/x-thing, 4 bytes): audio/x-thing is not accepted; could not be saved: "
            ),
            "{text}"
        );
    }

    #[test]
    fn without_disk_converts_all_but_what_must_be_saved() {
        let markdown = base64_data::encode(b"# Title");
        let part = resource("file:///README.md", "text/markdown", &markdown);
        assert_eq!(
            in_memory(&part, CAP),
            Some(ModelPart::Text(
                "[Resource file:///README.md (text/markdown)]\n# Title".into()
            ))
        );
        let parquet = base64_data::encode(b"PAR1\x00\x01PAR1");
        let part = resource(
            "file:///d.parquet",
            "application/vnd.apache.parquet",
            &parquet,
        );
        assert_eq!(in_memory(&part, CAP), None);
    }

    #[test]
    fn file_names_from_uris() {
        let cases = [
            ("file:///tmp/a.pdf", Some("a.pdf")),
            ("https://x.test/doc.pdf?x=1#p2", Some("doc.pdf")),
            (
                "file:///tmp/My%20report%20%C3%A9.pdf",
                Some("My report é.pdf"),
            ),
            ("file:///tmp/r%c3%a9sum%C3%A9.pdf", Some("résumé.pdf")),
            ("file:///tmp/100%25.png", Some("100%.png")),
            ("file:///tmp/é.pdf", Some("é.pdf")),
            ("a.pdf", Some("a.pdf")),
            ("urn:x:a.pdf", Some("x:a.pdf")),
            ("file:///tmp/", None),
            ("https://x.test", None),
            ("https://x.test/", None),
            ("https://x.test?a=b/c", None),
            ("file:", None),
            // Malformed escapes, and escapes that are not UTF-8.
            ("file:///tmp/a%2.pdf", None),
            ("file:///tmp/a%zz.pdf", None),
            ("file:///tmp/a%", None),
            ("file:///tmp/a%FF.pdf", None),
            ("file:///tmp/a%C3.pdf", None),
            // Decoded separators and control characters; dot names.
            ("file:///tmp/..%2F..%2Fetc%2Fpasswd", None),
            ("file:///tmp/a%5Cb.pdf", None),
            ("file:///tmp/a%00.pdf", None),
            ("file:///tmp/a%0A.pdf", None),
            ("file:///tmp/a%7F.pdf", None),
            ("file:///tmp/a%C2%85.pdf", None),
            ("file:///tmp/a\\b.pdf", None),
            ("file:///tmp/%2E%2E", None),
            ("file:///tmp/.", None),
        ];
        for (uri, want) in cases {
            assert_eq!(file_name(uri).as_deref(), want, "{uri}");
        }
    }

    #[test]
    fn text_labels_keep_the_declared_parameters() {
        assert_eq!(
            embedded_text(
                "file:///a.txt",
                Some("Text/Plain; charset=utf-8; name=a"),
                "hi"
            ),
            "[Resource file:///a.txt (text/plain; charset=utf-8)]\nhi"
        );
        assert_eq!(embedded_text("", None, "hi"), "[Media (text/plain)]\nhi");
        let (_dir, store) = store();
        let b64 = base64_data::encode(b"a,b\n1,2\n");
        let part = resource("file:///t.csv", "text/csv; header=present", &b64);
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::Text(
                "[Resource file:///t.csv (text/csv; header=present)]\na,b\n1,2\n".into()
            )
        );
        // Sent as text/plain, not as the declared type: its parameters go.
        let part = resource("file:///t", "application/octet-stream; charset=utf-8", &b64);
        assert_eq!(
            to_content(&part, CAP, &store),
            ModelPart::Text("[Resource file:///t (text/plain)]\na,b\n1,2\n".into())
        );
    }

    /// A 200x100 PNG (IHDR, one IDAT, IEND) with `damage` done to its
    /// zlib stream, the IDAT's CRC written anew: sound in structure.
    fn png_with_zlib(damage: impl Fn(&mut [u8])) -> Vec<u8> {
        let pixels = image::RgbImage::from_fn(200, 100, |x, y| {
            image::Rgb([x as u8, (y * 2) as u8, (x ^ y) as u8])
        });
        let mut png = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(pixels)
            .write_to(&mut png, image::ImageFormat::Png)
            .unwrap();
        let mut png = png.into_inner();
        let at = 33;
        assert_eq!(&png[at + 4..at + 8], b"IDAT");
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        damage(&mut png[at + 8..at + 8 + len]);
        let crc = crc32fast::hash(&png[at + 4..at + 8 + len]);
        png[at + 8 + len..at + 12 + len].copy_from_slice(&crc.to_be_bytes());
        png
    }

    #[test]
    fn a_png_to_make_fit_is_checked_by_the_fit_that_decodes_it() {
        let (_dir, store) = store();
        let fitting = Conversion {
            fit: FitImages {
                enabled: true,
                max_long_side: Some(64),
            },
            ..Conversion::new(&DEFAULT, CAP)
        };
        let convert = |png: &[u8]| {
            let part = MediaPart::new(MediaKind::Image, None, None, Payload::Bytes(png));
            fitting.convert(&part, &store)
        };
        // Sound: fitted, its decode check the fit's own.
        let sound = convert(&png_with_zlib(|_| {}));
        assert!(
            matches!(
                sound.part,
                ModelPart::File {
                    media_type: "image/png",
                    ..
                }
            ),
            "{:?}",
            sound.part
        );
        assert_eq!(sound.attached.unwrap().dimensions, Some((64, 32)));
        // Deflate data broken midway (the fit fails), and only zlib's
        // Adler-32 wrong (every row decodes; the fit reads on to the end):
        // refused as the decode check refuses them, nothing fitted.
        let broken = |zlib: &mut [u8]| {
            let middle = zlib.len() / 2;
            zlib[middle..middle + 4].iter_mut().for_each(|b| *b ^= 0x5a);
        };
        let adler = |zlib: &mut [u8]| {
            let end = zlib.len();
            zlib[end - 1] ^= 1;
        };
        for damage in [&broken as &dyn Fn(&mut [u8]), &adler] {
            let png = png_with_zlib(damage);
            let converted = convert(&png);
            let ModelPart::Text(text) = &converted.part else {
                panic!("a damaged PNG was sent: {:?}", converted.note);
            };
            assert!(
                text.contains("corrupt PNG: its image data does not decode"),
                "{text}"
            );
            assert_eq!(converted.saved.unwrap().byte_length, png.len() as u64);
        }
    }

    #[test]
    fn a_repairable_png_is_attached_as_its_repaired_copy() {
        use crate::sniff::png_tests::{chunk, png};
        let (dir, store) = store();
        let ihdr = chunk(b"IHDR", &[0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
        let idat = chunk(
            b"IDAT",
            &[0x78, 0xDA, 0x63, 0x60, 0xC0, 0x04, 0, 0, 0x14, 0, 0x01],
        );
        let iend = chunk(b"IEND", &[]);
        let mut text = chunk(b"tEXt", b"Comment\0hi");
        let last = text.len() - 1;
        text[last] ^= 0x80;
        let damaged = png(&[ihdr.clone(), text, idat.clone(), iend.clone()]);
        let repaired = base64_data::encode(&png(&[ihdr, idat, iend]));
        let b64 = base64_data::encode(&damaged);
        for payload in [Payload::Bytes(&damaged), Payload::Base64(b64.as_bytes())] {
            let part = MediaPart::new(
                MediaKind::Resource,
                Some("file:///x/logo%201.png"),
                Some("image/png"),
                payload,
            );
            assert_eq!(
                to_content(&part, CAP, &store),
                ModelPart::File {
                    media_type: "image/png",
                    data: Base64Output::Encoded(repaired.clone()),
                    uri: Some("file:///x/logo%201.png".into()),
                    filename: Some("logo 1.png".into()),
                }
            );
        }
        assert!(!dir.path().join("out").exists(), "nothing is saved");
    }

    #[test]
    fn audience() {
        assert!(is_for_model::<&str>(None));
        assert!(is_for_model(Some(&["user", "assistant"][..])));
        assert!(!is_for_model(Some(&["user"][..])));
    }

    fn saved_path(note: &str) -> &str {
        note.rsplit_once(" saved to ")
            .unwrap()
            .1
            .trim_end_matches(']')
    }

    #[test]
    fn a_text_blob_over_the_cap_is_previewed_and_saved_whole() {
        let (_dir, store) = store();
        let text: String = (0..2000)
            .map(|i| format!("row {i}: some words\n"))
            .collect();
        let b64 = base64_data::encode(text.as_bytes());
        let part = resource("file:///big.md", "text/markdown", &b64);
        assert_eq!(in_memory(&part, Some(1000)), None);
        let ModelPart::Text(out) = to_content(&part, Some(1000), &store) else {
            panic!("expected text");
        };
        assert!(out.starts_with("[Resource file:///big.md (text/markdown)]\nrow 0: some words\n"));
        let note = out.lines().last().unwrap();
        assert!(
            note.contains(" of 2000 lines are shown above; the whole text ("),
            "{note}"
        );
        assert_eq!(std::fs::read_to_string(saved_path(note)).unwrap(), text);
        assert!(saved_path(note).ends_with(".md"));
        // Off: the whole text.
        let ModelPart::Text(out) = to_content(&part, None, &store) else {
            panic!("expected text");
        };
        assert!(out.ends_with("row 1999: some words\n"));
    }

    #[test]
    fn a_huge_utf8_blob_is_streamed_not_decoded_whole() {
        let (_dir, store) = store();
        // 16 bytes per token of the cap and more: over without counting.
        let line = "é".repeat(40) + "\n";
        let text = line.repeat(300);
        let part = MediaPart::new(
            MediaKind::Media,
            Some("file:///accents.txt"),
            Some("text/plain"),
            Payload::Bytes(text.as_bytes()),
        );
        let ModelPart::Text(out) = to_content(&part, Some(100), &store) else {
            panic!("expected text");
        };
        let body = out
            .strip_prefix("[Resource file:///accents.txt (text/plain)]\n")
            .unwrap();
        assert!(body.starts_with(&line), "{out}");
        let note = out.lines().last().unwrap();
        assert!(note.contains(" of 300 lines are shown above"), "{note}");
        assert!(note.contains(&format!("({} bytes)", text.len())), "{note}");
        assert_eq!(std::fs::read(saved_path(note)).unwrap(), text.as_bytes());
    }
}
