//! The order of a whole result's answer: `tool_result::layout::place`, then
//! `layout`.
//!
//! Input: a flags byte (bit 0: an error note, bit 1: structured content,
//! bit 2: the first held attachment not spilled yet), then two bytes per
//! entry: the first's low bit set for no entry, else bits 1-2 its kind and
//! placement (text, in the result, deferred, held), bits 3-7 its note,
//! saved file, fitted before, and the spill's note, saved file; a held
//! entry's placeholder is bit 0 of the second.
//!
//! Invariants, restated from the rules rather than the code:
//! - nothing panics;
//! - `place` pairs the file entries with the attachments in order, and
//!   places nothing while a held one is not spilled;
//! - the error note comes first and only with one; the structured content's
//!   two slots come last and only with it;
//! - each entry's slots are together, in entry order, and none for no
//!   entry; each entry has exactly one content slot taking its place (its
//!   part, its placeholder, its spill's placeholder or part), after its
//!   notes; a deferred part right after the placeholder it goes with;
//! - an entry's own note and file appear only when it has them and is not
//!   held after a fit; a spill's only when held and its spill has them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_content::tool_result::layout::{
    layout, place, Entry, Given, Placed, Shape, Slot, Spilled, Verdict,
};
use mcp_content_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let flags = input.byte();
    let (error_note, structured, one_unspilled) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
    let mut entries = Vec::new();
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
    }

    // The same entries as the entry and the core know them, placed.
    let given: Vec<Option<Given>> = entries
        .iter()
        .map(|entry| {
            entry.map(|entry| match entry {
                Entry::Text { saved } => Given::Text { saved },
                Entry::File { note, saved, .. } => Given::File { note, saved },
            })
        })
        .collect();
    let mut verdicts = Vec::new();
    let mut fitted = Vec::new();
    for entry in entries.iter().flatten() {
        if let Entry::File {
            placed,
            fitted_before,
            ..
        } = *entry
        {
            verdicts.push(match placed {
                Placed::InResult => Verdict::InResult,
                Placed::Deferred => Verdict::Deferred,
                Placed::Held(spilled) => Verdict::Held(Some(spilled)),
            });
            fitted.push(fitted_before);
        }
    }
    assert_eq!(
        place(&given, &verdicts, &fitted).as_deref(),
        Some(&entries[..])
    );
    if let Some(first) = verdicts.iter().position(|v| matches!(v, Verdict::Held(_))) {
        if one_unspilled {
            verdicts[first] = Verdict::Held(None);
            assert_eq!(place(&given, &verdicts, &fitted), None);
        }
    }
    if !fitted.is_empty() {
        assert_eq!(place(&given, &verdicts[1..], &fitted[1..]), None);
    }

    let shape = Shape {
        error_note,
        entries: &entries,
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
        assert_eq!(rest[n - 2..], [Slot::Structured, Slot::StructuredSaved]);
        rest = &rest[..n - 2];
    }
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
