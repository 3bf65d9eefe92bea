//! Base64 as MCP servers send it: validation, decoded length, partial and
//! streamed decoding, canonical encoding.
//!
//! Accepted forms: the standard (`+/`) or the url-safe (`-_`) alphabet (one of
//! them, not both), padding optional but correct when present, and CR/LF line
//! breaks anywhere (MIME style). Anything else is invalid: spaces, other
//! characters, a length that leaves a single dangling symbol, `data:` prefixes.
//!
//! Validation decodes in fixed-size chunks into a scratch buffer, so checking
//! a 32 MB string allocates no 24 MB output.

use std::fmt;
use std::io::{self, Write};

use ::base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use ::base64::engine::{DecodePaddingMode, Engine};
use ::base64::{alphabet, DecodeError, DecodeSliceError};

/// Base64 symbols decoded per chunk (a multiple of 4): 64 KiB of input.
const CHUNK_SYMBOLS: usize = 64 * 1024;

const DECODE_CONFIG: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(true);
const STANDARD_DECODER: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, DECODE_CONFIG);
const URL_SAFE_DECODER: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, DECODE_CONFIG);
/// Canonical output: standard alphabet, padded.
const CANONICAL: GeneralPurpose = ::base64::engine::general_purpose::STANDARD;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alphabet {
    Standard,
    UrlSafe,
}

/// What a validated base64 string holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base64Info {
    pub alphabet: Alphabet,
    pub has_line_breaks: bool,
    /// Length of the decoded bytes.
    pub decoded_len: usize,
    /// Standard alphabet, padded, no line breaks, zero trailing bits: the
    /// string can be sent on as it is.
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
}

/// Validate `input` completely and describe it, without allocating the
/// decoded bytes.
pub fn inspect(input: &[u8]) -> Result<Base64<'_>, Base64Error> {
    let has_line_breaks = memchr::memchr2(b'\r', b'\n', input).is_some();
    let url_safe = memchr::memchr2(b'-', b'_', input).is_some();
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

    let symbols = input.len() - count_line_breaks(input, has_line_breaks);
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
    let decoded_len = data_symbols / 4 * 3 + (data_symbols % 4).saturating_sub(1);

    let base64 = Base64 {
        input,
        info: Base64Info {
            alphabet,
            has_line_breaks,
            decoded_len,
            canonical: false,
        },
    };
    // Decoding into a scratch buffer is the validation.
    base64.for_each_chunk(&mut |_| Ok(()))?;

    let canonical = alphabet == Alphabet::Standard
        && !has_line_breaks
        && symbols.is_multiple_of(4)
        && trailing_bits_are_zero(&input[..input.len() - padding]);
    Ok(Base64 {
        info: Base64Info {
            canonical,
            ..base64.info
        },
        ..base64
    })
}

