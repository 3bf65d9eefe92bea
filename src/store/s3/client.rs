//! The S3 requests the store makes, each signed by rusty-s3 (a presigned
//! URL: SigV4 in the query) and sent by ureq on the calling thread.

use std::fmt;
use std::io::Read;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use rusty_s3::actions::{CompleteMultipartUpload, CreateMultipartUpload, ListObjectsV2, S3Action};
use rusty_s3::{Bucket, Credentials, UrlStyle};
use ureq::http::Response;
use ureq::Body;

/// How long a signed request stays valid: long enough for a slow part.
const SIGNED_FOR: Duration = Duration::from_secs(15 * 60);
/// The most of an error body read (its XML code and message are short).
const ERROR_BODY_MAX: u64 = 64 * 1024;
/// The most of a listing page or another XML answer read.
const XML_BODY_MAX: u64 = 16 * 1024 * 1024;

/// Where and as whom requests go.
pub struct Endpoint {
    pub endpoint: String,
    pub region: String,
    pub path_style: bool,
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

/// Why a request failed: the server's answer, or no answer.
#[derive(Debug)]
pub enum Failure {
    /// An answer other than 2xx, with the code and message of its XML body.
    Status {
        status: u16,
        code: Option<String>,
        message: Option<String>,
    },
    /// No answer: connection refused or cut, timeout, TLS, a bad reply.
    Transport(String),
}

impl Failure {
    pub fn status(&self) -> Option<u16> {
        match self {
            Failure::Status { status, .. } => Some(*status),
            Failure::Transport(_) => None,
        }
    }

    /// Whether the server refused who asks: 401 or 403, or S3's 400 answers
    /// to a session token it does not take (`ExpiredToken`, `InvalidToken`,
    /// `TokenRefreshRequired`), which new credentials cure as they cure a 403.
    pub fn refuses_credentials(&self) -> bool {
        match self {
            Failure::Status {
                status: 401 | 403, ..
            } => true,
            Failure::Status {
                code: Some(code), ..
            } => matches!(
                code.as_str(),
                "ExpiredToken" | "InvalidToken" | "TokenRefreshRequired"
            ),
            Failure::Status { .. } | Failure::Transport(_) => false,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Status {
                status,
                code,
                message,
            } => {
                write!(f, "the server answered {status}")?;
                if let Some(code) = code {
                    write!(f, " {code}")?;
                }
                if let Some(message) = message {
                    write!(f, " ({message})")?;
                }
                Ok(())
            }
            Failure::Transport(why) => write!(f, "no answer from the server: {why}"),
        }
    }
}

pub struct Client {
    bucket: Bucket,
    credentials: Credentials,
    agent: ureq::Agent,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the credentials.
        f.debug_struct("Client")
            .field("bucket", &self.bucket.base_url().as_str())
            .finish_non_exhaustive()
    }
}

/// An object in a listing.
pub struct Listed {
    pub key: String,
    pub size: u64,
}

impl Client {
    pub fn new(bucket: &str, config: &Endpoint) -> Result<Self, String> {
        let endpoint = config
            .endpoint
            .parse()
            .map_err(|e| format!("endpoint {:?} is not a URL: {e}", config.endpoint))?;
        let style = if config.path_style {
            UrlStyle::Path
        } else {
            UrlStyle::VirtualHost
        };
        let bucket = Bucket::new(endpoint, style, bucket.to_string(), config.region.clone())
            .map_err(|e| format!("endpoint {:?} with bucket {bucket:?}: {e}", config.endpoint))?;
        let credentials = match &config.session_token {
            Some(token) => Credentials::new_with_token(
                config.access_key_id.clone(),
                config.secret_access_key.clone(),
                token.clone(),
            ),
            None => Credentials::new(
                config.access_key_id.clone(),
                config.secret_access_key.clone(),
            ),
        };
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_per_read(Some(Duration::from_secs(60)))
            .timeout_per_write(Some(Duration::from_secs(60)))
            .timeout_recv_response(Some(Duration::from_secs(120)))
            .build()
            .into();
        Ok(Client {
            bucket,
            credentials,
            agent,
        })
    }

