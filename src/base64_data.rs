//! Base64 as MCP servers send it: validation, decoded length, partial and
//! streamed decoding, canonical encoding.
//!
//! Accepted forms: the standard (`+/`) or the url-safe (`-_`) alphabet (one of
//! them, not both), padding optional but correct when present, the unused
//! bits of the last symbol zero (as every encoder writes them), and CR/LF line
//! breaks anywhere (MIME style). Anything else is invalid: spaces, other
//! characters, a length that leaves a single dangling symbol, `data:` prefixes.
//!
//! The SIMD engine of `base64-simd` checks and decodes (measured 3.5x faster
//! than the `base64` crate at decoding and 15x at validating, which needs no
//! output buffer), with whole blocks taken first by an AVX-512 VBMI or AVX2
//! kernel of our own where the CPU has one (`engine`); input with line breaks is gathered into
//! fixed-size chunks, so no step holds a second full-size copy.

use std::fmt;
use std::io::{self, Write};

use base64_simd::STANDARD;

// The one module of the core with unsafe code: the AVX-512 and AVX2
// kernels, their blocks each with the reason it is sound, their answers
// compared to base64-simd's in their tests and the base64 fuzz target.
#[allow(unsafe_code)]
mod engine;
use engine::Engine;

/// Base64 symbols handled per chunk (a multiple of 4): 256 KiB of input.
const CHUNK_SYMBOLS: usize = 256 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alphabet {
    Standard,
    UrlSafe,
}

impl Alphabet {
    /// The engine for a run of symbols (see [`Engine::for_symbols`]).
    fn engine(self, symbols: &[u8]) -> Engine {
        Engine::for_symbols(self, symbols)
    }

    const fn symbols_62_63(self) -> (u8, u8) {
        match self {
            Alphabet::Standard => (b'+', b'/'),
            Alphabet::UrlSafe => (b'-', b'_'),
        }
    }
}

/// What a validated base64 string holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base64Info {
    pub alphabet: Alphabet,
    pub has_line_breaks: bool,
    /// Length of the decoded bytes.
    pub decoded_len: usize,
    /// Standard alphabet, padded, no line breaks: the string can be sent on
    /// as it is.
    pub canonical: bool,
}

/// Why a string is not accepted base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base64Error {
    pub message: String,
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Base64Error {}

fn invalid(message: impl Into<String>) -> Base64Error {
    Base64Error {
        message: message.into(),
    }
}

/// A base64 string checked by [`inspect`], ready to be decoded in whole or in part.
#[derive(Debug, Clone, Copy)]
pub struct Base64<'a> {
    input: &'a [u8],
    pub info: Base64Info,
    /// Set when every line but the last has the same length: MIME, PEM and
    /// most encoders' wrapped output. Lines are then gathered from where
    /// the layout puts them, with no search for line breaks (memchr stops
    /// at every break: 1.1 million times for 32 MiB of MIME lines).
    lines: Option<Lines>,
}

/// Equal lines of `len` symbols (a multiple of 4), each followed by a
/// separator of `sep` bytes (`\n` or `\r\n`); the last line may be shorter
/// and may or may not end with the separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lines {
    len: usize,
    sep: &'static [u8],
}

impl Lines {
    /// The layout of `input`, when it is that regular and every line passes
    /// the engine's check for `alphabet`. Line breaks inside a line are not
    /// looked for: they are not symbols, so that check refuses them (and
    /// the caller falls back to finding every break).
    ///
    /// Padding is accepted only at the end: the engine takes it at the end
    /// of any chunk, so a chunk after one that ends in `=` is refused too.
    fn of_valid(input: &[u8], alphabet: Alphabet) -> Option<Lines> {
        let lines = Lines::of(input)?;
        let mut padded = false;
        let valid = gather_chunks(lines.iter(input), &mut |symbols| {
            if padded {
                return Err(());
            }
            padded = symbols.last() == Some(&b'=');
            alphabet.engine(symbols).check(symbols).map_err(|_| ())
        });
        valid.is_ok().then_some(lines)
    }

