//! The encoder on a thread of its own, fed copies of the rows the calling
//! thread makes: decoding and resizing overlap encoding, which otherwise
//! waits for them (on a 12-megapixel screenshot made 1568 px wide here,
//! encoding was about a third of the fit). The encoder's thread reads only
//! the copies and writes only the output, both Rust's own: never the data
//! the caller passed in, which stays with the calling thread.

use std::sync::mpsc::{self, Receiver, SyncSender};

use super::encode::RowSource;
use super::FitError;

/// Rows sent at a time: as many as fit in this (one row at least). Small,
/// so that the copies in flight are: with 1 MiB, 16 fits on 16 threads
/// peaked 10 MiB higher here.
const CHUNK_BYTES: usize = 256 << 10;
/// Chunks queued for the encoder, besides the one it encodes.
const QUEUED: usize = 2;

/// Output smaller than this is encoded on the calling thread: a thread
/// started costs more than the overlap gains.
const RELAYED_FROM: u64 = 1 << 20;

/// Bytes the relay holds for an output of `width` x `height` rows of
/// `channels` (none when it is not relayed): the chunks queued, the one
/// being encoded and the one waiting to be queued.
pub fn relay_bytes(width: u32, height: u32, channels: u8) -> u64 {
    let out_row = u64::from(width) * u64::from(channels);
    if worthwhile(width, height, channels) {
        (QUEUED as u64 + 2) * out_row.max(CHUNK_BYTES as u64)
    } else {
        0
    }
}

/// Whether an output of `width` x `height` rows of `channels` is encoded
/// beside the thread that makes its rows. Not on WebAssembly, where
/// starting a thread waits on the JS thread that may be the one waiting.
pub fn worthwhile(width: u32, height: u32, channels: u8) -> bool {
    let bytes = u64::from(width) * u64::from(height) * u64::from(channels);
    !cfg!(target_family = "wasm") && bytes >= RELAYED_FROM
}

/// `encode` run on a thread of its own over `rows` made here; `None` when
/// no thread could be started (nothing was read from `rows` then).
pub fn encode_beside<T: Send>(
    rows: &mut dyn RowSource,
    encode: impl FnOnce(&mut dyn RowSource) -> Result<T, FitError> + Send,
) -> Option<Result<T, FitError>> {
    let (width, height, channels) = (rows.width(), rows.height(), rows.channels());
    let (sender, receiver) = mpsc::sync_channel(QUEUED);
    let relayed = Relayed {
        width,
        height,
        channels,
        receiver,
        chunk: Vec::new(),
    };
    std::thread::scope(|scope| {
        let encoder = std::thread::Builder::new()
            .name("mcp-content-encode".into())
            .spawn_scoped(scope, move || {
                let mut relayed = relayed;
                encode(&mut relayed)
            })
            .ok()?;
        let row_len = width as usize * usize::from(channels);
        send_rows(rows, &sender, row_len);
        // The encoder sees the end of the rows.
        drop(sender);
        Some(encoder.join().unwrap_or_else(|_| {
            Err(FitError::Decode(
                "encoding failed: the encoder stopped".into(),
            ))
        }))
    })
}

/// Every row `rows` makes sent in chunks, then its error if it failed;
/// stops when the encoder no longer takes them (it failed, or has every
/// row its header asked for).
fn send_rows(
    rows: &mut dyn RowSource,
    sender: &SyncSender<Result<Vec<u8>, FitError>>,
    row_len: usize,
) {
    let chunk_len = (CHUNK_BYTES / row_len.max(1)).max(1) * row_len.max(1);
    loop {
        match rows.advance() {
            Ok(true) => {
                for chunk in rows.rows().chunks(chunk_len) {
                    if sender.send(Ok(chunk.to_vec())).is_err() {
                        return;
                    }
                }
            }
            Ok(false) => return,
            Err(error) => {
                let _ = sender.send(Err(error));
                return;
            }
        }
    }
}

/// The rows as the encoder's thread receives them.
struct Relayed {
    width: u32,
    height: u32,
    channels: u8,
    receiver: Receiver<Result<Vec<u8>, FitError>>,
    chunk: Vec<u8>,
}

impl RowSource for Relayed {
    fn width(&self) -> u32 {
        self.width
    }
    fn height(&self) -> u32 {
        self.height
    }
    fn channels(&self) -> u8 {
        self.channels
    }
    fn advance(&mut self) -> Result<bool, FitError> {
        match self.receiver.recv() {
            Ok(Ok(chunk)) => {
                self.chunk = chunk;
                Ok(true)
            }
            Ok(Err(error)) => Err(error),
            // Every row was sent, or the source stopped early (the caller
            // knows why).
            Err(_) => {
                self.chunk = Vec::new();
                Ok(false)
            }
        }
    }
    fn rows(&self) -> &[u8] {
        &self.chunk
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode::Pixels;
    use super::super::encode::{encode, Encoding, RowSource, WholeRows};
    use super::*;

    /// 700x600 RGB, 1.26 MB: relayed.
    fn pixels() -> Pixels {
        let (width, height) = (700u32, 600u32);
        let data = (0..width * height * 3)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 ^ (i / 2100) as u8)
            .collect();
        Pixels {
            width,
            height,
            channels: 3,
            data,
        }
    }

    #[test]
    fn relayed_rows_encode_to_the_same_bytes() {
        let p = pixels();
        assert!(worthwhile(p.width, p.height, p.channels));
        for how in [Encoding::Png, Encoding::Jpeg(85)] {
            let here = encode(&mut WholeRows::new(&p), how, u64::MAX, false).unwrap();
            let beside = encode(&mut WholeRows::new(&p), how, u64::MAX, true).unwrap();
            assert!(here.len > 1000);
            assert_eq!(here.bytes, beside.bytes, "{how:?}");
        }
    }

    /// Rows of `p` a few at a time, failing or stopping after `until`.
    struct Failing<'p> {
        p: &'p Pixels,
        at: usize,
        until: usize,
        fail: bool,
    }

    impl RowSource for Failing<'_> {
        fn width(&self) -> u32 {
            self.p.width
        }
        fn height(&self) -> u32 {
            self.p.height
        }
        fn channels(&self) -> u8 {
            self.p.channels
        }
        fn advance(&mut self) -> Result<bool, FitError> {
            if self.at >= self.until {
                if self.fail {
                    return Err(FitError::Decode("row 300 is broken".into()));
                }
                return Ok(false);
            }
            self.at += 10;
            Ok(true)
        }
        fn rows(&self) -> &[u8] {
            let row = self.p.width as usize * 3;
            &self.p.data[(self.at - 10) * row..self.at * row]
        }
    }

    #[test]
    fn a_source_that_fails_or_stops_early_fails_the_encoding() {
        let p = pixels();
        for how in [Encoding::Png, Encoding::Jpeg(85)] {
            let failing = &mut Failing {
                p: &p,
                at: 0,
                until: 300,
                fail: true,
            };
            let error = encode(failing, how, u64::MAX, true).err();
            assert_eq!(error, Some(FitError::Decode("row 300 is broken".into())));
            let stopping = &mut Failing {
                p: &p,
                at: 0,
                until: 300,
                fail: false,
            };
            assert!(encode(stopping, how, u64::MAX, true).is_err(), "{how:?}");
        }
    }
}
