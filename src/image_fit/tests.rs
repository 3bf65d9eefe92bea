use super::decode::{decode, Pixels};
use super::*;
use super::{shrink, source};

fn png_of(width: u32, height: u32, channels: u8, pixel: impl Fn(u32, u32) -> Vec<u8>) -> Vec<u8> {
    let mut data = Vec::new();
    for y in 0..height {
        for x in 0..width {
            data.extend(pixel(x, y));
        }
    }
    png_whole(&Pixels {
        width,
        height,
        channels,
        data,
    })
}

/// `p` as PNG, encoded whole.
fn png_whole(p: &Pixels) -> Vec<u8> {
    let rows = &mut encode::WholeRows::new(p);
    let out = encode::encode(rows, encode::Encoding::Png, u64::MAX, false).unwrap();
    out.bytes.unwrap()
}

const ANY: Target = Target {
    max_side: Some(8000),
    max_bytes: 3_932_160,
    png: true,
    jpeg: true,
};

#[test]
fn sides_are_scaled_keeping_the_aspect_ratio() {
    assert_eq!(scaled(1280, 20000, Some(8000)), (512, 8000));
    assert_eq!(scaled(30000, 100, Some(8000)), (8000, 27));
    assert_eq!(scaled(100000, 1, Some(2000)), (2000, 1));
    assert_eq!(scaled(800, 600, Some(8000)), (800, 600));
    assert_eq!(scaled(800, 600, None), (800, 600));
}

#[test]
fn a_downscaled_checkerboard_is_still_one() {
    // 40 px squares, 8 across and 400 down: 320x16000, past 8000 px.
    let png = png_of(320, 16000, 1, |x, y| {
        vec![if (x / 40 + y / 40) % 2 == 0 { 0 } else { 255 }]
    });
    let fitted = fit(&png, &ANY, false).unwrap();
    assert_eq!((fitted.width, fitted.height), (160, 8000));
    assert_eq!(fitted.media_type, "image/png");
    let back = decode(&fitted.bytes).unwrap().pixels;
    // The centre of each 20 px square keeps its colour.
    for (sx, sy) in [(0, 0), (1, 0), (0, 1), (7, 399), (6, 399)] {
        let (x, y) = (sx * 20 + 10, sy * 20 + 10);
        let v = back.data[(y * back.width + x) as usize];
        let want = if (sx + sy) % 2 == 0 { 0 } else { 255 };
        assert!(v.abs_diff(want) < 8, "square {sx},{sy}: {v}");
    }
}

#[test]
fn a_bomb_header_is_refused_before_decoding() {
    // A PNG header claiming 100000 x 100000 and nothing more.
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend(100_000u32.to_be_bytes());
    png.extend(100_000u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0]);
    let crc = crc32fast::hash(&png[12..29]);
    png.extend(crc.to_be_bytes());
    assert_eq!(
        fit(&png, &ANY, false).unwrap_err(),
        FitError::TooManyPixels {
            width: 100_000,
            height: 100_000
        }
    );
}

#[test]
fn transparent_pixels_become_white_in_jpeg() {
    // Fully transparent black and half-transparent red, noisy enough to
    // look like a photo; only JPEG fits the byte limit.
    let png = png_of(300, 300, 4, |x, y| {
        let h =
            (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)).wrapping_mul(2_246_822_519);
        let [a, b, c, _] = h.to_le_bytes();
        if x < 150 {
            vec![a, b, c, 0]
        } else {
            vec![200 + a / 8, 100 + b / 8, 100 + c / 8, 128]
        }
    });
    let target = Target {
        max_side: None,
        max_bytes: 40_000,
        png: true,
        jpeg: true,
    };
    let fitted = fit(&png, &target, false).unwrap();
    assert_eq!(fitted.media_type, "image/jpeg");
    let back = decode(&fitted.bytes).unwrap().pixels;
    assert_eq!(back.channels, 3);
    let at = |x: u32, y: u32| {
        let i = ((y * back.width + x) * 3) as usize;
        &back.data[i..i + 3]
    };
    assert!(at(20, 20).iter().all(|&c| c > 245), "{:?}", at(20, 20));
    let red = at(250, 150);
    assert!(red[0] > 210 && red[1] > 160 && red[1] < 200, "{red:?}");
}

