//! A VP8L prefix code: read from the stream as the decoder reads it and
//! decoded through a table of its codes of up to 10 bits (the decoder's
//! split, which `peek_short` depends on), longer codes counted out.

use super::bits::{Bits, Stop};
use super::Memory;

const MAX_LENGTH: usize = 15;
/// Codes up to this long are decoded by one table read, as the decoder
/// splits them (`peek_short` depends on it).
const TABLE_BITS: u8 = 10;
/// A table entry: the symbol in the low 12 bits (alphabets have at most
/// 280 + 2048 symbols), the code's length above (0 for a code of one
/// symbol); `LONG` for the start of a code longer than the table.
const SYMBOL_BITS: u16 = 12;
const SYMBOL_MASK: u16 = (1 << SYMBOL_BITS) - 1;
const LONG: u16 = u16::MAX;

/// The code lengths' own code's symbols, in the order their lengths come.
const LENGTH_CODE_ORDER: [usize; 19] = [
    17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
];

pub struct PrefixCode {
    /// Indexed by the next bits of the stream, as many as the longest
    /// code up to `TABLE_BITS`: small tables stay in the cache.
    table: Vec<u16>,
    /// The length of each entry's code (0 for `LONG`): a byte loaded and
    /// shifted by, where the entry would be unpacked first, on the chain
    /// of loads each symbol waits on.
    lengths: Vec<u8>,
    /// `table.len() - 1`.
    mask: usize,
    /// Codes per length, and the symbols in code order, for codes longer
    /// than the table (empty when there are none).
    counts: [u16; MAX_LENGTH + 1],
    sorted: Vec<u16>,
    /// The length of every code when they all have one (0 for a code of
    /// one symbol): a symbol's length known before its table read, so
    /// the next symbol's read need not wait for it. A channel that does
    /// not compress (noise) has such a code.
    flat: Option<u8>,
}

impl PrefixCode {
    /// The code of an alphabet of `alphabet` symbols, read from `bits`.
    pub fn read(bits: &mut Bits, alphabet: u16, memory: &mut Memory) -> Result<Self, Stop> {
        if bits.read(1)? == 1 {
            // One or two symbols, each in 1 or 8 bits.
            let two = bits.read(1)? == 1;
            let first_bits = if bits.read(1)? == 1 { 8 } else { 1 };
            let first = bits.read(first_bits)? as u16;
            if first >= alphabet {
                return Err(Stop::Corrupt);
            }
            if !two {
                return PrefixCode::single(first, memory);
            }
            let second = bits.read(8)? as u16;
            if second >= alphabet {
                return Err(Stop::Corrupt);
            }
            let entry = |symbol| (1 << SYMBOL_BITS) | symbol;
            return PrefixCode::table(vec![entry(first), entry(second)], memory);
        }
        let mut length_lengths = [0u16; 19];
        let count = 4 + bits.read(4)? as usize;
        for &symbol in &LENGTH_CODE_ORDER[..count] {
            length_lengths[symbol] = bits.read(3)? as u16;
        }
        let length_code = PrefixCode::from_lengths(&length_lengths, memory)?;
        let lengths = read_lengths(bits, &length_code, alphabet)?;
        PrefixCode::from_lengths(&lengths, memory)
    }

    /// A code of one symbol, read in no bits (its entry's length is 0).
    fn single(symbol: u16, memory: &mut Memory) -> Result<Self, Stop> {
        PrefixCode::table(vec![symbol], memory)
    }

    /// A code of the entries in `table` (a power of two of them).
    fn table(table: Vec<u16>, memory: &mut Memory) -> Result<Self, Stop> {
        memory.charge(3 * table.len())?;
        let lengths = table
            .iter()
            .map(|&entry| match entry {
                LONG => 0,
                entry => (entry >> SYMBOL_BITS) as u8,
            })
            .collect::<Vec<u8>>();
        let flat = match (table.contains(&LONG), lengths.first()) {
            (false, Some(&first)) if lengths.iter().all(|&length| length == first) => Some(first),
            _ => None,
        };
        Ok(PrefixCode {
            mask: table.len() - 1,
            table,
            lengths,
            counts: [0; MAX_LENGTH + 1],
            sorted: Vec::new(),
            flat,
        })
    }

    /// A canonical code from its lengths, refused unless it is complete
    /// (one symbol aside, read in no bits).
    fn from_lengths(lengths: &[u16], memory: &mut Memory) -> Result<Self, Stop> {
        let mut counts = [0u16; MAX_LENGTH + 1];
        for &length in lengths.iter().filter(|&&length| length != 0) {
            counts[usize::from(length)] += 1;
        }
        let used: u16 = counts.iter().sum();
        if used <= 1 {
            let symbol = lengths.iter().position(|&length| length != 0);
            let symbol = symbol.ok_or(Stop::Corrupt)?;
            return PrefixCode::single(symbol as u16, memory);
        }
        let longest = counts.iter().rposition(|&n| n != 0).unwrap_or(0);
        // The first code of each length; complete when the codes of the
        // longest length end at its last code.
        let mut next = [0u32; MAX_LENGTH + 1];
        let mut code = 0u32;
        for length in 1..=longest {
            next[length] = code;
            code = (code + u32::from(counts[length])) << 1;
        }
        match code.cmp(&(2 << longest)) {
            std::cmp::Ordering::Less => return Err(Stop::Corrupt),
            std::cmp::Ordering::Greater => return Err(Stop::Oversubscribed),
            std::cmp::Ordering::Equal => {}
        }
        let size = 1 << longest.min(usize::from(TABLE_BITS));
        let mut entries = vec![LONG; size];
        for (symbol, &length) in lengths.iter().enumerate() {
            let length = usize::from(length);
            if length == 0 {
                continue;
            }
            let code = next[length];
            next[length] += 1;
            // Codes are sent from their first bit: the table is indexed by
            // the bits as they come.
            let first = (code.reverse_bits() >> (32 - length)) as usize;
            if length > usize::from(TABLE_BITS) {
                continue;
            }
            let entry = ((length as u16) << SYMBOL_BITS) | symbol as u16;
            for at in (first..size).step_by(1 << length) {
                entries[at] = entry;
            }
        }
        let mut table = PrefixCode::table(entries, memory)?;
        if longest > usize::from(TABLE_BITS) {
            memory.charge(2 * usize::from(used))?;
            table.counts = counts;
            table.sorted = (1..=MAX_LENGTH as u16)
                .flat_map(|length| {
                    (0..lengths.len() as u16).filter(move |&s| lengths[usize::from(s)] == length)
                })
                .collect();
        }
        Ok(table)
    }

