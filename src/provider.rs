//! What each target provider accepts as an attachment. The router reads this
//! table; adding a provider is adding a row, not another `if`.

/// How a provider measures an attachment's size, and the most it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeLimit {
    /// At most this many decoded bytes.
    DecodedBytes(u64),
    /// At most this many characters of canonical base64 (standard alphabet,
    /// padded, one line): `4 * ceil(n / 3)` for `n` decoded bytes, whatever
    /// form the input came in (raw bytes, or base64 with line breaks or
    /// without padding). This is how Anthropic measures an image, and the
    /// very string a file part carries.
    Base64Chars(u64),
}

impl SizeLimit {
    /// The size of `decoded_len` bytes in this limit's unit.
    pub const fn measure(self, decoded_len: u64) -> u64 {
        match self {
            SizeLimit::DecodedBytes(_) => decoded_len,
            SizeLimit::Base64Chars(_) => canonical_base64_len(decoded_len),
        }
    }

    /// The limit, in its unit.
    pub const fn max(self) -> u64 {
        match self {
            SizeLimit::DecodedBytes(max) | SizeLimit::Base64Chars(max) => max,
        }
    }

    /// Whether `decoded_len` bytes are within the limit.
    pub const fn admits(self, decoded_len: u64) -> bool {
        self.measure(decoded_len) <= self.max()
    }

    /// The most decoded bytes the limit admits.
    pub const fn max_decoded_len(self) -> u64 {
        match self {
            SizeLimit::DecodedBytes(max) => max,
            SizeLimit::Base64Chars(max) => max / 4 * 3,
        }
    }
}

/// Length of the canonical base64 of `decoded_len` bytes: `4 * ceil(n / 3)`.
pub const fn canonical_base64_len(decoded_len: u64) -> u64 {
    decoded_len.div_ceil(3).saturating_mul(4)
}

/// Limits for one kind of attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachLimits {
    /// Largest size accepted, measured the provider's way.
    pub max_size: SizeLimit,
    /// Largest width or height accepted, in pixels (images only).
    pub max_side: Option<u32>,
    /// Whether an animation (a GIF of more than one image) is taken; when
    /// not, only still images are.
    pub animated: bool,
    /// Most pages one document may have (PDFs whose page count is known).
    pub max_pages: Option<u32>,
}

/// What kind of attachment a media type is, as providers count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaClass {
    Image,
    Document,
    Audio,
}

impl MediaClass {
    /// The word notes use: `image`, `document`, `audio`.
    pub const fn noun(self) -> &'static str {
        match self {
            MediaClass::Image => "image",
            MediaClass::Document => "document",
            MediaClass::Audio => "audio",
        }
    }
}

/// Where a provider takes an attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Inside a tool result (and in a user message).
    ToolResult,
    /// Only in a user message: a tool result cannot carry it.
    UserMessage,
}

/// One attachable media type: its kind, where it may go, its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachable {
    pub media_type: &'static str,
    pub class: MediaClass,
    pub placement: Placement,
    pub limits: AttachLimits,
}

/// Anthropic's rule for requests with many images: once a request carries
/// more than `over` images, none may be larger than `max_side` a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManyImages {
    pub over: u32,
    pub max_side: u32,
    /// Documents count toward `over` too (Claude on Bedrock and Google Cloud).
    pub counts_documents: bool,
}

/// What one request may carry in all. A tool result is budgeted as if it
/// were the request's only media (see `budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    pub max_images: Option<u32>,
    pub max_documents: Option<u32>,
    /// Images and documents together.
    pub max_images_and_documents: Option<u32>,
    /// Images and document pages together (a PDF counts as its pages).
    pub max_images_and_pages: Option<u32>,
    pub many_images: Option<ManyImages>,
    /// All attachments together, measured the provider's way.
    pub max_total: Option<SizeLimit>,
    /// All documents together.
    pub max_documents_total: Option<SizeLimit>,
}

const NO_REQUEST_LIMITS: RequestLimits = RequestLimits {
    max_images: None,
    max_documents: None,
    max_images_and_documents: None,
    max_images_and_pages: None,
    many_images: None,
    max_total: None,
    max_documents_total: None,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    /// Sniffed media types sent as a file part, with their limits.
    pub attachable: &'static [Attachable],
    pub request: RequestLimits,
    /// Whether `deferMedia: 'auto'` moves media to a following user message.
    pub defers_media: bool,
}

