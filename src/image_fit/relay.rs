//! The encoder on a thread of its own, fed the rows the calling thread
//! makes, each group in a buffer of its own: decoding and resizing overlap
//! encoding, which otherwise waits for them (on a 12-megapixel screenshot
//! made 1568 px wide here, encoding was about a third of the fit). A
//! source that leaves the pass across ([`super::across`]) has it made
//! there too. The encoder's thread reads only those buffers and writes
//! only the output, both Rust's own: never the data the caller passed in,
//! which stays with the calling thread.

use std::sync::mpsc::{self, Receiver, SyncSender};

use super::across::{Across, AcrossRows};
use super::encode::RowSource;
use super::FitError;

/// Output smaller than this is encoded on the calling thread: a thread
/// started costs more than the overlap gains.
const RELAYED_FROM: u64 = 1 << 20;

/// Whether an output of `width` x `height` rows of `channels` is encoded
/// beside the thread that makes its rows. Not on WebAssembly, where
/// starting a thread waits on the JS thread that may be the one waiting.
pub fn worthwhile(width: u32, height: u32, channels: u8) -> bool {
    let bytes = u64::from(width) * u64::from(height) * u64::from(channels);
    !cfg!(target_family = "wasm") && bytes >= RELAYED_FROM
}

/// `encode` run on a thread of its own over `rows` made here, `across`
/// (taken) made there first; `None` when no thread could be started
/// (nothing was read from `rows` nor taken from `across` then). A group is
/// handed over when the encoder takes it (none waits between them): the
/// thread holds the group it encodes, this one the group it makes.
pub fn encode_beside<T: Send>(
    rows: &mut dyn RowSource,
    across: &mut Option<Across>,
    encode: impl FnOnce(&mut dyn RowSource) -> Result<T, FitError> + Send,
) -> Option<Result<T, FitError>> {
    let (sender, receiver) = mpsc::sync_channel(0);
    // Buffers the encoder is done with, for the next groups: the same two
    // go back and forth.
    let (spent_sender, spent) = mpsc::sync_channel(1);
    let mut relayed = Relayed {
        width: rows.width(),
        height: rows.height(),
        channels: rows.channels(),
        receiver,
        group: Vec::new(),
        spent: spent_sender,
    };
    // Kept for this thread if no other starts (nothing is made in it yet).
    let spare = across.clone();
    std::thread::scope(|scope| {
        let across_there = across.take();
        let started = std::thread::Builder::new()
            .name("mcp-content-encode".into())
            .spawn_scoped(scope, move || match across_there {
                Some(across) => encode(&mut AcrossRows::new(&mut relayed, across)),
                None => encode(&mut relayed),
            });
        let Ok(encoder) = started else {
            *across = spare;
            return None;
        };
        send_rows(rows, &sender, &spent);
        // The encoder sees the end of the rows.
        drop(sender);
        Some(encoder.join().unwrap_or_else(|_| {
            Err(FitError::Decode(
                "encoding failed: the encoder stopped".into(),
            ))
        }))
    })
}

/// Every group of rows `rows` makes sent, then its error if it failed;
/// stops when the encoder no longer takes them (it failed, or has every
/// row its header asked for).
fn send_rows(
    rows: &mut dyn RowSource,
    sender: &SyncSender<Result<Vec<u8>, FitError>>,
    spent: &Receiver<Vec<u8>>,
) {
    loop {
        if let Ok(buffer) = spent.try_recv() {
            rows.take_back(buffer);
        }
        match rows.advance() {
            Ok(true) => {
                if sender.send(Ok(rows.give_rows())).is_err() {
                    return;
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
    group: Vec<u8>,
    spent: SyncSender<Vec<u8>>,
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
            Ok(Ok(group)) => {
                self.group = group;
                Ok(true)
            }
            Ok(Err(error)) => Err(error),
            // Every row was sent, or the source stopped early (the caller
            // knows why).
            Err(_) => {
                self.group = Vec::new();
                Ok(false)
            }
        }
    }
    fn rows(&self) -> &[u8] {
        &self.group
    }
    fn give_rows(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.group)
    }
    fn take_back(&mut self, spent: Vec<u8>) {
        // Dropped here if the one before was not taken yet.
        let _ = self.spent.try_send(spent);
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