    fn of(input: &[u8]) -> Option<Lines> {
        let len = memchr::memchr2(b'\r', b'\n', input)?;
        let sep: &'static [u8] = if input[len..].starts_with(b"\r\n") {
            b"\r\n"
        } else if input[len] == b'\n' {
            b"\n"
        } else {
            return None;
        };
        if len == 0 || !len.is_multiple_of(4) {
            return None;
        }
        let lines = Lines { len, sep };
        let stride = len + sep.len();
        let mut at = 0;
        while input.len() - at > stride {
            if &input[at + len..at + stride] != sep {
                return None;
            }
            at += stride;
        }
        // The last line: at most `len` symbols, then nothing or one separator.
        let last = &input[at..];
        let last = last.strip_suffix(sep).unwrap_or(last);
        let clean = memchr::memchr2(b'\r', b'\n', last).is_none();
        (clean && last.len() <= len).then_some(lines)
    }

    /// The symbols of each line, in order (the last may be empty).
    fn iter(self, input: &[u8]) -> impl Iterator<Item = &[u8]> {
        input
            .chunks(self.len + self.sep.len())
            .map(move |line| line.strip_suffix(self.sep).unwrap_or(line))
    }

    /// Line-break bytes in `input`, counted from the layout.
    fn count_breaks(self, input: &[u8]) -> usize {
        let stride = self.len + self.sep.len();
        let full = input.len() / stride;
        let rest = &input[full * stride..];
        let trailing = !rest.is_empty() && rest.ends_with(self.sep);
        (full + usize::from(trailing)) * self.sep.len()
    }

    /// Symbols `from..to` (or to the end, when shorter) appended to `out`,
    /// line breaks left out.
    fn gather(self, input: &[u8], from: usize, to: usize, out: &mut Vec<u8>) {
        let stride = self.len + self.sep.len();
        let mut index = from;
        while index < to {
            let line_start = index / self.len * stride;
            let at = line_start + index % self.len;
            let line_end = (line_start + self.len).min(input.len());
            let Some(line) = input.get(at..line_end) else {
                return;
            };
            // The last line may be short and end with its separator.
            let line = line
                .split(|&b| b == b'\r' || b == b'\n')
                .next()
                .unwrap_or(line);
            let take = line.len().min(to - index);
            out.extend_from_slice(&line[..take]);
            if take < self.len - index % self.len {
                return; // the end of the symbols
            }
            index += take;
        }
    }

    /// The symbols from symbol `index` to the end, gathered (line breaks
    /// left out).
    fn symbols_from(self, input: &[u8], index: usize) -> Vec<u8> {
        let stride = self.len + self.sep.len();
        let first_line = (index / self.len) * stride;
        let skip = index % self.len;
        let mut symbols = Vec::new();
        for (i, line) in self.iter(&input[first_line..]).enumerate() {
            symbols.extend_from_slice(if i == 0 {
                &line[skip.min(line.len())..]
            } else {
                line
            });
        }
        symbols
    }
}

/// Validate `input` completely and describe it, without decoding it.
pub fn inspect(input: &[u8]) -> Result<Base64<'_>, Base64Error> {
    // The common form (standard alphabet, whole groups, one line) needs a
    // single pass: the engine's check alone.
    if input.len().is_multiple_of(4) && Alphabet::Standard.engine(input).check(input).is_ok() {
        return Ok(Base64::canonical(input));
    }
    let has_line_breaks = memchr::memchr2(b'\r', b'\n', input).is_some();
    // MIME's form, equal lines of the standard alphabet, is settled by the
    // check of its lines alone: no scan for the other alphabet, nor for
    // padding inside the data.
    let standard_lines = has_line_breaks
        .then(|| Lines::of_valid(input, Alphabet::Standard))
        .flatten();
    let url_safe = standard_lines.is_none() && memchr::memchr2(b'-', b'_', input).is_some();
    if url_safe && memchr::memchr2(b'+', b'/', input).is_some() {
        return Err(invalid(
            "mixes the standard (+/) and url-safe (-_) alphabets",
        ));
    }
    let alphabet = if url_safe {
        Alphabet::UrlSafe
    } else {
        Alphabet::Standard
    };

    let lines = match standard_lines {
        Some(lines) => Some(lines),
        None if has_line_breaks && url_safe => Lines::of_valid(input, alphabet),
        None => None,
    };
    let breaks = match lines {
        Some(lines) => lines.count_breaks(input),
        None => count_line_breaks(input, has_line_breaks),
    };
    let symbols = input.len() - breaks;
    let padding = trailing_padding(input);
    let data_symbols = symbols.saturating_sub(padding);
    let shape_error = if padding > 2 {
        Some(invalid("more than two padding characters"))
    } else if data_symbols % 4 == 1 {
        Some(invalid(format!(
            "length {symbols} leaves a single dangling symbol"
        )))
    } else if padding > 0 && !symbols.is_multiple_of(4) {
        Some(invalid("padding does not complete a 4-character group"))
    } else {
        None
    };
    if let Some(error) = shape_error {
        // A stray character (a space) is the likelier cause: name it first.
        return Err(first_foreign_symbol(input, alphabet).unwrap_or(error));
    }
    // Chunks are checked one by one below, and a chunk may end in valid
    // padding: every '=' must belong to the trailing padding (for equal
    // lines, checked with them).
    if lines.is_none() && memchr::memchr_iter(b'=', input).count() != padding {
        return Err(describe_failure(input, alphabet, padding));
    }
    let decoded_len = data_symbols / 4 * 3 + (data_symbols % 4).saturating_sub(1);

    let base64 = Base64 {
        input,
        info: Base64Info {
            alphabet,
            has_line_breaks,
            decoded_len,
            canonical: alphabet == Alphabet::Standard
                && !has_line_breaks
                && symbols.is_multiple_of(4),
        },
        lines,
    };
    base64.check()?;
    Ok(base64)
}

