//! `s3://bucket/prefix` URLs: telling them from folder paths, the bucket and
//! prefix rules, and the keys a store may read (its own names directly
//! under its prefix, nothing reached through `..` or another prefix).

use super::super::{is_own_file_name, StoreError};

/// The URL scheme of the object store.
pub const SCHEME: &str = "s3://";

/// Whether `dir` names a URL (`<scheme>://...`) rather than a folder. A
/// one-letter scheme is a Windows drive (`C://x` is still a path there).
pub fn looks_like_url(dir: &str) -> bool {
    let Some((scheme, _)) = dir.split_once("://") else {
        return false;
    };
    scheme.len() >= 2
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// A bucket and the prefix under which a store names its objects: empty
/// or ending in `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketPrefix {
    pub bucket: String,
    pub prefix: String,
}

impl BucketPrefix {
    /// Parses `s3://bucket` or `s3://bucket/prefix[/]`. The bucket follows
    /// S3's naming rules (3-63 of `a-z 0-9 . -`, starting and ending with a
    /// letter or digit); the prefix's segments are non-empty, never `.` or
    /// `..`, and hold no control character or backslash, so every key the
    /// store makes reads as a plain path.
    pub fn parse(url: &str) -> Result<Self, StoreError> {
        let bad = |why: &str| {
            StoreError::InvalidOption(format!(
                "{url:?} is not an s3:// location the store takes: {why}"
            ))
        };
        let Some(rest) = url.strip_prefix(SCHEME) else {
            return Err(bad("it does not start with s3://"));
        };
        let (bucket, path) = rest.split_once('/').unwrap_or((rest, ""));
        if !is_bucket_name(bucket) {
            return Err(bad(
                "the bucket name must be 3-63 lowercase letters, digits, '.' or '-', starting and ending with a letter or digit",
            ));
        }
        if path.contains(['?', '#']) {
            return Err(bad("a query or fragment is not part of a prefix"));
        }
        let trimmed = path.strip_suffix('/').unwrap_or(path);
        let mut prefix = String::with_capacity(path.len() + 1);
        if !trimmed.is_empty() {
            for segment in trimmed.split('/') {
                check_segment(segment).map_err(&bad)?;
                prefix.push_str(segment);
                prefix.push('/');
            }
        }
        if prefix.len() > MAX_PREFIX_LEN {
            return Err(bad("the prefix is longer than 900 bytes"));
        }
        Ok(BucketPrefix {
            bucket: bucket.to_string(),
            prefix,
        })
    }

    /// The store's location as a URL: `s3://bucket/prefix/`.
    pub fn url(&self) -> String {
        format!("{SCHEME}{}/{}", self.bucket, self.prefix)
    }

    /// The key of the object named `name` under the prefix.
    pub fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// The URL of the object with `key`.
    pub fn object_url(&self, key: &str) -> String {
        format!("{SCHEME}{}/{key}", self.bucket)
    }

    /// The key `location` names when it is one of the store's own names
    /// directly under its prefix in its bucket: `s3://bucket/<prefix><name>`,
    /// compared byte for byte (nothing is decoded or resolved).
    pub fn own_key(&self, location: &str) -> Result<String, StoreError> {
        let refuse = |why: &'static str| StoreError::NotOwnFile {
            location: location.to_string(),
            why,
        };
        let Some(rest) = location.strip_prefix(SCHEME) else {
            return Err(refuse("it is not an s3:// URL of the store's bucket"));
        };
        let Some((bucket, key)) = rest.split_once('/') else {
            return Err(refuse("it names no object"));
        };
        if bucket != self.bucket {
            return Err(refuse("it is in another bucket"));
        }
        if key.split('/').any(|s| s == ".." || s == ".") {
            return Err(refuse("it holds a `.` or `..` segment"));
        }
        let Some(name) = key.strip_prefix(self.prefix.as_str()) else {
            return Err(refuse("it is not under the store's prefix"));
        };
        if name.contains('/') {
            return Err(refuse(
                "it is below the store's prefix, not directly under it",
            ));
        }
        if !is_own_file_name(name) {
            return Err(refuse("its name is not one the store gives its objects"));
        }
        Ok(key.to_string())
    }

    /// The own name of an object `key` listed under the prefix, if it is one.
    pub fn own_name<'k>(&self, key: &'k str) -> Option<&'k str> {
        key.strip_prefix(self.prefix.as_str())
            .filter(|name| !name.contains('/') && is_own_file_name(name))
    }
}

