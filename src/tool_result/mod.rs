//! A whole tool result for one provider: which attachments stay in the
//! result, which move to a following user message (deferred media, the
//! decocms way), which are saved instead; and the text an error result
//! needs when the tool sent none. The order of the answer: [`layout`].

pub mod layout;

use crate::budget::{self, Candidate, Carried};
use crate::classify;
use crate::note;
use crate::payload::Payload;
use crate::provider::{Placement, Profile};
use crate::route::Reason;

/// `deferMedia`: move sendable media out of the tool result into a
/// following user message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeferMode {
    /// Where the provider takes no media in tool results (or not on every
    /// model): the profile says.
    Auto,
    Always,
    Never,
}

impl DeferMode {
    pub fn defers(self, profile: &Profile) -> bool {
        match self {
            DeferMode::Auto => profile.defers_media,
            DeferMode::Always => true,
            DeferMode::Never => false,
        }
    }
}

/// Where one attachment of the result goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Stays in the tool result as a file part.
    InResult,
    /// Moves to a following user message; the result keeps this text.
    Deferred { placeholder: String },
    /// Saved and noted instead, for this reason.
    Held(Reason),
}

/// Decide, for the attachments of one result in content order, where each
/// goes. `defer` is [`DeferMode::defers`] for the profile.
pub fn decide(profile: &Profile, defer: bool, candidates: &[Candidate]) -> Vec<Verdict> {
    decide_fitting(profile, defer, candidates, false, &Carried::default())
}

/// [`decide`]; with `fit`, images over the many-image side limit are held
/// with that reason to be fitted to it (`content::Conversion::hold`), and
/// every such image is, since none leaves the request.
/// `carried`: what the request carries already (see `budget`).
pub fn decide_fitting(
    profile: &Profile,
    defer: bool,
    candidates: &[Candidate],
    fit: bool,
    carried: &Carried,
) -> Vec<Verdict> {
    let mut verdicts: Vec<Option<Verdict>> = candidates
        .iter()
        .map(|c| match profile.attachable(c.media_type) {
            // Not the profile's type: only a file part of another profile
            // could get here.
            None => Some(Verdict::Held(Reason::NotAccepted {
                media_type: c.media_type.to_string(),
                declared: None,
            })),
            Some(a) if a.placement == Placement::UserMessage && !defer => {
                Some(Verdict::Held(Reason::UserMessageOnly {
                    media_type: c.media_type.to_string(),
                }))
            }
            Some(_) => None,
        })
        .collect();
    let sendable: Vec<usize> = (0..candidates.len())
        .filter(|&i| verdicts[i].is_none())
        .collect();
    let subset: Vec<Candidate> = sendable.iter().map(|&i| candidates[i]).collect();
    for (&i, excess) in sendable
        .iter()
        .zip(budget::allot_fitting(profile, &subset, fit, carried))
    {
        let c = &candidates[i];
        verdicts[i] = Some(match excess {
            Some(excess) => Verdict::Held(Reason::Request(excess)),
            None if defer => Verdict::Deferred {
                placeholder: note::attached_below(
                    c.media_type,
                    profile
                        .attachable(c.media_type)
                        .map_or("file", |a| a.class.noun()),
                    c.byte_length,
                ),
            },
            None => Verdict::InResult,
        });
    }
    verdicts
        .into_iter()
        .map(|v| v.unwrap_or(Verdict::InResult))
        .collect()
}

/// Count an attachment the request carries already (one of its history's,
/// `declared` as its block says) toward the limits of `profile`.
pub fn carry(carried: &mut Carried, profile: &Profile, payload: Payload, declared: Option<&str>) {
    if let Some(attachment) = classify::carrying(payload, declared) {
        carried.add(
            profile,
            &Candidate {
                media_type: &attachment.media_type,
                byte_length: attachment.byte_length,
                dimensions: None,
                pages: attachment.pages,
            },
        );
    }
}

