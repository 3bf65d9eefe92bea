//! Documents: PDF (with its structural check), RTF, PostScript, Mobipocket.

use memchr::memmem;

use super::{found, has_at, Family, Sniffed, Window};

pub(super) fn sniff(head: &[u8]) -> Option<Sniffed> {
    if head.starts_with(b"%PDF-") {
        return found(mt!("application/pdf"), Family::Pdf);
    }
    if head.starts_with(b"{\\rtf") {
        return found(mt!("application/rtf"), Family::Text);
    }
    if head.starts_with(b"%!PS") {
        return found(mt!("application/postscript"), Family::Text);
    }
    // DOS EPS binary: a header pointing at PostScript and a TIFF/WMF preview.
    if head.starts_with(&[0xC5, 0xD0, 0xD3, 0xC6]) {
        return found(mt!("application/postscript"), Family::Binary);
    }
    if has_at(head, 60, b"BOOKMOBI") {
        return found(mt!("application/x-mobipocket-ebook"), Family::Binary);
    }
    None
}

/// How far from each end the PDF markers may sit.
const PDF_SLACK: usize = 1024;

/// PDF: `%PDF-` in the first 1 KiB, `%%EOF` in the last 1 KiB, and when the
/// last `startxref` can be read, its offset must lie within the data and,
/// where the window shows that byte, point at `xref` or an object (`N G obj`,
/// for a cross-reference stream). A linearized PDF must be at least as long
/// as its linearization dictionary says (longer is an incremental update).
pub(super) fn check_pdf(window: &Window) -> Result<(), String> {
    let start = window.head.get(..PDF_SLACK).unwrap_or(window.head);
    let Some(base) = memmem::find(start, b"%PDF-") else {
        return Err("corrupt PDF: %PDF- header missing".into());
    };
    let tail = window.tail;
    let end = tail
        .get(tail.len().saturating_sub(PDF_SLACK)..)
        .unwrap_or(tail);
    if memmem::rfind(end, b"%%EOF").is_none() {
        return Err("truncated PDF: %%EOF marker missing at the end".into());
    }
    // A linearized file cut after its first page section ends in that
    // section's `%%EOF`: only the declared length shows the cut.
    if let Some(declared) = linearized_length(&start[base..]) {
        let len = window.len - base;
        if len < declared {
            return Err(format!(
                "truncated PDF: linearized for {declared} bytes, only {len} here"
            ));
        }
    }
    let Some(offset) = startxref(end) else {
        return Ok(()); // Readers rebuild a missing table: not worth refusing.
    };
    // Offsets count from the %PDF- header, which may follow some junk.
    let target = offset.checked_add(base).filter(|&at| at < window.len);
    let Some(target) = target else {
        return Err("corrupt PDF: startxref points past the end of the data".into());
    };
    // Find the target byte in the head or the tail, if either holds it.
    let tail_start = window.len.saturating_sub(tail.len());
    let at_target = window
        .head
        .get(target..)
        .or_else(|| tail.get(target.checked_sub(tail_start)?..));
    match at_target {
        Some(rest) if !points_at_xref(rest) => {
            Err("corrupt PDF: startxref does not point at a cross-reference table".into())
        }
        _ => Ok(()),
    }
}

/// The number after the last `startxref` keyword.
fn startxref(end: &[u8]) -> Option<usize> {
    let at = memmem::rfind(end, b"startxref")?;
    let rest = end.get(at + b"startxref".len()..)?;
    let digits = rest.trim_ascii_start();
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(digits.get(..len)?).ok()?.parse().ok()
}

/// The file length `/L` of the linearization dictionary, which must be the
/// first object, within the first 1 KiB.
fn linearized_length(start: &[u8]) -> Option<usize> {
    let at = memmem::find(start, b"/Linearized")?;
    let dict = &start[at..];
    let dict = &dict[..memmem::find(dict, b">>").unwrap_or(dict.len())];
    // `/L` followed by whitespace, so not `/Length`.
    usize::try_from(number_after_key(dict, b"/L")?).ok()
}

