//! TIFF where `image`'s decoder stops: colour stored as YCbCr (what libtiff
//! writes for JPEG-compressed colour, so sharp's `.tiff()` by default) is
//! decoded by the `tiff` crate and converted to RGB here; and for every
//! JPEG-compressed TIFF the memory one strip or tile takes while it is
//! decoded is read from its frame header, before any pixel is.

use std::io::Cursor;

use ::tiff::decoder::ifd::Value;
use ::tiff::decoder::{ChunkType, Decoder, Limits};
use ::tiff::tags::Tag;
use image::error::{DecodingError, ImageError, ImageFormatHint, ImageResult};
use image::metadata::Orientation;
use image::{ColorType, ImageDecoder, ImageFormat};

use super::decode::{jpeg_frame, MAX_DECODED_BYTES};
use super::FitError;

type Reader<'a> = Decoder<Cursor<&'a [u8]>>;

/// The Compression tag's value for JPEG (TIFF Technical Note 2).
const JPEG: u16 = 7;
/// YCbCrCoefficients and ReferenceBlackWhite, which `tiff` does not name.
const YCBCR_COEFFICIENTS: Tag = Tag::Unknown(529);
const REFERENCE_BLACK_WHITE: Tag = Tag::Unknown(532);

fn fit_error(error: ::tiff::TiffError) -> FitError {
    FitError::Decode(error.to_string())
}

fn image_error(error: ::tiff::TiffError) -> ImageError {
    ImageError::Decoding(DecodingError::new(
        ImageFormatHint::Exact(ImageFormat::Tiff),
        error,
    ))
}

/// The first image's directory, read; what it decodes is bounded by
/// [`MAX_DECODED_BYTES`] as `image` bounds its own TIFF decoder.
fn reader(bytes: &[u8]) -> Result<Reader<'_>, FitError> {
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(MAX_DECODED_BYTES).unwrap_or(usize::MAX);
    Ok(Decoder::new(Cursor::new(bytes))
        .map_err(fit_error)?
        .with_limits(limits))
}

/// The most bytes held at once for one strip or tile of a JPEG-compressed
/// TIFF besides the image (its decoded samples, a copy of its bytes with
/// the shared tables, and a progressive frame's coefficients); 0 for a
/// TIFF compressed otherwise. The JPEG decoder allocates each strip's
/// samples without a check, as its frame header says: a frame larger than
/// its strip or tile is refused here (libtiff refuses it too), and one
/// with no size (its height given later).
pub fn jpeg_chunk_bytes(bytes: &[u8]) -> Result<u64, FitError> {
    let mut reader = reader(bytes)?;
    if reader
        .find_tag_unsigned::<u16>(Tag::Compression)
        .map_err(fit_error)?
        != Some(JPEG)
    {
        return Ok(0);
    }
    let (offsets, counts) = match reader.get_chunk_type() {
        ChunkType::Strip => (Tag::StripOffsets, Tag::StripByteCounts),
        ChunkType::Tile => (Tag::TileOffsets, Tag::TileByteCounts),
    };
    let mut list = |tag| {
        reader
            .find_tag_unsigned_vec::<u64>(tag)
            .map(Option::unwrap_or_default)
            .map_err(fit_error)
    };
    let (offsets, counts) = (list(offsets)?, list(counts)?);
    let tables = match reader.find_tag(Tag::JPEGTables).map_err(fit_error)? {
        Some(value) => value.into_u8_vec().map_err(fit_error)?.len() as u64,
        None => 0,
    };
    let (chunk_width, chunk_height) = reader.chunk_dimensions();
    let mut most = 0;
    for (&offset, &count) in offsets.iter().zip(&counts) {
        // A strip outside the file is the decoder's to report.
        let Some(rest) = usize::try_from(offset).ok().and_then(|at| bytes.get(at..)) else {
            continue;
        };
        let chunk = &rest[..usize::try_from(count).map_or(rest.len(), |n| n.min(rest.len()))];
        let frame = jpeg_frame(chunk).ok_or_else(|| {
            FitError::Decode("a JPEG strip or tile of the TIFF has no frame header".into())
        })?;
        let no_size = frame.width == 0 || frame.height == 0;
        if no_size || frame.width > chunk_width || frame.height > chunk_height {
            return Err(FitError::Decode(format!(
                "a JPEG strip or tile of the TIFF is {}x{} px, more than its {chunk_width}x{chunk_height}",
                frame.width, frame.height
            )));
        }
        let samples = frame.sample_bytes();
        if samples > MAX_DECODED_BYTES {
            return Err(FitError::TooManyBytes { bytes: samples });
        }
        most = most.max(samples + frame.coefficient_bytes() + chunk.len() as u64 + tables);
    }
    Ok(most)
}

