//! A scan's coded data: its bits read past stuffed bytes, its Huffman
//! codes looked up (codes of up to [`FAST_BITS`] bits in one step, an AC
//! coefficient and its value together where both fit), its blocks'
//! coefficients decoded.

use super::header::ZIGZAG;

/// Bits looked up at once.
const FAST_BITS: u32 = 9;
const FAST_SIZE: usize = 1 << FAST_BITS;

/// A Huffman table (JPEG's canonical codes of 1 to 16 bits).
#[derive(Clone, Debug)]
pub struct Table {
    /// By the next [`FAST_BITS`] bits: the code's length (0: longer) and
    /// its symbol.
    fast: Box<[(u8, u8); FAST_SIZE]>,
    /// For an AC table, by the next bits: the zero run, the value and the
    /// bits both take, where the code and the value's bits fit
    /// (length 0: not).
    fast_ac: Box<[(i16, u8, u8); FAST_SIZE]>,
    /// By length: one past the largest code of that length, and what is
    /// added to a code of it to find its symbol in `symbols`.
    end: [u32; 17],
    offset: [i32; 17],
    symbols: Vec<u8>,
}

impl Table {
    /// `counts[l]` codes of `l + 1` bits take `symbols` in order; `None` when
    /// they are more than the lengths hold.
    pub fn new(counts: &[u8; 16], symbols: &[u8], ac: bool) -> Option<Table> {
        let mut fast = Box::new([(0, 0); FAST_SIZE]);
        let mut end = [0; 17];
        let mut offset = [0; 17];
        let mut code: u32 = 0;
        let mut index = 0;
        for length in 1..=16u32 {
            let count = u32::from(counts[length as usize - 1]);
            offset[length as usize] = index as i32 - code as i32;
            for _ in 0..count {
                if code >= 1 << length {
                    return None;
                }
                let symbol = *symbols.get(index)?;
                if length <= FAST_BITS {
                    let spare = FAST_BITS - length;
                    let first = (code << spare) as usize;
                    for entry in &mut fast[first..first + (1 << spare)] {
                        *entry = (length as u8, symbol);
                    }
                }
                code += 1;
                index += 1;
            }
            end[length as usize] = code;
            code <<= 1;
        }
        let mut fast_ac = Box::new([(0, 0, 0); FAST_SIZE]);
        if ac {
            for (bits, &(length, symbol)) in fast.iter().enumerate() {
                let (run, size) = (symbol >> 4, u32::from(symbol & 15));
                let taken = u32::from(length) + size;
                if length == 0 || size == 0 || taken > FAST_BITS {
                    continue;
                }
                let raw = (bits as u32 >> (FAST_BITS - taken)) & ((1 << size) - 1);
                fast_ac[bits] = (extend(raw, size) as i16, run, taken as u8);
            }
        }
        Some(Table {
            fast,
            fast_ac,
            end,
            offset,
            symbols: symbols[..index].to_vec(),
        })
    }
}

/// A value of `size` bits as JPEG codes it: the low half negative.
fn extend(raw: u32, size: u32) -> i32 {
    if size == 0 {
        0
    } else if raw < 1 << (size - 1) {
        raw as i32 - (1 << size) + 1
    } else {
        raw as i32
    }
}

/// The scan's bits, most significant first; past its end, or past a
/// marker, zeros (as libjpeg reads a truncated scan).
pub struct Bits<'a> {
    data: &'a [u8],
    at: usize,
    /// The bits read, from the top.
    held: u64,
    count: u32,
    /// A marker the data reached (its second byte), not consumed.
    marker: Option<u8>,
}

/// A code no table holds.
#[derive(Debug)]
pub struct BadCode;