/// How many pages a PDF says it has, read without parsing it: the `/N` of
/// its linearization dictionary; else the largest `/Count` of a page tree
/// node (`/Type /Pages`, the root counting every page); else its page
/// objects (`/Type /Page`) counted. `None` when none of them is in plain
/// sight (a page tree inside compressed object streams), or when reading
/// the page tree nodes' dictionaries would take more than
/// [`page_tree_read_budget`] allows.
pub fn pdf_page_count(data: &[u8]) -> Option<u32> {
    let start = &data[..data.len().min(PDF_SLACK)];
    if let Some(at) = memmem::find(start, b"/Linearized") {
        let dict = &start[at..];
        let dict = &dict[..memmem::find(dict, b">>").unwrap_or(dict.len())];
        if let Some(pages) = number_after_key(dict, b"/N") {
            return u32::try_from(pages).ok();
        }
    }
    let mut largest_count: Option<u64> = None;
    let mut page_objects: u32 = 0;
    let mut budget = page_tree_read_budget(data.len());
    for at in memmem::find_iter(data, b"/Type") {
        let rest = data[at + b"/Type".len()..].trim_ascii_start();
        if !rest.starts_with(b"/Page") {
            continue;
        }
        match rest.get(b"/Page".len()) {
            Some(b's') if rest.get(b"/Pages".len()).is_none_or(|&b| is_delimiter(b)) => {
                let dict = enclosing_dict(data, at, &mut budget).ok()?;
                let count = dict.and_then(|dict| number_after_key(dict, b"/Count"));
                largest_count = largest_count.max(count);
            }
            None => page_objects = page_objects.saturating_add(1),
            Some(&b) if is_delimiter(b) => page_objects = page_objects.saturating_add(1),
            _ => {}
        }
    }
    match largest_count {
        Some(count) => u32::try_from(count).ok(),
        None => (page_objects > 0).then_some(page_objects),
    }
}

/// Whitespace or a PDF delimiter: what ends a name.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || b"()<>[]{}/%".contains(&b)
}

/// Bytes the search for page tree nodes' dictionaries may read in data of
/// `len` bytes: twice its length, and 64 KiB (one node's window) besides.
/// Each node's dictionary is read from near its `/Type`, and the windows of
/// nodes close together overlap: without a bound, a file of many
/// `/Type /Pages` in dictionaries that never close (a few MB) would be read
/// again for each of them, for minutes. Real page trees read each node's
/// dictionary once, a small part of the file; a bound in proportion to the
/// length keeps a small hostile file as cheap as its size (a fixed 16 MiB
/// let a 66 KB one cost 16 MiB of reading).
fn page_tree_read_budget(len: usize) -> usize {
    len.saturating_mul(2).saturating_add(64 * 1024)
}

/// The reading budget of [`pdf_page_count`] ran out.
struct OutOfBudget;

/// The dictionary around byte `at`: from the nearest `<<` before it (within
/// 4 KiB) to its matching `>>` (within 64 KiB), nested dictionaries
/// included; `Ok(None)` when there is none. What is read is taken from
/// `budget`.
fn enclosing_dict<'a>(
    data: &'a [u8],
    at: usize,
    budget: &mut usize,
) -> Result<Option<&'a [u8]>, OutOfBudget> {
    let from = at.saturating_sub(4096);
    // Searched backwards: what was read is from the `<<` found on.
    let open = memmem::rfind(&data[from..at], b"<<").map(|o| from + o);
    *budget = budget
        .checked_sub(at - open.unwrap_or(from))
        .ok_or(OutOfBudget)?;
    let Some(open) = open else {
        return Ok(None);
    };
    let limit = data.len().min(open + 64 * 1024);
    let mut depth = 0usize;
    let mut i = open;
    let found = loop {
        if i + 1 >= limit {
            break None;
        }
        match &data[i..i + 2] {
            b"<<" => {
                depth += 1;
                i += 2;
            }
            b">>" => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    break Some(&data[open..i]);
                }
            }
            _ => i += 1,
        }
    };
    *budget = budget.checked_sub(i - open).ok_or(OutOfBudget)?;
    Ok(found)
}

/// The non-negative integer after `key` (a name ended by whitespace) in
/// `dict`, at its first place where one follows.
fn number_after_key(dict: &[u8], key: &[u8]) -> Option<u64> {
    let mut rest = dict;
    while let Some(at) = memmem::find(rest, key) {
        let after = &rest[at + key.len()..];
        if after.first().is_some_and(|b| b.is_ascii_whitespace()) {
            let digits = after.trim_ascii_start();
            let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
            if len > 0 {
                return std::str::from_utf8(&digits[..len]).ok()?.parse().ok();
            }
        }
        rest = after;
    }
    None
}

