//! Where a classified media part goes for a provider: attached as a file,
//! sent as decoded text, or spilled to disk.

use crate::budget::RequestExcess;
use crate::classify::{Classification, Kind};
use crate::image_fit::{self, FitImages, Target};
use crate::media_type;
use crate::provider::{AttachLimits, Profile, SizeLimit};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Invalid base64 or empty data: a note only.
    Unreadable,
    /// A file part of this (sniffed) media type.
    Attach { media_type: &'static str },
    /// Decoded text under a header naming this media type.
    Text { media_type: String },
    /// Saved by the store; the note names this media type and the reason.
    Spill { media_type: String, reason: Reason },
    /// An image made to fit `target` (see `image_fit`): the original is
    /// saved. `reason` is why it could not go as it is, and what the note
    /// says if fitting fails; `None` when it could, but is over
    /// `maxLongSide` (then it goes as it is if fitting fails).
    Fit {
        media_type: String,
        reason: Option<Reason>,
        target: Target,
    },
}

/// Why a part is saved rather than attached or sent as text. `note::reason`
/// words it for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The provider does not take this type. `declared` is the declared
    /// type when the bytes turned out to be another format.
    NotAccepted {
        media_type: String,
        declared: Option<String>,
    },
    /// An attachable type over the provider's limits (one or both).
    OverLimits {
        pixels: Option<PixelExcess>,
        size: Option<SizeExcess>,
    },
    /// An image with a side limit whose size the header does not give.
    UnknownPixelSize,
    /// The bytes are unusable as they are (truncated, corrupt, not text
    /// under a textual type): the classification's words.
    Defect(String),
    /// The bytes are not the declared format: the classification's words.
    Mismatch(String),
    /// Clearly text, declared as a specific binary type (image/png).
    TextDeclaredAs(String),
    /// A text format (svg, xml) whose bytes are not UTF-8 or UTF-16.
    NotText,
    /// An animation where the provider takes still images only.
    Animated { media_type: String },
    /// A document with more pages than the provider takes in one.
    Pages { pages: u32, max: u32 },
    /// Over what one request may carry (a whole tool result's budget).
    Request(RequestExcess),
    /// A type the provider takes only in a user message, and media are not
    /// deferred to one.
    UserMessageOnly { media_type: String },
    /// Held back for `reason`, and could not be made to fit: `problem`.
    NotFitted {
        reason: Box<Reason>,
        problem: String,
    },
}

impl Reason {
    /// A sendable part held back by a limit (its own or the request's),
    /// rather than something wrong with its type or bytes.
    pub fn is_limit(&self) -> bool {
        match self {
            Reason::NotFitted { reason, .. } => reason.is_limit(),
            _ => matches!(
                self,
                Reason::OverLimits { .. }
                    | Reason::Request(_)
                    | Reason::Animated { .. }
                    | Reason::Pages { .. }
            ),
        }
    }

    /// The same reason naming the image as `width`x`height` px, where it
    /// names a pixel size at all (the many-image rule).
    pub fn with_pixel_size(self, width: u32, height: u32) -> Reason {
        match self {
            Reason::Request(RequestExcess::ManyImages { max_side, over, .. }) => {
                Reason::Request(RequestExcess::ManyImages {
                    width,
                    height,
                    max_side,
                    over,
                })
            }
            other => other,
        }
    }
}

/// An image's size against the provider's side limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelExcess {
    pub width: u32,
    pub height: u32,
    pub max_side: u32,
}

/// A part's size against the provider's size limit, in the limit's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeExcess {
    /// The part's size, measured as the limit measures it.
    pub size: u64,
    pub limit: SizeLimit,
}