/// [`inspect`], with the bytes decoded in the same pass when the string is
/// in the common form (one line, standard alphabet, whole groups) and
/// decodes to at most `decode_up_to` bytes: the decode checks every symbol
/// as it goes, so a check before it would read the string twice. `None`
/// when not decoded; the verdict and `info` are `inspect`'s either way.
pub fn inspect_decoding(
    input: &[u8],
    decode_up_to: usize,
) -> Result<(Base64<'_>, Option<Vec<u8>>), Base64Error> {
    if input.len().is_multiple_of(4) && input.len() / 4 * 3 <= decode_up_to {
        if let Ok(bytes) = Alphabet::Standard.engine(input).decode_to_vec(input) {
            return Ok((Base64::canonical(input), Some(bytes)));
        }
    }
    inspect(input).map(|b64| (b64, None))
}

/// The first byte that is neither a symbol of `alphabet`, `=`, nor a line
/// break, with its position among the symbols (line breaks not counted).
fn first_foreign_symbol(input: &[u8], alphabet: Alphabet) -> Option<Base64Error> {
    let allowed = allowed_bytes(alphabet);
    let index = input.iter().position(|&b| !allowed[usize::from(b)])?;
    let line_breaks = memchr::memchr2_iter(b'\r', b'\n', &input[..index]).count();
    Some(describe_byte(input[index], index - line_breaks))
}

/// Which bytes may appear in input of `alphabet`: its symbols, `=`, CR, LF.
fn allowed_bytes(alphabet: Alphabet) -> [bool; 256] {
    let mut allowed = [false; 256];
    let (c62, c63) = alphabet.symbols_62_63();
    for b in (b'A'..=b'Z').chain(b'a'..=b'z').chain(b'0'..=b'9') {
        allowed[usize::from(b)] = true;
    }
    for b in [c62, c63, b'=', b'\r', b'\n'] {
        allowed[usize::from(b)] = true;
    }
    allowed
}

/// Why input of the right shape failed the engine's check (error path only).
fn describe_failure(input: &[u8], alphabet: Alphabet, padding: usize) -> Base64Error {
    if let Some(error) = first_foreign_symbol(input, alphabet) {
        return error;
    }
    let symbols: Vec<u8> = input
        .iter()
        .copied()
        .filter(|&b| b != b'\r' && b != b'\n')
        .collect();
    let data = &symbols[..symbols.len() - padding];
    if let Some(position) = memchr::memchr(b'=', data) {
        return invalid(format!("padding '=' inside the data at symbol {position}"));
    }
    invalid("the last symbol has non-zero unused bits (not canonical base64)")
}

fn describe_byte(byte: u8, position: usize) -> Base64Error {
    if byte == b'=' {
        invalid(format!("padding '=' inside the data at symbol {position}"))
    } else if byte == b' ' || byte == b'\t' {
        let name = if byte == b' ' { "space" } else { "tab" };
        invalid(format!("unexpected {name} at symbol {position}"))
    } else if byte.is_ascii_graphic() {
        // Escaped as every server string in a note is: a `]` or `(` in a
        // note's reason must not look like the note's own structure.
        let shown = (byte as char).to_string();
        invalid(format!(
            "unexpected character '{}' at symbol {position}",
            crate::note::server(&shown)
        ))
    } else if !byte.is_ascii() {
        invalid(format!("non-ASCII character at symbol {position}"))
    } else {
        invalid(format!("unexpected byte 0x{byte:02x} at symbol {position}"))
    }
}

fn count_line_breaks(input: &[u8], has_line_breaks: bool) -> usize {
    if has_line_breaks {
        memchr::memchr2_iter(b'\r', b'\n', input).count()
    } else {
        0
    }
}

/// Number of `=` at the end, line breaks between them ignored.
fn trailing_padding(input: &[u8]) -> usize {
    input
        .iter()
        .rev()
        .filter(|&&b| b != b'\r' && b != b'\n')
        .take_while(|&&b| b == b'=')
        .count()
}

