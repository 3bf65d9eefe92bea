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
}

/// One attachable media type and its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachable {
    pub media_type: &'static str,
    pub limits: AttachLimits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    /// Sniffed media types sent as a file part, with their limits.
    pub attachable: &'static [Attachable],
}

impl Profile {
    /// Limits for `media_type` when this provider takes it as a file part.
    pub fn attach_limits(&self, media_type: &str) -> Option<AttachLimits> {
        self.attachable
            .iter()
            .find(|a| a.media_type == media_type)
            .map(|a| a.limits)
    }
}

const MIB: u64 = 1024 * 1024;

/// Anthropic's per-image caps, the strictest of the major providers, so what
/// passes goes everywhere.
/// - Size: "5MB" per image (Anthropic vision docs,
///   <https://docs.claude.com/en/docs/build-with-claude/vision>, for Claude
///   on Amazon Bedrock and Google Cloud Vertex AI; the direct API takes
///   10,485,760), counted on the base64 string: the API error
///   `image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes` was reported
///   for a 3.95 MB file, whose base64 is 5,272,940 characters. So 5,242,880
///   characters of base64, at most 3,932,160 decoded bytes.
/// - Sides: 8000 px ("At least one of the image dimensions exceed max allowed
///   size: 8000 pixels"; same docs, for requests of up to 20 images).
const IMAGE_LIMITS: AttachLimits = AttachLimits {
    max_size: SizeLimit::Base64Chars(5 * MIB),
    max_side: Some(8000),
};

/// opencode's blob cap, 10 MiB decoded; keeps a PDF (14 MB as base64) well
/// inside every request-size limit (Anthropic PDF support docs,
/// <https://docs.claude.com/en/docs/build-with-claude/pdf-support>: 32 MB per
/// request).
const PDF_LIMITS: AttachLimits = AttachLimits {
    max_size: SizeLimit::DecodedBytes(10 * MIB),
    max_side: None,
};

/// The allow-list every major provider accepts: png, jpeg, gif, webp, pdf.
pub const DEFAULT: Profile = Profile {
    name: "default",
    attachable: &[
        Attachable {
            media_type: "image/png",
            limits: IMAGE_LIMITS,
        },
        Attachable {
            media_type: "image/jpeg",
            limits: IMAGE_LIMITS,
        },
        Attachable {
            media_type: "image/gif",
            limits: IMAGE_LIMITS,
        },
        Attachable {
            media_type: "image/webp",
            limits: IMAGE_LIMITS,
        },
        Attachable {
            media_type: "application/pdf",
            limits: PDF_LIMITS,
        },
    ],
};

const PROFILES: &[Profile] = &[DEFAULT];

/// The profile called `name` (the default profile when no name is given),
/// if there is one.
pub fn profile(name: Option<&str>) -> Option<&'static Profile> {
    let name = name.unwrap_or(DEFAULT.name);
    PROFILES.iter().find(|p| p.name == name)
}

/// Names accepted by [`profile`], for error messages.
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