    /// Whether the code is read in no bits.
    pub fn is_single(&self) -> bool {
        self.flat == Some(0)
    }

    /// The next symbol. The caller refills first, as the decoder does.
    #[inline(always)]
    pub fn symbol(&self, bits: &mut Bits) -> Result<u16, Stop> {
        let at = self.index(bits);
        let symbol = || self.table.get(at).map_or(0, |&entry| entry & SYMBOL_MASK);
        let (length, symbol) = match self.flat {
            // No bits read (an opaque image's alpha, often).
            Some(0) => return Ok(symbol()),
            Some(length) => (length, symbol()),
            None => match self.lengths.get(at).copied().unwrap_or(0) {
                0 => self.long_code(bits.peek())?,
                length => (length, symbol()),
            },
        };
        bits.consume(length)?;
        Ok(symbol)
    }

    /// Past the next symbol, whose value is not needed (a literal's red,
    /// blue and alpha): only its length is loaded.
    #[inline(always)]
    pub fn skip(&self, bits: &mut Bits) -> Result<(), Stop> {
        let length = match self.flat {
            Some(0) => return Ok(()),
            Some(length) => length,
            None => match self.lengths.get(self.index(bits)).copied().unwrap_or(0) {
                0 => self.long_code(bits.peek())?.0,
                length => length,
            },
        };
        bits.consume(length)
    }

    /// The next symbol and its length when its code is in the table (the
    /// decoder's peek, which reads nothing longer).
    #[inline(always)]
    pub fn peek_short(&self, bits: &Bits) -> Option<(u8, u16)> {
        let entry = self.entry(bits);
        (entry != LONG).then_some(((entry >> SYMBOL_BITS) as u8, entry & SYMBOL_MASK))
    }

    /// The table's entry for the next bits.
    #[inline(always)]
    fn entry(&self, bits: &Bits) -> u16 {
        self.table.get(self.index(bits)).copied().unwrap_or(LONG)
    }

    /// Where the next bits are in the tables.
    #[inline(always)]
    fn index(&self, bits: &Bits) -> usize {
        bits.peek() as usize & self.mask
    }

    /// The length and symbol of a code longer than the table, at the
    /// start of `stream`, counted out a bit at a time.
    #[cold]
    fn long_code(&self, stream: u64) -> Result<(u8, u16), Stop> {
        // `first`: the first code of this length; `index`: its symbol's
        // place in `sorted`.
        let (mut code, mut first, mut index) = (0u32, 0u32, 0u32);
        for length in 1..=MAX_LENGTH {
            code |= ((stream >> (length - 1)) & 1) as u32;
            let count = u32::from(self.counts[length]);
            if code < first + count {
                let symbol = self.sorted.get((index + code - first) as usize);
                return Ok((length as u8, *symbol.ok_or(Stop::Corrupt)?));
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(Stop::Corrupt)
    }
}

/// The code lengths of an alphabet, read through their own code: a
/// length, or the previous non-zero length (8 at first) or 0 repeated.
fn read_lengths(bits: &mut Bits, code: &PrefixCode, alphabet: u16) -> Result<Vec<u16>, Stop> {
    let mut left = if bits.read(1)? == 1 {
        let width = 2 + 2 * bits.read(3)? as u8;
        let max = bits.read(width)?;
        if max > u32::from(alphabet) - 2 {
            return Err(Stop::Corrupt);
        }
        2 + max
    } else {
        u32::from(alphabet)
    };
    let alphabet = usize::from(alphabet);
    let mut lengths = vec![0u16; alphabet];
    let mut previous = 8;
    let mut symbol = 0;
    while symbol < alphabet && left > 0 {
        left -= 1;
        bits.refill();
        let length = code.symbol(bits)?;
        if length < 16 {
            lengths[symbol] = length;
            symbol += 1;
            if length != 0 {
                previous = length;
            }
            continue;
        }
        let (extra, base, repeated) = match length {
            16 => (2, 3, previous),
            17 => (3, 3, 0),
            _ => (7, 11, 0),
        };
        let repeat = (bits.read(extra)? + base) as usize;
        let run = lengths
            .get_mut(symbol..symbol + repeat)
            .ok_or(Stop::Corrupt)?;
        run.fill(repeated);
        symbol += repeat;
    }
    Ok(lengths)
}
