//! The text notes the model reads instead of, or before, a part's content.
//! Each format is documented in the README; keep them in step.

use crate::provider::SizeLimit;
use crate::route::Reason;

/// How a note names the part: by its uri when it has one, else by its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label<'a> {
    Resource(&'a str),
    Image,
    Audio,
    Media,
}

impl Label<'_> {
    /// `Resource <uri>`, `Image`, `Audio` or `Media`.
    fn title(&self) -> String {
        match self {
            Label::Resource(uri) => format!("Resource {uri}"),
            Label::Image => "Image".into(),
            Label::Audio => "Audio".into(),
            Label::Media => "Media".into(),
        }
    }

    /// `Binary resource <uri>`, `Binary image`, ...
    fn binary_title(&self) -> String {
        match self {
            Label::Resource(uri) => format!("Binary resource {uri}"),
            Label::Image => "Binary image".into(),
            Label::Audio => "Binary audio".into(),
            Label::Media => "Binary media".into(),
        }
    }
}

/// `[Resource <uri> (<mediaType>)]\n<text>`
pub fn text(label: Label, media_type: &str, text: &str) -> String {
    let mut note = text_header(label, media_type, None);
    note.push_str(text);
    note
}

/// The header of decoded text, with its newline: `[Resource <uri>
/// (<mediaType>)]\n`, or `[Resource <uri> (<mediaType>, <encoding>)]\n`
/// when the bytes were not UTF-8 (`windows-1252`, `utf-16le`, ...).
pub fn text_header(label: Label, media_type: &str, encoding: Option<&str>) -> String {
    match encoding {
        None => format!("[{} ({media_type})]\n", label.title()),
        Some(encoding) => format!("[{} ({media_type}, {encoding})]\n", label.title()),
    }
}

/// `[Binary resource <uri> (<mediaType>, <N> bytes): <reason>; saved to <path>]`
pub fn saved(label: Label, media_type: &str, byte_length: u64, why: &Reason, path: &str) -> String {
    format!(
        "[{} ({media_type}, {byte_length} bytes): {}; saved to {path}]",
        label.binary_title(),
        reason(why)
    )
}

/// `[Binary resource <uri> (<mediaType>, <N> bytes): <reason>; could not be saved: <error>]`
pub fn save_failed(
    label: Label,
    media_type: &str,
    byte_length: u64,
    why: &Reason,
    error: &str,
) -> String {
    format!(
        "[{} ({media_type}, {byte_length} bytes): {}; could not be saved: {error}]",
        label.binary_title(),
        reason(why)
    )
}

/// Why a part was not attached, in words a model can act on.
pub fn reason(why: &Reason) -> String {
    match why {
        Reason::NotAccepted {
            media_type,
            declared: None,
        } => format!("{media_type} is not accepted"),
        Reason::NotAccepted {
            media_type,
            declared: Some(declared),
        } => format!("declared {declared} but the bytes are {media_type}, which is not accepted"),
        Reason::OverLimits { pixels, size } => {
            let pixels = pixels.map(|p| {
                format!(
                    "{}x{} px, over the {} px limit",
                    p.width, p.height, p.max_side
                )
            });
            let size = size.map(|s| {
                let unit = match s.limit {
                    SizeLimit::DecodedBytes(_) => "MB",
                    SizeLimit::Base64Chars(_) => "MB as base64",
                };
                format!(
                    "{} {unit}, over the {} MB limit",
                    megabytes_up(s.size),
                    megabytes_down(s.limit.max())
                )
            });
            [pixels, size]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", and ")
        }
        Reason::UnknownPixelSize => "the pixel size could not be read from the header".into(),
        Reason::Defect(problem) | Reason::Mismatch(problem) => problem.clone(),
        Reason::TextDeclaredAs(declared) => format!("declared {declared} but the bytes are text"),
        Reason::NotText => "the bytes are not text (neither UTF-8 nor UTF-16)".into(),
    }
}

/// Decimal megabytes with one decimal, rounded up: a size over a limit
/// never reads as equal to it.
fn megabytes_up(n: u64) -> String {
    tenths(n.div_ceil(100_000))
}

/// Decimal megabytes with one decimal, rounded down: what a limit is
/// known to admit.
fn megabytes_down(n: u64) -> String {
    tenths(n / 100_000)
}

fn tenths(t: u64) -> String {
    format!("{}.{}", t / 10, t % 10)
}

/// `[Resource <uri> (<mediaType>): <problem>; nothing was saved]`
pub fn unreadable(label: Label, media_type: &str, problem: &str) -> String {
    format!(
        "[{} ({media_type}): {problem}; nothing was saved]",
        label.title()
    )
}

/// `[Unsupported content part of type "<type>"]`
pub fn unsupported_part(part_type: &str) -> String {
    format!("[Unsupported content part of type \"{part_type}\"]")
}

/// A `resource` part whose `resource` is missing or not an object.
pub fn missing_resource() -> String {
    "[Resource part without a `resource` object]".to_string()
}