/// A TIFF whose first image is 8-bit YCbCr, decoded as RGB.
pub struct YCbCr<'a> {
    reader: Reader<'a>,
    width: u32,
    height: u32,
    to_rgb: ToRgb,
}

/// The TIFF's first image as an RGB decoder when it is stored as 8-bit
/// YCbCr; `None` when it is stored otherwise.
pub fn ycbcr(bytes: &[u8]) -> Result<Option<YCbCr<'_>>, FitError> {
    let mut reader = reader(bytes)?;
    if reader.colortype().map_err(fit_error)? != ::tiff::ColorType::YCbCr(8) {
        return Ok(None);
    }
    let (width, height) = reader.dimensions().map_err(fit_error)?;
    let to_rgb = ToRgb::new(
        rationals(&mut reader, YCBCR_COEFFICIENTS),
        rationals(&mut reader, REFERENCE_BLACK_WHITE),
    );
    Ok(Some(YCbCr {
        reader,
        width,
        height,
        to_rgb,
    }))
}

/// A tag's RATIONAL values, or `None` when it is absent or not that.
fn rationals(reader: &mut Reader, tag: Tag) -> Option<Vec<f32>> {
    let ratio = |value: &Value| match *value {
        Value::Rational(n, d) if d != 0 => Some(n as f32 / d as f32),
        _ => None,
    };
    match reader.find_tag(tag).ok()?? {
        Value::List(values) => values.iter().map(ratio).collect(),
        one => Some(vec![ratio(&one)?]),
    }
}

impl ImageDecoder for YCbCr<'_> {
    fn dimensions(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    fn color_type(&self) -> ColorType {
        ColorType::Rgb8
    }

    fn orientation(&mut self) -> ImageResult<Orientation> {
        let tag = self
            .reader
            .find_tag(Tag::Orientation)
            .map_err(image_error)?;
        Ok(tag
            .and_then(|value| Orientation::from_exif(value.into_u16().ok()?.min(255) as u8))
            .unwrap_or(Orientation::NoTransforms))
    }

    fn read_image(mut self, buf: &mut [u8]) -> ImageResult<()> {
        // Interleaved samples, three a pixel, are what is converted here.
        let layout = self.reader.image_buffer_layout().map_err(image_error)?;
        if layout.planes != 1 || layout.complete_len != buf.len() {
            return Err(image_error(::tiff::TiffError::UnsupportedError(
                ::tiff::TiffUnsupportedError::UnsupportedPlanarConfig(None),
            )));
        }
        self.reader.read_image_bytes(buf).map_err(image_error)?;
        for pixel in buf.chunks_exact_mut(3) {
            self.to_rgb.convert(pixel);
        }
        Ok(())
    }

    fn read_image_boxed(self: Box<Self>, buf: &mut [u8]) -> ImageResult<()> {
        (*self).read_image(buf)
    }
}

/// YCbCr to RGB as TIFF 6.0 defines it (section 21): the samples brought
/// to full range by ReferenceBlackWhite, then the luma coefficients
/// undone. The defaults (ITU-R BT.601 coefficients, full range) are JPEG's
/// own conversion; tags that would divide by zero are taken as absent.
struct ToRgb {
    luma_red: f32,
    luma_green: f32,
    luma_blue: f32,
    /// Each sample value at full range: Y from 0 to 255, Cb and Cr around 0.
    y: [f32; 256],
    cb: [f32; 256],
    cr: [f32; 256],
}