impl<'a> Bits<'a> {
    pub fn new(data: &'a [u8], at: usize) -> Bits<'a> {
        Bits {
            data,
            at,
            held: 0,
            count: 0,
            marker: None,
        }
    }

    /// At least 57 bits held.
    fn refill(&mut self) {
        // Eight bytes at once where none of them is 0xFF (stuffing or a
        // marker), the common case.
        if self.marker.is_none() {
            if let Some(next) = self.data.get(self.at..self.at + 8) {
                let word = u64::from_be_bytes(next.try_into().unwrap_or([0xFF; 8]));
                let inverted = !word;
                let has_ff = inverted.wrapping_sub(0x0101_0101_0101_0101)
                    & !inverted
                    & 0x8080_8080_8080_8080;
                if has_ff == 0 {
                    let taken = (64 - self.count) / 8;
                    let kept = if taken == 8 {
                        word
                    } else {
                        word & !(u64::MAX >> (8 * taken))
                    };
                    self.held |= kept >> self.count;
                    self.count += 8 * taken;
                    self.at += taken as usize;
                    return;
                }
            }
        }
        while self.count <= 56 {
            let byte = self.next_byte();
            self.held |= u64::from(byte) << (56 - self.count);
            self.count += 8;
        }
    }

    fn next_byte(&mut self) -> u8 {
        if self.marker.is_some() {
            return 0;
        }
        loop {
            let Some(&byte) = self.data.get(self.at) else {
                return 0;
            };
            if byte != 0xFF {
                self.at += 1;
                return byte;
            }
            match self.data.get(self.at + 1) {
                Some(0) => {
                    self.at += 2;
                    return 0xFF;
                }
                // Fill bytes before a marker.
                Some(0xFF) => self.at += 1,
                Some(&marker) => {
                    self.marker = Some(marker);
                    return 0;
                }
                None => {
                    self.at += 1;
                    return 0;
                }
            }
        }
    }

    fn take(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        if self.count < n {
            self.refill();
        }
        let value = (self.held >> (64 - n)) as u32;
        self.held <<= n;
        self.count -= n;
        value
    }

    fn symbol(&mut self, table: &Table) -> Result<u8, BadCode> {
        if self.count < 16 {
            self.refill();
        }
        let (length, symbol) = table.fast[(self.held >> (64 - FAST_BITS)) as usize];
        if length > 0 {
            self.held <<= length;
            self.count -= u32::from(length);
            return Ok(symbol);
        }
        for length in FAST_BITS + 1..=16 {
            let code = (self.held >> (64 - length)) as u32;
            if code < table.end[length as usize] {
                self.held <<= length;
                self.count -= length;
                let index = table.offset[length as usize] + code as i32;
                return table.symbols.get(index as usize).copied().ok_or(BadCode);
            }
        }
        Err(BadCode)
    }

    /// At a restart marker: the bits left in its byte dropped, the marker
    /// passed (where the data has another marker, or none, decoding goes
    /// on as libjpeg's would, with zeros or the bytes that follow).
    pub fn restart(&mut self) {
        self.held = 0;
        self.count = 0;
        if self.marker.is_none() {
            // The marker not reached yet: what is before it is padding.
            while let Some(&byte) = self.data.get(self.at) {
                if byte == 0xFF && !matches!(self.data.get(self.at + 1), Some(0) | None) {
                    let mut at = self.at + 1;
                    while self.data.get(at) == Some(&0xFF) {
                        at += 1;
                    }
                    self.marker = self.data.get(at).copied();
                    self.at = at - 1;
                    break;
                }
                self.at += 1;
            }
        }
        if let Some(0xD0..=0xD7) = self.marker {
            self.at += 2;
            self.marker = None;
        }
    }

    /// A block's coefficients, dequantised, into `block` (zeros on entry,
    /// in natural order); `predictor` is the component's last DC value.
    /// Returns the zigzag index of the last coefficient set.
    pub fn block(
        &mut self,
        dc: &Table,
        ac: &Table,
        quant: &[f32; 64],
        predictor: &mut i32,
        block: &mut [f32; 64],
    ) -> Result<usize, BadCode> {
        let size = u32::from(self.symbol(dc)?);
        if size > 16 {
            return Err(BadCode);
        }
        let raw = self.take(size);
        *predictor = predictor.wrapping_add(extend(raw, size));
        block[0] = *predictor as f32 * quant[0];
        let mut last = 0;
        let mut k = 1;
        // The bits in locals, kept in registers: stored back only around a
        // refill or a code the fast table does not hold.
        let (mut held, mut count) = (self.held, self.count);
        while k < 64 {
            if count < 16 {
                (self.held, self.count) = (held, count);
                self.refill();
                (held, count) = (self.held, self.count);
            }
            let (value, run, taken) = ac.fast_ac[(held >> (64 - FAST_BITS)) as usize];
            if taken > 0 {
                held <<= taken;
                count -= u32::from(taken);
                k += usize::from(run);
                if k > 63 {
                    // A run past the block's end: it ends (as
                    // `jpeg-decoder` and libjpeg read it).
                    break;
                }
                block[usize::from(ZIGZAG[k]) & 63] = f32::from(value) * quant[k];
                last = k;
                k += 1;
                continue;
            }
            (self.held, self.count) = (held, count);
            let symbol = self.symbol(ac)?;
            let (run, size) = (usize::from(symbol >> 4), u32::from(symbol & 15));
            if size == 0 {
                if run != 15 {
                    return Ok(last);
                }
                k += 16;
                (held, count) = (self.held, self.count);
                continue;
            }
            k += run;
            if k > 63 {
                (held, count) = (self.held, self.count);
                break;
            }
            let raw = self.take(size);
            (held, count) = (self.held, self.count);
            block[usize::from(ZIGZAG[k]) & 63] = extend(raw, size) as f32 * quant[k];
            last = k;
            k += 1;
        }
        (self.held, self.count) = (held, count);
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_extend_as_jpeg_codes_them() {
        assert_eq!(extend(0, 1), -1);
        assert_eq!(extend(1, 1), 1);
        assert_eq!(extend(0b00, 2), -3);
        assert_eq!(extend(0b01, 2), -2);
        assert_eq!(extend(0b10, 2), 2);
        assert_eq!(extend(0, 0), 0);
    }

    #[test]
    fn a_table_with_more_codes_than_its_lengths_hold_is_refused() {
        let mut counts = [0; 16];
        counts[0] = 3; // three codes of one bit
        assert!(Table::new(&counts, &[1, 2, 3], false).is_none());
        counts[0] = 2;
        assert!(Table::new(&counts, &[1, 2], false).is_some());
        // Fewer symbols than counted.
        assert!(Table::new(&counts, &[1], false).is_none());
    }

    #[test]
    fn bits_skip_stuffed_bytes_and_stop_at_a_marker() {
        let data = [0xFF, 0x00, 0x12, 0xFF, 0xD9];
        let mut bits = Bits::new(&data, 0);
        assert_eq!(bits.take(8), 0xFF);
        assert_eq!(bits.take(8), 0x12);
        assert_eq!(bits.take(16), 0);
        assert_eq!(bits.marker, Some(0xD9));
    }

    #[test]
    fn a_restart_passes_its_marker() {
        let data = [0xAB, 0xFF, 0xD0, 0xCD];
        let mut bits = Bits::new(&data, 0);
        assert_eq!(bits.take(4), 0xA);
        bits.restart();
        assert_eq!(bits.take(8), 0xCD);
    }
}