impl Profile {
    /// Limits for `media_type` when this provider takes it as a file part.
    pub fn attach_limits(&self, media_type: &str) -> Option<AttachLimits> {
        self.attachable(media_type).map(|a| a.limits)
    }

    /// The row for `media_type`, when this provider takes it.
    pub fn attachable(&self, media_type: &str) -> Option<&'static Attachable> {
        self.attachable.iter().find(|a| a.media_type == media_type)
    }
}

const MIB: u64 = 1024 * 1024;
/// Decimal megabytes, for limits given as "N MB" with no sign of which MB is
/// meant: the smaller reading is the safe one.
const MB: u64 = 1_000_000;

const fn image(media_type: &'static str, placement: Placement, limits: AttachLimits) -> Attachable {
    Attachable {
        media_type,
        class: MediaClass::Image,
        placement,
        limits,
    }
}

const fn document(
    media_type: &'static str,
    placement: Placement,
    max_size: SizeLimit,
) -> Attachable {
    pdf_pages(media_type, placement, max_size, None)
}

/// A document type with a page limit as well.
const fn pdf_pages(
    media_type: &'static str,
    placement: Placement,
    max_size: SizeLimit,
    max_pages: Option<u32>,
) -> Attachable {
    Attachable {
        media_type,
        class: MediaClass::Document,
        placement,
        limits: AttachLimits {
            max_size,
            max_side: None,
            animated: true,
            max_pages,
        },
    }
}

const fn audio(media_type: &'static str, placement: Placement, max_size: SizeLimit) -> Attachable {
    Attachable {
        media_type,
        class: MediaClass::Audio,
        placement,
        limits: AttachLimits {
            max_size,
            max_side: None,
            animated: true,
            max_pages: None,
        },
    }
}

use Placement::{ToolResult, UserMessage};

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

// ------------------------------------------------------------------ default

/// Anthropic's per-image caps on Claude on Amazon Bedrock and Google Cloud,
/// the strictest of the major providers, so what passes goes everywhere.
/// - Size: "5MB" per image (Anthropic vision docs,
///   <https://platform.claude.com/docs/en/build-with-claude/vision>, for Claude
///   on Amazon Bedrock and Google Cloud Vertex AI; the direct API takes
///   10,485,760), counted on the base64 string: the API error
///   `image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes` was reported
///   for a 3.95 MB file, whose base64 is 5,272,940 characters. So 5,242,880
///   characters of base64, at most 3,932,160 decoded bytes.
/// - Sides: 8000 px ("At least one of the image dimensions exceed max allowed
///   size: 8000 pixels"; same docs).
const IMAGE_LIMITS: AttachLimits = AttachLimits {
    max_size: SizeLimit::Base64Chars(5 * MIB),
    max_side: Some(8000),
    animated: true,
    max_pages: None,
};

/// opencode's blob cap, 10 MiB decoded; keeps a PDF (14 MB as base64) well
/// inside every request-size limit (Anthropic PDF support docs,
/// <https://platform.claude.com/docs/en/build-with-claude/pdf-support>: 32 MB
/// per request).
const PDF_SIZE: SizeLimit = SizeLimit::DecodedBytes(10 * MIB);

/// Claude: "100 PDF pages" per request when the context window is under 1M
/// tokens (600 above), so no PDF over 100 pages fits one request
/// (<https://platform.claude.com/docs/en/build-with-claude/pdf-support>; the
/// API's words: `A maximum of 100 PDF pages may be provided.`). The pages
/// are counted across the request, together with its images: the API
/// refuses `Too much media: 0 document pages + 103 images > 100`.
const ANTHROPIC_MAX_PDF_PAGES: u32 = 100;

/// Anthropic's many-image rule: "If you submit more than 20 images in one API
/// request, this limit is reduced to 2000x2000 px"
/// (<https://platform.claude.com/docs/en/build-with-claude/vision>).
const MANY_IMAGES: ManyImages = ManyImages {
    over: 20,
    max_side: 2000,
    counts_documents: false,
};