/// The first byte that is neither a symbol of `alphabet`, `=`, nor a line break.
fn first_foreign_symbol(input: &[u8], alphabet: Alphabet) -> Option<Base64Error> {
    let (c62, c63) = match alphabet {
        Alphabet::Standard => (b'+', b'/'),
        Alphabet::UrlSafe => (b'-', b'_'),
    };
    let mut position = 0;
    for &byte in input {
        match byte {
            b'\r' | b'\n' => continue,
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'=' => {}
            _ if byte == c62 || byte == c63 => {}
            _ => return Some(describe_byte(byte, position)),
        }
        position += 1;
    }
    None
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

/// The last symbol of a partial group may carry bits that decoding drops;
/// canonical base64 has them zero.
fn trailing_bits_are_zero(unpadded: &[u8]) -> bool {
    let Some(&last) = unpadded.last() else {
        return true;
    };
    let value = match last {
        b'A'..=b'Z' => last - b'A',
        b'a'..=b'z' => last - b'a' + 26,
        b'0'..=b'9' => last - b'0' + 52,
        b'+' | b'-' => 62,
        _ => 63,
    };
    match unpadded.len() % 4 {
        2 => value & 0x0f == 0,
        3 => value & 0x03 == 0,
        _ => true,
    }
}

impl<'a> Base64<'a> {
    /// The string exactly as given.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.input
    }

    fn decoder(&self) -> &'static GeneralPurpose {
        match self.info.alphabet {
            Alphabet::Standard => &STANDARD_DECODER,
            Alphabet::UrlSafe => &URL_SAFE_DECODER,
        }
    }

    /// Decode everything into memory.
    pub fn decode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.info.decoded_len);
        // Cannot fail: `inspect` already decoded this input once.
        let _ = self.for_each_chunk(&mut |bytes| {
            out.extend_from_slice(bytes);
            Ok(())
        });
        out
    }

    /// Decode into `writer` chunk by chunk; returns the bytes written.
    pub fn decode_to(&self, writer: &mut dyn Write) -> io::Result<u64> {
        let mut written = 0u64;
        let mut io_error = None;
        let _ = self.for_each_chunk(&mut |bytes| {
            writer.write_all(bytes).map_err(|e| {
                io_error = Some(e);
                invalid("write failed")
            })?;
            written += bytes.len() as u64;
            Ok(())
        });
        match io_error {
            Some(e) => Err(e),
            None => Ok(written),
        }
    }

    /// The first `max_len` decoded bytes (all of them when shorter).
    pub fn decode_head(&self, max_len: usize) -> Vec<u8> {
        if self.info.has_line_breaks {
            let mut bytes = self.decode();
            bytes.truncate(max_len);
            return bytes;
        }
        let groups = max_len.div_ceil(3);
        let end = (groups * 4).min(self.input.len());
        let mut bytes = self.decode_symbols(&self.input[..end]);
        bytes.truncate(max_len);
        bytes
    }

    /// The last `max_len` decoded bytes (all of them when shorter).
    pub fn decode_tail(&self, max_len: usize) -> Vec<u8> {
        if self.info.has_line_breaks || max_len >= self.info.decoded_len {
            let bytes = self.decode();
            let start = bytes.len().saturating_sub(max_len);
            return bytes[start..].to_vec();
        }
        // Start on a group boundary so the slice decodes on its own.
        let groups = max_len.div_ceil(3) + 1;
        let full_groups = self.input.len() / 4;
        let start = full_groups.saturating_sub(groups) * 4;
        let bytes = self.decode_symbols(&self.input[start..]);
        let skip = bytes.len().saturating_sub(max_len);
        bytes[skip..].to_vec()
    }

    fn decode_symbols(&self, symbols: &[u8]) -> Vec<u8> {
        // Valid by `inspect`; a failure here would be a bug, so yield nothing
        // rather than wrong bytes.
        self.decoder().decode(symbols).unwrap_or_default()
    }

    /// Decode the input in chunks of at most [`CHUNK_SYMBOLS`] symbols and
    /// hand each decoded chunk to `sink`.
    fn for_each_chunk(
        &self,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), Base64Error>,
    ) -> Result<(), Base64Error> {
        let decoder = self.decoder();
        let mut out = vec![0u8; CHUNK_SYMBOLS / 4 * 3];
        let mut decode = |symbols: &[u8], offset: usize| -> Result<(), Base64Error> {
            let written = decoder
                .decode_slice(symbols, &mut out)
                .map_err(|e| describe(e, symbols, offset))?;
            sink(&out[..written])
        };

        if !self.info.has_line_breaks {
            let mut offset = 0;
            for symbols in self.input.chunks(CHUNK_SYMBOLS) {
                decode(symbols, offset)?;
                offset += symbols.len();
            }
            return Ok(());
        }

        // Gather the symbols between line breaks into a chunk, then decode.
        let mut pending = Vec::with_capacity(CHUNK_SYMBOLS);
        let mut offset = 0;
        for segment in self.input.split(|&b| b == b'\r' || b == b'\n') {
            let mut rest = segment;
            while !rest.is_empty() {
                let take = (CHUNK_SYMBOLS - pending.len()).min(rest.len());
                pending.extend_from_slice(&rest[..take]);
                rest = &rest[take..];
                if pending.len() == CHUNK_SYMBOLS {
                    decode(&pending, offset)?;
                    offset += pending.len();
                    pending.clear();
                }
            }
        }
        if !pending.is_empty() {
            decode(&pending, offset)?;
        }
        Ok(())
    }
}

fn describe(error: DecodeSliceError, symbols: &[u8], offset: usize) -> Base64Error {
    match error {
        DecodeSliceError::DecodeError(DecodeError::InvalidByte(index, byte))
        | DecodeSliceError::DecodeError(DecodeError::InvalidLastSymbol {
            offset: index,
            symbol: byte,
            ..
        }) => describe_byte(byte, offset + index),
        DecodeSliceError::DecodeError(DecodeError::InvalidLength(_)) => invalid(format!(
            "invalid length near symbol {}",
            offset + symbols.len()
        )),
        DecodeSliceError::DecodeError(DecodeError::InvalidPadding) => invalid("invalid padding"),
        DecodeSliceError::OutputSliceTooSmall => invalid("internal decode buffer too small"),
    }
}

fn describe_byte(byte: u8, position: usize) -> Base64Error {
    if byte == b'=' {
        invalid(format!("padding '=' inside the data at symbol {position}"))
    } else if byte == b' ' || byte == b'\t' {
        let name = if byte == b' ' { "space" } else { "tab" };
        invalid(format!("unexpected {name} at symbol {position}"))
    } else if byte.is_ascii_graphic() {
        invalid(format!(
            "unexpected character '{}' at symbol {position}",
            byte as char
        ))
    } else if !byte.is_ascii() {
        invalid(format!("non-ASCII character at symbol {position}"))
    } else {
        invalid(format!("unexpected byte 0x{byte:02x} at symbol {position}"))
    }
}

/// Canonical base64 (standard alphabet, padded) of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    CANONICAL.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_str(s: &str) -> Result<Vec<u8>, Base64Error> {
        inspect(s.as_bytes()).map(|b| b.decode())
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
        ] {
            assert!(inspect(bad.as_bytes()).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn error_names_the_character_and_position() {
        let error = inspect(b"aGVs!G8=").unwrap_err();
        assert_eq!(error.message, "unexpected character '!' at symbol 4");
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
        // "QR==" decodes like "QQ==" but has non-zero trailing bits.
        assert!(inspect(b"QQ==").unwrap().info.canonical);
        assert!(!inspect(b"QR==").unwrap().info.canonical);
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
}