#[test]
fn sixteen_bit_grey_with_alpha_keeps_its_alpha_in_png() {
    let image = image::ImageBuffer::<image::LumaA<u16>, _>::from_fn(64, 9000, |x, _| {
        image::LumaA([if x < 32 { 0 } else { 65535 }, 32768])
    });
    let mut png = Vec::new();
    image::DynamicImage::ImageLumaA16(image)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let fitted = fit(&png, &ANY, false).unwrap();
    assert_eq!((fitted.media_type, fitted.height), ("image/png", 8000));
    let back = decode(&fitted.bytes).unwrap().pixels;
    assert_eq!(back.channels, 2);
    assert_eq!(&back.data[..2], &[0, 128]);
}

#[test]
fn other_formats_decode() {
    let mut bmp = Vec::new();
    image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(5, 3, image::Rgb([1, 2, 3])))
        .write_to(&mut std::io::Cursor::new(&mut bmp), image::ImageFormat::Bmp)
        .unwrap();
    let fitted = fit(&bmp, &ANY, false).unwrap();
    assert_eq!(
        (fitted.media_type, fitted.width, fitted.height),
        ("image/png", 5, 3)
    );
    assert!(decodes("image/tiff") && decodes("image/vnd.microsoft.icon"));
    assert!(!decodes("image/heic"));
    assert!(matches!(
        fit(b"not an image", &ANY, false),
        Err(FitError::Decode(_))
    ));
}