/// The strictest request limits of the rows below: Bedrock Converse's 20
/// images and 5 documents per request (Claude there counts both toward the
/// 20), Claude on Bedrock's 20 MB request
/// (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html>,
/// <https://platform.claude.com/docs/en/api/overview#request-size-limits>).
const STRICTEST_REQUEST: RequestLimits = RequestLimits {
    max_images: Some(20),
    max_documents: Some(5),
    max_images_and_documents: Some(20),
    max_images_and_pages: Some(ANTHROPIC_MAX_PDF_PAGES),
    many_images: Some(ManyImages {
        counts_documents: true,
        ..MANY_IMAGES
    }),
    max_total: Some(SizeLimit::Base64Chars(20 * MB)),
    max_documents_total: None,
};

/// The allow-list every major provider accepts: png, jpeg, gif, webp, pdf.
pub const DEFAULT: Profile = Profile {
    name: "default",
    attachable: &[
        image("image/png", ToolResult, IMAGE_LIMITS),
        image("image/jpeg", ToolResult, IMAGE_LIMITS),
        image("image/gif", ToolResult, IMAGE_LIMITS),
        image("image/webp", ToolResult, IMAGE_LIMITS),
        pdf_pages(
            "application/pdf",
            ToolResult,
            PDF_SIZE,
            Some(ANTHROPIC_MAX_PDF_PAGES),
        ),
    ],
    request: STRICTEST_REQUEST,
    defers_media: false,
};

// ------------------------------------------------------------------ Anthropic

/// Claude Messages API, direct: "10 MB" per image on the base64 string
/// (10,485,760 characters), 8000x8000 px, animated GIFs read as their first
/// frame (<https://platform.claude.com/docs/en/build-with-claude/vision>).
const ANTHROPIC_IMAGE: AttachLimits = AttachLimits {
    max_size: SizeLimit::Base64Chars(10 * MIB),
    max_side: Some(8000),
    animated: true,
    max_pages: None,
};

/// Claude on Amazon Bedrock and Google Cloud: "5 MB" per image on the base64
/// string (same page).
const ANTHROPIC_PARTNER_IMAGE: AttachLimits = IMAGE_LIMITS;

/// "32 MB" per request on the standard endpoints, 20 MB on Amazon Bedrock,
/// 30 MB on Google Cloud
/// (<https://platform.claude.com/docs/en/api/overview#request-size-limits>);
/// a PDF document block can be no larger than its request
/// (<https://platform.claude.com/docs/en/build-with-claude/pdf-support>).
const ANTHROPIC_REQUEST_SIZE: SizeLimit = SizeLimit::Base64Chars(32 * MB);
const ANTHROPIC_BEDROCK_REQUEST_SIZE: SizeLimit = SizeLimit::Base64Chars(20 * MB);
const ANTHROPIC_VERTEX_REQUEST_SIZE: SizeLimit = SizeLimit::Base64Chars(30 * MB);

/// 100 images and documents per request on models with a 200k-token context
/// window (600 on the others; the vision page above): the smaller holds for
/// every model.
const ANTHROPIC_MAX_MEDIA: u32 = 100;

const fn anthropic_request(total: SizeLimit, documents_count: bool) -> RequestLimits {
    RequestLimits {
        max_images_and_documents: Some(ANTHROPIC_MAX_MEDIA),
        max_images_and_pages: Some(ANTHROPIC_MAX_PDF_PAGES),
        many_images: Some(ManyImages {
            counts_documents: documents_count,
            ..MANY_IMAGES
        }),
        max_total: Some(total),
        ..NO_REQUEST_LIMITS
    }
}

const fn anthropic_attachable(
    image_limits: AttachLimits,
    request_size: SizeLimit,
) -> [Attachable; 5] {
    [
        image("image/png", ToolResult, image_limits),
        image("image/jpeg", ToolResult, image_limits),
        image("image/gif", ToolResult, image_limits),
        image("image/webp", ToolResult, image_limits),
        pdf_pages(
            "application/pdf",
            ToolResult,
            request_size,
            Some(ANTHROPIC_MAX_PDF_PAGES),
        ),
    ]
}

const ANTHROPIC_ATTACHABLE: [Attachable; 5] =
    anthropic_attachable(ANTHROPIC_IMAGE, ANTHROPIC_REQUEST_SIZE);
