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

/// A converted entry as the entry knows it, before the core places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    /// See [`Entry::Text`].
    Text { saved: bool },
    /// An attachment, with its note and saved file (see [`Entry::File`]).
    File { note: bool, saved: bool },
}

/// Where the core put one attachment, with what it knows of it: `fitted`
/// when it was made to fit as it was converted; held back, what its spill
/// answered once it did (`None` before).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    InResult,
    Deferred,
    Held(Option<Spilled>),
}

/// The entries placed: the `a`-th file entry is the `a`-th attachment.
/// `None` when they do not pair up or a held attachment is not spilled yet.
pub fn place(
    given: &[Option<Given>],
    verdicts: &[Verdict],
    fitted: &[bool],
) -> Option<Vec<Option<Entry>>> {
    let files = given
        .iter()
        .filter(|g| matches!(g, Some(Given::File { .. })))
        .count();
    if files != verdicts.len() || files != fitted.len() {
        return None;
    }
    let mut attachment = 0;
    given
        .iter()
        .map(|given| match *given {
            None => Some(None),
            Some(Given::Text { saved }) => Some(Some(Entry::Text { saved })),
            Some(Given::File { note, saved }) => {
                let a = attachment;
                attachment += 1;
                let placed = match verdicts[a] {
                    Verdict::InResult => Placed::InResult,
                    Verdict::Deferred => Placed::Deferred,
                    Verdict::Held(spilled) => Placed::Held(spilled?),
                };
                Some(Some(Entry::File {
                    note,
                    saved,
                    placed,
                    fitted_before: fitted[a],
                }))
            }
        })
        .collect()
}

/// A converted result's shape.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// The error note goes first (an error result with no text).
    pub error_note: bool,
    /// In content order; `None` for a part that gave nothing.
    pub entries: &'a [Option<Entry>],
    /// The structured content's JSON text goes last.
    pub structured: bool,
}

