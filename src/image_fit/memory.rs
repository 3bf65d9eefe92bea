//! Memory for fitting: a process-wide budget for the fits in progress,
//! counted in bytes, and fallible allocation of the large buffers, so that
//! memory running out is an error for the part's note, never an abort.

use std::collections::TryReserveError;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

use super::FitError;

/// The default budget: every image fits in it alone whose output does
/// (an output of 8000x8000 RGBA turned by its EXIF orientation needs about
/// 750 MiB, see [`fit_peak`]; not turned, about 31 MiB under a byte limit
/// of 3.75 MiB, see [`streamed_peak`]).
pub const DEFAULT_BUDGET: u64 = 768 * 1024 * 1024;

/// The most bytes a fit whose output is made whole holds at once beyond
/// its input (an image turned as its EXIF orientation says), the larger of
/// - `decoding`: what the decoder holds while it decodes;
/// - streaming: `held` (the source decoded whole or at a scale, kept while
///   its rows are read), the shrink's `strips` and the `output`;
/// - encoding: `held` and three times the output: the output, its turned
///   copy and the encoded bytes (no larger than the pixels, plus a
///   little); a smaller size for a byte limit is made from the source
///   again, the larger one let go first;
///
/// plus a sixteenth of the output and 1 MiB for what these leave out.
pub fn fit_peak(decoding: u64, held: u64, strips: u64, output: u64) -> u64 {
    let streaming = held + strips + output;
    let encoding = held + 3 * output;
    decoding.max(streaming).max(encoding) + output / 16 + (1 << 20)
}

/// What the encoders hold besides the bytes they write, for output rows of
/// `out_row` bytes: `jpeg-encoder` 16 rows of samples (an MCU row of 4:2:0,
/// three components at most, no more than the row's bytes), the `png`
/// stream writer a few rows, its IDAT chunk and zlib's state (under 1 MiB).
pub fn encoder_bytes(out_row: u64) -> u64 {
    16 * (out_row + 64) + (1 << 20)
}

/// The most bytes a fit whose output rows are encoded as they are made
/// holds at once beyond its input: the larger of what the decoder holds
/// while it decodes (`decoding`) and, while rows stream, `held` (the
/// source decoded whole or at a scale, or a PNG decoder's rows), the
/// shrink's `strips` (a group of output rows among them), the encoder's
/// rows ([`encoder_bytes`]) and the `encoded` bytes kept (at most the byte
/// limit: see [`encoded_bound`]); plus 1 MiB for what these leave out. The
/// output is never held whole: a size tried again (another format or
/// quality, or smaller) is made from the source again.
pub fn streamed_peak(decoding: u64, held: u64, strips: u64, encoder: u64, encoded: u64) -> u64 {
    decoding.max(held + strips + encoder + encoded) + (1 << 20)
}

/// Names the budget in MiB, read once, when the first image is fitted.
pub const BUDGET_VARIABLE: &str = "MCP_CONTENT_FIT_MEMORY_MIB";

/// The budget every fit in this process shares.
pub fn global() -> &'static Budget {
    static GLOBAL: OnceLock<Budget> = OnceLock::new();
    GLOBAL.get_or_init(|| Budget::new(budget_from(std::env::var(BUDGET_VARIABLE).ok())))
}

/// The budget a setting names: a whole number of MiB, at least 1;
/// anything else is the default.
fn budget_from(setting: Option<String>) -> u64 {
    setting
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&mib| mib > 0)
        .and_then(|mib| mib.checked_mul(1024 * 1024))
        .unwrap_or(DEFAULT_BUDGET)
}

/// Bytes that fits in progress may hold at once. A fit waits until its
/// bytes fit beside the others'; waiters are let in in the order they
/// came (a large fit is not passed over forever by small ones), so a
/// wait ends once the fits before it have ended. A fit larger than the
/// whole budget is refused at once.
pub struct Budget {
    capacity: u64,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    in_use: u64,
    /// The next ticket given out, and the one let in next.
    next_ticket: u64,
    serving: u64,
    /// The most ever in use (for tests and diagnostics).
    high_water: u64,
}

/// Bytes taken from a [`Budget`], given back when dropped.
pub struct Permit<'b> {
    budget: &'b Budget,
    bytes: u64,
}