    /// A whole object in one PUT; with `if_absent`, only if no object has
    /// the key (`If-None-Match: *`; a 412 answer when one has).
    pub fn put(&self, key: &str, data: &[u8], if_absent: bool) -> Result<(), Failure> {
        let url = self
            .bucket
            .put_object(Some(&self.credentials), key)
            .sign(SIGNED_FOR);
        let mut request = self.agent.put(url.as_str());
        if if_absent {
            request = request.header("if-none-match", "*");
        }
        checked(request.send(data)).map(drop)
    }

    pub fn create_multipart(&self, key: &str) -> Result<String, Failure> {
        let url = self
            .bucket
            .create_multipart_upload(Some(&self.credentials), key)
            .sign(SIGNED_FOR);
        let body = xml_body(checked(self.agent.post(url.as_str()).send_empty())?)?;
        CreateMultipartUpload::parse_response(&body)
            .map(|answer| answer.upload_id().to_string())
            .map_err(|e| {
                Failure::Transport(format!("unreadable CreateMultipartUpload answer: {e}"))
            })
    }

    /// One part (numbered from 1); answers its ETag.
    pub fn upload_part(
        &self,
        key: &str,
        upload_id: &str,
        number: u16,
        data: &[u8],
    ) -> Result<String, Failure> {
        let url = self
            .bucket
            .upload_part(Some(&self.credentials), key, number, upload_id)
            .sign(SIGNED_FOR);
        let answer = checked(self.agent.put(url.as_str()).send(data))?;
        answer
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .ok_or_else(|| Failure::Transport("an uploaded part came back without an ETag".into()))
    }

    pub fn complete_multipart(
        &self,
        key: &str,
        upload_id: &str,
        etags: &[String],
        if_absent: bool,
    ) -> Result<(), Failure> {
        let action = CompleteMultipartUpload::new(
            &self.bucket,
            Some(&self.credentials),
            key,
            upload_id,
            etags.iter().map(String::as_str),
        );
        let url = action.sign(SIGNED_FOR);
        let body = action.body();
        let mut request = self.agent.post(url.as_str());
        if if_absent {
            request = request.header("if-none-match", "*");
        }
        let answer = xml_body(checked(request.send(body.as_bytes()))?)?;
        // S3 may answer 200 and put the failure in the body.
        if answer.contains("<Error>") {
            return Err(error_of(500, &answer));
        }
        Ok(())
    }

    pub fn abort_multipart(&self, key: &str, upload_id: &str) -> Result<(), Failure> {
        let url = self
            .bucket
            .abort_multipart_upload(Some(&self.credentials), key, upload_id)
            .sign(SIGNED_FOR);
        checked(self.agent.delete(url.as_str()).call()).map(drop)
    }