/// S3 keys are at most 1024 bytes; an own name is at most ~70.
const MAX_PREFIX_LEN: usize = 900;

fn is_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && !name.contains("..")
}

fn check_segment(segment: &str) -> Result<(), &'static str> {
    if segment.is_empty() {
        return Err("the prefix has an empty segment (`//`)");
    }
    if segment == "." || segment == ".." {
        return Err("the prefix has a `.` or `..` segment");
    }
    if segment.chars().any(|c| c.is_control() || c == '\\') {
        return Err("the prefix has a control character or a backslash");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "tool_1764481234567_000042_0000012345.png";

    #[test]
    fn urls_are_told_from_paths() {
        assert!(looks_like_url("s3://spills/agent-1"));
        assert!(looks_like_url("https://example.com/x"));
        assert!(looks_like_url("gs://b"));
        assert!(!looks_like_url("C://x"));
        assert!(!looks_like_url("./s3:/spills"));
        assert!(!looks_like_url("/tmp/out"));
        assert!(!looks_like_url("relative/dir"));
        assert!(!looks_like_url("1a://x"));
    }

    #[test]
    fn bucket_and_prefix() {
        let p = BucketPrefix::parse("s3://spills/agent-1").unwrap();
        assert_eq!(p.bucket, "spills");
        assert_eq!(p.prefix, "agent-1/");
        assert_eq!(p.url(), "s3://spills/agent-1/");
        assert_eq!(
            BucketPrefix::parse("s3://spills/a/b/").unwrap().prefix,
            "a/b/"
        );
        assert_eq!(BucketPrefix::parse("s3://spills").unwrap().prefix, "");
        assert_eq!(BucketPrefix::parse("s3://spills/").unwrap().prefix, "");
        assert_eq!(p.key(NAME), format!("agent-1/{NAME}"));
    }

    #[test]
    fn bad_urls_are_refused() {
        for url in [
            "s3:/spills",
            "s3://",
            "s3://ab",
            "s3://Spills/x",
            "s3://-spills/x",
            "s3://spi..lls/x",
            "s3://spills/../x",
            "s3://spills/a/./x",
            "s3://spills/a//x",
            "s3://spills/a\\b",
            "s3://spills/a\nb",
            "s3://spills/a?x=1",
            "https://spills/x",
        ] {
            let err = BucketPrefix::parse(url).unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT", "{url}");
        }
        let long = format!("s3://spills/{}", "a".repeat(901));
        assert!(BucketPrefix::parse(&long).is_err());
    }

    #[test]
    fn only_own_keys_are_read() {
        let p = BucketPrefix::parse("s3://spills/agent-1").unwrap();
        let own = format!("s3://spills/agent-1/{NAME}");
        assert_eq!(p.own_key(&own).unwrap(), format!("agent-1/{NAME}"));
        for other in [
            format!("s3://other/agent-1/{NAME}"),
            format!("s3://spills/agent-2/{NAME}"),
            format!("s3://spills/agent-1/sub/{NAME}"),
            format!("s3://spills/agent-1/../agent-1/{NAME}"),
            format!("s3://spills/agent-1/./{NAME}"),
            format!("s3://spills/agent-10/{NAME}"),
            format!("s3://spills/{NAME}"),
            "s3://spills/agent-1/.tool_lock".to_string(),
            "s3://spills/agent-1/secret.txt".to_string(),
            format!("s3:/spills/agent-1/{NAME}"),
            format!("/tmp/agent-1/{NAME}"),
            "s3://spills".to_string(),
        ] {
            let err = p.own_key(&other).unwrap_err();
            assert_eq!(err.code(), "STORE_NOT_OWN_FILE", "{other}");
        }
        assert_eq!(p.own_name(&format!("agent-1/{NAME}")), Some(NAME));
        assert_eq!(p.own_name(&format!("agent-1/x/{NAME}")), None);
        assert_eq!(p.own_name("agent-1/notes.txt"), None);
        // No prefix: names directly in the bucket.
        let root = BucketPrefix::parse("s3://spills").unwrap();
        assert!(root.own_key(&format!("s3://spills/{NAME}")).is_ok());
        assert!(root.own_key(&format!("s3://spills/a/{NAME}")).is_err());
    }
}