/// The text to put first in an error result whose tool sent no text.
pub fn error_text(is_error: bool, has_text: bool) -> Option<String> {
    (is_error && !has_text).then(note::tool_error_without_text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::RequestExcess;
    use crate::provider::{profile, ANTHROPIC, DEFAULT, GOOGLE, OPENAI_CHAT};

    const PNG: Candidate = Candidate {
        media_type: "image/png",
        byte_length: 100_352,
        dimensions: Some((450, 768)),
        pages: None,
    };

    #[test]
    fn a_history_attachment_counts_by_what_its_bytes_are() {
        use crate::sniff::png_tests::tiny_png;
        let b64 = crate::base64_data::encode;
        let mut carried = Carried::default();
        let png = b64(&tiny_png());
        // A PNG declared as a PDF is counted as the image it is.
        carry(
            &mut carried,
            &ANTHROPIC,
            Payload::Base64(png.as_bytes()),
            Some("application/pdf"),
        );
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 7 >> endobj\n%%EOF\n";
        carry(&mut carried, &ANTHROPIC, Payload::Bytes(pdf), None);
        // Not base64, empty, unknown bytes declared as nothing: not counted.
        carry(
            &mut carried,
            &ANTHROPIC,
            Payload::Base64(b"%%%"),
            Some("image/png"),
        );
        carry(
            &mut carried,
            &ANTHROPIC,
            Payload::Bytes(b""),
            Some("image/png"),
        );
        carry(
            &mut carried,
            &ANTHROPIC,
            Payload::Bytes(&[0, 1, 2, 3]),
            None,
        );
        assert_eq!(
            carried,
            Carried {
                images: 1,
                documents: 1,
                pages: 7,
                bytes: (tiny_png().len() + pdf.len()) as u64,
                document_bytes: pdf.len() as u64,
            }
        );
    }

    #[test]
    fn auto_defers_where_the_profile_says() {
        for name in ["openai-chat", "openrouter", "google"] {
            assert!(
                DeferMode::Auto.defers(profile(Some(name)).unwrap()),
                "{name}"
            );
        }
        for name in [
            "default",
            "anthropic",
            "anthropic-bedrock",
            "openai",
            "bedrock",
        ] {
            assert!(
                !DeferMode::Auto.defers(profile(Some(name)).unwrap()),
                "{name}"
            );
        }
        assert!(DeferMode::Always.defers(&ANTHROPIC));
        assert!(!DeferMode::Never.defers(&GOOGLE));
    }

    #[test]
    fn deferred_media_leave_a_placeholder() {
        assert_eq!(
            decide(&OPENAI_CHAT, true, &[PNG]),
            [Verdict::Deferred {
                placeholder: "[image/png image, 98 KB, attached below]".into()
            }]
        );
        let pdf = Candidate {
            media_type: "application/pdf",
            byte_length: 1535,
            dimensions: None,
            pages: Some(1),
        };
        assert_eq!(
            decide(&ANTHROPIC, true, &[pdf]),
            [Verdict::Deferred {
                placeholder: "[application/pdf document, 1 KB, attached below]".into()
            }]
        );
        assert_eq!(decide(&ANTHROPIC, false, &[PNG]), [Verdict::InResult]);
    }

    #[test]
    fn user_message_only_types_are_held_when_not_deferred() {
        assert_eq!(
            decide(&OPENAI_CHAT, false, &[PNG]),
            [Verdict::Held(Reason::UserMessageOnly {
                media_type: "image/png".into()
            })]
        );
        let heic = Candidate {
            media_type: "image/heic",
            ..PNG
        };
        assert_eq!(
            decide(&GOOGLE, false, &[PNG, heic]),
            [
                Verdict::InResult,
                Verdict::Held(Reason::UserMessageOnly {
                    media_type: "image/heic".into()
                })
            ]
        );
    }

    #[test]
    fn held_parts_leave_room_in_the_budget() {
        // 21 PNGs and a heic under the default's 20 images, not deferred:
        // the heic is not the default's type, the 21st PNG is over.
        let heic = Candidate {
            media_type: "image/heic",
            ..PNG
        };
        let mut candidates = vec![heic];
        candidates.extend([PNG; 21]);
        let verdicts = decide(&DEFAULT, false, &candidates);
        assert!(matches!(
            verdicts[0],
            Verdict::Held(Reason::NotAccepted { .. })
        ));
        assert!(verdicts[1..21].iter().all(|v| *v == Verdict::InResult));
        assert_eq!(
            verdicts[21],
            Verdict::Held(Reason::Request(RequestExcess::Images { max: 20 }))
        );
    }

    #[test]
    fn error_text_only_for_errors_without_text() {
        assert_eq!(
            error_text(true, false).as_deref(),
            Some("[The tool reported an error and sent no message]")
        );
        assert_eq!(error_text(true, true), None);
        assert_eq!(error_text(false, false), None);
    }
}