impl<'a> Base64<'a> {
    /// The string exactly as given.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.input
    }

    /// `input` in the common form, which the engine accepted whole.
    fn canonical(input: &'a [u8]) -> Self {
        let padding = input.iter().rev().take_while(|&&b| b == b'=').count();
        Base64 {
            input,
            info: Base64Info {
                alphabet: Alphabet::Standard,
                has_line_breaks: false,
                decoded_len: input.len() / 4 * 3 - padding,
                canonical: true,
            },
            lines: None,
        }
    }

    /// Run the engine's validation over every symbol.
    fn check(&self) -> Result<(), Base64Error> {
        let alphabet = self.info.alphabet;
        let valid = if self.lines.is_some() {
            true // every line checked when the layout was found
        } else if self.info.has_line_breaks {
            self.for_each_symbol_chunk(&mut |symbols| {
                alphabet.engine(symbols).check(symbols).map_err(|_| ())
            })
            .is_ok()
        } else {
            alphabet.engine(self.input).check(self.input).is_ok()
        };
        if valid {
            return Ok(());
        }
        Err(describe_failure(
            self.input,
            alphabet,
            trailing_padding(self.input),
        ))
    }

    /// Decode everything into memory.
    pub fn decode(&self) -> Vec<u8> {
        self.decode_after(&[])
    }

    /// Everything decoded into memory, given its first `head.len()` bytes
    /// decoded already: one line is decoded from the head's last whole
    /// group on, straight into the result; lines are decoded a chunk of
    /// symbols at a time, head and all. Valid by `inspect`; should a decode
    /// fail, what came before it is returned rather than wrong bytes.
    pub fn decode_after(&self, head: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.info.decoded_len);
        let alphabet = self.info.alphabet;
        if self.info.has_line_breaks {
            let _ = self.for_each_symbol_chunk(&mut |symbols| {
                alphabet.engine(symbols).decode_append(symbols, &mut out)
            });
            return out;
        }
        let kept = head.len().min(self.info.decoded_len) / 3 * 3;
        out.extend_from_slice(&head[..kept]);
        if let Some(rest) = self.input.get(kept / 3 * 4..) {
            let _ = alphabet.engine(rest).decode_append(rest, &mut out);
        }
        out
    }

    /// Decode into `writer` chunk by chunk; returns the bytes written.
    pub fn decode_to(&self, writer: &mut dyn Write) -> io::Result<u64> {
        let mut written = 0u64;
        self.for_each_decoded_chunk(&mut |bytes| {
            writer.write_all(bytes)?;
            written += bytes.len() as u64;
            Ok(())
        })?;
        Ok(written)
    }

    /// The first `max_len` decoded bytes (all of them when shorter).
    pub fn decode_head(&self, max_len: usize) -> Vec<u8> {
        if self.info.has_line_breaks {
            // Chunk by chunk, stopping once there is enough.
            let mut bytes = Vec::with_capacity(max_len.min(self.info.decoded_len));
            let _ = self.for_each_decoded_chunk(&mut |chunk| {
                let take = (max_len - bytes.len()).min(chunk.len());
                bytes.extend_from_slice(&chunk[..take]);
                if bytes.len() < max_len {
                    Ok(())
                } else {
                    Err(io::Error::other("enough"))
                }
            });
            return bytes;
        }
        let end = (max_len.div_ceil(3) * 4).min(self.input.len());
        let mut bytes = self.decode_symbols(&self.input[..end]);
        bytes.truncate(max_len);
        bytes
    }

    /// The last `max_len` decoded bytes (all of them when shorter).
    pub fn decode_tail(&self, max_len: usize) -> Vec<u8> {
        if max_len >= self.info.decoded_len {
            let bytes = self.decode();
            let start = bytes.len().saturating_sub(max_len);
            return bytes[start..].to_vec();
        }
        if self.info.has_line_breaks {
            return self.decode_tail_of_lines(max_len);
        }
        // Start on a group boundary so the slice decodes on its own.
        let groups = max_len.div_ceil(3) + 1;
        let start = (self.input.len() / 4).saturating_sub(groups) * 4;
        let bytes = self.decode_symbols(&self.input[start..]);
        let skip = bytes.len().saturating_sub(max_len);
        bytes[skip..].to_vec()
    }

    /// `decode_tail` for line-broken input: the last whole groups of
    /// symbols are gathered from the end, line breaks left out, and decoded
    /// alone; the rest of the string is only counted.
    fn decode_tail_of_lines(&self, max_len: usize) -> Vec<u8> {
        let breaks = match self.lines {
            Some(lines) => lines.count_breaks(self.input),
            None => memchr::memchr2_iter(b'\r', b'\n', self.input).count(),
        };
        let symbols = self.input.len() - breaks;
        // Start on a group boundary so the symbols decode on their own.
        let wanted = (max_len.div_ceil(3) + 1) * 4;
        let start = symbols.saturating_sub(wanted) / 4 * 4;
        if let Some(lines) = self.lines {
            let bytes = self.decode_symbols(&lines.symbols_from(self.input, start));
            let skip = bytes.len().saturating_sub(max_len);
            return bytes[skip..].to_vec();
        }
        let mut tail: Vec<u8> = self
            .input
            .iter()
            .rev()
            .filter(|&&b| b != b'\r' && b != b'\n')
            .take(symbols - start)
            .copied()
            .collect();
        tail.reverse();
        let bytes = self.decode_symbols(&tail);
        let skip = bytes.len().saturating_sub(max_len);
        bytes[skip..].to_vec()
    }

    /// Whether `decode_range_into` can decode any part alone (see there).
    pub fn decodes_in_place(&self) -> bool {
        !self.info.has_line_breaks || self.lines.is_some()
    }

    /// Decoded bytes `start..start + out.len()` written to `out`, decoding
    /// only the groups of symbols that hold them, when the layout tells
    /// where each symbol is: one line, or equal lines (whose length is a
    /// whole number of groups, so no group straddles a break). Whole groups
    /// are decoded straight into `out`, the partial ones at its two ends
    /// through three bytes on the stack; `gathered` holds the symbols of
    /// equal lines with their breaks left out, its capacity kept for the
    /// next call. A checker reads a large image this way a block at a time,
    /// so nothing here allocates per call. `false` for irregular line
    /// breaks, or a range past the end.
    pub fn decode_range_into(&self, start: usize, out: &mut [u8], gathered: &mut Vec<u8>) -> bool {
        let Some(end) = start.checked_add(out.len()) else {
            return false;
        };
        if end > self.info.decoded_len || !self.decodes_in_place() {
            return false;
        }
        if out.is_empty() {
            return true;
        }
        // Byte `base` is the first of the group symbol `first_symbol` starts.
        let base = start / 3 * 3;
        let first_symbol = base / 3 * 4;
        let symbols_end = end.div_ceil(3) * 4;
        // Slices are taken with `get`: the layout `inspect` found makes
        // them all in bounds, and should it not, the read fails.
        let symbols: &[u8] = match self.lines {
            None => match self
                .input
                .get(first_symbol..symbols_end.min(self.input.len()))
            {
                Some(symbols) => symbols,
                None => return false,
            },
            Some(lines) => {
                gathered.clear();
                lines.gather(self.input, first_symbol, symbols_end, gathered);
                gathered
            }
        };
        // The whole groups inside the range: bytes `whole_start..whole_end`.
        let whole_start = start.next_multiple_of(3);
        let whole_end = end / 3 * 3;
        if whole_start > whole_end {
            // The range is inside one group.
            return self.decode_group(symbols, start - base, out);
        }
        let (lead, rest) = out.split_at_mut(whole_start - start);
        let (middle, trail) = rest.split_at_mut(whole_end - whole_start);
        let group_symbols = |byte: usize| (byte - base) / 3 * 4;
        let (Some(middle_symbols), Some(trail_symbols)) = (
            symbols.get(group_symbols(whole_start)..group_symbols(whole_end)),
            symbols.get(group_symbols(whole_end)..),
        ) else {
            return false;
        };
        (lead.is_empty() || self.decode_group(symbols, start - base, lead))
            && self.decode_whole_groups(middle_symbols, middle)
            && (trail.is_empty() || self.decode_group(trail_symbols, 0, trail))
    }

    /// Bytes `skip..skip + out.len()` of the group the first (up to) four
    /// `symbols` make, written to `out`.
    fn decode_group(&self, symbols: &[u8], skip: usize, out: &mut [u8]) -> bool {
        let group = &symbols[..symbols.len().min(4)];
        let engine = self.info.alphabet.engine(group);
        let mut bytes = [0u8; 3];
        let decoded = match engine.decoded_length(group) {
            Ok(len) if len <= 3 => engine.decode(group, &mut bytes[..len]),
            _ => return false,
        };
        match decoded
            .ok()
            .and_then(|bytes| bytes.get(skip..skip + out.len()))
        {
            Some(wanted) => {
                out.copy_from_slice(wanted);
                true
            }
            None => false,
        }
    }

    /// Whole groups of `symbols` (no padding among them) decoded into
    /// `out`, three bytes a group.
    fn decode_whole_groups(&self, symbols: &[u8], out: &mut [u8]) -> bool {
        if symbols.len() / 4 * 3 != out.len() || !symbols.len().is_multiple_of(4) {
            return false;
        }
        let engine = self.info.alphabet.engine(symbols);
        // Valid by `inspect`; should it fail, the read fails rather than
        // give wrong bytes.
        let want = out.len();
        engine
            .decode(symbols, out)
            .is_ok_and(|bytes| bytes.len() == want)
    }

    fn decode_symbols(&self, symbols: &[u8]) -> Vec<u8> {
        // Valid by `inspect`; should it fail, yield nothing rather than
        // wrong bytes.
        let engine = self.info.alphabet.engine(symbols);
        engine.decode_to_vec(symbols).unwrap_or_default()
    }

    /// Decode chunk by chunk through one scratch buffer and hand each
    /// decoded chunk to `sink`.
    fn for_each_decoded_chunk(
        &self,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let alphabet = self.info.alphabet;
        let mut out = vec![0u8; CHUNK_SYMBOLS / 4 * 3];
        let mut decode = |symbols: &[u8]| -> io::Result<()> {
            let decoded = alphabet
                .engine(symbols)
                .decode(symbols, &mut out)
                .map_err(|_| io::Error::other("base64 changed after validation"))?;
            sink(decoded)
        };
        if self.info.has_line_breaks {
            return self.for_each_symbol_chunk(&mut decode);
        }
        self.input.chunks(CHUNK_SYMBOLS).try_for_each(decode)
    }

    /// Hand the symbols, line breaks removed, to `step` in chunks of
    /// [`CHUNK_SYMBOLS`] (the last one shorter).
    fn for_each_symbol_chunk<E>(
        &self,
        step: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if let Some(lines) = self.lines {
            return gather_chunks(lines.iter(self.input), step);
        }
        // Line breaks found with memchr (SIMD), the lines between copied whole.
        let mut start = 0;
        let segments = memchr::memchr2_iter(b'\r', b'\n', self.input)
            .chain([self.input.len()])
            .map(|end| {
                let segment = &self.input[start..end];
                start = end + 1;
                segment
            });
        gather_chunks(segments, step)
    }
}

