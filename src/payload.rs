//! The data of a media part, given as raw bytes or as base64, and the views
//! of it the later steps need: its head and tail for sniffing, all of it for
//! text, a stream of it for the store, canonical base64 for the model.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::io::{self, Write};

use crate::base64_data::{self, Base64, Base64Error};
use crate::sniff::{ReadAt, Window, HEAD_LEN, TAIL_LEN};

/// Data up to this many bytes is checked whole (structure, animation),
/// in either encoding: a base64 string that long is decoded whole for it,
/// so at most this much is held besides the input. Longer data, over every
/// provider's limit but OpenAI's and Gemini's payload-bounded images, is
/// checked on its head and tail, again in either encoding, so the verdict
/// depends on the bytes alone.
pub const WHOLE_CHECK_LEN: usize = 64 * 1024 * 1024;

/// A part's data as the caller handed it over.
#[derive(Debug, Clone, Copy)]
pub enum Payload<'a> {
    /// Raw bytes (a `Uint8Array`).
    Bytes(&'a [u8]),
    /// A base64 string, as its bytes. Non-ASCII strings are simply invalid.
    Base64(&'a [u8]),
}

/// Where a file part's canonical base64 comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base64Output {
    /// The input string is already canonical: send it on unchanged.
    InputString,
    /// The input was raw bytes: the caller encodes them (in JS, Node's
    /// encoder writes straight into an external string; see mcp-content.js).
    InputBytes,
    /// Re-encoded from non-canonical base64 (url-safe, unpadded, wrapped).
    Encoded(String),
}

/// Validated data with lazily decoded views.
pub struct Data<'a> {
    source: Source<'a>,
    head: Vec<u8>,
    tail: Vec<u8>,
    full: OnceCell<Vec<u8>>,
}

enum Source<'a> {
    Bytes(&'a [u8]),
    Base64(Base64<'a>),
}

impl<'a> Data<'a> {
    /// Validate the payload; for base64 only the head and tail are decoded.
    pub fn open(payload: Payload<'a>) -> Result<Self, Base64Error> {
        match payload {
            Payload::Bytes(bytes) => Ok(Data {
                source: Source::Bytes(bytes),
                head: Vec::new(),
                tail: Vec::new(),
                full: OnceCell::new(),
            }),
            Payload::Base64(text) => {
                let b64 = base64_data::inspect(text)?;
                let full = OnceCell::new();
                let (head, tail) = if b64.info.decoded_len <= HEAD_LEN + TAIL_LEN {
                    // Small enough to decode whole: one pass, no window.
                    let _ = full.set(b64.decode());
                    (Vec::new(), Vec::new())
                } else {
                    (b64.decode_head(HEAD_LEN), b64.decode_tail(TAIL_LEN))
                };
                Ok(Data {
                    source: Source::Base64(b64),
                    head,
                    tail,
                    full,
                })
            }
        }
    }

    /// Decoded length in bytes.
    pub fn len(&self) -> usize {
        match &self.source {
            Source::Bytes(bytes) => bytes.len(),
            Source::Base64(b64) => b64.info.decoded_len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Head and tail of the data, or all of it when that is at hand.
    pub fn window(&self) -> Window<'_> {
        match (&self.source, self.full.get()) {
            (Source::Bytes(bytes), _) => Window::whole(bytes),
            (_, Some(full)) => Window::whole(full),
            _ => Window {
                head: &self.head,
                tail: &self.tail,
                len: self.len(),
            },
        }
    }

    /// What a structural check reads: all the bytes up to
    /// `WHOLE_CHECK_LEN` (decoding base64 whole, once), beyond it the head
    /// and tail, whether the data came as raw bytes or as base64.
    pub fn check_window(&self) -> Window<'_> {
        let len = self.len();
        if len <= WHOLE_CHECK_LEN {
            return Window::whole(self.full());
        }
        match &self.source {
            Source::Bytes(bytes) => Window {
                head: &bytes[..HEAD_LEN],
                tail: &bytes[len - TAIL_LEN..],
                len,
            },
            // Decoded on opening, and kept even once `full` is decoded.
            Source::Base64(_) => Window {
                head: &self.head,
                tail: &self.tail,
                len,
            },
        }
    }

    /// The head, and a reader for the rest that decodes only what is read,
    /// for base64 not decoded yet whose layout lets any part decode alone
    /// (one line, or equal lines), of a length checked whole. A check that
    /// reads a few bytes here and there (a PNG's chunk headers) then sees
    /// what `check_window` shows without a full decode. `None` when the
    /// bytes are at hand (raw, or decoded) or cannot be read that way.
    pub fn sparse(&self) -> Option<(&[u8], SparseBase64<'a>)> {
        match (&self.source, self.full.get()) {
            (Source::Base64(b64), None)
                if self.len() <= WHOLE_CHECK_LEN && b64.decodes_in_place() =>
            {
                Some((
                    &self.head,
                    SparseBase64 {
                        b64: *b64,
                        block: Vec::new(),
                        block_start: 0,
                    },
                ))
            }
            _ => None,
        }
    }

    /// The first `len` decoded bytes (fewer when the data is shorter),
    /// without decoding the rest.
    pub fn prefix(&self, len: usize) -> Cow<'_, [u8]> {
        match (&self.source, self.full.get()) {
            (Source::Bytes(bytes), _) => Cow::Borrowed(&bytes[..len.min(bytes.len())]),
            (_, Some(full)) => Cow::Borrowed(&full[..len.min(full.len())]),
            // The head decoded on opening already holds it: no second decode.
            (Source::Base64(_), None) if len <= self.head.len() => Cow::Borrowed(&self.head[..len]),
            (Source::Base64(b64), None) => Cow::Owned(b64.decode_head(len)),
        }
    }

    /// All decoded bytes (decoded once, on first use).
    pub fn full(&self) -> &[u8] {
        match &self.source {
            Source::Bytes(bytes) => bytes,
            Source::Base64(b64) => self.full.get_or_init(|| b64.decode()),
        }
    }

    /// Write the decoded bytes to `writer` without holding them all in memory
    /// when they are not decoded yet.
    pub fn write_to(&self, writer: &mut dyn Write) -> io::Result<u64> {
        match (&self.source, self.full.get()) {
            (Source::Bytes(bytes), _) => writer.write_all(bytes).map(|_| bytes.len() as u64),
            (_, Some(full)) => writer.write_all(full).map(|_| full.len() as u64),
            (Source::Base64(b64), None) => b64.decode_to(writer),
        }
    }

    /// The data as canonical base64, re-using the input when it can.
    pub fn canonical_base64(&self) -> Base64Output {
        match &self.source {
            Source::Bytes(_) => Base64Output::InputBytes,
            Source::Base64(b64) if b64.info.canonical => Base64Output::InputString,
            Source::Base64(_) => Base64Output::Encoded(base64_data::encode(self.full())),
        }
    }
}