const ANTHROPIC_BEDROCK_ATTACHABLE: [Attachable; 5] =
    anthropic_attachable(ANTHROPIC_PARTNER_IMAGE, ANTHROPIC_BEDROCK_REQUEST_SIZE);
const ANTHROPIC_VERTEX_ATTACHABLE: [Attachable; 5] =
    anthropic_attachable(ANTHROPIC_PARTNER_IMAGE, ANTHROPIC_VERTEX_REQUEST_SIZE);

pub const ANTHROPIC: Profile = Profile {
    name: "anthropic",
    attachable: &ANTHROPIC_ATTACHABLE,
    request: anthropic_request(ANTHROPIC_REQUEST_SIZE, false),
    defers_media: false,
};

/// On Bedrock and Google Cloud documents count toward the 20-image rule
/// (the platform notes of
/// <https://platform.claude.com/docs/en/build-with-claude/vision>).
pub const ANTHROPIC_BEDROCK: Profile = Profile {
    name: "anthropic-bedrock",
    attachable: &ANTHROPIC_BEDROCK_ATTACHABLE,
    request: anthropic_request(ANTHROPIC_BEDROCK_REQUEST_SIZE, true),
    defers_media: false,
};

pub const ANTHROPIC_VERTEX: Profile = Profile {
    name: "anthropic-vertex",
    attachable: &ANTHROPIC_VERTEX_ATTACHABLE,
    request: anthropic_request(ANTHROPIC_VERTEX_REQUEST_SIZE, true),
    defers_media: false,
};

// ------------------------------------------------------------------ OpenAI

/// Images: png, jpeg, webp and non-animated gif; no per-image size or pixel
/// limit is documented, only "512 MB" of payload and 1500 images per request
/// (<https://developers.openai.com/api/docs/guides/images-vision>), so an
/// image is bounded by the payload.
const OPENAI_PAYLOAD: SizeLimit = SizeLimit::Base64Chars(512 * MB);
const OPENAI_IMAGE: AttachLimits = AttachLimits {
    max_size: OPENAI_PAYLOAD,
    max_side: None,
    animated: false,
    max_pages: None,
};

/// Files: each under 50 MB, and all files of a request under 50 MB together
/// (<https://developers.openai.com/api/docs/guides/pdf-files>).
const OPENAI_FILE_SIZE: SizeLimit = SizeLimit::DecodedBytes(50 * MB);

const OPENAI_REQUEST: RequestLimits = RequestLimits {
    max_images: Some(1500),
    max_total: Some(OPENAI_PAYLOAD),
    max_documents_total: Some(OPENAI_FILE_SIZE),
    ..NO_REQUEST_LIMITS
};

/// Responses API: `function_call_output.output` takes input_image and
/// input_file; PDFs are read with their pages' images, docx and xlsx as text
/// (<https://developers.openai.com/api/docs/guides/pdf-files>). Text formats
/// (txt, md, csv) are sent as text parts here.
pub const OPENAI: Profile = Profile {
    name: "openai",
    attachable: &[
        image("image/png", ToolResult, OPENAI_IMAGE),
        image("image/jpeg", ToolResult, OPENAI_IMAGE),
        image("image/webp", ToolResult, OPENAI_IMAGE),
        image("image/gif", ToolResult, OPENAI_IMAGE),
        document("application/pdf", ToolResult, OPENAI_FILE_SIZE),
        document(DOCX, ToolResult, OPENAI_FILE_SIZE),
        document(XLSX, ToolResult, OPENAI_FILE_SIZE),
    ],
    request: OPENAI_REQUEST,
    defers_media: false,
};

/// Chat Completions: a tool message takes text only, so every attachment
/// goes in a following user message: `image_url`, a `file` part (PDF only),
/// `input_audio` (wav and mp3 only;
/// <https://developers.openai.com/api/docs/guides/audio>, no per-clip size
/// documented: bounded by the payload).
pub const OPENAI_CHAT: Profile = Profile {
    name: "openai-chat",
    attachable: &[
        image("image/png", UserMessage, OPENAI_IMAGE),
        image("image/jpeg", UserMessage, OPENAI_IMAGE),
        image("image/webp", UserMessage, OPENAI_IMAGE),
        image("image/gif", UserMessage, OPENAI_IMAGE),
        document("application/pdf", UserMessage, OPENAI_FILE_SIZE),
        audio("audio/wav", UserMessage, OPENAI_PAYLOAD),
        audio("audio/mpeg", UserMessage, OPENAI_PAYLOAD),
    ],
    request: OPENAI_REQUEST,
    defers_media: true,
};

