//! Where a classified media part goes for a provider: attached as a file,
//! sent as decoded text, or spilled to disk.

use crate::classify::{Classification, Kind};
use crate::media_type;
use crate::provider::Profile;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Invalid base64 or empty data: a note only.
    Unreadable,
    /// A file part of this (sniffed) media type.
    Attach { media_type: &'static str },
    /// Decoded text under a header naming this media type.
    Text { media_type: String },
    /// Saved by the store; the note names this media type.
    Spill { media_type: String },
}

/// The contract's default routing, driven by the provider's table.
pub fn decide(c: &Classification, profile: &Profile) -> Route {
    match c.kind {
        Kind::Invalid | Kind::Empty => return Route::Unreadable,
        _ => {}
    }
    if let Some(sniffed) = c.sniffed_media_type {
        if c.defect.is_none() && within_limits(c, sniffed, profile) {
            return Route::Attach {
                media_type: sniffed,
            };
        }
    }
    if c.kind == Kind::Text && c.text_encoding.is_some() && may_send_as_text(c) {
        return Route::Text {
            media_type: c.media_type.clone(),
        };
    }
    Route::Spill {
        media_type: c.media_type.clone(),
    }
}

fn within_limits(c: &Classification, sniffed: &str, profile: &Profile) -> bool {
    let Some(limits) = profile.attach_limits(sniffed) else {
        return false;
    };
    if c.byte_length > limits.max_bytes {
        return false;
    }
    match (limits.max_side, c.dimensions) {
        (None, _) => true,
        (Some(max), Some((w, h))) => w > 0 && h > 0 && w <= max && h <= max,
        // An image whose size cannot be read cannot be vouched for.
        (Some(_), None) => false,
    }
}

/// Text goes to the model when the declared type says text, when it says
/// nothing specific, or when the sniffed format is itself textual (svg).
fn may_send_as_text(c: &Classification) -> bool {
    if c.sniffed_media_type.is_some() {
        return true;
    }
    match c.declared_media_type.as_deref() {
        None => true,
        Some(declared) => {
            media_type::is_textual(declared)
                || media_type::is_generic_binary(declared)
                || media_type::extension(declared) == "bin"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify;
    use crate::payload::Payload;
    use crate::provider::DEFAULT;

    fn route(data: &[u8], declared: Option<&str>) -> Route {
        decide(&classify(Payload::Bytes(data), declared), &DEFAULT)
    }

    #[test]
    fn text_routes() {
        assert_eq!(
            route(b"# hi\n", Some("text/markdown")),
            Route::Text {
                media_type: "text/markdown".into()
            }
        );
        assert_eq!(
            route(b"hello\n", Some("application/octet-stream")),
            Route::Text {
                media_type: "text/plain".into()
            }
        );
        assert_eq!(
            route(b"hello\n", Some("application/x-custom")),
            Route::Text {
                media_type: "application/x-custom".into()
            }
        );
    }

    #[test]
    fn specific_binary_declaration_with_text_bytes_is_spilled() {
        assert_eq!(
            route(b"Not Found\n", Some("image/png")),
            Route::Spill {
                media_type: "text/plain".into()
            }
        );
    }

    #[test]
    fn empty_is_unreadable() {
        assert_eq!(route(b"", Some("image/png")), Route::Unreadable);
    }
}