impl Budget {
    pub fn new(capacity: u64) -> Budget {
        Budget {
            capacity,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The most bytes ever in use at once.
    pub fn high_water(&self) -> u64 {
        self.lock().high_water
    }

    /// How many fits are waiting.
    #[cfg(test)]
    pub fn waiting(&self) -> u64 {
        let state = self.lock();
        state.next_ticket - state.serving
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is whole numbers changed under the lock without a
        // panic between; a poisoned lock holds a consistent state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Take `bytes`, waiting for the fits before this one to make room.
    pub fn acquire(&self, bytes: u64) -> Result<Permit<'_>, FitError> {
        if bytes > self.capacity {
            return Err(FitError::OverBudget {
                needs: bytes,
                budget: self.capacity,
            });
        }
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        while state.serving != ticket || state.in_use + bytes > self.capacity {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.serving += 1;
        state.in_use += bytes;
        state.high_water = state.high_water.max(state.in_use);
        drop(state);
        // The next ticket may fit beside this one.
        self.changed.notify_all();
        Ok(Permit {
            budget: self,
            bytes,
        })
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut state = self.budget.lock();
        state.in_use -= self.bytes;
        drop(state);
        self.budget.changed.notify_all();
    }
}

/// What gives the memory a fit freed back to the system, set once by the
/// host: the C allocator is the Node-API layer's to call (`binding::allocator`).
static GIVE_BACK_FREED: OnceLock<fn()> = OnceLock::new();

/// Sets what [`give_back_freed`] calls; the first call wins.
pub fn set_give_back_freed(give_back: fn()) {
    let _ = GIVE_BACK_FREED.set(give_back);
}

/// Called once a fit has freed everything it held. glibc keeps what a
/// thread frees in that thread's arena, where the budget no longer counts
/// it and other threads cannot use it: after fits on many threads the
/// process would hold the sum.
pub fn give_back_freed() {
    if let Some(give_back) = GIVE_BACK_FREED.get() {
        give_back();
    }
}

fn out_of_memory(bytes: usize) -> impl Fn(TryReserveError) -> FitError {
    move |_| FitError::OutOfMemory {
        bytes: bytes as u64,
    }
}

/// `len` zero bytes, or an error when they cannot be allocated.
pub fn zeroed(len: usize) -> Result<Vec<u8>, FitError> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(out_of_memory(len))?;
    buffer.resize(len, 0);
    Ok(buffer)
}

/// The size from which the addon's allocator maps a buffer fresh and gives
/// it back whole when it is freed (glibc set so by the binding:
/// `src/binding/allocator.rs`; musl does so from smaller sizes).
pub const MAPPED_FROM: usize = 8 << 20;

/// An empty buffer with room for `len` bytes that one thread fills and
/// another frees: room for [`MAPPED_FROM`] bytes at least, so that it is
/// mapped, and given back when freed, not kept in either thread's arena
/// (only its pages written count). 16 fits on 16 threads with the pass
/// across on the encoder's thread peaked at 245-278 MiB with buffers from
/// the arenas, 202-232 mapped.
pub fn handed_over(len: usize) -> Result<Vec<u8>, FitError> {
    with_capacity(len.max(MAPPED_FROM))
}

/// What a mapped buffer may hold in pages beyond the bytes written: the
/// binding marks it for 2 MiB pages, and its last may be partly written.
pub const MAPPED_SLACK: u64 = 2 << 20;

/// An empty buffer with room for `len` bytes, or an error.
pub fn with_capacity(len: usize) -> Result<Vec<u8>, FitError> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(out_of_memory(len))?;
    Ok(buffer)
}

/// Whether `bytes` can be allocated now: they are reserved and given back
/// at once (address space only, no page is touched). Decoders allocate
/// their own working memory infallibly; checking the whole peak first
/// turns a process that cannot hold it (an address-space limit) into an
/// error instead of an abort there.
pub fn probe(bytes: u64) -> Result<(), FitError> {
    let len = usize::try_from(bytes).map_err(|_| FitError::OutOfMemory { bytes })?;
    with_capacity(len).map(drop)
}

/// Encoded output, grown fallibly: a failed allocation is an I/O error
/// the encoder returns, kept here to be told apart. Past `limit` bytes
/// the output is let go and only counted (it is too large to be sent, and
/// its size says how much smaller to try next).
pub struct Output {
    pub bytes: Vec<u8>,
    /// Bytes written, kept or not.
    pub len: u64,
    limit: u64,
    /// Room is made a doubling at a time up to this (see [`encoded_bound`]).
    grow_to: u64,
    pub failed: Option<FitError>,
}

/// An output's first room; it doubles from there.
const FIRST_ROOM: u64 = 64 << 10;

impl Output {
    /// An output kept up to `limit` bytes, for an image of `pixels` bytes,
    /// with its first room made here: glibc grows a buffer in the arena
    /// of the thread that allocated it, so an encoder on a thread of its
    /// own does not leave freed room in an arena of its own.
    pub fn new(limit: u64, pixels: u64) -> Output {
        let grow_to = encoded_bound(pixels, limit);
        let first = usize::try_from(FIRST_ROOM.min(grow_to)).unwrap_or(0);
        let mut bytes = Vec::new();
        // Without it, room is made at the first write, where a failure is
        // reported.
        let _ = bytes.try_reserve_exact(first);
        Output {
            bytes,
            len: 0,
            limit,
            grow_to,
            failed: None,
        }
    }
}

/// The most bytes an [`Output`] holds for an image of `pixels` bytes under
/// `limit`: no more than the limit, and no more than the pixels and a
/// sixteenth (PNG adds a filter byte a row and a few bytes a deflate
/// block and chunk; JPEG at the qualities used is smaller than its
/// pixels), so growing by doubling stops there.
pub fn encoded_bound(pixels: u64, limit: u64) -> u64 {
    limit.min(pixels + pixels / 16 + (64 << 10))
}

impl std::io::Write for Output {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.len = self.len.saturating_add(data.len() as u64);
        if self.len > self.limit {
            if self.bytes.capacity() > 0 {
                self.bytes = Vec::new();
            }
            return Ok(data.len());
        }
        let wanted = self.bytes.len() + data.len();
        if wanted > self.bytes.capacity() {
            let cap = u64::try_from(self.bytes.capacity()).unwrap_or(u64::MAX);
            let doubled = cap.saturating_mul(2).max(FIRST_ROOM).min(self.grow_to);
            let doubled = usize::try_from(doubled).unwrap_or(0);
            let room = doubled.max(wanted) - self.bytes.len();
            if let Err(error) = self.bytes.try_reserve_exact(room) {
                self.failed = Some(out_of_memory(wanted)(error));
                return Err(std::io::ErrorKind::OutOfMemory.into());
            }
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
