//! The text notes the model reads instead of, or before, a part's content.
//! Each format is documented in the README; keep them in step.

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
    format!("[{} ({media_type})]\n{text}", label.title())
}

/// `[Binary resource <uri> (<mediaType>, <N> bytes) saved to <path>]`
pub fn saved(label: Label, media_type: &str, byte_length: u64, path: &str) -> String {
    format!(
        "[{} ({media_type}, {byte_length} bytes) saved to {path}]",
        label.binary_title()
    )
}

/// `[Binary resource <uri> (<mediaType>, <N> bytes) could not be saved: <reason>]`
pub fn save_failed(label: Label, media_type: &str, byte_length: u64, reason: &str) -> String {
    format!(
        "[{} ({media_type}, {byte_length} bytes) could not be saved: {reason}]",
        label.binary_title()
    )
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
                "/tmp/tool_1.parquet"
            ),
            "[Binary resource file:///data.parquet (application/vnd.apache.parquet, 4 bytes) saved to /tmp/tool_1.parquet]"
        );
    }

    #[test]
    fn no_uri_names_the_part_type() {
        assert_eq!(
            text(Label::Image, "image/svg+xml", "<svg/>"),
            "[Image (image/svg+xml)]\n<svg/>"
        );
        assert_eq!(
            saved(Label::Audio, "audio/wav", 10, "/t/tool_2.wav"),
            "[Binary audio (audio/wav, 10 bytes) saved to /t/tool_2.wav]"
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
}
