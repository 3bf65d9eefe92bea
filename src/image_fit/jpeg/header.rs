//! A JPEG's markers read up to its first scan, for the rows decoder: only
//! what it decodes is taken (one baseline or extended Huffman-coded scan
//! of every component, 8-bit samples, one or three components); anything
//! else, or anything malformed, is left to `jpeg-decoder` (`None`), which
//! says what is wrong with it.

use super::huffman::Table;

/// Where the coefficient at each place in the zigzag order goes in a block
/// stored a row after another.
pub const ZIGZAG: [u8; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

#[derive(Clone, Debug)]
pub struct Component {
    pub id: u8,
    /// Blocks across and down in a unit of the scan.
    pub h: u8,
    pub v: u8,
    /// Its quantisation table, in zigzag order.
    pub quant: [u16; 64],
    /// Its Huffman tables.
    pub dc: Table,
    pub ac: Table,
}

#[derive(Clone, Debug)]
pub struct Header {
    pub width: u32,
    pub height: u32,
    /// In the order the scan codes them.
    pub components: Vec<Component>,
    /// Units of the scan between restart markers (0: none).
    pub restart_interval: u16,
    /// Three components stored as R, G and B, not Y, Cb and Cr.
    pub rgb: bool,
    /// Where the scan's coded data starts.
    pub data: usize,
}

/// The frame header: sides, and each component's id, blocks across and
/// down in a unit, and quantisation table.
struct Frame {
    width: u32,
    height: u32,
    parts: Vec<FramePart>,
}

struct FramePart {
    id: u8,
    h: u8,
    v: u8,
    quant: u8,
}

/// A JPEG's segment lengths and marker bytes, read without going past its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn word(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes([self.byte()?, self.byte()?]))
    }
}

/// The header of `bytes` when it is a JPEG the rows decoder decodes.
pub fn read(bytes: &[u8]) -> Option<Header> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut r = Reader { bytes, at: 2 };
    let mut quant: [Option<[u16; 64]>; 4] = [None; 4];
    let mut dc: [Option<Table>; 4] = Default::default();
    let mut ac: [Option<Table>; 4] = Default::default();
    let mut frame = None;
    let mut restart_interval = 0;
    let mut jfif = false;
    let mut adobe_transform = None;
    loop {
        if r.byte()? != 0xFF {
            return None;
        }
        let mut marker = r.byte()?;
        // Fill bytes before a marker.
        while marker == 0xFF {
            marker = r.byte()?;
        }
        let length = usize::from(r.word()?);
        let end = r.at.checked_add(length.checked_sub(2)?)?;
        if end > bytes.len() {
            return None;
        }
        let mut segment = Reader {
            bytes: &bytes[..end],
            at: r.at,
        };
        match marker {
            // Baseline and extended sequential, Huffman-coded; one frame.
            0xC0 | 0xC1 if frame.is_none() => frame = Some(read_frame(&mut segment)?),
            // A second frame, or any other: progressive, lossless,
            // arithmetic-coded.
            0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return None,
            0xC4 => read_huffman(&mut segment, &mut dc, &mut ac)?,
            0xDB => read_quant(&mut segment, &mut quant)?,
            0xDD => restart_interval = segment.word()?,
            0xE0 if segment.bytes[segment.at..].starts_with(b"JFIF\0") => jfif = true,
            0xEE if segment.bytes[segment.at..].starts_with(b"Adobe") && length >= 14 => {
                adobe_transform = Some(segment.bytes[segment.at + 11]);
            }
            0xDA => {
                let Frame {
                    width,
                    height,
                    parts,
                } = frame?;
                let components = read_scan(&mut segment, &parts, &quant, &dc, &ac)?;
                let ids: Vec<u8> = parts.iter().map(|p| p.id).collect();
                let rgb = stored_as_rgb(&ids, jfif, adobe_transform)?;
                return Some(Header {
                    width,
                    height,
                    components,
                    restart_interval,
                    rgb,
                    data: end,
                });
            }
            // Not a marker with a segment: start, end, restart.
            0xD0..=0xD9 | 0x01 => return None,
            _ => {}
        }
        r.at = end;
    }
}