/// A PNG whose header says `width` x `height` (the decoders read no
/// further before decoding pixels): a 1x1 image at `bit_depth` and
/// `colour_type`, its IHDR's sides changed and CRC summed again.
fn png_header(width: u32, height: u32, bit_depth: u8, colour_type: u8) -> Vec<u8> {
    let mut png = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut png, 1, 1);
    encoder.set_depth(if bit_depth == 16 {
        ::png::BitDepth::Sixteen
    } else {
        ::png::BitDepth::Eight
    });
    encoder.set_color(::png::ColorType::from_u8(colour_type).unwrap());
    let samples = [0, 0, 3, 0, 2, 0, 4][usize::from(colour_type)] * usize::from(bit_depth / 8);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&vec![0; samples]).unwrap();
    writer.finish().unwrap();
    png[16..20].copy_from_slice(&width.to_be_bytes());
    png[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32fast::hash(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    png
}

#[test]
fn a_sixteen_bit_image_decoded_whole_over_the_decode_limit_is_refused_before_allocating() {
    // 8000x8000 RGBA at 16 bits, interlaced (decoded whole): 512,000,000
    // bytes decoded, over 256 MiB.
    let mut png = png_header(8000, 8000, 16, 6);
    png[28] = 1;
    let crc = crc32fast::hash(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    let error = fit(&png, &ANY, false).unwrap_err();
    assert_eq!(error, FitError::TooManyBytes { bytes: 512_000_000 });
    assert_eq!(
        error.to_string(),
        "decoded it would take 489 MiB, more than the 256 MiB decoded at most"
    );
    // Not interlaced, it is read a row at a time and its output rows go
    // into the encoder as they are made: its peak is the strips (a group
    // of output rows among them), the group the encoder's thread holds,
    // the encoder's rows and the encoded bytes kept (at most the byte
    // limit), not the output's 256,000,000 bytes.
    let rows = png_header(8000, 8000, 16, 6);
    let source = source::open(&rows).unwrap();
    let peak = source.peak_bytes(8000, 8000, ANY.max_bytes);
    assert!((ANY.max_bytes..48 << 20).contains(&peak), "{peak}");
    // Without a byte limit, the encoded bytes kept may be as many as the
    // pixels and a sixteenth: still within the budget.
    let unlimited = source.peak_bytes(8000, 8000, u64::MAX);
    assert!(unlimited >= peak + 256_000_000 + 16_000_000 - ANY.max_bytes);
    assert!(unlimited <= DEFAULT_BUDGET, "{unlimited}");
    // Made 4 times smaller, it needs less.
    let small = source.peak_bytes(2000, 2000, ANY.max_bytes);
    assert!(small < peak, "{small}");
}

/// A JPEG whose frame header says `width` x `height`: a 16x16 RGB image,
/// baseline or progressive, its SOF's sides changed (the decoders read
/// the headers only before decoding pixels).
fn jpeg_header(progressive: bool, width: u16, height: u16) -> Vec<u8> {
    let mut jpeg = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, 85);
    encoder.set_progressive(progressive);
    encoder
        .encode(&[90; 16 * 16 * 3], 16, 16, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    let sof = jpeg
        .windows(2)
        .position(|w| w == [0xFF, if progressive { 0xC2 } else { 0xC0 }])
        .unwrap();
    jpeg[sof + 5..sof + 7].copy_from_slice(&height.to_be_bytes());
    jpeg[sof + 7..sof + 9].copy_from_slice(&width.to_be_bytes());
    jpeg
}

#[test]
fn a_progressive_jpeg_counts_its_coefficients() {
    let (baseline, progressive) = (
        jpeg_header(false, 8000, 8000),
        jpeg_header(true, 8000, 8000),
    );
    let baseline = source::open(&baseline).unwrap();
    let progressive = source::open(&progressive).unwrap();
    // Three components at 2 bytes a sample, at full size, whatever the
    // scale it is decoded at.
    for side in [4000, 1000] {
        let (p, b) = (
            progressive.peak_bytes(side, side, ANY.max_bytes),
            baseline.peak_bytes(side, side, ANY.max_bytes),
        );
        assert!(p >= 2 * 3 * 8000 * 8000 && b < p / 2, "{side}: {p} {b}");
    }
    // Whole, its output's copies outweigh its coefficients.
    assert!(
        progressive.peak_bytes(8000, 8000, ANY.max_bytes)
            >= baseline.peak_bytes(8000, 8000, ANY.max_bytes)
    );
    assert!(progressive.peak_bytes(8000, 8000, ANY.max_bytes) <= DEFAULT_BUDGET);
    // Decoded at 1/8 of its size, a baseline JPEG needs a fraction: its
    // output and samples, and the groups handed to the encoder's thread.
    assert!(baseline.peak_bytes(1000, 1000, ANY.max_bytes) < 3 * 3_000_000 + (16 << 20));
}

#[test]
fn a_fit_larger_than_the_whole_budget_is_refused_with_its_need() {
    let png = png_of(300, 200, 3, |x, y| vec![x as u8, y as u8, 7]);
    let budget = Budget::new(1 << 20);
    let error = fit_within(&png, &ANY, false, &budget).unwrap_err();
    // At least the encoded bytes kept (no more than the output's 180,000
    // and a sixteenth), the encoder's rows and its state, and 1 MiB.
    let needs = source::open(&png)
        .unwrap()
        .peak_bytes(300, 200, ANY.max_bytes);
    assert!(needs >= 180_000 + 180_000 / 16 + (2 << 20), "{needs}");
    assert_eq!(
        error,
        FitError::OverBudget {
            needs,
            budget: 1 << 20
        }
    );
    assert_eq!(
        error.to_string(),
        "fitting it needs about 4 MiB, more than the 1 MiB all images being fitted may hold"
    );
    assert_eq!(budget.high_water(), 0);
    // Within a budget that holds it, it fits, and gives its bytes back.
    let budget = Budget::new(needs);
    let target = Target {
        max_side: Some(100),
        ..ANY
    };
    let fitted = fit_within(&png, &target, false, &budget).unwrap();
    assert_eq!((fitted.width, fitted.height), (100, 67));
    // What it took follows the output: the rows read, a few strips.
    let smaller = source::open(&png)
        .unwrap()
        .peak_bytes(100, 67, ANY.max_bytes);
    assert!(smaller < needs);
    assert_eq!(budget.high_water(), smaller);
    drop(budget.acquire(needs).unwrap());
}

#[test]
fn fits_in_progress_never_hold_more_than_the_budget() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let budget = Budget::new(1000);
    let held = AtomicU64::new(0);
    let most = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (budget, held, most) = (&budget, &held, &most);
            s.spawn(move || {
                for i in 0..50u64 {
                    let bytes = 100 + (t * 131 + i * 71) % 500;
                    let permit = budget.acquire(bytes).unwrap();
                    let now = held.fetch_add(bytes, Ordering::SeqCst) + bytes;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::yield_now();
                    held.fetch_sub(bytes, Ordering::SeqCst);
                    drop(permit);
                }
            });
        }
    });
    let most = most.load(Ordering::SeqCst);
    assert!(most <= 1000, "{most} held at once");
    assert!(budget.high_water() <= 1000);
    drop(budget.acquire(1000).unwrap());
    // Several at once, not one at a time: two that fit are both held
    // (one thread, so a budget that served one at a time would hang).
    let both = (budget.acquire(400).unwrap(), budget.acquire(600).unwrap());
    assert_eq!(budget.waiting(), 0);
    drop(both);
}