/// The contract's default routing, driven by the provider's table.
pub fn decide(c: &Classification, profile: &Profile) -> Route {
    match c.kind {
        Kind::Invalid | Kind::Empty => return Route::Unreadable,
        _ => {}
    }
    if let Some(sniffed) = c.sniffed_media_type {
        if let Some(limits) = profile.attach_limits(sniffed) {
            return match refusal(c, &limits) {
                None => Route::Attach {
                    media_type: sniffed,
                },
                Some(reason) => Route::Spill {
                    media_type: c.media_type.clone(),
                    reason,
                },
            };
        }
    }
    if c.kind == Kind::Text && c.text_encoding.is_some() && may_send_as_text(c) {
        return Route::Text {
            media_type: c.media_type.clone(),
        };
    }
    Route::Spill {
        media_type: c.media_type.clone(),
        reason: spill_reason(c),
    }
}

/// [`decide`], with images made to fit where `fit` says: an image the
/// provider refuses for its sides, bytes, animation or format, that the
/// decoders here read, goes out resized or converted instead of saved; one
/// over `maxLongSide` is made smaller.
pub fn decide_with_fit(c: &Classification, profile: &Profile, fit: FitImages) -> Route {
    let route = decide(c, profile);
    if !fit.enabled {
        return route;
    }
    let Some(target) = fit_target(profile, fit.max_long_side) else {
        return route;
    };
    let source = match c.sniffed_media_type {
        Some(sniffed) if image_fit::decodes(sniffed) && c.defect.is_none() => sniffed,
        _ => return route,
    };
    match route {
        Route::Attach { media_type } => {
            let long_side = c.dimensions.map_or(0, |(w, h)| w.max(h));
            match fit.max_long_side {
                Some(max) if long_side > max && c.repair.is_none() => Route::Fit {
                    media_type: media_type.to_string(),
                    reason: None,
                    target,
                },
                _ => route,
            }
        }
        Route::Spill { reason, .. } if fits_by_resizing(&reason) => Route::Fit {
            media_type: source.to_string(),
            reason: Some(reason),
            target,
        },
        _ => route,
    }
}

/// Reasons a decoded, resized, re-encoded image gets past.
fn fits_by_resizing(reason: &Reason) -> bool {
    matches!(
        reason,
        Reason::OverLimits { .. }
            | Reason::UnknownPixelSize
            | Reason::Animated { .. }
            | Reason::NotAccepted { .. }
    )
}

/// What a fitted image must be for `profile`: within the sides and bytes of
/// both its PNG and JPEG rows (the output may be either), and within
/// `max_long_side`. `None` when the provider takes neither.
pub fn fit_target(profile: &Profile, max_long_side: Option<u32>) -> Option<Target> {
    let png = profile.attach_limits("image/png");
    let jpeg = profile.attach_limits("image/jpeg");
    let rows = [png, jpeg];
    let rows = rows.iter().flatten();
    let max_bytes = rows.clone().map(|l| l.max_size.max_decoded_len()).min()?;
    let max_side = rows.filter_map(|l| l.max_side).chain(max_long_side).min();
    Some(Target {
        max_side,
        max_bytes,
        png: png.is_some(),
        jpeg: jpeg.is_some(),
    })
}

/// Why an attachable type cannot be attached, or `None` when it can: a
/// defect first (no resizing fixes it), else every limit it is over.
fn refusal(c: &Classification, limits: &AttachLimits) -> Option<Reason> {
    if let Some(defect) = &c.defect {
        return Some(Reason::Defect(defect.clone()));
    }
    if c.animated && !limits.animated {
        return Some(Reason::Animated {
            media_type: c.media_type.clone(),
        });
    }
    let pixels = match (limits.max_side, c.dimensions) {
        (None, _) => None,
        (Some(max_side), Some((width, height))) if width > 0 && height > 0 => {
            (width > max_side || height > max_side).then_some(PixelExcess {
                width,
                height,
                max_side,
            })
        }
        // An image whose size cannot be read cannot be vouched for.
        (Some(_), _) => return Some(Reason::UnknownPixelSize),
    };
    let size = (!limits.max_size.admits(c.byte_length)).then_some(SizeExcess {
        size: limits.max_size.measure(c.byte_length),
        limit: limits.max_size,
    });
    if pixels.is_some() || size.is_some() {
        return Some(Reason::OverLimits { pixels, size });
    }
    match (c.pages, limits.max_pages) {
        (Some(pages), Some(max)) if pages > max => Some(Reason::Pages { pages, max }),
        // An unknown count (a page tree in object streams) is not refused.
        _ => None,
    }
}

