//! Helpers shared by the fuzz targets: control bytes read off the front of
//! an input, growing an input past the size where the core stops reading
//! whole data (a 64 KiB head and a 1 KiB tail), the base64 forms MCP servers
//! send, and the store's name grammar restated from its documentation.

use std::borrow::Cow;

use mcp_content::base64_data;

/// Control values taken from the front of a fuzz input; past its end every
/// value reads as zero, so any input is usable.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Everything not read yet.
    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// Largest input after growing: past the 66,560 bytes the core decodes
/// whole, and past a 64 Ki-symbol base64 chunk, but still quick to run.
pub const MAX_GROWN: usize = 200 * 1024;

/// How to grow an input: `copies` more copies of `data[start..start + len]`
/// inserted right after it, or, when that slice is empty, `copies * 4`
/// bytes of `filler` at `start`. Seven control bytes.
#[derive(Debug, Clone, Copy)]
pub struct Grow {
    copies: u16,
    start: u16,
    len: u16,
    filler: u8,
}

impl Grow {
    pub fn read(input: &mut Input) -> Self {
        Grow {
            copies: input.u16(),
            start: input.u16(),
            len: input.u16(),
            filler: input.byte(),
        }
    }

    pub fn apply<'a>(&self, data: &'a [u8]) -> Cow<'a, [u8]> {
        if self.copies == 0 {
            return Cow::Borrowed(data);
        }
        let start = usize::from(self.start) % (data.len() + 1);
        let len = usize::from(self.len) % (data.len() - start + 1);
        let room = MAX_GROWN.saturating_sub(data.len());
        let unit: Vec<u8> = if len == 0 {
            vec![self.filler; 4]
        } else {
            data[start..start + len].to_vec()
        };
        let copies = usize::from(self.copies).min(room / unit.len());
        let at = start + len;
        let mut out = Vec::with_capacity(data.len() + copies * unit.len());
        out.extend_from_slice(&data[..at]);
        for _ in 0..copies {
            out.extend_from_slice(&unit);
        }
        out.extend_from_slice(&data[at..]);
        Cow::Owned(out)
    }
}

/// The base64 forms the core documents as accepted, all made from the
/// canonical encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Canonical,
    Unpadded,
    UrlSafe,
    UrlSafeUnpadded,
    /// CRLF after every 76 symbols, padded (MIME).
    Mime,
    /// LF after every `n` symbols (1..=256), unpadded.
    Lines(usize),
}

impl Form {
    pub fn from_byte(b: u8) -> Self {
        match b % 6 {
            0 => Form::Canonical,
            1 => Form::Unpadded,
            2 => Form::UrlSafe,
            3 => Form::UrlSafeUnpadded,
            4 => Form::Mime,
            _ => Form::Lines(usize::from(b) + 1),
        }
    }

    pub fn encode(self, bytes: &[u8]) -> String {
        let canonical = base64_data::encode(bytes);
        let url_safe = |s: &str| s.replace('+', "-").replace('/', "_");
        match self {
            Form::Canonical => canonical,
            Form::Unpadded => canonical.trim_end_matches('=').to_string(),
            Form::UrlSafe => url_safe(&canonical),
            Form::UrlSafeUnpadded => url_safe(canonical.trim_end_matches('=')),
            Form::Mime => wrap(&canonical, 76, "\r\n"),
            Form::Lines(n) => wrap(canonical.trim_end_matches('='), n, "\n"),
        }
    }
}

fn wrap(symbols: &str, width: usize, line_break: &str) -> String {
    symbols
        .as_bytes()
        .chunks(width)
        .map(|line| std::str::from_utf8(line).expect("base64 is ASCII"))
        .collect::<Vec<_>>()
        .join(line_break)
}

/// Declared media types: the attachable ones and their aliases, textual,
/// generic, unknown, refused, and odd spellings.
pub const DECLARED: &[Option<&str>] = &[
    None,
    Some(""),
    Some("image/png"),
    Some("image/jpeg"),
    Some("image/jpg"),
    Some("image/gif"),
    Some("image/webp"),
    Some("application/pdf"),
    Some("image/x-png"),
    Some("image/apng"),
    Some("IMAGE/PNG ; q=1"),
    Some("image/bmp"),
    Some("image/svg+xml"),
    Some("text/plain"),
    Some("text/markdown; charset=utf-8"),
    Some("application/json"),
    Some("application/xml"),
    Some("text/xml"),
    Some("text/csv"),
    Some("application/octet-stream"),
    Some("unknown/unknown"),
    Some("application/x-custom"),
    Some("application/vnd.apache.parquet"),
    Some("application/zip"),
    Some("audio/mpeg"),
    Some("audio/wav"),
    Some("video/mp4"),
    Some("not a media type"),
];

pub fn declared(b: u8) -> Option<&'static str> {
    DECLARED[usize::from(b) % DECLARED.len()]
}

/// The store's name grammar, restated from its documentation (docs/store.md;
/// src/store.rs module docs), not from its code.
pub mod names {
    /// An extension `save` accepts (besides the empty one): 1 to 32 ASCII
    /// letters, digits, `-` and `_`; one segment, no dot.
    pub fn valid_extension(ext: &str) -> bool {
        (1..=32).contains(&ext.len())
            && ext
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b))
    }

    /// `tool_<13 digits>_<6 digits>_<10 digits>`, optionally `.<extension>`.
    pub fn own_file(name: &str) -> bool {
        let Some(rest) = name.strip_prefix("tool_") else {
            return false;
        };
        let (id, ext) = match rest.split_once('.') {
            Some((id, ext)) => (id, Some(ext)),
            None => (rest, None),
        };
        digit_groups(id, &[13, 6, 10]) && ext.is_none_or(valid_extension)
    }

    /// `.tool_tmp_<10 digits>_<20 digits>_<9 digits>`.
    pub fn own_temp(name: &str) -> bool {
        name.strip_prefix(".tool_tmp_")
            .is_some_and(|rest| digit_groups(rest, &[10, 20, 9]))
    }

    fn digit_groups(s: &str, widths: &[usize]) -> bool {
        let expected: usize = widths.iter().sum::<usize>() + widths.len() - 1;
        if s.len() != expected {
            return false;
        }
        let mut at = 0;
        for (i, &w) in widths.iter().enumerate() {
            if !s.as_bytes()[at..at + w].iter().all(u8::is_ascii_digit) {
                return false;
            }
            at += w;
            if i + 1 < widths.len() {
                if s.as_bytes()[at] != b'_' {
                    return false;
                }
                at += 1;
            }
        }
        true
    }
}