    /// The object's size, `None` when there is no such object.
    pub fn size(&self, key: &str) -> Result<Option<u64>, Failure> {
        let url = self
            .bucket
            .head_object(Some(&self.credentials), key)
            .sign(SIGNED_FOR);
        let answer = self
            .agent
            .head(url.as_str())
            .call()
            .map_err(|e| Failure::Transport(e.to_string()))?;
        match answer.status().as_u16() {
            404 => Ok(None),
            200..=299 => answer
                .headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok())
                .map(Some)
                .ok_or_else(|| Failure::Transport("a HEAD answer without Content-Length".into())),
            status => Err(Failure::Status {
                status,
                code: None,
                message: None,
            }),
        }
    }

    /// `length` bytes (at least 1) from `offset`; fewer when the object is
    /// shorter. `None` when there is no such object.
    pub fn get_range(
        &self,
        key: &str,
        offset: u64,
        length: u64,
    ) -> Result<Option<Vec<u8>>, Failure> {
        let url = self
            .bucket
            .get_object(Some(&self.credentials), key)
            .sign(SIGNED_FOR);
        let last = offset.saturating_add(length - 1);
        let answer = self
            .agent
            .get(url.as_str())
            .header("range", format!("bytes={offset}-{last}"))
            .call();
        let mut answer = match answer {
            Ok(answer) if answer.status().as_u16() == 404 => return Ok(None),
            other => checked(other)?,
        };
        let mut bytes = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
        answer
            .body_mut()
            .as_reader()
            .take(length)
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::Transport(e.to_string()))?;
        Ok(Some(bytes))
    }

    /// Every object directly under `prefix` (not in deeper "folders").
    pub fn list(&self, prefix: &str) -> Result<Vec<Listed>, Failure> {
        let mut listed = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut action = ListObjectsV2::new(&self.bucket, Some(&self.credentials));
            action.with_prefix(prefix);
            action.with_delimiter("/");
            if let Some(token) = &token {
                action.with_continuation_token(token.as_str());
            }
            let url = action.sign(SIGNED_FOR);
            let body = xml_body(checked(self.agent.get(url.as_str()).call())?)?;
            let page = ListObjectsV2::parse_response(&body)
                .map_err(|e| Failure::Transport(format!("unreadable listing: {e}")))?;
            listed.extend(page.contents.into_iter().map(|object| Listed {
                key: object.key,
                size: object.size.unwrap_or(0),
            }));
            match page.next_continuation_token {
                Some(next) if token.as_deref() != Some(next.as_str()) => token = Some(next),
                _ => return Ok(listed),
            }
        }
    }

    /// A GET of the object signed now to stay valid `valid_for` (whole
    /// seconds, at most 7 days), and when it stops working. Sends nothing.
    pub fn presigned_get(&self, key: &str, valid_for: Duration) -> (String, Timestamp) {
        // Whole seconds: X-Amz-Date has no fraction, so the URL's expiry is
        // the signing second plus `valid_for`.
        let now = Timestamp::now();
        let signed_at = Timestamp::from_second(now.as_second()).unwrap_or(now);
        let url = self
            .bucket
            .get_object(Some(&self.credentials), key)
            .sign_with_time(valid_for, &signed_at);
        let expires = SignedDuration::try_from(valid_for)
            .ok()
            .and_then(|d| signed_at.checked_add(d).ok())
            .unwrap_or(signed_at);
        (url.into(), expires)
    }

    pub fn delete(&self, key: &str) -> Result<(), Failure> {
        let url = self
            .bucket
            .delete_object(Some(&self.credentials), key)
            .sign(SIGNED_FOR);
        checked(self.agent.delete(url.as_str()).call()).map(drop)
    }
}

/// A 2xx answer, or the failure it is.
fn checked(answer: Result<Response<Body>, ureq::Error>) -> Result<Response<Body>, Failure> {
    let mut answer = answer.map_err(|e| Failure::Transport(e.to_string()))?;
    let status = answer.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(answer);
    }
    let body = answer
        .body_mut()
        .with_config()
        .limit(ERROR_BODY_MAX)
        .read_to_string()
        .unwrap_or_default();
    Err(error_of(status, &body))
}

fn xml_body(mut answer: Response<Body>) -> Result<String, Failure> {
    answer
        .body_mut()
        .with_config()
        .limit(XML_BODY_MAX)
        .read_to_string()
        .map_err(|e| Failure::Transport(e.to_string()))
}

/// The `<Code>` and `<Message>` of an S3 error body.
fn error_of(status: u16, body: &str) -> Failure {
    Failure::Status {
        status,
        code: element(body, "Code"),
        message: element(body, "Message"),
    }
}

fn element(xml: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let start = xml.find(&open)? + open.len();
    let end = start + xml[start..].find(&format!("</{name}>"))?;
    let text = xml[start..end].trim();
    (!text.is_empty()).then(|| text.chars().take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_are_read() {
        let body = "<?xml version=\"1.0\"?><Error><Code>InvalidAccessKeyId</Code>\
                    <Message>No such key: GKnope</Message></Error>";
        let failure = error_of(403, body);
        assert_eq!(
            failure.to_string(),
            "the server answered 403 InvalidAccessKeyId (No such key: GKnope)"
        );
        assert_eq!(error_of(502, "").to_string(), "the server answered 502");
    }

    #[test]
    fn refused_credentials_are_told_apart() {
        let token = |code: &str| {
            error_of(
                400,
                &format!("<Error><Code>{code}</Code><Message>m</Message></Error>"),
            )
        };
        assert!(error_of(403, "").refuses_credentials());
        assert!(error_of(401, "").refuses_credentials());
        assert!(token("ExpiredToken").refuses_credentials());
        assert!(token("InvalidToken").refuses_credentials());
        assert!(token("TokenRefreshRequired").refuses_credentials());
        assert!(!token("InvalidRequest").refuses_credentials());
        assert!(!error_of(500, "").refuses_credentials());
        assert!(!Failure::Transport("cut".into()).refuses_credentials());
    }
}
