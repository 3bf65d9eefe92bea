//! What each target provider accepts as an attachment. The router reads this
//! table; adding a provider is adding a row, not another `if`.

/// Limits for one kind of attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachLimits {
    /// Largest decoded size accepted, in bytes.
    pub max_bytes: u64,
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

/// Anthropic's per-image cap (5 MB decoded) and side cap (8000 px); the
/// strictest of the major providers, so what passes goes everywhere.
const IMAGE_LIMITS: AttachLimits = AttachLimits {
    max_bytes: 5 * MIB,
    max_side: Some(8000),
};

/// opencode's blob cap; keeps a PDF well inside every request-size limit
/// (Anthropic: 32 MB per request, base64 adds a third).
const PDF_LIMITS: AttachLimits = AttachLimits {
    max_bytes: 10 * MIB,
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
        assert_eq!(p.attach_limits("image/png").unwrap().max_bytes, 5_242_880);
        assert_eq!(p.attach_limits("image/svg+xml"), None);
        assert!(profile(Some("nope")).is_none());
    }
}
