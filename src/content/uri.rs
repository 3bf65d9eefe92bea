//! A file name from a part's uri, for providers that want one.

/// The last path segment of a uri, percent-decoded, as a file name for
/// providers that want one (`file:///tmp/My%20report.pdf` -> `My report.pdf`).
/// None when there is no path segment (`https://host`, `file:///tmp/`), an
/// escape is not two hex digits, the decoded bytes are not UTF-8, or the
/// name would hold a `/`, `\`, NUL or other control character, or be `.` or
/// `..`: a provider or a program downstream may use it as a path.
pub(super) fn file_name(uri: &str) -> Option<String> {
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