/// `xref` (a classic table) or `N G obj` (a cross-reference stream), after
/// optional whitespace: some writers point at the end of the previous line.
fn points_at_xref(rest: &[u8]) -> bool {
    let rest = rest.trim_ascii_start();
    rest.starts_with(b"xref") || rest.first().is_some_and(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &[u8] = b"%PDF-1.1\n1 0 obj<<>>endobj\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n27\n%%EOF\n";

    #[test]
    fn pdf_sniff_and_check() {
        assert_eq!(
            sniff(MINIMAL).map(|s| s.media_type),
            Some("application/pdf")
        );
        assert_eq!(check_pdf(&Window::whole(MINIMAL)), Ok(()));
        let window = Window {
            head: &MINIMAL[..20],
            tail: &MINIMAL[30..],
            len: MINIMAL.len(),
        };
        assert_eq!(check_pdf(&window), Ok(()));
    }

    #[test]
    fn pdf_defects_are_caught() {
        let cut = &MINIMAL[..MINIMAL.len() - 7];
        assert_eq!(
            check_pdf(&Window::whole(cut)).unwrap_err(),
            "truncated PDF: %%EOF marker missing at the end"
        );
        let no_header = &MINIMAL[1..];
        assert!(check_pdf(&Window::whole(no_header)).is_err());
        let text = String::from_utf8_lossy(MINIMAL);
        let wrong = text.replace("startxref\n27", "startxref\n3");
        assert!(check_pdf(&Window::whole(wrong.as_bytes())).is_err());
        let past = text.replace("startxref\n27", "startxref\n999999");
        assert!(check_pdf(&Window::whole(past.as_bytes())).is_err());
        // No startxref at all is tolerated.
        let none = text.replace("startxref\n27\n", "");
        assert_eq!(check_pdf(&Window::whole(none.as_bytes())), Ok(()));
    }

    #[test]
    fn a_linearized_pdf_cut_after_its_first_page_section_is_truncated() {
        // The vendored file-type fixture.pdf, 7,945 bytes, linearized: cut
        // at 1,445 bytes its last KiB holds the first section's `%%EOF` and
        // no `startxref`, and it used to be attached (pdfinfo finds no pages).
        let pdf = include_bytes!("../../__test__/fixtures/file-type/fixture.pdf");
        assert_eq!(linearized_length(pdf), Some(7945));
        assert_eq!(check_pdf(&Window::whole(pdf)), Ok(()));
        let cut = &pdf[..1445];
        assert_eq!(
            check_pdf(&Window::whole(cut)).unwrap_err(),
            "truncated PDF: linearized for 7945 bytes, only 1445 here"
        );
        // An incremental update makes it longer: still sound.
        let mut updated = pdf.to_vec();
        updated.extend_from_slice(&pdf[pdf.len() - 40..]);
        assert_eq!(linearized_length(&updated), Some(7945));
        assert_eq!(check_pdf(&Window::whole(&updated)), Ok(()));
        assert!(linearized_length(b"%PDF-1.4\n1 0 obj<</Length 5>>").is_none());
        assert_eq!(
            linearized_length(b"<</Linearized 1/L\r\n 12/O 3>>"),
            Some(12)
        );
    }

    #[test]
    fn pdf_pages_from_linearization_page_tree_or_page_objects() {
        let fixtures = |name: &str| {
            let path = format!(
                "{}/__test__/fixtures/file-type/{name}",
                env!("CARGO_MANIFEST_DIR")
            );
            std::fs::read(path).unwrap()
        };
        // Linearized: /N.
        assert_eq!(pdf_page_count(&fixtures("fixture.pdf")), Some(1));
        // A page tree in plain sight: the root's /Count.
        let tree = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n\
            2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R] /Count 7 /Resources << /Font << >> >> >> endobj\n\
            3 0 obj << /Type /Pages /Parent 2 0 R /Count 3 >> endobj\n\
            5 0 obj << /Type /Page /Parent 3 0 R >> endobj\n%%EOF\n";
        assert_eq!(pdf_page_count(tree), Some(7));
        // Page objects only.
        assert_eq!(pdf_page_count(MINIMAL), None);
        let pages =
            b"%PDF-1.1\n1 0 obj<</Type/Page>>endobj 2 0 obj<</Type /Page/Parent 9 0 R>>endobj";
        assert_eq!(pdf_page_count(pages), Some(2));
        // `/Count` of an outline is not a page count; `/PageLabels` is no page.
        let outline =
            b"%PDF-1.4\n<< /Type /Outlines /Count 40 >> << /Type /PageLabels >> << /Type /Page >>";
        assert_eq!(pdf_page_count(outline), Some(1));
    }

    #[test]
    fn pdf_pages_of_many_unclosed_page_tree_nodes_are_not_read_again_and_again() {
        // Found by the route fuzzer (1 KB grown to 200 KB took 3.5 s there):
        // `/Type /Pages` over and over in one dictionary that never closes.
        // Each node's window is 64 KiB; 4 MB of them would be read ~300,000
        // times 64 KiB without the budget. With it: unknown, at once.
        let mut pdf = b"%PDF-1.7\n1 0 obj << ".to_vec();
        while pdf.len() < 4 * 1024 * 1024 {
            pdf.extend_from_slice(b"/Type /Pages ");
        }
        assert_eq!(pdf_page_count(&pdf), None);
        // Closed dictionaries of the same size are cheap, and counted.
        let mut pdf = b"%PDF-1.7\n".to_vec();
        while pdf.len() < 4 * 1024 * 1024 {
            pdf.extend_from_slice(b"<< /Type /Pages /Count 3 >> ");
        }
        assert_eq!(pdf_page_count(&pdf), Some(3));
    }

    #[test]
    fn other_documents() {
        assert_eq!(
            sniff(b"{\\rtf1\\ansi").map(|s| s.media_type),
            Some("application/rtf")
        );
        assert_eq!(
            sniff(b"%!PS-Adobe-3.0").map(|s| s.media_type),
            Some("application/postscript")
        );
        assert_eq!(sniff(b"%PD"), None);
    }
}
