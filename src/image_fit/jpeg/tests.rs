//! The rows decoder against `jpeg-decoder` at the same scale, on JPEGs
//! made by `jpeg-encoder`: every sampling it takes, grey, RGB, restart
//! markers, sides not whole units; and what it leaves to `jpeg-decoder`.

use std::io::Cursor;

use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

use super::{decodes_at, read, JpegRows};

/// A photo-like image: gradients, a pattern, some noise.
fn pixels(width: usize, height: usize, channels: usize) -> Vec<u8> {
    let mut seed = 12345u32;
    let mut data = Vec::with_capacity(width * height * channels);
    for y in 0..height {
        for x in 0..width {
            for c in 0..channels {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let noise = (seed >> 24) % 24;
                let wave = ((x as f32 / 7.0).sin() * (y as f32 / 11.0).cos() * 60.0) as i32;
                let ramp = (x * 255 / width + c * 40 + y * 100 / height) as i32;
                data.push((ramp + wave + noise as i32).clamp(0, 255) as u8);
            }
        }
    }
    data
}

fn encoded(
    width: u16,
    height: u16,
    color: ColorType,
    set: impl FnOnce(&mut Encoder<&mut Vec<u8>>),
) -> Vec<u8> {
    let channels = match color {
        ColorType::Luma => 1,
        ColorType::Cmyk => 4,
        _ => 3,
    };
    let data = pixels(usize::from(width), usize::from(height), channels);
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out, 90);
    set(&mut encoder);
    encoder.encode(&data, width, height, color).unwrap();
    out
}

/// Every row the rows decoder gives at `eighths`.
fn decoded_here(bytes: &[u8], eighths: u32) -> Vec<u8> {
    let header = read(bytes).expect("a JPEG decoded here");
    assert!(decodes_at(&header, eighths));
    let mut rows = JpegRows::new(bytes, &header, eighths).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        out.extend_from_slice(row);
    }
    out
}

/// `jpeg-decoder`'s output at `eighths`.
fn decoded_there(bytes: &[u8], eighths: u32) -> Vec<u8> {
    let header = read(bytes).unwrap();
    let side = |s: u32| u16::try_from((s * eighths).div_ceil(8)).unwrap();
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    decoder.read_info().unwrap();
    decoder
        .scale(side(header.width), side(header.height))
        .unwrap();
    decoder.decode().unwrap()
}

/// `jpeg-decoder`'s output at full size, each block of `8 / eighths`
/// pixels a side averaged: what a scaled decode stands for.
fn averaged(bytes: &[u8], eighths: u32, channels: usize) -> Vec<u8> {
    let header = read(bytes).unwrap();
    let (width, height) = (header.width as usize, header.height as usize);
    let full = jpeg_decoder::Decoder::new(Cursor::new(bytes))
        .decode()
        .unwrap();
    let step = 8 / eighths as usize;
    let mut out = Vec::new();
    for y in (0..height).step_by(step) {
        for x in (0..width).step_by(step) {
            for c in 0..channels {
                let (mut sum, mut n) = (0u32, 0u32);
                for yy in y..(y + step).min(height) {
                    for xx in x..(x + step).min(width) {
                        sum += u32::from(full[(yy * width + xx) * channels + c]);
                        n += 1;
                    }
                }
                out.push(((sum + n / 2) / n) as u8);
            }
        }
    }
    out
}

fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let squares: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum();
    let mse = squares / a.len() as f64;
    if mse == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0 * 255.0 / mse).log10()
}

#[test]
fn every_sampling_decodes_as_jpeg_decoder_decodes_it_at_each_scale() {
    let samplings = [
        SamplingFactor::F_1_1,
        SamplingFactor::F_2_1,
        SamplingFactor::F_1_2,
        SamplingFactor::F_2_2,
    ];
    for sampling in samplings {
        // Sides that are not whole units.
        let bytes = encoded(203, 151, ColorType::Rgb, |e| {
            e.set_sampling_factor(sampling)
        });
        for eighths in [1, 2, 4] {
            let here = decoded_here(&bytes, eighths);
            let there = decoded_there(&bytes, eighths);
            // jpeg-decoder upsamples chroma made at the scale; here it is
            // made at the output's size: close, not the same, and no
            // further from the full-size decode averaged.
            let score = psnr(&here, &there);
            assert!(score > 36.0, "{sampling:?} at {eighths}/8: {score:.1} dB");
            let truth = averaged(&bytes, eighths, 3);
            let (ours, theirs) = (psnr(&here, &truth), psnr(&there, &truth));
            assert!(
                ours > theirs - 0.5,
                "{sampling:?} at {eighths}/8: {ours:.1} dB here, {theirs:.1} there"
            );
        }
    }
}