// ------------------------------------------------------------------ Google

/// Inline data: "100 MB" per request, 3,600 images per request; no pixel
/// limit (images are scaled)
/// (<https://ai.google.dev/gemini-api/docs/image-understanding>).
const GEMINI_INLINE: SizeLimit = SizeLimit::Base64Chars(100 * MB);
const GEMINI_IMAGE: AttachLimits = AttachLimits {
    max_size: GEMINI_INLINE,
    max_side: None,
    animated: true,
    max_pages: None,
};

/// Gemini: png, jpeg, webp, heic, heif; PDFs up to 50 MB or 1000 pages
/// (<https://ai.google.dev/gemini-api/docs/document-processing>); audio as
/// user parts only (<https://ai.google.dev/gemini-api/docs/audio>). A
/// function response carries image/png, image/jpeg, image/webp and
/// application/pdf parts on Gemini 3 and later only
/// (<https://ai.google.dev/gemini-api/docs/function-calling>; Gemini 2.x
/// refuses them), which is why `deferMedia: 'auto'` defers here.
pub const GOOGLE: Profile = Profile {
    name: "google",
    attachable: &[
        image("image/png", ToolResult, GEMINI_IMAGE),
        image("image/jpeg", ToolResult, GEMINI_IMAGE),
        image("image/webp", ToolResult, GEMINI_IMAGE),
        image("image/heic", UserMessage, GEMINI_IMAGE),
        image("image/heif", UserMessage, GEMINI_IMAGE),
        pdf_pages(
            "application/pdf",
            ToolResult,
            SizeLimit::DecodedBytes(50 * MB),
            Some(1000),
        ),
        audio("audio/wav", UserMessage, GEMINI_INLINE),
        audio("audio/mpeg", UserMessage, GEMINI_INLINE),
        audio("audio/aiff", UserMessage, GEMINI_INLINE),
        audio("audio/aac", UserMessage, GEMINI_INLINE),
        audio("audio/ogg", UserMessage, GEMINI_INLINE),
        audio("audio/flac", UserMessage, GEMINI_INLINE),
    ],
    request: RequestLimits {
        max_images: Some(3600),
        max_total: Some(GEMINI_INLINE),
        ..NO_REQUEST_LIMITS
    },
    defers_media: true,
};

// ------------------------------------------------------------------ Bedrock

/// Converse: "up to 20 images. Each image's size, height, and width must be
/// no more than 3.75 MB, 8000 px, and 8000 px" (3.75 MB = 3,932,160 raw
/// bytes), "up to five documents. Each document's size must be no more than
/// 4.5 MB" (4,718,592 bytes)
/// (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html>).
const BEDROCK_IMAGE: AttachLimits = AttachLimits {
    max_size: SizeLimit::DecodedBytes(3_932_160),
    max_side: Some(8000),
    animated: true,
    max_pages: None,
};
const BEDROCK_DOCUMENT: SizeLimit = SizeLimit::DecodedBytes(4_718_592);

/// Documents: pdf, doc, docx, xls, xlsx here; csv, html, txt and md are sent
/// as text parts. Claude there counts images and documents together toward
/// 20, the stricter reading kept for every model.
pub const BEDROCK: Profile = Profile {
    name: "bedrock",
    attachable: &[
        image("image/png", ToolResult, BEDROCK_IMAGE),
        image("image/jpeg", ToolResult, BEDROCK_IMAGE),
        image("image/gif", ToolResult, BEDROCK_IMAGE),
        image("image/webp", ToolResult, BEDROCK_IMAGE),
        document("application/pdf", ToolResult, BEDROCK_DOCUMENT),
        document("application/msword", ToolResult, BEDROCK_DOCUMENT),
        document(DOCX, ToolResult, BEDROCK_DOCUMENT),
        document("application/vnd.ms-excel", ToolResult, BEDROCK_DOCUMENT),
        document(XLSX, ToolResult, BEDROCK_DOCUMENT),
    ],
    request: RequestLimits {
        max_images: Some(20),
        max_documents: Some(5),
        max_images_and_documents: Some(20),
        ..NO_REQUEST_LIMITS
    },
    defers_media: false,
};