/// `[Resource link <uri> (<name>, <mimeType>, <size> bytes)]` and the
/// description on the next line; absent pieces are left out.
/// `size` is shown only when it is a byte count: a whole number from 0 to
/// 2^53 (larger doubles are not exact integers).
pub fn resource_link(
    uri: &str,
    name: Option<&str>,
    media_type: Option<&str>,
    size: Option<f64>,
    description: Option<&str>,
) -> String {
    const MAX_EXACT: f64 = 9_007_199_254_740_991.0;
    let size = size
        .filter(|s| (0.0..=MAX_EXACT).contains(s) && s.fract() == 0.0)
        .map(|n| format!("{} bytes", n as u64));
    let details: Vec<&str> = [name, media_type, size.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect();
    let mut note = format!("[Resource link {uri}");
    if !details.is_empty() {
        note.push_str(&format!(" ({})", details.join(", ")));
    }
    note.push(']');
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        note.push('\n');
        note.push_str(description);
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::{PixelExcess, SizeExcess};

    fn not_accepted(media_type: &str) -> Reason {
        Reason::NotAccepted {
            media_type: media_type.into(),
            declared: None,
        }
    }

    #[test]
    fn formats_match_the_source_document() {
        assert_eq!(
            text(
                Label::Resource("file:///README.md"),
                "text/markdown",
                "# Hi"
            ),
            "[Resource file:///README.md (text/markdown)]\n# Hi"
        );
        assert_eq!(
            saved(
                Label::Resource("file:///data.parquet"),
                "application/vnd.apache.parquet",
                4,
                &not_accepted("application/vnd.apache.parquet"),
                "/tmp/tool_1.parquet"
            ),
            "[Binary resource file:///data.parquet (application/vnd.apache.parquet, 4 bytes): application/vnd.apache.parquet is not accepted; saved to /tmp/tool_1.parquet]"
        );
    }

    #[test]
    fn no_uri_names_the_part_type() {
        assert_eq!(
            text(Label::Image, "image/svg+xml", "<svg/>"),
            "[Image (image/svg+xml)]\n<svg/>"
        );
        assert_eq!(
            saved(
                Label::Audio,
                "audio/wav",
                10,
                &not_accepted("audio/wav"),
                "/t/tool_2.wav"
            ),
            "[Binary audio (audio/wav, 10 bytes): audio/wav is not accepted; saved to /t/tool_2.wav]"
        );
        assert_eq!(
            unreadable(Label::Image, "image/png", "empty data"),
            "[Image (image/png): empty data; nothing was saved]"
        );
    }

    #[test]
    fn resource_link_leaves_out_missing_pieces() {
        assert_eq!(
            resource_link(
                "file:///a.txt",
                Some("a.txt"),
                Some("text/plain"),
                Some(12.0),
                Some("notes")
            ),
            "[Resource link file:///a.txt (a.txt, text/plain, 12 bytes)]\nnotes"
        );
        assert_eq!(
            resource_link("https://x/y", None, None, None, None),
            "[Resource link https://x/y]"
        );
        for size in [1e300, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert_eq!(
                resource_link("u", None, None, Some(size), None),
                "[Resource link u]"
            );
        }
    }

    #[test]
    fn every_reason_in_words() {
        let image_size = SizeLimit::Base64Chars(5_242_880);
        let pixels = PixelExcess {
            width: 1280,
            height: 20000,
            max_side: 8000,
        };
        let over = |size| SizeExcess {
            size,
            limit: image_size,
        };
        let cases = [
            (not_accepted("image/bmp"), "image/bmp is not accepted"),
            (
                Reason::NotAccepted {
                    media_type: "image/bmp".into(),
                    declared: Some("image/png".into()),
                },
                "declared image/png but the bytes are image/bmp, which is not accepted",
            ),
            (
                Reason::OverLimits {
                    pixels: Some(pixels),
                    size: None,
                },
                "1280x20000 px, over the 8000 px limit",
            ),
            (
                Reason::OverLimits {
                    pixels: None,
                    size: Some(over(6_012_056)),
                },
                "6.1 MB as base64, over the 5.2 MB limit",
            ),
            (
                // Just over: rounded up, the limit down, never equal.
                Reason::OverLimits {
                    pixels: None,
                    size: Some(over(5_242_884)),
                },
                "5.3 MB as base64, over the 5.2 MB limit",
            ),
            (
                Reason::OverLimits {
                    pixels: Some(pixels),
                    size: Some(over(5_700_000)),
                },
                "1280x20000 px, over the 8000 px limit, and 5.7 MB as base64, over the 5.2 MB limit",
            ),
            (
                Reason::OverLimits {
                    pixels: None,
                    size: Some(SizeExcess {
                        size: 10_485_761,
                        limit: SizeLimit::DecodedBytes(10_485_760),
                    }),
                },
                "10.5 MB, over the 10.4 MB limit",
            ),
            (
                Reason::UnknownPixelSize,
                "the pixel size could not be read from the header",
            ),
            (
                Reason::Defect("truncated PNG: IEND chunk missing".into()),
                "truncated PNG: IEND chunk missing",
            ),
            (
                Reason::Mismatch("declared image/png but the bytes do not match that format".into()),
                "declared image/png but the bytes do not match that format",
            ),
            (
                Reason::TextDeclaredAs("image/png".into()),
                "declared image/png but the bytes are text",
            ),
            (
                Reason::NotText,
                "the bytes are not text (neither UTF-8 nor UTF-16)",
            ),
        ];
        for (why, words) in cases {
            assert_eq!(reason(&why), words);
        }
        assert_eq!(
            save_failed(
                Label::Image,
                "image/bmp",
                3,
                &not_accepted("image/bmp"),
                "No space left on device (os error 28)"
            ),
            "[Binary image (image/bmp, 3 bytes): image/bmp is not accepted; could not be saved: No space left on device (os error 28)]"
        );
    }
}