#[test]
fn grey_and_restart_markers_decode_as_jpeg_decoder_decodes_them() {
    let grey = encoded(301, 77, ColorType::Luma, |_| {});
    let restarts = encoded(250, 130, ColorType::Rgb, |e| e.set_restart_interval(3));
    // Ids R, G and B: samples taken as they are, by both.
    let mut rgb = encoded(90, 60, ColorType::Rgb, |e| {
        e.set_sampling_factor(SamplingFactor::F_1_1)
    });
    let ids = |jpeg: &[u8], marker: u8| {
        let at = jpeg.windows(2).position(|w| w == [0xFF, marker]).unwrap();
        if marker == 0xC0 {
            [at + 10, at + 13, at + 16]
        } else {
            [at + 5, at + 7, at + 9]
        }
    };
    for marker in [0xC0, 0xDA] {
        for (at, id) in ids(&rgb, marker).into_iter().zip(*b"RGB") {
            // jpeg-encoder numbers them from 0.
            assert!(rgb[at] < 3);
            rgb[at] = id;
        }
    }
    assert!(read(&rgb).unwrap().rgb);
    for (name, bytes) in [("grey", grey), ("restarts", restarts), ("rgb", rgb)] {
        assert!(name != "restarts" || bytes.windows(2).any(|w| w == [0xFF, 0xD3]));
        for eighths in [1, 2, 4] {
            let score = psnr(
                &decoded_here(&bytes, eighths),
                &decoded_there(&bytes, eighths),
            );
            // Grey and 4:2:0 chroma: only the IDCTs' rounding differs.
            assert!(score > 40.0, "{name} at {eighths}/8: {score:.1} dB");
        }
    }
}

#[test]
fn what_is_not_decoded_here_is_left_to_jpeg_decoder() {
    // Progressive: many scans.
    assert!(read(&encoded(64, 64, ColorType::Rgb, |e| e.set_progressive(true))).is_none());
    // Sampling by 4: a scan for each component.
    assert!(read(&encoded(64, 64, ColorType::Rgb, |e| e
        .set_sampling_factor(SamplingFactor::F_4_1)))
    .is_none());
    // CMYK: four components.
    assert!(read(&encoded(64, 64, ColorType::Cmyk, |_| {})).is_none());
    // 4:2:0 at full size: chroma would be upsampled.
    let full = read(&encoded(64, 64, ColorType::Rgb, |e| {
        e.set_sampling_factor(SamplingFactor::F_2_2)
    }))
    .unwrap();
    assert!(!decodes_at(&full, 8) && decodes_at(&full, 4));
    // Two frames: not read here.
    let bytes = encoded(64, 64, ColorType::Rgb, |_| {});
    let sof = bytes.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    let length = usize::from(u16::from_be_bytes([bytes[sof + 2], bytes[sof + 3]]));
    let mut two = bytes[..sof + 2 + length].to_vec();
    two.extend_from_slice(&bytes[sof..]);
    assert!(read(&two).is_none());
    // Cut short anywhere in its headers: not read here.
    let bytes = encoded(64, 64, ColorType::Rgb, |_| {});
    let data = read(&bytes).unwrap().data;
    for end in 0..data {
        assert!(read(&bytes[..end]).is_none(), "{end}");
    }
}

#[test]
fn a_scan_cut_short_or_corrupted_gives_rows_or_an_error_never_a_panic() {
    let bytes = encoded(120, 90, ColorType::Rgb, |e| e.set_restart_interval(2));
    let header = read(&bytes).unwrap();
    let mut seed = 7u32;
    for round in 0..400 {
        let mut broken = bytes.clone();
        if round % 2 == 0 {
            broken.truncate(header.data + round * 7 % (bytes.len() - header.data));
        } else {
            for _ in 0..8 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let at = header.data + (seed as usize >> 8) % (bytes.len() - header.data);
                broken[at] = (seed >> 3) as u8;
            }
        }
        for eighths in [1, 2, 4] {
            let mut rows = JpegRows::new(&broken, &header, eighths).unwrap();
            let mut given = 0;
            loop {
                match rows.next_row() {
                    Ok(Some(row)) => {
                        assert_eq!(row.len(), (120 * eighths as usize).div_ceil(8) * 3);
                        given += 1;
                    }
                    Ok(None) => {
                        assert_eq!(given, (90 * eighths as usize).div_ceil(8));
                        break;
                    }
                    Err(_) => break,
                }
            }
        }
    }
}
