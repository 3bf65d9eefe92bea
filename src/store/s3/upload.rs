//! Uploads: a multipart upload that is aborted unless it completes, and the
//! sink a streamed save writes into (one part buffered at a time).

use std::io::{self, Write};

use super::client::{Client, Failure};
use super::PART_SIZE;

/// S3's most parts in one upload.
const MAX_PARTS: usize = 10_000;

/// A multipart upload in flight: dropped without [`complete`] it is
/// aborted, so its parts never become an object.
///
/// [`complete`]: Multipart::complete
pub struct Multipart<'c> {
    client: &'c Client,
    key: String,
    upload_id: String,
    etags: Vec<String>,
    done: bool,
}

impl<'c> Multipart<'c> {
    pub fn start(client: &'c Client, key: &str) -> Result<Self, Failure> {
        let upload_id = client.create_multipart(key)?;
        Ok(Multipart {
            client,
            key: key.to_string(),
            upload_id,
            etags: Vec::new(),
            done: false,
        })
    }

    pub fn part(&mut self, data: &[u8]) -> Result<(), Failure> {
        if self.etags.len() >= MAX_PARTS {
            return Err(Failure::Transport(format!(
                "more than {MAX_PARTS} parts of {PART_SIZE} bytes"
            )));
        }
        let number = u16::try_from(self.etags.len() + 1).unwrap_or(u16::MAX);
        let etag = self
            .client
            .upload_part(&self.key, &self.upload_id, number, data)?;
        self.etags.push(etag);
        Ok(())
    }

    /// Makes the object of the parts; on failure the upload is aborted.
    pub fn complete(mut self, if_absent: bool) -> Result<(), Failure> {
        let done =
            self.client
                .complete_multipart(&self.key, &self.upload_id, &self.etags, if_absent);
        // Completed, or left to the abort in `drop`.
        self.done = done.is_ok();
        done
    }
}

impl Drop for Multipart<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Best effort: a server that is gone keeps the parts until the
            // bucket's lifecycle rule removes them; they are never an object.
            let _ = self.client.abort_multipart(&self.key, &self.upload_id);
        }
    }
}

/// What a streamed save wrote: all of it in memory (one PUT), or an upload
/// with its last part still buffered.
pub enum Written<'c> {
    Whole(Vec<u8>),
    Parts(Multipart<'c>, Vec<u8>),
}

/// The writer a streamed save gets: buffers one part, uploads each full
/// one (starting the upload with the first), and refuses bytes past
/// `limit` (the size cap) at once rather than uploading them.
pub struct Sink<'c> {
    client: &'c Client,
    key: &'c str,
    limit: u64,
    buffer: Vec<u8>,
    upload: Option<Multipart<'c>>,
    pub written: u64,
    /// The failure of our own upload (not the producer's), kept so that it
    /// is reported whatever the producer makes of the io::Error.
    pub failure: Option<SinkFailure>,
}

pub enum SinkFailure {
    /// At least this many bytes, over the limit.
    OverLimit(u64),
    Upload(Failure),
}

impl<'c> Sink<'c> {
    pub fn new(client: &'c Client, key: &'c str, limit: u64) -> Self {
        Sink {
            client,
            key,
            limit,
            buffer: Vec::new(),
            upload: None,
            written: 0,
            failure: None,
        }
    }

    pub fn finish(self) -> Written<'c> {
        match self.upload {
            None => Written::Whole(self.buffer),
            Some(upload) => Written::Parts(upload, self.buffer),
        }
    }

    fn fail(&mut self, failure: SinkFailure) -> io::Error {
        let message = match &failure {
            SinkFailure::OverLimit(_) => "over the store's size cap".to_string(),
            SinkFailure::Upload(f) => f.to_string(),
        };
        self.failure.get_or_insert(failure);
        io::Error::other(message)
    }

    fn upload_buffer(&mut self) -> Result<(), Failure> {
        if self.upload.is_none() {
            self.upload = Some(Multipart::start(self.client, self.key)?);
        }
        if let Some(upload) = &mut self.upload {
            upload.part(&self.buffer)?;
        }
        self.buffer.clear();
        Ok(())
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.failure.is_some() {
            return Err(io::Error::other("the upload failed already"));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let total = self.written.saturating_add(buf.len() as u64);
        if total > self.limit {
            return Err(self.fail(SinkFailure::OverLimit(total)));
        }
        // A full part goes when more bytes come: a blob of at most one part
        // stays one PUT.
        if self.buffer.len() == PART_SIZE {
            if let Err(e) = self.upload_buffer() {
                return Err(self.fail(SinkFailure::Upload(e)));
            }
        }
        let taken = buf.len().min(PART_SIZE - self.buffer.len());
        self.buffer.extend_from_slice(&buf[..taken]);
        self.written += taken as u64;
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
