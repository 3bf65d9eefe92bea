//! The order of a converted result: given what each converted entry has
//! and where the core put its attachment, which part, note, placeholder or
//! saved file goes where, and which parts move to the deferred message.
//! The entry follows the slots; it decides nothing about the order.

/// What the spill of a held attachment answered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spilled {
    /// A note beside the part (an image made to fit the many-image rule).
    pub note: bool,
    /// A saved file (the attachment, or the original of the image fitted).
    pub saved: bool,
    /// The text the result keeps while the part is deferred.
    pub placeholder: bool,
}

/// Where the core put a file entry (see [`super::Verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    InResult,
    /// Moved to the deferred message; the verdict's placeholder stays.
    Deferred,
    /// Held back and spilled; the spill answered with this.
    Held(Spilled),
}

/// One converted entry of a result, as far as its order goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A part that became text (a text part, a long text, a media part
    /// answered with a note), with the file it was saved in, if any.
    Text { saved: bool },
    /// An attachment: its note (an image made to fit) and saved file (that
    /// image's original), where it went, and whether it was fitted when
    /// converted (then, held back, the spill has its one note and file).
    File {
        note: bool,
        saved: bool,
        placed: Placed,
        fitted_before: bool,
    },
}

/// A converted result's shape.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// The error note goes first (an error result with no text).
    pub error_note: bool,
    /// In content order; `None` for a part that gave nothing.
    pub entries: &'a [Option<Entry>],
    /// The index in the result's `content` each entry comes from (a linked
    /// resource's parts come from their link); `None`: the entry's own.
    pub sources: Option<&'a [u32]>,
    /// How many parts the result has: the structured content's source.
    pub part_count: u32,
    /// The structured content's JSON text goes last.
    pub structured: bool,
}

/// One step of building the answer. `source`: the index in the result's
/// `content` the content part comes from (-1 for the error note).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Content: the error note.
    ErrorNote,
    /// Content: the entry's note.
    Note { entry: usize, source: i64 },
    /// Content: the entry's part.
    Part { entry: usize, source: i64 },
    /// Content: the placeholder of the entry's deferred verdict.
    Placeholder { entry: usize, source: i64 },
    /// Deferred: the entry's part.
    Deferred { entry: usize },
    /// Saved: the entry's saved file.
    Saved { entry: usize },
    /// Content: the note of the entry's spill.
    SpillNote { entry: usize, source: i64 },
    /// Saved: the file of the entry's spill.
    SpillSaved { entry: usize },
    /// Content: the placeholder of the entry's spill.
    SpillPlaceholder { entry: usize, source: i64 },
    /// Deferred: the part of the entry's spill.
    SpillDeferred { entry: usize },
    /// Content: the part of the entry's spill.
    SpillPart { entry: usize, source: i64 },
    /// Content: the structured content's JSON text.
    Structured { source: i64 },
    /// Saved: the files saved for the structured content.
    StructuredSaved,
}

impl Slot {
    /// Every slot's name for the entry, indexed by [`Slot::code`].
    pub const NAMES: [&'static str; 13] = [
        "errorNote",
        "note",
        "part",
        "placeholder",
        "deferred",
        "saved",
        "spillNote",
        "spillSaved",
        "spillPlaceholder",
        "spillDeferred",
        "spillPart",
        "structured",
        "structuredSaved",
    ];

    /// Its index in [`Slot::NAMES`].
    pub fn code(self) -> u8 {
        match self {
            Slot::ErrorNote => 0,
            Slot::Note { .. } => 1,
            Slot::Part { .. } => 2,
            Slot::Placeholder { .. } => 3,
            Slot::Deferred { .. } => 4,
            Slot::Saved { .. } => 5,
            Slot::SpillNote { .. } => 6,
            Slot::SpillSaved { .. } => 7,
            Slot::SpillPlaceholder { .. } => 8,
            Slot::SpillDeferred { .. } => 9,
            Slot::SpillPart { .. } => 10,
            Slot::Structured { .. } => 11,
            Slot::StructuredSaved => 12,
        }
    }

    /// Its name for the entry.
    pub fn name(self) -> &'static str {
        Self::NAMES[usize::from(self.code())]
    }

    /// The entry it takes from, if any.
    pub fn entry(self) -> Option<usize> {
        match self {
            Slot::Note { entry, .. }
            | Slot::Part { entry, .. }
            | Slot::Placeholder { entry, .. }
            | Slot::Deferred { entry }
            | Slot::Saved { entry }
            | Slot::SpillNote { entry, .. }
            | Slot::SpillSaved { entry }
            | Slot::SpillPlaceholder { entry, .. }
            | Slot::SpillDeferred { entry }
            | Slot::SpillPart { entry, .. } => Some(entry),
            Slot::ErrorNote | Slot::Structured { .. } | Slot::StructuredSaved => None,
        }
    }

    /// The source of a content part; `None` for a deferred part or a saved file.
    pub fn source(self) -> Option<i64> {
        match self {
            Slot::ErrorNote => Some(-1),
            Slot::Note { source, .. }
            | Slot::Part { source, .. }
            | Slot::Placeholder { source, .. }
            | Slot::SpillNote { source, .. }
            | Slot::SpillPlaceholder { source, .. }
            | Slot::SpillPart { source, .. }
            | Slot::Structured { source } => Some(source),
            Slot::Deferred { .. }
            | Slot::Saved { .. }
            | Slot::SpillSaved { .. }
            | Slot::SpillDeferred { .. }
            | Slot::StructuredSaved => None,
        }
    }
}