/// Copy `segments` one after the other into chunks of [`CHUNK_SYMBOLS`]
/// (the last one shorter) and hand each to `step`.
fn gather_chunks<'s, E>(
    segments: impl Iterator<Item = &'s [u8]>,
    step: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let mut pending = Vec::with_capacity(CHUNK_SYMBOLS);
    for mut rest in segments {
        while !rest.is_empty() {
            let take = (CHUNK_SYMBOLS - pending.len()).min(rest.len());
            pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if pending.len() == CHUNK_SYMBOLS {
                step(&pending)?;
                pending.clear();
            }
        }
    }
    if pending.is_empty() {
        return Ok(());
    }
    step(&pending)
}

/// Canonical base64 (standard alphabet, padded) of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode_to_string(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_str(s: &str) -> Result<Vec<u8>, Base64Error> {
        inspect(s.as_bytes()).map(|b| b.decode())
    }

    /// `encoded` wrapped in lines of `len` symbols joined by `sep`.
    fn wrap(encoded: &str, len: usize, sep: &str, trailing: bool) -> String {
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(len)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let mut out = lines.join(sep);
        if trailing {
            out.push_str(sep);
        }
        out
    }

    #[test]
    fn equal_lines_are_read_in_place_and_decode_as_the_general_path() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for n in [0, 1, 2, 3, 56, 57, 58, 1000, 200_000] {
            let data = &bytes[..n];
            for encoded in [encode(data), encode(data).trim_end_matches('=').to_string()] {
                for (len, sep) in [(76, "\r\n"), (64, "\n"), (4, "\n"), (100_000, "\r\n")] {
                    for trailing in [false, true] {
                        let wrapped = wrap(&encoded, len, sep, trailing);
                        let b64 = inspect(wrapped.as_bytes()).unwrap();
                        let first = encoded.len().min(len);
                        let regular = wrapped.contains(sep) && first > 0 && first % 4 == 0;
                        assert_eq!(b64.lines.is_some(), regular, "{n} {len} {sep:?} {trailing}");
                        assert_eq!(b64.decode(), data, "{n} {len} {sep:?} {trailing}");
                        assert_eq!(b64.info.decoded_len, n);
                        let mut general = b64;
                        general.lines = None;
                        for max in [0, 1, 5, 1024] {
                            assert_eq!(b64.decode_head(max), general.decode_head(max));
                            assert_eq!(b64.decode_tail(max), general.decode_tail(max));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_range_decodes_alone_in_one_line_and_equal_lines_only() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 13 % 256) as u8).collect();
        for n in [0, 1, 2, 3, 4, 5, 100, 301] {
            let data = &bytes[..n];
            let padded = encode(data);
            let unpadded = padded.trim_end_matches('=').to_string();
            let mut forms = vec![padded.clone(), unpadded.clone()];
            for encoded in [&padded, &unpadded] {
                for (len, sep) in [(76, "\r\n"), (4, "\n"), (8, "\n")] {
                    forms.push(wrap(encoded, len, sep, false));
                    forms.push(wrap(encoded, len, sep, true));
                }
            }
            for form in &forms {
                let b64 = inspect(form.as_bytes()).unwrap();
                if b64.info.has_line_breaks && b64.lines.is_none() {
                    // A first line that is not whole groups ("AA\r\n").
                    assert_eq!(decode_range(&b64, 0, 0), None, "{form:?}");
                    continue;
                }
                for start in 0..=n.min(12) {
                    for end in start..=n {
                        let want = &data[start..end];
                        let got = decode_range(&b64, start, end);
                        assert_eq!(got.as_deref(), Some(want), "{form:?} {start}..{end}");
                        let (start, end) = (n - end, n - start);
                        let got = decode_range(&b64, start, end);
                        assert_eq!(got.as_deref(), Some(&data[start..end]), "{form:?}");
                    }
                }
                assert_eq!(decode_range(&b64, 0, n + 1), None);
            }
        }
        let irregular = format!("{}\n{}", &padded_of(300)[..6], &padded_of(300)[6..]);
        assert_eq!(
            decode_range(&inspect(irregular.as_bytes()).unwrap(), 0, 1),
            None
        );
    }

    #[test]
    fn decoding_after_a_decoded_head_gives_every_byte() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 29 % 256) as u8).collect();
        for n in [0, 1, 2, 3, 4, 5, 100, 301, 1000] {
            let data = &bytes[..n];
            let padded = encode(data);
            let unpadded = padded.trim_end_matches('=').to_string();
            let urlsafe = padded.replace('+', "-").replace('/', "_");
            let mut forms = vec![padded.clone(), unpadded, urlsafe];
            forms.push(wrap(&padded, 76, "\r\n", false));
            forms.push(wrap(&padded, 6, "\n", true));
            for form in &forms {
                let b64 = inspect(form.as_bytes()).unwrap();
                assert_eq!(b64.decode(), data, "{form:?}");
                for head_len in [0, 1, 2, 3, 4, 7, n / 2, n, n + 5] {
                    let head = b64.decode_head(head_len);
                    assert_eq!(b64.decode_after(&head), data, "{form:?} head {head_len}");
                }
            }
        }
    }

    /// `decode_range_into` into a new buffer, `None` when it refuses.
    fn decode_range(b64: &Base64, start: usize, end: usize) -> Option<Vec<u8>> {
        let mut out = vec![0; end.checked_sub(start)?];
        b64.decode_range_into(start, &mut out, &mut Vec::new())
            .then_some(out)
    }

    fn padded_of(n: usize) -> String {
        encode(&vec![5u8; n])
    }

    #[test]
    fn unequal_lines_take_the_general_path() {
        let encoded = encode(&[9u8; 300]);
        // A line break inside a line that the layout would call whole, a
        // lone CR, a short line in the middle, lines not of whole groups.
        let inner = format!("{}\n{}\n{}", &encoded[..4], &encoded[4..6], &encoded[6..]);
        let cr = format!("{}\r{}", &encoded[..8], &encoded[8..]);
        let short = format!("{}\n{}\n{}", &encoded[..8], &encoded[8..12], &encoded[12..]);
        let odd = wrap(&encoded, 6, "\n", true);
        for input in [inner, cr, short, odd] {
            let b64 = inspect(input.as_bytes()).unwrap();
            assert_eq!(b64.lines, None, "{input:?}");
            assert_eq!(b64.decode(), vec![9u8; 300]);
        }
        // Padding inside the data is still refused line by line.
        let glued = format!("{}\n{}", encode(b"ab"), encode(b"cd"));
        assert!(inspect(glued.as_bytes()).is_err());
    }

    #[test]
    fn accepts_documented_forms() {
        assert_eq!(decode_str("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_str("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode_str("aGVs\r\nbG8=").unwrap(), b"hello");
        assert_eq!(decode_str("aGVs\nbG8=\n").unwrap(), b"hello");
        assert_eq!(decode_str("aGVs\rbG8=\r").unwrap(), b"hello");
        assert_eq!(decode_str("-_-_").unwrap(), vec![0xfb, 0xff, 0xbf]);
        assert_eq!(decode_str("").unwrap(), b"");
    }

    #[test]
    fn rejects_everything_else() {
        for bad in [
            "aGVs bG8=",
            "aGVsbG8==",
            "aGVsbG8===",
            "aGVsb",
            "a=GVsbG8",
            "data:image/png;base64,aGVsbG8=",
            "+/-_",
            "aGVs\tbG8=",
            "aGV\u{e9}",
            // "QR==" would decode like "QQ==" but its unused bits are set.
            "QR==",
        ] {
            assert!(inspect(bad.as_bytes()).is_err(), "{bad:?} was accepted");
        }
    }

    /// `inspect_decoding` gives `inspect`'s verdict, info and error, and
    /// the bytes `decode` gives, decoded or not.
    fn agrees_with_inspect(input: &[u8], decode_up_to: usize) {
        match (inspect(input), inspect_decoding(input, decode_up_to)) {
            (Ok(b64), Ok((fused, decoded))) => {
                assert_eq!(b64.info, fused.info, "{input:?}");
                if let Some(bytes) = decoded {
                    assert_eq!(bytes, b64.decode(), "{input:?}");
                }
            }
            (Err(error), Err(fused)) => assert_eq!(error, fused, "{input:?}"),
            (a, b) => panic!(
                "{input:?}: inspect {:?}, inspect_decoding {:?}",
                a.is_ok(),
                b.is_ok()
            ),
        }
    }

    #[test]
    fn decoding_while_inspecting_changes_no_verdict() {
        let documented = [
            "aGVsbG8=",
            "aGVsbG8",
            "aGVs\r\nbG8=",
            "aGVs\nbG8=\n",
            "-_-_",
            "",
            "QQ==",
        ];
        let refused = [
            "aGVs bG8=",
            "aGVsbG8==",
            "aGVsbG8===",
            "aGVsb",
            "a=GVsbG8",
            "+/-_",
            "aGVs\tbG8=",
            "aGV\u{e9}",
            "QR==",
            "aGVs!G8=",
            "aGVs]G8=",
            "====",
        ];
        for input in documented.iter().chain(&refused) {
            for up_to in [0, 4, usize::MAX] {
                agrees_with_inspect(input.as_bytes(), up_to);
            }
        }
        // Long enough for the engine's 64-symbol blocks, with a bad byte at
        // every place of the last blocks and at the start.
        let data: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        let encoded = encode(&data).into_bytes();
        agrees_with_inspect(&encoded, usize::MAX);
        for at in (0..8).chain(encoded.len() - 200..encoded.len()) {
            for bad in [b'!', b'=', b'-', b'\n', 0x80] {
                let mut damaged = encoded.clone();
                damaged[at] = bad;
                agrees_with_inspect(&damaged, usize::MAX);
            }
        }
        // Over the bound: not decoded, the same verdict.
        let (b64, decoded) = inspect_decoding(&encoded, data.len() - 1).unwrap();
        assert!(decoded.is_none());
        assert_eq!(b64.info, inspect(&encoded).unwrap().info);
    }

    #[test]
    fn error_names_the_character_and_position() {
        let error = inspect(b"aGVs!G8=").unwrap_err();
        assert_eq!(error.message, "unexpected character '!' at symbol 4");
        // A bracket is escaped as in every note, so it cannot close one.
        let error = inspect(b"aGVs]G8=").unwrap_err();
        assert_eq!(error.message, "unexpected character '%5D' at symbol 4");
    }

    #[test]
    fn padding_at_a_chunk_boundary_inside_line_broken_input_is_invalid() {
        // Two encodings glued together, the first ending in "==" exactly at
        // the end of a 64 KiB chunk: each chunk alone would be valid.
        let mut first = encode(&vec![0u8; CHUNK_SYMBOLS / 4 * 3 - 2]).into_bytes();
        assert!(first.ends_with(b"=="));
        first.extend_from_slice(b"\r\nQUJD\r\n");
        let error = inspect(&first).unwrap_err();
        assert_eq!(
            error.message,
            format!(
                "padding '=' inside the data at symbol {}",
                CHUNK_SYMBOLS - 2
            )
        );
    }

    #[test]
    fn a_stray_character_is_named_before_the_length() {
        let error = inspect(b"iVBO Rw0K").unwrap_err();
        assert_eq!(error.message, "unexpected space at symbol 4");
    }

    #[test]
    fn canonical_only_for_standard_padded_single_line() {
        assert!(inspect(b"aGVsbG8=").unwrap().info.canonical);
        assert!(!inspect(b"aGVsbG8").unwrap().info.canonical);
        assert!(!inspect(b"aGVs\nbG8=").unwrap().info.canonical);
        assert!(!inspect(b"-_-_").unwrap().info.canonical);
        assert!(inspect(b"QQ==").unwrap().info.canonical);
    }

    #[test]
    fn decoded_len_matches_decoding() {
        let data: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
        for len in [0, 1, 2, 3, 4, 5, 100, 196_607, 196_608, 196_609, 300_000] {
            let encoded = encode(&data[..len]);
            let b64 = inspect(encoded.as_bytes()).unwrap();
            assert_eq!(b64.info.decoded_len, len);
            assert_eq!(b64.decode(), &data[..len]);
            let unpadded = encoded.trim_end_matches('=');
            assert_eq!(inspect(unpadded.as_bytes()).unwrap().info.decoded_len, len);
        }
    }

    #[test]
    fn head_and_tail_match_full_decode() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let encoded = encode(&data);
        let wrapped: String = encoded
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join("\r\n");
        for input in [
            encoded.as_str(),
            wrapped.as_str(),
            encoded.trim_end_matches('='),
        ] {
            let b64 = inspect(input.as_bytes()).unwrap();
            for n in [0, 1, 2, 3, 1000, 65_536, 199_999, 200_000, 300_000] {
                let n_clamped = n.min(data.len());
                assert_eq!(b64.decode_head(n), &data[..n_clamped]);
                assert_eq!(b64.decode_tail(n), &data[data.len() - n_clamped..]);
            }
        }
    }

    #[test]
    fn streams_large_input_in_chunks() {
        let data: Vec<u8> = (0..1_000_003u32).map(|i| (i % 253) as u8).collect();
        let encoded = encode(&data);
        let b64 = inspect(encoded.as_bytes()).unwrap();
        let mut out = Vec::new();
        assert_eq!(b64.decode_to(&mut out).unwrap(), data.len() as u64);
        assert_eq!(out, data);
    }

    #[test]
    fn invalid_byte_in_a_later_chunk_is_found() {
        let mut encoded = encode(&vec![7u8; 200_000]).into_bytes();
        encoded[150_000] = b'*';
        let error = inspect(&encoded).unwrap_err();
        assert_eq!(error.message, "unexpected character '*' at symbol 150000");
    }

    #[test]
    fn line_broken_head_and_tail_match_the_whole() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 253) as u8).collect();
        let one_line = encode(&bytes);
        // MIME lines of 76 symbols, and lines of an odd 61, each ended by CRLF.
        for width in [76usize, 61] {
            let wrapped: Vec<u8> = one_line
                .as_bytes()
                .chunks(width)
                .flat_map(|line| line.iter().copied().chain(*b"\r\n"))
                .collect();
            let b64 = inspect(&wrapped).unwrap();
            assert!(b64.info.has_line_breaks);
            for n in [0, 1, 2, 3, 1000, 65_536] {
                assert_eq!(b64.decode_head(n), &bytes[..n], "head {n}, width {width}");
                assert_eq!(
                    b64.decode_tail(n),
                    &bytes[bytes.len() - n..],
                    "tail {n}, width {width}"
                );
            }
        }
    }
}