/// Why a part that is not an attachable type is saved.
fn spill_reason(c: &Classification) -> Reason {
    let declared = c.declared_media_type.as_deref();
    if c.kind == Kind::Text {
        return match (c.text_encoding, declared) {
            // Sent as text unless the declared type names a binary format.
            (Some(_), Some(declared)) => Reason::TextDeclaredAs(declared.to_string()),
            _ => Reason::NotText,
        };
    }
    if c.sniffed_media_type.is_none() {
        if let Some(problem) = &c.defect {
            return Reason::Defect(problem.clone());
        }
        if let Some(mismatch) = &c.mismatch {
            return Reason::Mismatch(mismatch.clone());
        }
    }
    // A sniffed format other than the declared one: say both.
    let declared = match (c.sniffed_media_type, &c.mismatch) {
        (Some(_), Some(_)) => declared.map(str::to_owned),
        _ => None,
    };
    Reason::NotAccepted {
        media_type: c.media_type.clone(),
        declared,
    }
}

/// Text goes to the model when the declared type says text, when it says
/// nothing specific, or when the sniffed format is itself textual (svg).
fn may_send_as_text(c: &Classification) -> bool {
    if c.sniffed_media_type.is_some() {
        return true;
    }
    match c.declared_media_type.as_deref() {
        None => true,
        Some(declared) => {
            media_type::is_textual(declared)
                || media_type::is_generic_binary(declared)
                || media_type::extension(declared) == "bin"
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::base64_data;
    use crate::classify::classify;
    use crate::payload::Payload;
    use crate::provider::DEFAULT;

    fn route(data: &[u8], declared: Option<&str>) -> Route {
        decide(&classify(Payload::Bytes(data), declared), &DEFAULT)
    }

    fn route_base64(b64: &str, declared: Option<&str>) -> Route {
        decide(
            &classify(Payload::Base64(b64.as_bytes()), declared),
            &DEFAULT,
        )
    }

    /// A real PNG (the corpus sample, written by an encoder), 54,318 bytes.
    const FIXTURE_PNG: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/__test__/fixtures/file-type/fixture.png"
    ));

    /// The corpus PNG grown to exactly `len` bytes by a valid tEXt chunk
    /// (keyword, NUL, text; its real CRC) before IEND.
    pub(crate) fn png_of_len(len: usize) -> Vec<u8> {
        let iend = FIXTURE_PNG.len() - 12;
        assert_eq!(&FIXTURE_PNG[iend + 4..iend + 8], b"IEND");
        let text_len = len - FIXTURE_PNG.len() - 12;
        let mut text = b"Comment\0".to_vec();
        text.resize(text_len, b'a');
        let mut chunk = (text_len as u32).to_be_bytes().to_vec();
        chunk.extend_from_slice(b"tEXt");
        chunk.extend_from_slice(&text);
        let crc = crc32fast::hash(&chunk[4..]);
        chunk.extend_from_slice(&crc.to_be_bytes());
        let mut png = FIXTURE_PNG[..iend].to_vec();
        png.extend(chunk);
        png.extend_from_slice(&FIXTURE_PNG[iend..]);
        assert_eq!(png.len(), len);
        png
    }

    /// MIME style: CRLF after every 76 symbols, and no padding.
    pub(crate) fn line_broken_unpadded(b64: &str) -> String {
        let symbols = b64.trim_end_matches('=').as_bytes();
        let lines: Vec<&str> = symbols
            .chunks(76)
            .map(|line| std::str::from_utf8(line).unwrap())
            .collect();
        lines.join("\r\n")
    }

    /// The largest image the default profile attaches: 5,242,880 characters
    /// of canonical base64.
    const MAX_IMAGE: usize = 3_932_160;

    /// A PDF whose page tree says `pages`, in plain sight.
    fn pdf_of_pages(pages: u32) -> Vec<u8> {
        let mut pdf = format!(
            "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n\
             2 0 obj << /Type /Pages /Kids [] /Count {pages} >> endobj\n"
        )
        .into_bytes();
        let xref = pdf.len();
        pdf.extend_from_slice(
            format!("xref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n{xref}\n%%EOF\n")
                .as_bytes(),
        );
        pdf
    }

    #[test]
    fn a_pdf_over_the_page_limit_is_saved_with_its_page_count() {
        use crate::provider::{ANTHROPIC, GOOGLE, OPENAI};
        let at = |pages: u32, profile: &Profile| {
            decide(
                &classify(Payload::Bytes(&pdf_of_pages(pages)), None),
                profile,
            )
        };
        let attached = Route::Attach {
            media_type: "application/pdf",
        };
        assert_eq!(at(100, &DEFAULT), attached);
        assert_eq!(
            at(101, &DEFAULT),
            Route::Spill {
                media_type: "application/pdf".into(),
                reason: Reason::Pages {
                    pages: 101,
                    max: 100
                },
            }
        );
        assert!(matches!(
            at(150, &ANTHROPIC),
            Route::Spill {
                reason: Reason::Pages {
                    pages: 150,
                    max: 100
                },
                ..
            }
        ));
        assert_eq!(at(1000, &GOOGLE), attached);
        assert!(matches!(
            at(1001, &GOOGLE),
            Route::Spill {
                reason: Reason::Pages { max: 1000, .. },
                ..
            }
        ));
        assert_eq!(at(5000, &OPENAI), attached, "no page limit documented");
        assert_eq!(
            crate::note::reason(&Reason::Pages {
                pages: 150,
                max: 100
            }),
            "150 pages, over the 100-page limit"
        );
    }

    #[test]
    fn image_size_is_measured_as_canonical_base64_in_every_form() {
        let over = Route::Spill {
            media_type: "image/png".into(),
            reason: Reason::OverLimits {
                pixels: None,
                size: Some(SizeExcess {
                    size: 5_242_884,
                    limit: SizeLimit::Base64Chars(5_242_880),
                }),
            },
        };
        for (len, expected) in [
            (
                MAX_IMAGE,
                Route::Attach {
                    media_type: "image/png",
                },
            ),
            (MAX_IMAGE + 1, over),
        ] {
            let png = png_of_len(len);
            let b64 = base64_data::encode(&png);
            let wrapped = line_broken_unpadded(&b64);
            // The raw string is longer than the limit either way, and the
            // unpadded one over it is shorter than its canonical length.
            assert!(wrapped.len() > 5_242_880 && wrapped.len() != b64.len());
            assert_eq!(route(&png, Some("image/png")), expected, "bytes, {len}");
            assert_eq!(
                route_base64(&b64, Some("image/png")),
                expected,
                "base64, {len}"
            );
            assert_eq!(
                route_base64(&wrapped, Some("image/png")),
                expected,
                "line-broken unpadded base64, {len}"
            );
        }
        assert_eq!(base64_data::encode(&png_of_len(MAX_IMAGE)).len(), 5_242_880);
    }

    #[test]
    fn limits_and_defects_are_the_reason() {
        // Wider than 8000 px: the width and height from the header.
        let wide = png_sized(9000, 133);
        let Route::Spill { reason, .. } = route(&wide, Some("image/png")) else {
            panic!("a 9000 px PNG was not spilled");
        };
        let Reason::OverLimits {
            pixels: Some(pixels),
            size: None,
        } = reason
        else {
            panic!("{reason:?}");
        };
        assert_eq!((pixels.width, pixels.max_side), (9000, 8000));
        // Cut short: the structural check's words.
        assert_eq!(
            route(&FIXTURE_PNG[..2000], Some("image/png")),
            Route::Spill {
                media_type: "image/png".into(),
                reason: Reason::Defect(
                    "truncated PNG: IDAT chunk runs past the end of the data".into()
                ),
            }
        );
    }

    #[test]
    fn animated_gifs_only_where_the_row_takes_them() {
        use crate::provider::{ANTHROPIC, OPENAI};
        // 5x7, a 2-entry global table; one frame, then two (whole frames:
        // their pixels decode).
        let gif_of = |frames: usize| {
            let mut out = Vec::new();
            let mut encoder = gif::Encoder::new(&mut out, 5, 7, &[0, 0, 0, 255, 255, 255]).unwrap();
            for _ in 0..frames {
                let mut frame = gif::Frame::default();
                (frame.width, frame.height) = (5, 7);
                frame.buffer = std::borrow::Cow::Owned(vec![1; 35]);
                encoder.write_frame(&frame).unwrap();
            }
            drop(encoder);
            out
        };
        let (still, gif) = (gif_of(1), gif_of(2));
        let decide_for = |data: &[u8], profile| {
            decide(&classify(Payload::Bytes(data), Some("image/gif")), profile)
        };
        let attach = Route::Attach {
            media_type: "image/gif",
        };
        assert_eq!(decide_for(&still, &OPENAI), attach);
        assert_eq!(decide_for(&gif, &ANTHROPIC), attach);
        assert_eq!(decide_for(&gif, &DEFAULT), attach);
        assert_eq!(
            decide_for(&gif, &OPENAI),
            Route::Spill {
                media_type: "image/gif".into(),
                reason: Reason::Animated {
                    media_type: "image/gif".into()
                }
            }
        );
    }

    #[test]
    fn types_the_provider_does_not_take() {
        let bmp = b"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00";
        let Route::Spill { media_type, reason } = route(bmp, Some("image/bmp")) else {
            panic!("bmp was not spilled");
        };
        assert_eq!(media_type, "image/bmp");
        assert_eq!(
            reason,
            Reason::NotAccepted {
                media_type: "image/bmp".into(),
                declared: None,
            }
        );
        let Route::Spill { reason, .. } = route(bmp, Some("image/png")) else {
            panic!("bmp was not spilled");
        };
        assert_eq!(
            reason,
            Reason::NotAccepted {
                media_type: "image/bmp".into(),
                declared: Some("image/png".into()),
            }
        );
        assert_eq!(
            route(
                b"PAR1\x00\x01\x02\xffPAR1",
                Some("application/vnd.apache.parquet")
            ),
            Route::Spill {
                media_type: "application/vnd.apache.parquet".into(),
                reason: Reason::NotAccepted {
                    media_type: "application/vnd.apache.parquet".into(),
                    declared: None,
                },
            }
        );
    }

    #[test]
    fn declared_types_the_bytes_do_not_match() {
        assert_eq!(
            route(b"\x00\x01\x02\x03\xff\xfe", Some("image/png")),
            Route::Spill {
                media_type: "application/octet-stream".into(),
                reason: Reason::Mismatch(
                    "declared image/png but the bytes do not match that format".into()
                ),
            }
        );
        assert_eq!(
            route(b"\xff\xfe\xfd\x00\x01", Some("text/markdown")),
            Route::Spill {
                media_type: "text/markdown".into(),
                reason: Reason::Defect(
                    "declared text/markdown but the bytes are not text (neither UTF-8 nor UTF-16)"
                        .into()
                ),
            }
        );
    }

    #[test]
    fn text_routes() {
        assert_eq!(
            route(b"# hi\n", Some("text/markdown")),
            Route::Text {
                media_type: "text/markdown".into()
            }
        );
        assert_eq!(
            route(b"hello\n", Some("application/octet-stream")),
            Route::Text {
                media_type: "text/plain".into()
            }
        );
        assert_eq!(
            route(b"hello\n", Some("application/x-custom")),
            Route::Text {
                media_type: "application/x-custom".into()
            }
        );
    }

    #[test]
    fn specific_binary_declaration_with_text_bytes_is_spilled() {
        assert_eq!(
            route(b"Not Found\n", Some("image/png")),
            Route::Spill {
                media_type: "text/plain".into(),
                reason: Reason::TextDeclaredAs("image/png".into()),
            }
        );
    }

    #[test]
    fn empty_is_unreadable() {
        assert_eq!(route(b"", Some("image/png")), Route::Unreadable);
    }

    fn route_fit(data: &[u8], declared: &str, profile: &Profile, fit: FitImages) -> Route {
        decide_with_fit(
            &classify(Payload::Bytes(data), Some(declared)),
            profile,
            fit,
        )
    }

    /// A grey PNG of `width` x `height`, whole: it decodes.
    fn png_sized(width: u32, height: u32) -> Vec<u8> {
        let mut png = Vec::new();
        let mut encoder = png::Encoder::new(&mut png, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![128; width as usize * height as usize])
            .unwrap();
        writer.finish().unwrap();
        png
    }

    #[test]
    fn images_over_limits_are_fitted_when_asked() {
        use crate::provider::{ANTHROPIC, BEDROCK, OPENAI};
        let wide = png_sized(9000, 133);
        let Route::Fit {
            media_type,
            reason: Some(Reason::OverLimits { .. }),
            target,
        } = route_fit(&wide, "image/png", &DEFAULT, FitImages::ON)
        else {
            panic!("a 9000 px PNG is not fitted");
        };
        assert_eq!(media_type, "image/png");
        assert_eq!(
            target,
            Target {
                max_side: Some(8000),
                max_bytes: 3_932_160,
                png: true,
                jpeg: true
            }
        );
        // Off: saved as before.
        assert!(matches!(
            route_fit(&wide, "image/png", &DEFAULT, FitImages::OFF),
            Route::Spill { .. }
        ));
        // Byte limits come from the profile: Anthropic's 10 MB of base64, Bedrock's bytes.
        assert_eq!(fit_target(&ANTHROPIC, None).unwrap().max_bytes, 7_864_320);
        assert_eq!(fit_target(&BEDROCK, None).unwrap().max_bytes, 3_932_160);
        // No side limit for OpenAI, unless maxLongSide gives one.
        assert_eq!(fit_target(&OPENAI, None).unwrap().max_side, None);
        assert_eq!(
            fit_target(&OPENAI, Some(1568)).unwrap().max_side,
            Some(1568)
        );
        assert_eq!(
            fit_target(&DEFAULT, Some(9000)).unwrap().max_side,
            Some(8000)
        );
    }

    #[test]
    fn refused_formats_animations_and_long_sides_are_fitted() {
        use crate::provider::OPENAI;
        let bmp: &[u8] = include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/__test__/fixtures/file-type/fixture.bmp"
        ));
        assert!(matches!(
            route_fit(bmp, "image/bmp", &DEFAULT, FitImages::ON),
            Route::Fit {
                reason: Some(Reason::NotAccepted { .. }),
                ..
            }
        ));
        // Within every limit: attached, unless longer than maxLongSide.
        let long = FitImages {
            enabled: true,
            max_long_side: Some(100),
        };
        assert!(matches!(
            route(FIXTURE_PNG, Some("image/png")),
            Route::Attach { .. }
        ));
        assert!(matches!(
            route_fit(FIXTURE_PNG, "image/png", &OPENAI, long),
            Route::Fit { reason: None, .. }
        ));
        // Text declared as an image and unreadable data are not images to fit.
        assert!(matches!(
            route_fit(b"Not Found\n", "image/png", &DEFAULT, FitImages::ON),
            Route::Spill { .. }
        ));
        assert_eq!(
            route_fit(b"", "image/png", &DEFAULT, FitImages::ON),
            Route::Unreadable
        );
    }
}
