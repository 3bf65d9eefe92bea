//! Sniffing, image dimensions and the structural checks on arbitrary bytes.
//!
//! The input is the data itself, so the vendored sample files are seeds as
//! they are. Invariants: nothing panics or hangs, on the whole data or on any
//! head/tail window of it; a sniffed type is a `type/subtype`; dimensions are
//! never zero; the checks are deterministic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_content::sniff::{self, Window, HEAD_LEN, TAIL_LEN};

/// Every type with dimensions or a structural check, and one without.
const TYPES: &[&str] = &[
    "image/png",
    "image/apng",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "image/vnd.microsoft.icon",
    "image/tiff",
    "image/avif",
    "image/heic",
    "image/heif",
    "application/pdf",
    "application/zip",
];

fuzz_target!(|data: &[u8]| {
    let sniffed = sniff::sniff(data);
    if let Some(s) = sniffed {
        let (top, sub) = s.media_type.split_once('/').expect("type/subtype");
        assert!(!top.is_empty() && !sub.is_empty(), "{}", s.media_type);
    }
    let _ = sniff::id3_tag_len(data);

    // Windows the way the classifier cuts long data, and smaller ones so
    // short inputs also reach the partial-window code.
    let len = data.len();
    let cuts = [
        (HEAD_LEN, TAIL_LEN),
        (len / 2, len / 3),
        (len.saturating_sub(1), 1),
        (64, 16),
    ];
    for media_type in TYPES {
        if let Some((w, h)) = sniff::image_dimensions(media_type, data) {
            assert!(w > 0 && h > 0, "{media_type}: {w}x{h}");
        }
        let whole = sniff::check_structure(media_type, &Window::whole(data));
        assert_eq!(
            whole,
            sniff::check_structure(media_type, &Window::whole(data)),
            "{media_type}: not deterministic"
        );
        for (head, tail) in cuts {
            let window = Window {
                head: &data[..head.min(len)],
                tail: &data[len - tail.min(len)..],
                len,
            };
            let _ = sniff::check_structure(media_type, &window);
            let _ = sniff::image_dimensions(media_type, window.head);
        }
    }
});