// ------------------------------------------------------------------ OpenRouter

/// `image_url` (png, jpeg, webp, gif), `file` (pdf) and `input_audio`
/// (<https://openrouter.ai/docs/features/multimodal/images>,
/// <https://openrouter.ai/docs/features/multimodal/audio>). Whether the
/// upstream model takes media in a tool message is unknown, so 'auto'
/// defers; limits depend on the upstream, so the default profile's apply
/// (opencode's 10 MiB cap for audio, as for PDFs).
pub const OPENROUTER: Profile = Profile {
    name: "openrouter",
    attachable: &[
        image("image/png", ToolResult, IMAGE_LIMITS),
        image("image/jpeg", ToolResult, IMAGE_LIMITS),
        image("image/webp", ToolResult, IMAGE_LIMITS),
        image("image/gif", ToolResult, IMAGE_LIMITS),
        document("application/pdf", ToolResult, PDF_SIZE),
        audio("audio/wav", ToolResult, PDF_SIZE),
        audio("audio/mpeg", ToolResult, PDF_SIZE),
        audio("audio/aiff", ToolResult, PDF_SIZE),
        audio("audio/aac", ToolResult, PDF_SIZE),
        audio("audio/ogg", ToolResult, PDF_SIZE),
        audio("audio/flac", ToolResult, PDF_SIZE),
        audio("audio/mp4", ToolResult, PDF_SIZE),
    ],
    request: STRICTEST_REQUEST,
    defers_media: true,
};

const PROFILES: &[Profile] = &[
    DEFAULT,
    ANTHROPIC,
    ANTHROPIC_BEDROCK,
    ANTHROPIC_VERTEX,
    OPENAI,
    OPENAI_CHAT,
    GOOGLE,
    BEDROCK,
    OPENROUTER,
];

/// The profile called `name` (the default profile when no name is given),
/// if there is one.
pub fn profile(name: Option<&str>) -> Option<&'static Profile> {
    let name = name.unwrap_or(DEFAULT.name);
    PROFILES.iter().find(|p| p.name == name)
}

