//! What a media part becomes, decided before any disk write: the part's
//! data opened, classified and routed ([`route_part`]), then planned: a
//! part made at once, an image to make fit, or data or text to save.

use super::uri::file_name;
use super::{Attached, Converted, MediaKind, MediaPart, ModelPart};
use crate::base64_data;
use crate::charset;
use crate::classify::{self, Classification};
use crate::image_fit::{FitImages, Target};
use crate::media_type;
use crate::note::{self, Label};
use crate::payload::{Base64Output, Data};
use crate::provider::Profile;
use crate::route::{self, Reason, Route};
use crate::text::{self, TextEncoding};
use crate::text_cap::{self, TextCap};

/// A media part's outcome, short of the disk write a spill needs.
pub(super) enum Plan<'a> {
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
pub(super) enum WholeText {
    /// Decoded already, to tell it was over the cap.
    Decoded(String),
    /// Too long to need counting: not decoded whole, but streamed to the
    /// store from the data in this encoding, decoded piece by piece.
    Streamed(TextEncoding),
}

pub(super) fn label<'a>(part: &MediaPart<'a>) -> Label<'a> {
    match (part.kind, part.uri.filter(|u| !u.is_empty())) {
        (_, Some(uri)) => Label::Resource(uri),
        (MediaKind::Image, None) => Label::Image,
        (MediaKind::Audio, None) => Label::Audio,
        (MediaKind::Media | MediaKind::Resource, None) => Label::Media,
    }
}

/// A part's data opened, classified and routed, an image's decode check
/// left out (`Routed::checked` runs it).
pub(super) struct Routed<'a> {
    pub(super) label: Label<'a>,
    pub(super) data: Data<'a>,
    pub(super) c: Classification,
    pub(super) route: Route,
}

/// `part` opened and routed; `Err` holds the note for data that is not
/// valid base64.
pub(super) fn route_part<'a>(
    part: &MediaPart<'a>,
    profile: &Profile,
    fit: FitImages,
) -> Result<Routed<'a>, String> {
    let label = label(part);
    let declared = part
        .declared_media_type
        .map(media_type::essence)
        .filter(|d| !d.is_empty());
    let data = match Data::open_for_routing(part.payload) {
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
    pub(super) fn needs_disk_write(&self) -> bool {
        matches!(self.route, Route::Fit { .. } | Route::Spill { .. })
    }

    /// The decode check run; an image it fails routed again. A PNG to make
    /// fit is left to the fit, which reads it the same way when it reads
    /// it a row at a time (`image_fit::Fitted::checked`): it is decoded
    /// once, not twice.
    pub(super) fn checked(mut self, profile: &Profile, fit: FitImages) -> Self {
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
pub(super) fn plan<'a>(
    part: &MediaPart<'a>,
    profile: &Profile,
    cap: TextCap,
    fit: FitImages,
) -> Plan<'a> {
    match route_part(part, profile, fit) {
        Ok(routed) => plan_routed(part, routed.checked(profile, fit), cap),
        Err(note) => Plan::Done(Converted::part(ModelPart::Text(note))),
    }
}

pub(super) fn plan_routed<'a>(part: &MediaPart<'a>, routed: Routed<'a>, cap: TextCap) -> Plan<'a> {
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

/// The whole text of the data, decoded from its encoding.
fn decoded_text(data: &Data, c: &Classification) -> Option<String> {
    let mut text = String::new();
    text::decode_into(data.full(), c.text_encoding?, &mut text).then_some(text)
}