/// One step of building the answer. Where a content part comes from (its
/// entry's part of the result, or a link's) the entry knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Content: the error note.
    ErrorNote,
    /// Content: the entry's note.
    Note { entry: usize },
    /// Content: the entry's part.
    Part { entry: usize },
    /// Content: the placeholder of the entry's deferred verdict.
    Placeholder { entry: usize },
    /// Deferred: the entry's part.
    Deferred { entry: usize },
    /// Saved: the entry's saved file.
    Saved { entry: usize },
    /// Content: the note of the entry's spill.
    SpillNote { entry: usize },
    /// Saved: the file of the entry's spill.
    SpillSaved { entry: usize },
    /// Content: the placeholder of the entry's spill.
    SpillPlaceholder { entry: usize },
    /// Deferred: the part of the entry's spill.
    SpillDeferred { entry: usize },
    /// Content: the part of the entry's spill.
    SpillPart { entry: usize },
    /// Content: the structured content's JSON text.
    Structured,
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
            Slot::Structured => 11,
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
            Slot::Note { entry }
            | Slot::Part { entry }
            | Slot::Placeholder { entry }
            | Slot::Deferred { entry }
            | Slot::Saved { entry }
            | Slot::SpillNote { entry }
            | Slot::SpillSaved { entry }
            | Slot::SpillPlaceholder { entry }
            | Slot::SpillDeferred { entry }
            | Slot::SpillPart { entry } => Some(entry),
            Slot::ErrorNote | Slot::Structured | Slot::StructuredSaved => None,
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
        match given {
            Entry::Text { saved } => {
                slots.push(Slot::Part { entry });
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
                        slots.push(Slot::Note { entry });
                    }
                    if saved {
                        slots.push(Slot::Saved { entry });
                    }
                }
                match placed {
                    Placed::InResult => slots.push(Slot::Part { entry }),
                    Placed::Deferred => {
                        slots.push(Slot::Placeholder { entry });
                        slots.push(Slot::Deferred { entry });
                    }
                    Placed::Held(spilled) => {
                        if spilled.note {
                            slots.push(Slot::SpillNote { entry });
                        }
                        if spilled.saved {
                            slots.push(Slot::SpillSaved { entry });
                        }
                        if spilled.placeholder {
                            slots.push(Slot::SpillPlaceholder { entry });
                            slots.push(Slot::SpillDeferred { entry });
                        } else {
                            slots.push(Slot::SpillPart { entry });
                        }
                    }
                }
            }
        }
    }
    if shape.structured {
        slots.push(Slot::Structured);
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
                Slot::Part { entry: 0 },
                Slot::Part { entry: 1 },
                Slot::Structured,
                Slot::StructuredSaved,
            ]
        );
        assert_eq!(layout(&shape(&entries))[0].name(), "part");
    }

    #[test]
    fn each_slot_has_its_own_code_and_name() {
        let every = [
            Slot::ErrorNote,
            Slot::Note { entry: 0 },
            Slot::Part { entry: 0 },
            Slot::Placeholder { entry: 0 },
            Slot::Deferred { entry: 0 },
            Slot::Saved { entry: 0 },
            Slot::SpillNote { entry: 0 },
            Slot::SpillSaved { entry: 0 },
            Slot::SpillPlaceholder { entry: 0 },
            Slot::SpillDeferred { entry: 0 },
            Slot::SpillPart { entry: 0 },
            Slot::Structured,
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
                Slot::Note { entry: 0 },
                Slot::Saved { entry: 0 },
                Slot::Part { entry: 0 },
            ]
        );
    }

    #[test]
    fn a_deferred_attachment_leaves_its_placeholder_and_moves_its_part() {
        let entries = [Some(fitted(Placed::Deferred)), Some(TEXT)];
        assert_eq!(
            layout(&shape(&entries)),
            [
                Slot::Note { entry: 0 },
                Slot::Saved { entry: 0 },
                Slot::Placeholder { entry: 0 },
                Slot::Deferred { entry: 0 },
                Slot::Part { entry: 1 },
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
                Slot::SpillNote { entry: 0 },
                Slot::SpillSaved { entry: 0 },
                Slot::SpillPart { entry: 0 },
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
            [Slot::Note { entry: 0 }, Slot::Saved { entry: 0 }]
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
            [Slot::SpillSaved { entry: 0 }, Slot::SpillPart { entry: 0 },]
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
                Slot::SpillNote { entry: 0 },
                Slot::SpillSaved { entry: 0 },
                Slot::SpillPlaceholder { entry: 0 },
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
                Slot::Part { entry: 1 },
                Slot::Saved { entry: 1 },
                Slot::Structured,
                Slot::StructuredSaved,
            ]
        );
        assert_eq!(slots[1].entry(), Some(1));
        assert_eq!(slots[2].entry(), None);
    }

    #[test]
    fn file_entries_pair_with_attachments_in_order() {
        let given = [
            Some(Given::File {
                note: true,
                saved: true,
            }),
            None,
            Some(Given::Text { saved: false }),
            Some(Given::File {
                note: false,
                saved: false,
            }),
        ];
        let spilled = Spilled {
            saved: true,
            ..Spilled::default()
        };
        let verdicts = [Verdict::Deferred, Verdict::Held(Some(spilled))];
        assert_eq!(
            place(&given, &verdicts, &[true, false]),
            Some(vec![
                Some(fitted(Placed::Deferred)),
                None,
                Some(TEXT),
                Some(file(Placed::Held(spilled))),
            ])
        );
        // Not spilled yet, or one attachment too many or too few.
        assert_eq!(
            place(
                &given,
                &[Verdict::InResult, Verdict::Held(None)],
                &[true, false]
            ),
            None
        );
        assert_eq!(place(&given, &[Verdict::InResult], &[true]), None);
        assert_eq!(place(&given[1..], &verdicts, &[true, false]), None);
    }
}
