//! The order of a whole result's answer: `tool_result::layout::layout`.
//!
//! Input: a flags byte (bit 0: an error note, bit 1: structured content,
//! bit 2: linked sources), then one byte per entry: its low bit set for no
//! entry, else bits 1-2 its kind and placement (text, in the result,
//! deferred, held), bits 3-7 its note, saved file, fitted before, and the
//! spill's note, saved file; a held entry's placeholder is bit 0 of the
//! next byte (read when linked too, as the step to its source).
//!
//! Invariants, restated from the rules rather than the code:
//! - nothing panics;
//! - the error note comes first and only with one; the structured content's
//!   two slots come last and only with it, its source the part count;
//! - each entry's slots are together, in entry order, and none for no
//!   entry; each entry has exactly one content slot taking its place (its
//!   part, its placeholder, its spill's placeholder or part), after its
//!   notes; a deferred part right after the placeholder it goes with;
//! - an entry's own note and file appear only when it has them and is not
//!   held after a fit; a spill's only when held and its spill has them;
//! - every content slot's source is the entry's, and sources never go back.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_content::tool_result::layout::{layout, Entry, Placed, Shape, Slot, Spilled};
use mcp_content_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let flags = input.byte();
    let (error_note, structured, linked) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
    let mut entries = Vec::new();
    let mut sources = Vec::new();
    let mut source = 0u32;
    for _ in 0..64 {
        if input.is_empty() {
            break;
        }
        let b = input.byte();
        let next = input.byte();
        let entry = (b & 1 == 0).then(|| {
            let (note, saved, fitted) = (b & 8 != 0, b & 16 != 0, b & 32 != 0);
            let placed = match (b >> 1) & 3 {
                0 => return Entry::Text { saved },
                1 => Placed::InResult,
                2 => Placed::Deferred,
                _ => Placed::Held(Spilled {
                    note: b & 64 != 0,
                    saved: b & 128 != 0,
                    placeholder: next & 1 != 0,
                }),
            };
            Entry::File {
                note,
                saved,
                placed,
                fitted_before: fitted,
            }
        });
        entries.push(entry);
        sources.push(source);
        // A link's parts share its source; the next part's is past it.
        source += u32::from(next >> 1 & 1);
    }
    let part_count = if linked {
        source + 1
    } else {
        entries.len() as u32
    };
    let shape = Shape {
        error_note,
        entries: &entries,
        sources: linked.then_some(&sources[..]),
        part_count,
        structured,
    };
    let slots = layout(&shape);

    let mut rest = &slots[..];
    if error_note {
        assert_eq!(rest.first(), Some(&Slot::ErrorNote));
        rest = &rest[1..];
    }
    if structured {
        let n = rest.len();
        assert!(n >= 2);
        assert_eq!(
            rest[n - 2..],
            [
                Slot::Structured {
                    source: i64::from(part_count)
                },
                Slot::StructuredSaved
            ]
        );
        rest = &rest[..n - 2];
    }
    let mut last_source = -1;
    let mut at = 0;
    for (i, entry) in entries.iter().enumerate() {
        let start = at;
        while at < rest.len() && rest[at].entry() == Some(i) {
            at += 1;
        }
        let own = &rest[start..at];
        let Some(entry) = entry else {
            assert!(own.is_empty(), "slots for no entry: {own:?}");
            continue;
        };
        let expected_source = if linked {
            i64::from(sources[i])
        } else {
            i as i64
        };
        for slot in own {
            if let Some(s) = slot.source() {
                assert_eq!(s, expected_source);
                assert!(s >= last_source);
                last_source = s;
            }
        }
        let places: Vec<usize> = (0..own.len())
            .filter(|&k| {
                matches!(
                    own[k],
                    Slot::Part { .. }
                        | Slot::Placeholder { .. }
                        | Slot::SpillPart { .. }
                        | Slot::SpillPlaceholder { .. }
                )
            })
            .collect();
        assert_eq!(places.len(), 1, "{own:?}");
        let place = places[0];
        for (k, slot) in own.iter().enumerate() {
            match slot {
                Slot::Note { .. } | Slot::SpillNote { .. } => assert!(k < place),
                Slot::Deferred { .. } => {
                    assert!(matches!(own[k - 1], Slot::Placeholder { .. }))
                }
                Slot::SpillDeferred { .. } => {
                    assert!(matches!(own[k - 1], Slot::SpillPlaceholder { .. }))
                }
                _ => {}
            }
        }
        let count = |f: fn(&Slot) -> bool| own.iter().filter(|s| f(s)).count();
        let (note, saved, spill) = match *entry {
            Entry::Text { saved } => (false, saved, None),
            Entry::File {
                note,
                saved,
                placed,
                fitted_before,
            } => {
                let spill = match placed {
                    Placed::Held(spilled) => Some(spilled),
                    _ => None,
                };
                let refitted = fitted_before && spill.is_some();
                (note && !refitted, saved && !refitted, spill)
            }
        };
        assert_eq!(count(|s| matches!(s, Slot::Note { .. })), usize::from(note));
        assert_eq!(
            count(|s| matches!(s, Slot::Saved { .. })),
            usize::from(saved)
        );
        let spilled = spill.unwrap_or_default();
        assert_eq!(
            count(|s| matches!(s, Slot::SpillNote { .. })),
            usize::from(spilled.note)
        );
        assert_eq!(
            count(|s| matches!(s, Slot::SpillSaved { .. })),
            usize::from(spilled.saved)
        );
        let deferred = matches!(
            entry,
            Entry::File {
                placed: Placed::Deferred,
                ..
            }
        );
        assert_eq!(
            count(|s| matches!(s, Slot::Deferred { .. } | Slot::SpillDeferred { .. })),
            usize::from(deferred || spilled.placeholder)
        );
    }
    assert_eq!(at, rest.len(), "slots past the entries: {:?}", &rest[at..]);
});