/// The slots of a result of this shape, in the order the answer is built:
/// the error note first; each entry's in content order; the structured
/// content's last.
pub fn layout(shape: &Shape) -> Vec<Slot> {
    let mut slots = Vec::with_capacity(shape.entries.len() * 2 + 3);
    if shape.error_note {
        slots.push(Slot::ErrorNote);
    }
    for (entry, given) in shape.entries.iter().enumerate() {
        let Some(given) = *given else { continue };
        let source = shape
            .sources
            .and_then(|s| s.get(entry))
            .map_or(entry as i64, |&s| i64::from(s));
        match given {
            Entry::Text { saved } => {
                slots.push(Slot::Part { entry, source });
                if saved {
                    slots.push(Slot::Saved { entry });
                }
            }
            Entry::File {
                note,
                saved,
                placed,
                fitted_before,
            } => {
                // Held back after a fit: the spill has the one note and file.
                let refitted = fitted_before && matches!(placed, Placed::Held(_));
                if !refitted {
                    if note {
                        slots.push(Slot::Note { entry, source });
                    }
                    if saved {
                        slots.push(Slot::Saved { entry });
                    }
                }
                match placed {
                    Placed::InResult => slots.push(Slot::Part { entry, source }),
                    Placed::Deferred => {
                        slots.push(Slot::Placeholder { entry, source });
                        slots.push(Slot::Deferred { entry });
                    }
                    Placed::Held(spilled) => {
                        if spilled.note {
                            slots.push(Slot::SpillNote { entry, source });
                        }
                        if spilled.saved {
                            slots.push(Slot::SpillSaved { entry });
                        }
                        if spilled.placeholder {
                            slots.push(Slot::SpillPlaceholder { entry, source });
                            slots.push(Slot::SpillDeferred { entry });
                        } else {
                            slots.push(Slot::SpillPart { entry, source });
                        }
                    }
                }
            }
        }
    }
    if shape.structured {
        slots.push(Slot::Structured {
            source: i64::from(shape.part_count),
        });
        slots.push(Slot::StructuredSaved);
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: Entry = Entry::Text { saved: false };

    fn file(placed: Placed) -> Entry {
        Entry::File {
            note: false,
            saved: false,
            placed,
            fitted_before: false,
        }
    }

    /// A fitted image: its note and its original saved.
    fn fitted(placed: Placed) -> Entry {
        Entry::File {
            note: true,
            saved: true,
            placed,
            fitted_before: true,
        }
    }

    fn shape(entries: &[Option<Entry>]) -> Shape<'_> {
        Shape {
            error_note: false,
            entries,
            sources: None,
            part_count: entries.len() as u32,
            structured: false,
        }
    }

    #[test]
    fn the_error_note_comes_first_and_the_structured_content_last() {
        let entries = [Some(TEXT), Some(file(Placed::InResult))];
        let slots = layout(&Shape {
            error_note: true,
            structured: true,
            ..shape(&entries)
        });
        assert_eq!(
            slots,
            [
                Slot::ErrorNote,
                Slot::Part {
                    entry: 0,
                    source: 0
                },
                Slot::Part {
                    entry: 1,
                    source: 1
                },
                Slot::Structured { source: 2 },
                Slot::StructuredSaved,
            ]
        );
        assert_eq!(slots[0].source(), Some(-1));
        assert_eq!(layout(&shape(&entries))[0].name(), "part");
    }

    #[test]
    fn each_slot_has_its_own_code_and_name() {
        let every = [
            Slot::ErrorNote,
            Slot::Note {
                entry: 0,
                source: 0,
            },
            Slot::Part {
                entry: 0,
                source: 0,
            },
            Slot::Placeholder {
                entry: 0,
                source: 0,
            },
            Slot::Deferred { entry: 0 },
            Slot::Saved { entry: 0 },
            Slot::SpillNote {
                entry: 0,
                source: 0,
            },
            Slot::SpillSaved { entry: 0 },
            Slot::SpillPlaceholder {
                entry: 0,
                source: 0,
            },
            Slot::SpillDeferred { entry: 0 },
            Slot::SpillPart {
                entry: 0,
                source: 0,
            },
            Slot::Structured { source: 0 },
            Slot::StructuredSaved,
        ];
        let codes: Vec<u8> = every.iter().map(|s| s.code()).collect();
        assert_eq!(codes, (0..Slot::NAMES.len() as u8).collect::<Vec<_>>());
        assert_eq!(every[2].name(), "part");
    }

    #[test]
    fn a_fitted_image_has_its_note_before_its_part() {
        let entries = [Some(fitted(Placed::InResult))];
        assert_eq!(
            layout(&shape(&entries)),
            [
                Slot::Note {
                    entry: 0,
                    source: 0
                },
                Slot::Saved { entry: 0 },
                Slot::Part {
                    entry: 0,
                    source: 0
                },
            ]
        );
    }

    #[test]
    fn a_deferred_attachment_leaves_its_placeholder_and_moves_its_part() {
        let entries = [Some(fitted(Placed::Deferred)), Some(TEXT)];
        assert_eq!(
            layout(&shape(&entries)),
            [
                Slot::Note {
                    entry: 0,
                    source: 0
                },
                Slot::Saved { entry: 0 },
                Slot::Placeholder {
                    entry: 0,
                    source: 0
                },
                Slot::Deferred { entry: 0 },
                Slot::Part {
                    entry: 1,
                    source: 1
                },
            ]
        );
    }

    #[test]
    fn held_after_a_fit_the_spill_has_the_one_note_and_file() {
        let spilled = Spilled {
            note: true,
            saved: true,
            placeholder: false,
        };
        let entries = [Some(fitted(Placed::Held(spilled)))];
        assert_eq!(
            layout(&shape(&entries)),
            [
                Slot::SpillNote {
                    entry: 0,
                    source: 0
                },
                Slot::SpillSaved { entry: 0 },
                Slot::SpillPart {
                    entry: 0,
                    source: 0
                },
            ]
        );
        // Not fitted before: its own note and file stay beside the spill's.
        let entries = [Some(Entry::File {
            note: true,
            saved: true,
            placed: Placed::Held(spilled),
            fitted_before: false,
        })];
        let slots = layout(&shape(&entries));
        assert_eq!(slots.len(), 5);
        assert_eq!(
            slots[..2],
            [
                Slot::Note {
                    entry: 0,
                    source: 0
                },
                Slot::Saved { entry: 0 }
            ]
        );
    }

    #[test]
    fn held_and_spilled_as_a_note_replaces_the_part() {
        let spilled = Spilled {
            saved: true,
            ..Spilled::default()
        };
        let entries = [Some(file(Placed::Held(spilled)))];
        assert_eq!(
            layout(&shape(&entries)),
            [
                Slot::SpillSaved { entry: 0 },
                Slot::SpillPart {
                    entry: 0,
                    source: 0
                },
            ]
        );
    }

    #[test]
    fn held_with_a_placeholder_the_spills_part_is_deferred() {
        let spilled = Spilled {
            note: true,
            saved: true,
            placeholder: true,
        };
        let entries = [Some(fitted(Placed::Held(spilled)))];
        assert_eq!(
            layout(&shape(&entries)),
            [
                Slot::SpillNote {
                    entry: 0,
                    source: 0
                },
                Slot::SpillSaved { entry: 0 },
                Slot::SpillPlaceholder {
                    entry: 0,
                    source: 0
                },
                Slot::SpillDeferred { entry: 0 },
            ]
        );
    }

    #[test]
    fn a_saved_text_lists_its_file_after_its_part_and_empty_entries_have_no_slot() {
        let entries = [None, Some(Entry::Text { saved: true }), None];
        let slots = layout(&Shape {
            structured: true,
            ..shape(&entries)
        });
        assert_eq!(
            slots,
            [
                Slot::Part {
                    entry: 1,
                    source: 1
                },
                Slot::Saved { entry: 1 },
                Slot::Structured { source: 3 },
                Slot::StructuredSaved,
            ]
        );
        assert_eq!(slots[1].source(), None);
        assert_eq!(slots[1].entry(), Some(1));
        assert_eq!(slots[2].entry(), None);
    }

    #[test]
    fn linked_parts_come_from_their_link() {
        // Content [text, link → two parts, text]: four entries from three parts.
        let entries = [
            Some(TEXT),
            Some(file(Placed::Deferred)),
            Some(TEXT),
            Some(TEXT),
        ];
        let slots = layout(&Shape {
            error_note: false,
            entries: &entries,
            sources: Some(&[0, 1, 1, 2]),
            part_count: 3,
            structured: true,
        });
        let sources: Vec<Option<i64>> = slots.iter().map(|s| s.source()).collect();
        assert_eq!(
            sources,
            [Some(0), Some(1), None, Some(1), Some(2), Some(3), None]
        );
        assert_eq!(slots[1].name(), "placeholder");
        assert_eq!(slots[2].name(), "deferred");
    }
}
