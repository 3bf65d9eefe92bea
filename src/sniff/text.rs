//! Text formats recognised by their content: SVG and other XML, WebVTT,
//! iCalendar, vCard. UTF-8 (with or without BOM) and UTF-16 with a BOM are
//! read.

use std::borrow::Cow;

use memchr::memmem;

use super::{found, Family, Sniffed};

/// How much of the head to read: the prolog before an XML root element is
/// short in practice.
const PROLOG_LEN: usize = 4096;

pub(super) fn sniff(head: &[u8]) -> Option<Sniffed> {
    let text = ascii_view(head.get(..PROLOG_LEN).unwrap_or(head));
    let text = text.trim_ascii_start();
    let text_type = |media_type| found(media_type, Family::Text);
    if let Some(rest) = text.strip_prefix(b"WEBVTT") {
        // The signature is followed by a space, a tab, a line break or nothing.
        if rest
            .first()
            .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            return text_type(mt!("text/vtt"));
        }
    }
    if text.starts_with(b"BEGIN:VCALENDAR") {
        return text_type(mt!("text/calendar"));
    }
    if text.starts_with(b"BEGIN:VCARD") {
        return text_type(mt!("text/vcard"));
    }
    sniff_markup(text)
}

/// The bytes as ASCII: a UTF-8 BOM is dropped, UTF-16 with a BOM is
/// narrowed to one byte per code unit (non-ASCII units become 0x80).
fn ascii_view(head: &[u8]) -> Cow<'_, [u8]> {
    let narrow = |big_endian: bool| {
        let units = head.get(2..).unwrap_or_default().chunks_exact(2);
        let ascii = units.map(|pair| {
            let unit = match *pair {
                [a, b] if big_endian => u16::from_be_bytes([a, b]),
                [a, b] => u16::from_le_bytes([a, b]),
                _ => 0x80,
            };
            u8::try_from(unit).ok().filter(u8::is_ascii).unwrap_or(0x80)
        });
        Cow::Owned(ascii.collect())
    };
    if let Some(rest) = head.strip_prefix(b"\xEF\xBB\xBF") {
        Cow::Borrowed(rest)
    } else if head.starts_with(b"\xFE\xFF") {
        narrow(true)
    } else if head.starts_with(b"\xFF\xFE") {
        narrow(false)
    } else {
        Cow::Borrowed(head)
    }
}

/// Skip the XML prolog (declaration, comments, processing instructions,
/// doctype) and look at the root element: `<svg` is SVG; anything else is
/// generic XML only when there was an XML declaration.
fn sniff_markup(mut text: &[u8]) -> Option<Sniffed> {
    let mut declared = false;
    loop {
        text = text.trim_ascii_start();
        let close: &[u8] = if text.starts_with(b"<?xml") {
            declared = true;
            b"?>"
        } else if text.starts_with(b"<?") {
            b"?>"
        } else if text.starts_with(b"<!--") {
            b"-->"
        } else if text
            .get(..9)
            .is_some_and(|t| t.eq_ignore_ascii_case(b"<!DOCTYPE"))
        {
            // An internal subset in brackets may hold '>' characters.
            let bracket = memchr::memchr(b'[', text);
            let end = memchr::memchr(b'>', text);
            if bracket.is_some() && bracket < end {
                b"]>"
            } else {
                b">"
            }
        } else {
            break;
        };
        let end = memmem::find(text, close)?;
        text = text.get(end + close.len()..)?;
    }
    let is_svg = text.strip_prefix(b"<svg").is_some_and(|rest| {
        rest.first()
            .is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'))
    });
    if is_svg {
        found(mt!("image/svg+xml"), Family::Text)
    } else if declared && text.starts_with(b"<") {
        found(mt!("application/xml"), Family::Text)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(data: &[u8]) -> Option<&'static str> {
        sniff(data).map(|s| s.media_type)
    }

    #[test]
    fn svg_after_prolog() {
        assert_eq!(
            kind(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
            Some("image/svg+xml")
        );
        let svg = b"\xEF\xBB\xBF  <?xml version=\"1.0\"?>\n<!-- made by hand -->\n\
            <!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" [ <!ENTITY a \"b\"> ]>\n<svg>";
        assert_eq!(kind(svg), Some("image/svg+xml"));
        assert_eq!(kind(b"<svgfoo>"), None);
        assert_eq!(
            kind(b"<?xml version=\"1.0\"?><svgfoo/>"),
            Some("application/xml")
        );
    }

    #[test]
    fn xml_and_not_xml() {
        assert_eq!(
            kind(b"<?xml version=\"1.0\"?>\n<doc/>"),
            Some("application/xml")
        );
        assert_eq!(kind(b"<!DOCTYPE html><html></html>"), None);
        assert_eq!(kind(b"<?xml version=\"1.0\""), None);
        assert_eq!(kind(b"hello"), None);
        let utf16: Vec<u8> = b"\xFF\xFE"
            .iter()
            .copied()
            .chain("<?xml version=\"1.0\"?><svg/>".bytes().flat_map(|b| [b, 0]))
            .collect();
        assert_eq!(kind(&utf16), Some("image/svg+xml"));
    }

    #[test]
    fn other_text() {
        assert_eq!(kind(b"WEBVTT\n\n00:00.000 --> 00:01.000"), Some("text/vtt"));
        assert_eq!(kind(b"WEBVTT"), Some("text/vtt"));
        assert_eq!(kind(b"WEBVTTX"), None);
        assert_eq!(kind(b"BEGIN:VCALENDAR\r\n"), Some("text/calendar"));
    }
}
