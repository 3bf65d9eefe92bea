//! Parts saved rather than sent: the original written to the store, and
//! the note the model gets instead (the reason, the size and the path), or
//! for a text over the cap, a preview with the whole saved.

use std::io::{self, Write};

use super::plan::WholeText;
use super::{Converted, ModelPart, NoteStyle, Saved};
use crate::media_type;
use crate::note::{self, Label};
use crate::payload::Data;
use crate::provider::Profile;
use crate::route::Reason;
use crate::store::ToolOutputStore;
use crate::text;
use crate::text_cap;

/// How notes about held-back parts read, with what the deferred words need.
#[derive(Clone, Copy)]
pub(super) struct Notes<'p> {
    style: NoteStyle,
    profile: &'p Profile,
}

pub(super) fn notes(style: NoteStyle, profile: &Profile) -> Notes<'_> {
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
pub(super) fn save_original(
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
        .and_then(|()| {
            store.save_sized_with(extension, data.len() as u64, |writer| data.write_to(writer))
        })
        .map(|saved| saved.path.to_string_lossy().into_owned())
        .map_err(|error| error.to_string())
}

/// The note for a part saved (`saved`: [`save_original`]'s answer, in
/// `store`) rather than sent, with the reason.
pub(super) fn spill(
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
pub(super) fn spill_text(
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
                store.save_sized_with(extension, length, |writer: &mut dyn Write| {
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
