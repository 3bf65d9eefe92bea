//! The data of a media part, given as raw bytes or as base64, and the views
//! of it the later steps need: its head and tail for sniffing, all of it for
//! text, a stream of it for the store, canonical base64 for the model.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek, SeekFrom, Write};

use crate::base64_data::{self, Base64, Base64Error};
use crate::sniff::{ReadAt, Window, HEAD_LEN, TAIL_LEN};

/// Data up to this many bytes is checked whole (structure, animation),
/// in either encoding: a base64 string that long is decoded whole for it,
/// so at most this much is held besides the input. Longer data, over every
/// provider's limit but OpenAI's and Gemini's payload-bounded images, is
/// checked on its head and tail, again in either encoding, so the verdict
/// depends on the bytes alone.
pub const WHOLE_CHECK_LEN: usize = 64 * 1024 * 1024;

/// Base64 that decodes to fewer bytes than this is decoded whole once (as
/// it is validated, for a part being routed), not read sparsely
/// (`Data::sparse`): a PNG's walk (its CRCs) and the decode check after it
/// each read every byte, so sparse reads decode it twice (half the time of
/// a 100 KB PNG). From here on they save a decoded copy as large as the
/// image, held besides its string. Unit tests and fuzz targets read
/// sparsely from any length, so the sparse readers are tested on small
/// data.
const SPARSE_FROM: usize = if cfg!(any(test, fuzzing)) { 0 } else { 8 << 20 };

/// What `Data::open_for_routing` decodes as it validates: data below
/// `SPARSE_FROM`; in unit tests and fuzz targets, where that is 0, what
/// `Data::open` decodes.
const DECODED_FOR_ROUTING: usize = if cfg!(any(test, fuzzing)) {
    HEAD_LEN + TAIL_LEN
} else {
    SPARSE_FROM
};

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
    /// Base64 only, each decoded on first use: the first `HEAD_LEN` bytes,
    /// the last `TAIL_LEN`, all of them (at once for data no longer than
    /// the two).
    head: OnceCell<Vec<u8>>,
    tail: OnceCell<Vec<u8>>,
    full: OnceCell<Vec<u8>>,
}