#[test]
fn a_large_fit_waiting_is_not_passed_over_by_small_ones() {
    let budget = Budget::new(1000);
    let order = std::sync::Mutex::new(Vec::new());
    let first = budget.acquire(900).unwrap();
    std::thread::scope(|s| {
        let wait_for = |waiting: u64| {
            while budget.waiting() < waiting {
                std::thread::yield_now();
            }
        };
        // 960 and 50 never fit together, so "large" is pushed before
        // "small" can get its permit: the order below is the budget's.
        s.spawn(|| {
            let _permit = budget.acquire(960).unwrap();
            order.lock().unwrap().push("large");
        });
        wait_for(1);
        // 50 would fit beside the 900, but the 960 came first.
        s.spawn(|| {
            let _permit = budget.acquire(50).unwrap();
            order.lock().unwrap().push("small");
        });
        wait_for(2);
        drop(first);
    });
    assert_eq!(*order.lock().unwrap(), ["large", "small"]);
}

#[test]
fn memory_that_cannot_be_had_is_an_error_not_an_abort() {
    assert!(matches!(
        memory::zeroed(usize::MAX / 2),
        Err(FitError::OutOfMemory { .. })
    ));
    assert!(matches!(
        memory::probe(u64::MAX),
        Err(FitError::OutOfMemory { .. })
    ));
    use std::io::Write;
    let mut out = memory::Output::new(u64::MAX, 3);
    out.write_all(b"abc").unwrap();
    assert_eq!(out.bytes, b"abc");
    // Past its limit, an output is let go and only counted.
    let mut out = memory::Output::new(4, 100);
    out.write_all(b"abc").unwrap();
    assert_eq!(out.bytes, b"abc");
    out.write_all(b"de").unwrap();
    assert_eq!((out.len, out.bytes.capacity()), (5, 0));
}