/// Names accepted by [`profile`], in table order: error messages and the
/// package's `providers` export.
pub fn profile_names() -> Vec<&'static str> {
    PROFILES.iter().map(|p| p.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_profile_is_the_allow_list() {
        let p = profile(Some("default")).unwrap();
        assert_eq!(profile(None), Some(&DEFAULT));
        let types: Vec<_> = p.attachable.iter().map(|a| a.media_type).collect();
        assert_eq!(
            types,
            [
                "image/png",
                "image/jpeg",
                "image/gif",
                "image/webp",
                "application/pdf"
            ]
        );
        let png = p.attach_limits("image/png").unwrap();
        assert_eq!(png.max_size, SizeLimit::Base64Chars(5_242_880));
        assert_eq!(png.max_size.max_decoded_len(), 3_932_160);
        assert_eq!(png.max_side, Some(8000));
        let pdf = p.attach_limits("application/pdf").unwrap();
        assert_eq!(pdf.max_size, SizeLimit::DecodedBytes(10_485_760));
        assert_eq!(p.attach_limits("image/svg+xml"), None);
        assert!(profile(Some("nope")).is_none());
    }

    /// Each row's image size limit in decoded bytes, its side limit, and the
    /// media types it takes, as the provider docs cited above give them.
    #[test]
    fn every_row_as_documented() {
        let png = |name: &str| {
            profile(Some(name))
                .unwrap()
                .attach_limits("image/png")
                .unwrap()
        };
        let cases: [(&str, u64, Option<u32>); 9] = [
            ("default", 3_932_160, Some(8000)),
            ("anthropic", 7_864_320, Some(8000)),
            ("anthropic-bedrock", 3_932_160, Some(8000)),
            ("anthropic-vertex", 3_932_160, Some(8000)),
            ("openai", 384_000_000, None),
            ("openai-chat", 384_000_000, None),
            ("google", 75_000_000, None),
            ("bedrock", 3_932_160, Some(8000)),
            ("openrouter", 3_932_160, Some(8000)),
        ];
        for (name, max_decoded, max_side) in cases {
            let limits = png(name);
            assert_eq!(limits.max_size.max_decoded_len(), max_decoded, "{name}");
            assert!(limits.max_size.admits(max_decoded), "{name}");
            assert!(!limits.max_size.admits(max_decoded + 1), "{name}");
            assert_eq!(limits.max_side, max_side, "{name}");
        }
        assert_eq!(
            png("anthropic").max_size,
            SizeLimit::Base64Chars(10_485_760)
        );
        assert_eq!(png("bedrock").max_size, SizeLimit::DecodedBytes(3_932_160));
        assert_eq!(profile_names().len(), 9);

        let types = |name: &str| -> Vec<&str> {
            profile(Some(name))
                .unwrap()
                .attachable
                .iter()
                .map(|a| a.media_type)
                .collect()
        };
        assert!(!types("openai").contains(&"image/heic"));
        assert!(types("google").contains(&"image/heic"));
        assert!(!types("google").contains(&"image/gif"));
        assert!(types("openai-chat").contains(&"audio/wav"));
        assert!(!types("anthropic").iter().any(|t| t.starts_with("audio/")));
        assert!(types("bedrock").contains(&DOCX));
        for name in ["openai", "openai-chat"] {
            assert!(!png(name).animated && !OPENAI.attach_limits("image/gif").unwrap().animated);
        }
        assert!(ANTHROPIC.attach_limits("image/gif").unwrap().animated);
    }

    #[test]
    fn placements_and_request_limits() {
        for a in OPENAI_CHAT.attachable {
            assert_eq!(a.placement, Placement::UserMessage, "{}", a.media_type);
        }
        let google = |mt| GOOGLE.attachable(mt).unwrap().placement;
        assert_eq!(google("image/png"), Placement::ToolResult);
        assert_eq!(google("application/pdf"), Placement::ToolResult);
        assert_eq!(google("image/heif"), Placement::UserMessage);
        assert_eq!(google("audio/flac"), Placement::UserMessage);
        assert_eq!(
            ANTHROPIC.request.many_images,
            Some(ManyImages {
                over: 20,
                max_side: 2000,
                counts_documents: false
            })
        );
        assert_eq!(ANTHROPIC.request.max_images_and_documents, Some(100));
        assert_eq!(BEDROCK.request.max_images, Some(20));
        assert_eq!(BEDROCK.request.max_documents, Some(5));
        assert_eq!(
            BEDROCK.attach_limits("application/pdf").unwrap().max_size,
            SizeLimit::DecodedBytes(4_718_592)
        );
        assert_eq!(
            ANTHROPIC_VERTEX.request.max_total,
            Some(SizeLimit::Base64Chars(30_000_000))
        );
        let defers: Vec<_> = PROFILES
            .iter()
            .filter(|p| p.defers_media)
            .map(|p| p.name)
            .collect();
        assert_eq!(defers, ["openai-chat", "google", "openrouter"]);
    }

    #[test]
    fn base64_limits_count_canonical_base64() {
        assert_eq!(canonical_base64_len(0), 0);
        assert_eq!(canonical_base64_len(1), 4);
        assert_eq!(canonical_base64_len(3), 4);
        assert_eq!(canonical_base64_len(4), 8);
        assert_eq!(canonical_base64_len(4_509_042), 6_012_056);
        assert_eq!(canonical_base64_len(u64::MAX), u64::MAX);
        let limit = SizeLimit::Base64Chars(5_242_880);
        assert!(limit.admits(3_932_160));
        assert_eq!(limit.measure(3_932_161), 5_242_884);
        assert!(!limit.admits(3_932_161));
        // 5 MiB of decoded bytes, the old limit, is 6,990,508 as base64.
        assert!(!limit.admits(5_242_880));
        let bytes = SizeLimit::DecodedBytes(100);
        assert!(bytes.admits(100) && !bytes.admits(101));
        assert_eq!(bytes.measure(101), 101);
    }
}