impl ToRgb {
    fn new(coefficients: Option<Vec<f32>>, reference: Option<Vec<f32>>) -> ToRgb {
        let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
        let [luma_red, luma_green, luma_blue] = match coefficients.as_deref() {
            Some(c @ &[r, g, b]) if finite(c) && g != 0.0 => [r, g, b],
            _ => [0.299, 0.587, 0.114],
        };
        let reference = match reference.as_deref() {
            Some(r @ &[yb, yw, cbb, cbw, crb, crw])
                if finite(r) && yw != yb && cbw != cbb && crw != crb =>
            {
                [yb, yw, cbb, cbw, crb, crw]
            }
            _ => [0.0, 255.0, 128.0, 255.0, 128.0, 255.0],
        };
        let table = |black: f32, white: f32, range: f32| {
            std::array::from_fn(|code| (code as f32 - black) * range / (white - black))
        };
        ToRgb {
            luma_red,
            luma_green,
            luma_blue,
            y: table(reference[0], reference[1], 255.0),
            cb: table(reference[2], reference[3], 127.0),
            cr: table(reference[4], reference[5], 127.0),
        }
    }

    fn convert(&self, pixel: &mut [u8]) {
        let y = self.y[usize::from(pixel[0])];
        let cb = self.cb[usize::from(pixel[1])];
        let cr = self.cr[usize::from(pixel[2])];
        let red = y + cr * (2.0 - 2.0 * self.luma_red);
        let blue = y + cb * (2.0 - 2.0 * self.luma_blue);
        let green = (y - self.luma_blue * blue - self.luma_red * red) / self.luma_green;
        // `as` saturates (and takes NaN to 0): no sample leaves 0..=255.
        pixel[0] = red.round() as u8;
        pixel[1] = green.round() as u8;
        pixel[2] = blue.round() as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode::{decode, open};
    use super::super::{fit, FitError, Target};
    use super::*;

    /// 96x64 RGB written by sharp 0.35 (libtiff 4.7) with `.tiff()`, its
    /// default: one JPEG strip (frame header at byte 10), YCbCr 4:2:0.
    /// Red rises left to right, green top to bottom; blue is 200, and 140
    /// right of x = 48 below y = 21.
    const SHARP_JPEG: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/__test__/fixtures/tiff/sharp-jpeg.tif"
    ));
    const FRAME_AT: usize = 10;

    const ANY: Target = Target {
        max_side: Some(8000),
        max_bytes: 3_932_160,
        png: true,
        jpeg: true,
    };

    /// The fixture with its strip's frame header saying `width`x`height`,
    /// and its Photometric tag `photometric` (6 YCbCr, 2 RGB).
    fn with_frame(width: u16, height: u16, photometric: u16) -> Vec<u8> {
        let mut tiff = SHARP_JPEG.to_vec();
        assert_eq!(&tiff[FRAME_AT..FRAME_AT + 2], &[0xFF, 0xC0]);
        tiff[FRAME_AT + 5..FRAME_AT + 7].copy_from_slice(&height.to_be_bytes());
        tiff[FRAME_AT + 7..FRAME_AT + 9].copy_from_slice(&width.to_be_bytes());
        // Photometric is the directory's fifth entry (little-endian SHORT).
        let ifd = u32::from_le_bytes(tiff[4..8].try_into().unwrap()) as usize;
        let entry = ifd + 2 + 4 * 12;
        assert_eq!(&tiff[entry..entry + 2], &262u16.to_le_bytes());
        tiff[entry + 8..entry + 10].copy_from_slice(&photometric.to_le_bytes());
        tiff
    }

    #[test]
    fn sharps_default_tiff_decodes_to_its_colours() {
        let decoded = decode(SHARP_JPEG).unwrap();
        let p = decoded.pixels;
        assert_eq!((p.width, p.height, p.channels), (96, 64, 3));
        // Away from edges, where 4:2:0 and JPEG keep the colour.
        for (x, y) in [(10, 10), (40, 50), (70, 10), (80, 50)] {
            let at = (y * 96 + x) * 3;
            let want = [
                (255 * x / 96) as u8,
                (255 * y / 64) as u8,
                if x > 48 && y > 21 { 140 } else { 200 },
            ];
            for (got, want) in p.data[at..at + 3].iter().zip(want) {
                assert!(
                    got.abs_diff(want) <= 6,
                    "({x}, {y}): {:?}",
                    &p.data[at..at + 3]
                );
            }
        }
        let fitted = fit(SHARP_JPEG, &ANY, false).unwrap();
        assert_eq!((fitted.width, fitted.height), (96, 64));
    }

    #[test]
    fn a_strip_whose_frame_is_larger_than_the_strip_is_refused_before_decoding() {
        // 16000x16000 RGB would be 768 MB, allocated by the JPEG decoder
        // as the frame says; the strip is 96 px wide. RGB TIFF goes
        // through `image`'s decoder, YCbCr through this module's.
        for photometric in [6, 2] {
            let bomb = with_frame(16_000, 16_000, photometric);
            match open(&bomb) {
                Err(FitError::Decode(problem)) => assert_eq!(
                    problem,
                    "a JPEG strip or tile of the TIFF is 16000x16000 px, more than its 96x256"
                ),
                other => panic!("photometric {photometric}: {:?}", other.err()),
            };
        }
    }

    #[test]
    fn a_frame_within_its_strip_is_counted_in_the_peak() {
        // As tall as the strip may be (RowsPerStrip is 256): the decoder
        // holds 96x256 RGB for it besides the 96x64 image.
        let tall = with_frame(96, 256, 6);
        let peak = super::super::source::open(&tall)
            .unwrap()
            .peak_bytes(96, 64, ANY.max_bytes);
        assert!(peak >= 96 * 64 * 3 + 96 * 256 * 3 + (1 << 20), "{peak}");
        // What the decoder holds counts the strip's 96x192 rows more than
        // the image's own strip.
        let decoding = |bytes: &[u8]| super::super::decode::open(bytes).unwrap().decoding_bytes();
        assert!(decoding(&tall) >= decoding(SHARP_JPEG) + 96 * 192 * 3);
        // Its data is for 64 rows: an error, not a crash.
        assert!(matches!(
            fit(&tall, &ANY, false),
            Err(FitError::Decode(_)) | Ok(_)
        ));
    }

    #[test]
    fn a_frame_without_a_size_is_refused() {
        assert!(matches!(
            open(&with_frame(96, 0, 6)),
            Err(FitError::Decode(problem)) if problem.contains("is 96x0 px")
        ));
    }

    #[test]
    fn default_conversion_is_jpegs() {
        let to_rgb = ToRgb::new(None, None);
        for (ycbcr, rgb) in [
            ([0, 128, 128], [0, 0, 0]),
            ([255, 128, 128], [255, 255, 255]),
            // Pure red, green and blue as JFIF codes them (rounded).
            ([76, 85, 255], [254, 0, 0]),
            ([150, 44, 21], [0, 255, 1]),
            ([29, 255, 107], [0, 0, 255]),
        ] {
            let mut pixel = ycbcr;
            to_rgb.convert(&mut pixel);
            for (got, want) in pixel.iter().zip(rgb) {
                assert!(got.abs_diff(want) <= 1, "{ycbcr:?}: {pixel:?}, not {rgb:?}");
            }
        }
    }

    #[test]
    fn tags_that_divide_by_zero_are_taken_as_absent() {
        let plain = ToRgb::new(None, None);
        let odd = ToRgb::new(
            Some(vec![0.3, 0.0, 0.1]),
            Some(vec![0.0, 0.0, 128.0, 255.0, 128.0, 255.0]),
        );
        for ycbcr in [[0, 128, 128], [200, 30, 220]] {
            let (mut a, mut b) = (ycbcr, ycbcr);
            plain.convert(&mut a);
            odd.convert(&mut b);
            assert_eq!(a, b);
        }
    }
}