#[test]
fn every_orientation_turns_as_image_does() {
    use image::metadata::Orientation::*;
    let rgb = image::RgbImage::from_fn(3, 2, |x, y| image::Rgb([x as u8, y as u8, 9]));
    for orientation in [
        NoTransforms,
        Rotate90,
        Rotate180,
        Rotate270,
        FlipHorizontal,
        FlipVertical,
        Rotate90FlipH,
        Rotate270FlipH,
    ] {
        let mut want = image::DynamicImage::ImageRgb8(rgb.clone());
        want.apply_orientation(orientation);
        let pixels = Pixels {
            width: 3,
            height: 2,
            channels: 3,
            data: rgb.as_raw().clone(),
        };
        let got = decode::oriented(pixels, orientation).unwrap();
        assert_eq!(
            (got.width, got.height, &got.data),
            (
                want.width(),
                want.height(),
                want.as_bytes().to_vec().as_ref()
            ),
            "{orientation:?}"
        );
    }
}

/// `data` (`width` x `height`, `channels`) made `out_width` x
/// `out_height` by fast_image_resize in one call (Lanczos3, alpha
/// premultiplied), and by a [`shrink::Shrink`] a row at a time.
fn one_call_and_rows(
    data: &[u8],
    (width, height, channels): (u32, u32, u8),
    (out_width, out_height): (u32, u32),
) -> (Vec<u8>, Vec<u8>) {
    use fast_image_resize::images::{Image, ImageRef};
    use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
    let kind = [
        PixelType::U8,
        PixelType::U8x2,
        PixelType::U8x3,
        PixelType::U8x4,
    ][usize::from(channels) - 1];
    let src = ImageRef::new(width, height, data, kind).unwrap();
    let mut dst = Image::new(out_width, out_height, kind);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
    Resizer::new().resize(&src, &mut dst, &options).unwrap();
    let mut shrink = shrink::Shrink::new(width, height, channels, out_width, out_height).unwrap();
    for row in data.chunks_exact((width * u32::from(channels)) as usize) {
        shrink.push(row).unwrap();
    }
    let ours = shrink.finish().unwrap();
    assert_eq!(
        (ours.width, ours.height, ours.channels),
        (out_width, out_height, channels)
    );
    (dst.into_vec(), ours.data)
}

