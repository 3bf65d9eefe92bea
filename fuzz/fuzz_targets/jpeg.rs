//! The JPEG rows decoder (`src/image_fit/jpeg/`), which reads a scan a row
//! of units at a time for a fit, against `jpeg-decoder`.
//!
//! Input: a control byte (its value modulo 3 picks 1/8, 2/8 or 4/8 of the
//! size), then the JPEG. Invariants: nothing panics or hangs; a JPEG the
//! decoder takes gives exactly its header's rows at the scale, each as long
//! as its header says, or an error; where `jpeg-decoder` too decodes it at
//! that scale, the two outputs are the same size. (Damaged scans may be
//! read differently: where the rows decoder fails and `jpeg-decoder` does
//! not, a fit decodes with `jpeg-decoder`, a Rust test in
//! `src/image_fit/tests.rs`.)

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use mcp_content::image_fit::jpeg_rows_decoded;

fuzz_target!(|data: &[u8]| {
    let Some((&control, jpeg)) = data.split_first() else {
        return;
    };
    let eighths = [1, 2, 4][usize::from(control % 3)];
    let Some(decoded) = jpeg_rows_decoded(jpeg, eighths) else {
        return;
    };
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(jpeg));
    if decoder.read_info().is_err() {
        return;
    }
    let Some(info) = decoder.info() else { return };
    let side = |s: u16| u16::try_from((u32::from(s) * eighths).div_ceil(8)).unwrap_or(u16::MAX);
    if decoder.scale(side(info.width), side(info.height)).is_err() {
        return;
    }
    if let (Ok(theirs), Ok(ours)) = (decoder.decode(), decoded) {
        assert_eq!(ours.len(), theirs.len());
    }
});