/// Bytes decoded at a time past the head: chunk headers of small chunks
/// share one decode, and an 8 KiB IDAT (libpng's) costs 2% of its length.
const SPARSE_BLOCK: usize = 192;

/// Base64 read anywhere, a block decoded at a time (`Data::sparse`).
pub struct SparseBase64<'a> {
    b64: Base64<'a>,
    /// The last block decoded, and where it starts in the decoded bytes.
    block: Vec<u8>,
    block_start: usize,
}

impl ReadAt for SparseBase64<'_> {
    fn read_at(&mut self, at: usize, out: &mut [u8]) -> bool {
        let len = self.b64.info.decoded_len;
        let Some(end) = at.checked_add(out.len()).filter(|&end| end <= len) else {
            return false;
        };
        if at < self.block_start || end > self.block_start + self.block.len() {
            let block_end = at.saturating_add(SPARSE_BLOCK.max(out.len())).min(len);
            let Some(block) = self.b64.decode_range(at, block_end) else {
                return false;
            };
            self.block = block;
            self.block_start = at;
        }
        let from = at - self.block_start;
        out.copy_from_slice(&self.block[from..from + out.len()]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_base64_decodes_only_head_and_tail_until_asked() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 249) as u8).collect();
        let encoded = base64_data::encode(&bytes);
        let data = Data::open(Payload::Base64(encoded.as_bytes())).unwrap();
        assert!(data.full.get().is_none());
        let window = data.window();
        assert_eq!(window.head, &bytes[..HEAD_LEN]);
        assert_eq!(window.tail, &bytes[bytes.len() - TAIL_LEN..]);
        assert_eq!(window.len, bytes.len());
        let mut written = Vec::new();
        data.write_to(&mut written).unwrap();
        assert_eq!(written, bytes);
        assert!(data.full.get().is_none(), "streaming must not keep a copy");
        assert_eq!(data.full(), &bytes[..]);
        assert_eq!(data.canonical_base64(), Base64Output::InputString);
    }

    #[test]
    fn a_prefix_within_the_head_is_borrowed_not_decoded_again() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let encoded = base64_data::encode(&bytes);
        let data = Data::open(Payload::Base64(encoded.as_bytes())).unwrap();
        assert!(matches!(data.prefix(1000), Cow::Borrowed(b) if b == &bytes[..1000]));
        assert!(matches!(data.prefix(HEAD_LEN + 1), Cow::Owned(b) if b == bytes[..HEAD_LEN + 1]));
    }

    #[test]
    fn a_sparse_read_decodes_only_what_is_read() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 241) as u8).collect();
        let one_line = base64_data::encode(&bytes);
        let data = Data::open(Payload::Base64(one_line.as_bytes())).unwrap();
        let (head, mut rest) = data.sparse().unwrap();
        assert_eq!(head, &bytes[..HEAD_LEN]);
        for at in [HEAD_LEN, 100_001, 100_010, 100_300, 299_992, 0] {
            let mut out = [0u8; 8];
            assert!(rest.read_at(at, &mut out));
            assert_eq!(out, bytes[at..at + 8]);
        }
        assert!(!rest.read_at(299_993, &mut [0u8; 8]), "past the end");
        assert!(!rest.read_at(usize::MAX, &mut [0u8; 8]));
        assert!(data.full.get().is_none(), "no full decode");

        // Irregular line breaks have no place for each symbol: no sparse reads.
        let irregular = format!("{}\n{}", &one_line[..10], &one_line[10..]);
        let data = Data::open(Payload::Base64(irregular.as_bytes())).unwrap();
        assert!(data.sparse().is_none());
        // Raw bytes need none.
        assert!(Data::open(Payload::Bytes(&bytes))
            .unwrap()
            .sparse()
            .is_none());
    }

    #[test]
    fn non_canonical_input_is_re_encoded() {
        let data = Data::open(Payload::Base64(b"aGVsbG8")).unwrap();
        assert_eq!(
            data.canonical_base64(),
            Base64Output::Encoded("aGVsbG8=".into())
        );
        let data = Data::open(Payload::Bytes(b"hello")).unwrap();
        assert_eq!(data.canonical_base64(), Base64Output::InputBytes);
    }
}