enum Source<'a> {
    Bytes(&'a [u8]),
    Base64(Base64<'a>),
}

impl<'a> Data<'a> {
    /// Validate the payload. Base64 is decoded here only when it is short
    /// (no longer than head and tail together): one pass, no window.
    pub fn open(payload: Payload<'a>) -> Result<Self, Base64Error> {
        Data::open_decoding_up_to(payload, HEAD_LEN + TAIL_LEN)
    }

    /// Validate the payload of a part about to be routed: base64 below
    /// `SPARSE_FROM` is decoded here too, in the pass that validates it
    /// when it is on one line. Most such data is read whole later (an
    /// image or PDF checked, a text decoded, an image fitted), which
    /// otherwise reads the string twice; what is saved as it is (a spill)
    /// is written from these bytes instead of decoded again in chunks.
    pub fn open_for_routing(payload: Payload<'a>) -> Result<Self, Base64Error> {
        Data::open_decoding_up_to(payload, DECODED_FOR_ROUTING)
    }

    fn open_decoding_up_to(payload: Payload<'a>, up_to: usize) -> Result<Self, Base64Error> {
        let full = OnceCell::new();
        let source = match payload {
            Payload::Bytes(bytes) => Source::Bytes(bytes),
            Payload::Base64(text) => {
                let (b64, decoded) = base64_data::inspect_decoding(text, up_to)?;
                let decoded =
                    decoded.or_else(|| (b64.info.decoded_len <= up_to).then(|| b64.decode()));
                if let Some(bytes) = decoded {
                    let _ = full.set(bytes);
                }
                Source::Base64(b64)
            }
        };
        Ok(Data {
            source,
            head: OnceCell::new(),
            tail: OnceCell::new(),
            full,
        })
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

    /// The first `HEAD_LEN` bytes (all of them when shorter).
    pub fn head(&self) -> &[u8] {
        match (&self.source, self.full.get()) {
            (Source::Bytes(bytes), _) => &bytes[..bytes.len().min(HEAD_LEN)],
            (_, Some(full)) => &full[..full.len().min(HEAD_LEN)],
            (Source::Base64(b64), None) => self.head.get_or_init(|| b64.decode_head(HEAD_LEN)),
        }
    }

    /// The last `TAIL_LEN` bytes (all of them when shorter).
    fn tail(&self) -> &[u8] {
        match (&self.source, self.full.get()) {
            (Source::Bytes(bytes), _) => &bytes[bytes.len().saturating_sub(TAIL_LEN)..],
            (_, Some(full)) => &full[full.len().saturating_sub(TAIL_LEN)..],
            (Source::Base64(b64), None) => self.tail.get_or_init(|| b64.decode_tail(TAIL_LEN)),
        }
    }

    /// Head and tail of the data, or all of it when that is at hand.
    pub fn window(&self) -> Window<'_> {
        match (&self.source, self.full.get()) {
            (Source::Bytes(bytes), _) => Window::whole(bytes),
            (_, Some(full)) => Window::whole(full),
            _ => Window {
                head: self.head(),
                tail: self.tail(),
                len: self.len(),
            },
        }
    }

    /// What a structural check reads: all the bytes up to
    /// `WHOLE_CHECK_LEN` (decoding base64 whole, once), beyond it the head
    /// and tail, whether the data came as raw bytes or as base64.
    pub fn check_window(&self) -> Window<'_> {
        if self.len() <= WHOLE_CHECK_LEN {
            return Window::whole(self.full());
        }
        // Not `window()`: base64 decoded whole by now still shows only its
        // head and tail here, as raw bytes do.
        Window {
            head: self.head(),
            tail: self.tail(),
            len: self.len(),
        }
    }

    /// A reader of the data that decodes only what is read, for base64 not
    /// decoded yet whose layout lets any part decode alone (one line, or
    /// equal lines), of a length checked whole and at least `SPARSE_FROM`.
    /// A check that reads a few bytes here and there (a PNG's chunk
    /// headers) then sees what `check_window` shows without a full decode. `None` when the bytes
    /// are at hand (raw, or decoded) or cannot be read that way.
    pub fn sparse(&self) -> Option<SparseBase64<'a>> {
        match (&self.source, self.full.get()) {
            (Source::Base64(b64), None)
                if (SPARSE_FROM..=WHOLE_CHECK_LEN).contains(&self.len())
                    && b64.decodes_in_place() =>
            {
                Some(SparseBase64::new(*b64))
            }
            _ => None,
        }
    }

    /// All the bytes as a stream a decoder reads from start to end, the
    /// same whatever form the data came in: base64 that `sparse` can read
    /// is decoded as it is read (a block at a time, never whole); any other
    /// data is read from `full`.
    pub fn reader(&self) -> Box<dyn ReadSeek + '_> {
        match self.sparse() {
            Some(sparse) => Box::new(BufReader::with_capacity(
                READER_BLOCK,
                Sequential {
                    data: sparse,
                    pos: 0,
                    len: self.len() as u64,
                },
            )),
            None => Box::new(Cursor::new(self.full())),
        }
    }

    /// The first `len` decoded bytes (fewer when the data is shorter),
    /// without decoding the rest, nor the head when it is not decoded yet.
    pub fn prefix(&self, len: usize) -> Cow<'_, [u8]> {
        match (&self.source, self.full.get(), self.head.get()) {
            (Source::Bytes(bytes), _, _) => Cow::Borrowed(&bytes[..len.min(bytes.len())]),
            (_, Some(full), _) => Cow::Borrowed(&full[..len.min(full.len())]),
            // The head decoded already holds it: no second decode.
            (_, None, Some(head)) if len <= head.len() => Cow::Borrowed(&head[..len]),
            (Source::Base64(b64), None, _) => Cow::Owned(b64.decode_head(len)),
        }
    }

    /// Whether all the bytes were decoded (and are held) by now.
    #[cfg(test)]
    pub fn decoded_whole(&self) -> bool {
        self.full.get().is_some()
    }

    /// All decoded bytes (decoded once, on first use).
    pub fn full(&self) -> &[u8] {
        match &self.source {
            Source::Bytes(bytes) => bytes,
            // The head decoded for the sniff is not decoded again.
            Source::Base64(b64) => self.full.get_or_init(|| match self.head.get() {
                Some(head) => b64.decode_after(head),
                None => b64.decode(),
            }),
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

/// What a decoder reads through (`Data::reader`).
pub trait ReadSeek: BufRead + Seek {}
impl<T: BufRead + Seek> ReadSeek for T {}

/// Bytes `Data::reader` decodes from base64 at a time.
const READER_BLOCK: usize = 64 * 1024;

/// A `ReadAt` read in order, from `pos` on.
struct Sequential<R> {
    data: R,
    pos: u64,
    len: u64,
}

impl<R: ReadAt> Read for Sequential<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let n = out.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let at = usize::try_from(self.pos).map_err(io::Error::other)?;
        if n > 0 && !self.data.read_at(at, &mut out[..n]) {
            return Err(io::Error::other("base64 changed after validation"));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R> Seek for Sequential<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(delta) => self.len.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.pos.checked_add_signed(delta),
        };
        self.pos = pos.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
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
    /// Equal lines' symbols, gathered for a decode (`decode_range_into`).
    gathered: Vec<u8>,
}

impl<'a> SparseBase64<'a> {
    fn new(b64: Base64<'a>) -> Self {
        SparseBase64 {
            b64,
            block: Vec::new(),
            block_start: 0,
            gathered: Vec::new(),
        }
    }
}

impl ReadAt for SparseBase64<'_> {
    fn read_at(&mut self, at: usize, out: &mut [u8]) -> bool {
        // A read as long as a block (a decoder's buffer, a checksum's
        // stretch) is decoded straight into `out`.
        if out.len() >= SPARSE_BLOCK {
            return self.b64.decode_range_into(at, out, &mut self.gathered);
        }
        let len = self.b64.info.decoded_len;
        let Some(end) = at.checked_add(out.len()).filter(|&end| end <= len) else {
            return false;
        };
        if at < self.block_start || end > self.block_start + self.block.len() {
            let block_end = at.saturating_add(SPARSE_BLOCK).min(len);
            self.block.resize(block_end - at, 0);
            if !self
                .b64
                .decode_range_into(at, &mut self.block, &mut self.gathered)
            {
                self.block.clear();
                return false;
            }
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
        assert!(data.head.get().is_none() && data.tail.get().is_none());
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
        // Before the head is decoded, only the prefix is.
        assert!(matches!(data.prefix(16), Cow::Owned(b) if b == bytes[..16]));
        assert!(data.head.get().is_none());
        assert_eq!(data.head(), &bytes[..HEAD_LEN]);
        assert!(matches!(data.prefix(1000), Cow::Borrowed(b) if b == &bytes[..1000]));
        assert!(matches!(data.prefix(HEAD_LEN + 1), Cow::Owned(b) if b == bytes[..HEAD_LEN + 1]));
    }

    #[test]
    fn a_sparse_read_decodes_only_what_is_read() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 241) as u8).collect();
        let one_line = base64_data::encode(&bytes);
        let data = Data::open(Payload::Base64(one_line.as_bytes())).unwrap();
        let mut rest = data.sparse().unwrap();
        for at in [HEAD_LEN, 100_001, 100_010, 100_300, 299_992, 0, 5] {
            let mut out = [0u8; 8];
            assert!(rest.read_at(at, &mut out));
            assert_eq!(out, bytes[at..at + 8]);
        }
        assert!(!rest.read_at(299_993, &mut [0u8; 8]), "past the end");
        assert!(!rest.read_at(usize::MAX, &mut [0u8; 8]));
        assert!(data.full.get().is_none(), "no full decode");
        assert!(data.head.get().is_none(), "no head decode");
        let mut long = vec![0u8; 70_000];
        assert!(rest.read_at(3, &mut long));
        assert_eq!(long, bytes[3..70_003]);

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