/// Whether three components are R, G and B rather than Y, Cb and Cr, as
/// `jpeg-decoder` decides it (the ids in the frame's order, then a JFIF
/// marker, then Adobe's transform); `None` for what is neither.
fn stored_as_rgb(ids: &[u8], jfif: bool, adobe_transform: Option<u8>) -> Option<bool> {
    match ids {
        [_] | [1, 2, 3] => Some(false),
        b"RGB" => Some(true),
        // Big gamut YCC and RGB (libjpeg-turbo's), converted otherwise.
        [1, 34, 35] | b"rgb" => None,
        _ if jfif => Some(false),
        _ => match adobe_transform {
            None | Some(1) => Some(false),
            Some(0) => Some(true),
            // YCCK, or no transform Adobe defines.
            Some(_) => None,
        },
    }
}

fn read_frame(r: &mut Reader) -> Option<Frame> {
    let precision = r.byte()?;
    let height = u32::from(r.word()?);
    let width = u32::from(r.word()?);
    let count = r.byte()?;
    if precision != 8 || width == 0 || height == 0 || !matches!(count, 1 | 3) {
        return None;
    }
    let mut parts: Vec<FramePart> = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let id = r.byte()?;
        let sampling = r.byte()?;
        let (h, v) = (sampling >> 4, sampling & 15);
        let quant = r.byte()?;
        if !(1..=4).contains(&h) || !(1..=4).contains(&v) || quant > 3 {
            return None;
        }
        if parts.iter().any(|p| p.id == id) {
            return None;
        }
        parts.push(FramePart { id, h, v, quant });
    }
    Some(Frame {
        width,
        height,
        parts,
    })
}

fn read_quant(r: &mut Reader, quant: &mut [Option<[u16; 64]>; 4]) -> Option<()> {
    while r.at < r.bytes.len() {
        let spec = r.byte()?;
        let (wide, index) = (spec >> 4, usize::from(spec & 15));
        if wide > 1 || index > 3 {
            return None;
        }
        let mut table = [0; 64];
        for value in &mut table {
            *value = if wide == 1 {
                r.word()?
            } else {
                u16::from(r.byte()?)
            };
        }
        quant[index] = Some(table);
    }
    Some(())
}

fn read_huffman(
    r: &mut Reader,
    dc: &mut [Option<Table>; 4],
    ac: &mut [Option<Table>; 4],
) -> Option<()> {
    while r.at < r.bytes.len() {
        let spec = r.byte()?;
        let (class, index) = (spec >> 4, usize::from(spec & 15));
        if class > 1 || index > 3 {
            return None;
        }
        let mut counts = [0u8; 16];
        for count in &mut counts {
            *count = r.byte()?;
        }
        let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        let symbols = r.bytes.get(r.at..r.at.checked_add(total)?)?;
        r.at += total;
        let table = Table::new(&counts, symbols, class == 1)?;
        if class == 0 {
            dc[index] = Some(table);
        } else {
            ac[index] = Some(table);
        }
    }
    Some(())
}

/// The scan's components, in its order: it must code every component of
/// the frame, all of it (baseline: coefficients 0 to 63, no refinement).
fn read_scan(
    r: &mut Reader,
    parts: &[FramePart],
    quant: &[Option<[u16; 64]>; 4],
    dc: &[Option<Table>; 4],
    ac: &[Option<Table>; 4],
) -> Option<Vec<Component>> {
    let count = usize::from(r.byte()?);
    if count != parts.len() {
        return None;
    }
    let mut components: Vec<Component> = Vec::with_capacity(count);
    for _ in 0..count {
        let id = r.byte()?;
        let tables = r.byte()?;
        let (dc_index, ac_index) = (usize::from(tables >> 4), usize::from(tables & 15));
        let part = parts.iter().find(|p| p.id == id)?;
        if components.iter().any(|c| c.id == id) {
            return None;
        }
        // One component alone is coded a block at a time.
        let (h, v) = if count == 1 { (1, 1) } else { (part.h, part.v) };
        components.push(Component {
            id,
            h,
            v,
            quant: (*quant.get(usize::from(part.quant))?)?,
            dc: dc.get(dc_index)?.clone()?,
            ac: ac.get(ac_index)?.clone()?,
        });
    }
    let (start, end, approximation) = (r.byte()?, r.byte()?, r.byte()?);
    if (start, end, approximation) != (0, 63, 0) {
        return None;
    }
    // More than ten blocks in a unit is not a JPEG.
    let blocks: u32 = components
        .iter()
        .map(|c| u32::from(c.h) * u32::from(c.v))
        .sum();
    (blocks <= 10).then_some(components)
}
