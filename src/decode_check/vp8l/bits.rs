//! The bits of a VP8L stream, least significant first, refilled exactly
//! when and as far as `image-webp`'s reader refills: a refill leaves 56 to
//! 63 bits held (fewer at the end of the data), and a read of more bits
//! than are held fails. Where the decoder refills is part of its verdict
//! (a pixel's codes read after one refill can need more bits than it
//! left), so the walk refills where the decoder does and the two agree on
//! every stream.

/// Why a walk stops before the end of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The decoder refuses the stream.
    Corrupt,
    /// A prefix code has more codes than its lengths allow, refused here
    /// where the decoder's arithmetic can wrap and accept it.
    Oversubscribed,
    /// The stream needs more memory than the walk is allowed.
    OverAllowance,
}

#[derive(Clone)]
pub struct Bits<'a> {
    /// The bytes not yet in `buffer` (a slice, not the data and a place in
    /// it: one register fewer in the walk's loop, which spilled the place
    /// to the stack, on the chain each pixel's refill waits on).
    rest: &'a [u8],
    /// Held bits from bit 0; bits above `held` may be the stream's next
    /// bits already (a refill loads 8 bytes and counts the whole ones).
    buffer: u64,
    held: u8,
}

impl<'a> Bits<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bits {
            rest: data,
            buffer: 0,
            held: 0,
        }
    }

    /// Hold at least 56 bits, or every bit left.
    #[inline(always)]
    pub fn refill(&mut self) {
        if let Some(next) = self.rest.first_chunk::<8>() {
            self.buffer |= u64::from_le_bytes(*next) << self.held;
            let loaded = usize::from((63 - self.held) / 8);
            self.rest = self.rest.get(loaded..).unwrap_or_default();
            self.held |= 56;
        } else {
            while self.held < 56 {
                let Some((&byte, rest)) = self.rest.split_first() else {
                    break;
                };
                self.buffer |= u64::from(byte) << self.held;
                self.held += 8;
                self.rest = rest;
            }
        }
    }

    pub fn held(&self) -> u8 {
        self.held
    }

    /// The held bits and those loaded past them, lowest first.
    #[inline(always)]
    pub fn peek(&self) -> u64 {
        self.buffer
    }

    #[inline(always)]
    pub fn consume(&mut self, n: u8) -> Result<(), Stop> {
        if self.held < n {
            return Err(Stop::Corrupt);
        }
        self.buffer >>= n;
        self.held -= n;
        Ok(())
    }

    /// `n` bits (at most 32) as a number, refilled first when fewer are held.
    #[inline(always)]
    pub fn read(&mut self, n: u8) -> Result<u32, Stop> {
        if self.held < n {
            self.refill();
        }
        let value = (self.buffer & ((1u64 << n) - 1)) as u32;
        self.consume(n)?;
        Ok(value)
    }
}