/// The largest difference between two images, in colour times alpha (a
/// clear pixel's colour does not show) and in alpha.
fn largest_difference(a: &[u8], b: &[u8], channels: u8) -> u32 {
    assert_eq!(a.len(), b.len());
    let n = usize::from(channels);
    let alpha = n == 2 || n == 4;
    a.chunks_exact(n)
        .zip(b.chunks_exact(n))
        .flat_map(|(p, q)| {
            let (pa, qa) = if alpha {
                (u32::from(p[n - 1]), u32::from(q[n - 1]))
            } else {
                (255, 255)
            };
            (0..n).map(move |i| {
                if alpha && i == n - 1 {
                    pa.abs_diff(qa)
                } else {
                    (u32::from(p[i]) * pa).abs_diff(u32::from(q[i]) * qa) / 255
                }
            })
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn a_shrink_row_by_row_matches_one_resize_of_the_whole() {
    // Noise, no whole-factor reduction (less than half the size): the same
    // two passes as one call makes, a group of rows at a time. Alpha is
    // not opaque, so it is kept.
    for channels in [1u8, 3, 4, 2] {
        let (width, height) = (300, 700);
        let data: Vec<u8> = (0..width * height * u32::from(channels))
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let (whole, rows) = one_call_and_rows(&data, (width, height, channels), (173, 401));
        let most = largest_difference(&whole, &rows, channels);
        // With alpha, colours are premultiplied here as the resizer
        // premultiplies its own, but may round otherwise.
        let allowed = if channels % 2 == 0 { 6 } else { 0 };
        assert!(most <= allowed, "{channels} channels: {most}");
    }
    // Smooth colours reduced 5 times by whole blocks, then resized: as the
    // one resize, within a step or two.
    let (width, height) = (1000, 3000);
    let data: Vec<u8> = (0..width * height)
        .flat_map(|i| {
            let (x, y) = (i % width, i / width);
            [(x / 4) as u8, (y / 12) as u8, ((x + y) / 16) as u8]
        })
        .collect();
    let (whole, rows) = one_call_and_rows(&data, (width, height, 3), (97, 291));
    let most = largest_difference(&whole, &rows, 3);
    assert!(most <= 2, "reduced: {most}");
}

#[test]
fn a_shrink_drops_alpha_only_when_every_pixel_is_opaque() {
    let opaque: Vec<u8> = (0..64 * 64).flat_map(|i| [i as u8, 9, 200, 255]).collect();
    let mut shrink = shrink::Shrink::new(64, 64, 4, 10, 10).unwrap();
    for row in opaque.chunks_exact(64 * 4) {
        shrink.push(row).unwrap();
    }
    assert_eq!(shrink.finish().unwrap().channels, 3);
    let mut one_clear = opaque.clone();
    one_clear[64 * 4 * 63 + 3] = 0;
    let mut shrink = shrink::Shrink::new(64, 64, 4, 10, 10).unwrap();
    for row in one_clear.chunks_exact(64 * 4) {
        shrink.push(row).unwrap();
    }
    assert_eq!(shrink.finish().unwrap().channels, 4);
}

#[test]
fn a_copy_at_the_same_size_keeps_every_value() {
    // Partly and fully clear pixels, their colours kept (premultiplying
    // and dividing again would lose them).
    let data: Vec<u8> = (0..40 * 30)
        .flat_map(|i| [i as u8, 200, 7, (i % 3 * 60) as u8])
        .collect();
    let mut shrink = shrink::Shrink::new(40, 30, 4, 40, 30).unwrap();
    for row in data.chunks_exact(40 * 4) {
        shrink.push(row).unwrap();
    }
    assert_eq!(shrink.finish().unwrap().data, data);
}

#[test]
fn a_shrink_missing_rows_is_an_error() {
    let mut shrink = shrink::Shrink::new(50, 40, 3, 20, 16).unwrap();
    for _ in 0..39 {
        shrink.push(&[7; 150]).unwrap();
    }
    assert!(matches!(shrink.finish(), Err(FitError::Decode(_))));
    let mut shrink = shrink::Shrink::new(50, 40, 3, 20, 16).unwrap();
    assert!(shrink.push(&[7; 149]).is_err());
}

#[test]
fn sixteen_bit_and_float_samples_become_eight_bit_as_image_converts_them() {
    let wide = image::ImageBuffer::<image::Rgba<u16>, _>::from_fn(64, 64, |x, y| {
        let v = (x * 64 + y) * 16 + x % 16;
        image::Rgba([
            v as u16,
            65535 - v as u16,
            (v * 7) as u16,
            257 * (x % 256) as u16,
        ])
    });
    let mut png = Vec::new();
    image::DynamicImage::ImageRgba16(wide.clone())
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let back = decode(&png).unwrap().pixels;
    let want = image::DynamicImage::ImageRgba16(wide).to_rgba8();
    assert_eq!((back.channels, &back.data), (4, want.as_raw()));

    let float = image::ImageBuffer::<image::Rgb<f32>, _>::from_fn(50, 3, |x, y| {
        image::Rgb([x as f32 / 49.0, y as f32 - 1.0, 1.5 - x as f32 / 40.0])
    });
    let bytes: Vec<u8> = float
        .as_raw()
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let back = decode::eight_bit(bytes, 50, 3, image::ColorType::Rgb32F).unwrap();
    let want = image::DynamicImage::ImageRgb32F(float).to_rgb8();
    assert_eq!((back.channels, &back.data), (3, want.as_raw()));
}

/// JPEG of `p` as it was made whole: flattened on white first, then
/// encoded in one call.
fn jpeg_whole(p: &Pixels, quality: u8) -> Vec<u8> {
    let n = usize::from(p.channels);
    let flat: Vec<u8> = if p.has_alpha() {
        p.data
            .chunks_exact(n)
            .flat_map(|px| {
                let a = u32::from(px[n - 1]);
                px[..n - 1]
                    .iter()
                    .map(move |&c| ((u32::from(c) * a + 255 * (255 - a) + 127) / 255) as u8)
            })
            .collect()
    } else {
        p.data.clone()
    };
    let color = if n <= 2 {
        jpeg_encoder::ColorType::Luma
    } else {
        jpeg_encoder::ColorType::Rgb
    };
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, quality)
        .encode(&flat, p.width as u16, p.height as u16, color)
        .unwrap();
    out
}

#[test]
fn rows_streamed_into_the_encoder_make_the_bytes_the_whole_output_made() {
    use encode::Encoding::{Jpeg, Png};
    let noise = |i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8;
    let cases: Vec<(&str, Vec<u8>, (u32, u32))> = vec![
        (
            "RGB",
            png_of(300, 700, 3, |x, y| vec![noise(x), noise(y), noise(x ^ y)]),
            (173, 401),
        ),
        (
            "RGB reduced in blocks",
            png_of(1000, 600, 3, |x, y| {
                vec![(x / 4) as u8, (y / 12) as u8, ((x + y) / 16) as u8]
            }),
            (97, 58),
        ),
        (
            "RGBA, every pixel opaque",
            png_of(300, 200, 4, |x, y| vec![noise(x), noise(y), 7, 255]),
            (150, 100),
        ),
        // Alpha is dropped while every pixel so far is opaque: the clear
        // pixel in the last row makes the rows again, alpha kept.
        (
            "RGBA, one pixel clear in the last row",
            png_of(300, 200, 4, |x, y| {
                let alpha = if (x, y) == (299, 199) { 0 } else { 255 };
                vec![noise(x), noise(y), 7, alpha]
            }),
            (150, 100),
        ),
        (
            "grey and alpha",
            png_of(200, 300, 2, |x, y| vec![noise(x + y), (x % 256) as u8]),
            (120, 180),
        ),
        (
            "grey, same size",
            png_of(64, 48, 1, |x, y| vec![noise(x * y)]),
            (64, 48),
        ),
        // 1 MiB of output or more: encoded on a thread of its own, which
        // makes the pass across (src/image_fit/across.rs).
        (
            "RGB reduced in blocks, relayed",
            png_of(2800, 520, 3, |x, y| {
                vec![(x / 4) as u8, noise(y), ((x + y) / 16) as u8]
            }),
            (700, 500),
        ),
        (
            "RGBA, one pixel clear in the last row, relayed",
            png_of(750, 520, 4, |x, y| {
                let alpha = if (x, y) == (749, 519) { 0 } else { 255 };
                vec![noise(x), noise(y), 7, alpha]
            }),
            (700, 500),
        ),
    ];
    for (what, png, (w, h)) in cases {
        let whole = source::open(&png).unwrap().render(w, h).unwrap();
        // The pass across is the same for either format.
        let formats = if what.ends_with("relayed") {
            &[Png][..]
        } else {
            &[Png, Jpeg(85)][..]
        };
        for &how in formats {
            let want = match how {
                Png => png_whole(&whole),
                Jpeg(q) => jpeg_whole(&whole, q),
            };
            let mut source = source::open(&png).unwrap();
            let got = source.encode(w, h, how, u64::MAX).unwrap();
            assert_eq!(got.len, want.len() as u64, "{what} {how:?}");
            assert!(got.bytes.unwrap() == want, "{what} {how:?}");
            // Over a byte limit, the bytes are counted, not kept: the
            // count says how much smaller to try.
            let over = source.encode(w, h, how, 100).unwrap();
            assert_eq!((over.bytes, over.len), (None, want.len() as u64));
        }
    }
}

/// The filter type of each row of `png`'s image data (8-bit, not
/// interlaced): the first byte of each row once inflated.
fn row_filters(png: &[u8], row_len: usize) -> Vec<u8> {
    use std::io::Read;
    let (mut at, mut data) = (8, Vec::new());
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            data.extend_from_slice(&png[at + 8..at + 8 + len]);
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .unwrap();
    raw.chunks(row_len + 1).map(|row| row[0]).collect()
}

#[test]
fn png_rows_of_few_colours_are_written_unfiltered_and_a_photos_filtered() {
    let noise = |i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8;
    // Rows 0-9 text-like (two colours), 10-19 a smooth gradient with
    // noise (a photo), 20-29 one colour.
    let pixel = |x: u32, y: u32| match y {
        0..10 if (x + y) % 7 < 3 => vec![33, 33, 33],
        0..10 => vec![245, 245, 245],
        10..20 => vec![(x as u8).wrapping_add(noise(x * y) % 4), y as u8, 90],
        _ => vec![200, 220, 255],
    };
    let png = png_of(256, 30, 3, pixel);
    let filters = row_filters(&png, 256 * 3);
    assert_eq!(filters.len(), 30);
    assert!(filters[..10].iter().all(|&f| f == 0), "{filters:?}");
    assert!(filters[20..].iter().all(|&f| f == 0), "{filters:?}");
    // png's adaptive choice: not "none" for a gradient (Sub, Up or Paeth).
    assert!(filters[10..20].iter().all(|&f| f != 0), "{filters:?}");
    let want: Vec<u8> = (0..30)
        .flat_map(|y| (0..256).flat_map(move |x| pixel(x, y)))
        .collect();
    assert!(decode(&png).unwrap().pixels.data == want);
}

/// A 16x8 grey baseline JPEG of two blocks whose AC table holds one code,
/// for a zero run of 1 with no value: libjpeg reads it as the end of the
/// block, `jpeg-decoder` as a progressive scan's end-of-band run (it then
/// reads one more bit and skips the next block's AC coefficients). Its
/// scan, 0 0 1 0 and padding, is two whole blocks to `jpeg-decoder` and a
/// code no table holds to libjpeg's reading, which the rows decoder makes.
fn jpeg_read_two_ways() -> Vec<u8> {
    let mut jpeg = vec![0xFF, 0xD8];
    // Quantisation: all ones.
    jpeg.extend([0xFF, 0xDB, 0x00, 0x43, 0x00]);
    jpeg.extend([1; 64]);
    // Frame: 8 bits, 8 rows, 16 columns, one component.
    jpeg.extend([0xFF, 0xC0, 0x00, 0x0B, 8, 0, 8, 0, 16, 1, 1, 0x11, 0]);
    // DC table 0: one code of one bit, size 0; AC table 0: one code of
    // one bit, run 1 and size 0.
    for (class, symbol) in [(0x00, 0x00), (0x10, 0x10)] {
        jpeg.extend([0xFF, 0xC4, 0x00, 0x14, class, 1]);
        jpeg.extend([0; 15]);
        jpeg.push(symbol);
    }
    jpeg.extend([0xFF, 0xDA, 0x00, 0x08, 1, 1, 0x00, 0, 63, 0]);
    jpeg.extend([0b0010_1111, 0xFF, 0xD9]);
    jpeg
}

#[test]
fn a_jpeg_the_rows_decoder_fails_on_is_fitted_by_jpeg_decoder() {
    let bytes = jpeg_read_two_ways();
    let header = jpeg::read(&bytes).unwrap();
    let mut rows = jpeg::JpegRows::new(&bytes, &header, 4).unwrap();
    assert!(rows.next_row().is_err(), "the rows decoder decoded it");
    // 16x8 to 8x4: decoded at 4/8, by jpeg-decoder after the rows decoder
    // failed.
    let target = Target {
        max_side: Some(8),
        ..ANY
    };
    let fitted = fit(&bytes, &target, false).unwrap();
    assert_eq!((fitted.width, fitted.height), (8, 4));
    assert_eq!(fitted.media_type, "image/jpeg");
}
