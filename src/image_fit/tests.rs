use super::decode::{decode, Pixels};
use super::*;

fn png_of(width: u32, height: u32, channels: u8, pixel: impl Fn(u32, u32) -> Vec<u8>) -> Vec<u8> {
    let mut data = Vec::new();
    for y in 0..height {
        for x in 0..width {
            data.extend(pixel(x, y));
        }
    }
    encode::png(&Pixels {
        width,
        height,
        channels,
        data,
    })
    .unwrap()
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
