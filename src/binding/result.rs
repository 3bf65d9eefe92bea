//! Whole tool results: a handle on one result being converted, its media
//! parts converted and recorded, the core's verdicts on its attachments,
//! and the attachments held back saved (or made to fit again).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use napi::bindgen_prelude::*;
use napi::{Unknown, ValueType};
use napi_derive::napi;

use super::answer::{Base64Value, List, SavedFile};
use super::args::{
    bool_arg, bytes_arg, count_arg, is_nullish, number_arg, string_arg, DataArg, OwnedData,
};
use super::media::{answered, checked_copy, convert, MediaFields};
use super::settings::{settings_of, Settings};
use super::{from_napi, guarded, invalid, on_pool, OnPool, PoolWork};
use crate::budget::{Candidate, Carried};
use crate::content::{self, Converted, Held, HeldPart, MediaKind, MediaPart, ModelPart, NoteStyle};
use crate::payload::Payload;
use crate::route::Reason;
use crate::store::KeptFiles;
use crate::tool_result::layout::{self, Given, Shape, Slot, Spilled};
use crate::tool_result::{self, DeferMode, Verdict};

/// One tool result being converted: its settings (whose store never evicts
/// what the result saved), whether media are deferred, its attachments by
/// content position and the core's verdicts on them. The entry holds it as
/// an opaque handle for the duration of one `convertToolResult`.
pub(super) struct ResultPlan {
    pub settings: Settings,
    defer: bool,
    /// What the request carries already, besides this result.
    carried: Carried,
    /// Recorded as each media part is converted, on whichever thread.
    attachments: Arc<Mutex<BTreeMap<u32, Attachment>>>,
    /// In content order, once decided.
    held: Vec<(Attachment, Verdict)>,
    /// The converted entries as the entry gave them to `resultDecide` (`None`
    /// before), and whether an error note and structured content come with them.
    given: Option<Vec<Option<Given>>>,
    error_note: bool,
    structured: bool,
    /// Per attachment, what its spill answered, recorded on whichever thread.
    spilled: Arc<Mutex<Vec<Option<Spilled>>>>,
}

impl ResultPlan {
    fn new(settings: Settings, defer: bool) -> ResultPlan {
        ResultPlan {
            settings,
            defer,
            carried: Carried::default(),
            attachments: Arc::default(),
            held: Vec::new(),
            given: None,
            error_note: false,
            structured: false,
            spilled: Arc::default(),
        }
    }
}

/// A file part of the result, as the budget and a later spill need it.
#[derive(Clone)]
struct Attachment {
    kind: MediaKind,
    uri: Option<String>,
    media_type: &'static str,
    byte_length: u64,
    dimensions: Option<(u32, u32)>,
    pages: Option<u32>,
    /// The original of an image made to fit, saved already.
    original: Option<content::Saved>,
}

type ResultHandle = External<ResultPlan>;

/// The plan behind a handle. Node-API checks the handle was made by this
/// addon for this type.
pub(super) fn plan_of<'a>(value: &Unknown<'a>) -> Result<&'a mut ResultPlan, String> {
    // SAFETY: `from_napi_mut_ref` confirms that the external's payload is a
    // live `ResultHandle` made by this binary. The reference is used within
    // the current native call only (no JS runs meanwhile), while the handle
    // on this call's stack keeps the external alive, so no other reference
    // to it exists while this one does.
    let handle = unsafe { ResultHandle::from_napi_mut_ref(value.value().env, value.raw()) }
        .map_err(|_| invalid("`result` must be a result handle"))?;
    Ok(&mut **handle)
}

fn lock<T>(recorded: &Mutex<T>) -> MutexGuard<'_, T> {
    // Inserts, single writes and reads only: a poisoned one is still whole.
    recorded.lock().unwrap_or_else(|e| e.into_inner())
}

/// `deferMedia`: true, false, 'auto', or absent (= 'auto').
fn defer_arg(value: Option<Unknown>) -> Result<DeferMode, String> {
    let Some(value) = value.filter(|v| !is_nullish(v).unwrap_or(false)) else {
        return Ok(DeferMode::Auto);
    };
    let refused = || invalid("`deferMedia` must be true, false or 'auto'");
    match value.get_type().map_err(from_napi)? {
        ValueType::Boolean => Ok(if bool_arg(Some(value), "deferMedia")? {
            DeferMode::Always
        } else {
            DeferMode::Never
        }),
        ValueType::String => match string_arg(Some(value), "deferMedia")?.as_deref() {
            Some("auto") => Ok(DeferMode::Auto),
            _ => Err(refused()),
        },
        _ => Err(refused()),
    }
}

/// Start converting a tool result with `settings`, deferring media as
/// `deferMedia` says.
#[napi(
    catch_unwind,
    ts_args_type = "settings: SettingsHandle, deferMedia: unknown",
    ts_return_type = "ResultHandle"
)]
pub fn result_new(settings: Unknown, defer_media: Option<Unknown>) -> Result<ResultHandle, String> {
    Ok(External::new(new_plan(&settings, defer_media)?))
}

/// Make the handle of a finished result ready for another, as `resultNew`
/// would make one: Node-API tracks each new handle until a finalizer runs,
/// which took ~3 us of a one-part result's ~9. Tasks of the last result
/// keep what they record (their own `Arc`s), apart from this one's.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, settings: SettingsHandle, deferMedia: unknown"
)]
pub fn result_reuse(
    result: Unknown,
    settings: Unknown,
    defer_media: Option<Unknown>,
) -> Result<(), String> {
    let plan = new_plan(&settings, defer_media)?;
    *plan_of(&result)? = plan;
    Ok(())
}

fn new_plan(settings: &Unknown, defer_media: Option<Unknown>) -> Result<ResultPlan, String> {
    let mut settings = settings_of(settings)?;
    let defer = defer_arg(defer_media)?.defers(settings.profile);
    let kept = Arc::new(KeptFiles::default());
    settings.store = Arc::new(settings.store.keeping(&kept));
    Ok(ResultPlan::new(settings, defer))
}

/// Count toward the result's budget what the request carries besides it,
/// as the caller says: attachments by kind, their pages and decoded bytes.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, images: number, documents: number, pages: number, bytes: number, documentBytes: number"
)]
pub fn result_carries(
    result: Unknown,
    images: Option<Unknown>,
    documents: Option<Unknown>,
    pages: Option<Unknown>,
    bytes: Option<Unknown>,
    document_bytes: Option<Unknown>,
) -> Result<(), String> {
    let plan = plan_of(&result)?;
    let given = Carried {
        images: count_arg(images, "images")?.unwrap_or(0),
        documents: count_arg(documents, "documents")?.unwrap_or(0),
        pages: count_arg(pages, "pages")?.unwrap_or(0),
        bytes: bytes_arg(bytes, "bytes")?.unwrap_or(0),
        document_bytes: bytes_arg(document_bytes, "documentBytes")?.unwrap_or(0),
    };
    plan.carried = given;
    Ok(())
}

/// Count toward the result's budget one attachment of the request's
/// history (`mimeType` as its block declares it).
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, data: string | Uint8Array, mimeType: unknown, dataIsLatin1: boolean | 'base64Bytes'"
)]
pub fn result_carry(
    result: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<(), String> {
    let plan = plan_of(&result)?;
    let declared = string_arg(mime_type, "mimeType")?;
    let data = DataArg::read(data, data_is_latin1)?;
    let profile = plan.settings.profile;
    let mut carried = plan.carried;
    data.with_payload("data", |payload| {
        guarded(|| {
            tool_result::carry(&mut carried, profile, payload, declared.as_deref());
            Ok(())
        })
    })??;
    plan.carried = carried;
    Ok(())
}

js_answer! {
    // A media part of a result converted to a file part.
    pub struct ResultFile {
        #[ts("'file'")]
        kind: String = "kind",
        media_type: String = "mediaType",
        #[ts("string | Buffer | null")]
        data: Base64Value = "data",
        uri: Option<String> = "uri",
        filename: Option<String> = "filename",
        // What goes beside an image made to fit.
        note: Option<String> = "note",
        // A file spilled, or the original of an image made to fit.
        saved: Option<SavedFile> = "saved",
        // For an image fitted after the budget while media are deferred:
        // the text the result keeps.
        placeholder: Option<String> = "placeholder",
    }
}

js_answer! {
    // A media part of a result converted to text (a note, or the text of
    // a text resource).
    pub struct ResultText {
        #[ts("'text'")]
        kind: String = "kind",
        text: String = "text",
        // The file the part was saved in, if any.
        saved: Option<SavedFile> = "saved",
    }
}

type ResultAnswer = Either<ResultText, ResultFile>;

fn result_answer(
    converted: Converted,
    checked_copy: Option<Vec<u8>>,
    placeholder: Option<String>,
) -> ResultAnswer {
    let Converted {
        part, saved, note, ..
    } = converted;
    let saved = saved.map(SavedFile::from);
    match part {
        ModelPart::Text(text) => Either::A(ResultText {
            kind: "text".into(),
            text,
            saved,
        }),
        ModelPart::File {
            media_type,
            data,
            uri,
            filename,
        } => Either::B(ResultFile {
            kind: "file".into(),
            media_type: media_type.to_string(),
            data: Base64Value::new(data, checked_copy),
            uri,
            filename,
            note,
            saved,
            placeholder,
        }),
    }
}

fn style(defer: bool) -> NoteStyle {
    if defer {
        NoteStyle::Deferred
    } else {
        NoteStyle::Standard
    }
}

/// One media part of a result to convert, owned.
pub struct ResultMediaWork {
    /// The part's position in the result's content.
    position: u32,
    fields: MediaFields,
    settings: Settings,
    style: NoteStyle,
    attachments: Arc<Mutex<BTreeMap<u32, Attachment>>>,
    data: OwnedData,
}

impl ResultMediaWork {
    fn convert(&self, payload: Payload, disk: bool) -> Result<Option<Converted>, String> {
        let converted = convert(&self.fields, payload, &self.settings, self.style, disk)?;
        if let Some(converted) = &converted {
            self.record(converted);
        }
        Ok(converted)
    }

    /// Record a file part for the budget (with the original of an image
    /// made to fit, which a spill must not save again).
    fn record(&self, converted: &Converted) {
        let ModelPart::File { media_type, .. } = &converted.part else {
            return;
        };
        let attached = converted.attached;
        let attachment = Attachment {
            kind: self.fields.kind,
            uri: self.fields.uri.clone(),
            media_type,
            byte_length: attached.map_or(0, |a| a.byte_length),
            dimensions: attached.and_then(|a| a.dimensions),
            pages: attached.and_then(|a| a.pages),
            original: converted.saved.clone().filter(|_| converted.note.is_some()),
        };
        lock(&self.attachments).insert(self.position, attachment);
    }
}

impl PoolWork for ResultMediaWork {
    type Answer = ResultAnswer;

    fn run(&mut self) -> Result<ResultAnswer, String> {
        let converted = answered(self.convert(self.data.payload(), true)?)?;
        let copy = checked_copy(&converted, &mut self.data);
        Ok(result_answer(converted, copy, None))
    }
}

/// A media part of a result at `position` in its content, with its data
/// still to be read.
fn result_media_work(
    result: &Unknown,
    position: Unknown,
    kind: Unknown,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
) -> Result<ResultMediaWork, String> {
    let plan = plan_of(result)?;
    let position =
        count_arg(Some(position), "position")?.ok_or_else(|| invalid("`position` is required"))?;
    Ok(ResultMediaWork {
        position,
        fields: MediaFields::read(kind, mime_type, uri)?,
        settings: plan.settings.clone(),
        style: style(plan.defer),
        attachments: Arc::clone(&plan.attachments),
        data: OwnedData::Absent,
    })
}

/// Convert the media part at `position` of a result here, as
/// `convertMediaSync` does with the result's settings and note style,
/// recording what it attached.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, position: number, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "ResultText | ResultFile"
)]
pub fn result_media_sync(
    result: Unknown,
    position: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<ResultAnswer, String> {
    let work = result_media_work(&result, position, kind, mime_type, uri)?;
    let data = DataArg::read(data, data_is_latin1)?;
    let converted = answered(data.with_payload("data", |p| work.convert(p, true))??)?;
    Ok(result_answer(converted, None, None))
}

/// `resultMediaSync`, or `undefined` when the part needs a disk write.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, position: number, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "ResultText | ResultFile | undefined"
)]
pub fn result_media_inline(
    result: Unknown,
    position: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<Either<ResultAnswer, Undefined>, String> {
    let work = result_media_work(&result, position, kind, mime_type, uri)?;
    let data = DataArg::read(data, data_is_latin1)?;
    let converted = data.with_payload("data", |p| work.convert(p, false))??;
    // `undefined`, not `null`: the entry tells the two apart from an answer.
    Ok(converted.map_or(Either::B(()), |c| Either::A(result_answer(c, None, None))))
}

/// A promise of `resultMediaSync` done on the libuv thread pool, from a
/// copy of the data.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, position: number, kind: 'image' | 'audio' | 'media' | 'resource', data: string | Uint8Array | undefined | null, mimeType: unknown, uri: unknown, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "Promise<ResultText | ResultFile>"
)]
pub fn result_media(
    result: Unknown,
    position: Unknown,
    kind: Unknown,
    data: Option<Unknown>,
    mime_type: Option<Unknown>,
    uri: Option<Unknown>,
    data_is_latin1: Option<Unknown>,
) -> Result<AsyncTask<OnPool<ResultMediaWork>>, String> {
    let mut work = result_media_work(&result, position, kind, mime_type, uri)?;
    work.data = DataArg::read(data, data_is_latin1)?.into_owned("data")?;
    Ok(on_pool(work))
}

js_answer! {
    // Where each attachment of a result goes, the text an error result
    // without text gets first, and the order of the answer.
    pub struct Decision {
        // Per attachment in content order: `true` (stays in the result),
        // the placeholder the result keeps (deferred), or `false` (held
        // back: `resultSpill` saves it or makes it fit again).
        #[ts("Array<boolean | string>")]
        verdicts: List<Either<bool, String>> = "verdicts",
        // Per attachment: made to fit when converted, its original saved.
        // Held back, it is given to `resultSpill` as the original part's
        // data, and the spill's answer has its one note and saved file.
        #[ts("Array<boolean>")]
        fitted_before: List<bool> = "fittedBefore",
        error_text: Option<String> = "errorText",
        // The answer's order (see `resultLayout`); `null` when an attachment
        // is held back: `resultLayout` tells it once every one is spilled.
        layout: Option<String> = "layout",
    }
}

/// Decide where each attachment recorded so far goes, and the order of the
/// answer. `entries`: one character an entry in content order, its code the
/// entry's shape as [`ShapeBits`] (0: no entry); the `a`-th file entry is
/// the `a`-th attachment. `structured`: the structured content's JSON text
/// comes last. One call for both: each native call costs a whole result
/// ~0.5 us.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, isError: boolean, hasText: boolean, entries: string, structured: boolean",
    ts_return_type = "Decision"
)]
pub fn result_decide(
    result: Unknown,
    is_error: Option<Unknown>,
    has_text: Option<Unknown>,
    entries: Option<Unknown>,
    structured: Option<Unknown>,
) -> Result<Decision, String> {
    let plan = plan_of(&result)?;
    let is_error = bool_arg(is_error, "isError")?;
    let has_text = bool_arg(has_text, "hasText")?;
    let given = string_arg(entries, "entries")?
        .ok_or_else(|| invalid("`entries` is required"))?
        .chars()
        .map(|shape| entry_given(u32::from(shape)))
        .collect::<Result<Vec<_>, _>>()?;
    let structured = bool_arg(structured, "structured")?;
    let attachments: Vec<Attachment> = lock(&plan.attachments).values().cloned().collect();
    let files = given
        .iter()
        .filter(|g| matches!(g, Some(Given::File { .. })))
        .count();
    if files != attachments.len() {
        return Err(invalid(format!(
            "`entries` has {files} file entries for {} attachments",
            attachments.len()
        )));
    }
    let candidates: Vec<Candidate> = attachments
        .iter()
        .map(|a| Candidate {
            media_type: a.media_type,
            byte_length: a.byte_length,
            dimensions: a.dimensions,
            pages: a.pages,
        })
        .collect();
    let (profile, defer, fit, carried) = (
        plan.settings.profile,
        plan.defer,
        plan.settings.fit.enabled,
        plan.carried,
    );
    let verdicts = guarded(|| {
        Ok(tool_result::decide_fitting(
            profile,
            defer,
            &candidates,
            fit,
            &carried,
        ))
    })?;
    let error_text = tool_result::error_text(is_error, has_text);
    let mut answer = Decision {
        verdicts: List(
            verdicts
                .iter()
                .map(|verdict| match verdict {
                    Verdict::InResult => Either::A(true),
                    Verdict::Deferred { placeholder } => Either::B(placeholder.clone()),
                    Verdict::Held(_) => Either::A(false),
                })
                .collect(),
        ),
        fitted_before: List(attachments.iter().map(|a| a.original.is_some()).collect()),
        error_text: None,
        layout: None,
    };
    plan.error_note = error_text.is_some();
    answer.error_text = error_text;
    plan.structured = structured;
    plan.given = Some(given);
    plan.spilled = Arc::new(Mutex::new(vec![None; attachments.len()]));
    plan.held = attachments.into_iter().zip(verdicts).collect();
    answer.layout = guarded(|| Ok(layout_of(plan)))?;
    Ok(answer)
}

/// An entry's shape in `resultDecide`'s `entries`: 0 for no entry, else
/// `TEXT` or `FILE` with these bits. The entry reads them from
/// `layoutShapeBits`, so they are written here only.
mod shape {
    pub const TEXT: u32 = 1;
    pub const FILE: u32 = 1 << 1;
    pub const NOTE: u32 = 1 << 2;
    pub const SAVED: u32 = 1 << 3;
}

js_answer! {
    // The bits of an entry's shape in `resultDecide`'s `entries`.
    pub struct ShapeBits {
        text: u32 = "text",
        file: u32 = "file",
        note: u32 = "note",
        saved: u32 = "saved",
    }
}

/// The bits `resultDecide` reads an entry's shape from.
#[napi]
pub fn layout_shape_bits() -> ShapeBits {
    ShapeBits {
        text: shape::TEXT,
        file: shape::FILE,
        note: shape::NOTE,
        saved: shape::SAVED,
    }
}

/// One entry from its shape's bits; a combination no entry has is refused.
fn entry_given(bits: u32) -> Result<Option<Given>, String> {
    use shape::*;
    let has = |bit: u32| bits & bit != 0;
    match bits {
        0 => Ok(None),
        b if b & !(TEXT | SAVED) == 0 && has(TEXT) => Ok(Some(Given::Text { saved: has(SAVED) })),
        b if b & !(FILE | NOTE | SAVED) == 0 && has(FILE) => Ok(Some(Given::File {
            note: has(NOTE),
            saved: has(SAVED),
        })),
        _ => Err(invalid(format!(
            "`entries` has a shape no entry has: {bits}"
        ))),
    }
}

/// Every layout slot's name, indexed by its code in a layout string, then
/// `ENTRY`'s: "entry".
#[napi(
    ts_return_type = "Array<'errorNote' | 'note' | 'part' | 'placeholder' | 'deferred' | 'saved' | 'spillNote' | 'spillSaved' | 'spillPlaceholder' | 'spillDeferred' | 'spillPart' | 'structured' | 'structuredSaved' | 'entry'>"
)]
pub fn layout_slot_names() -> Vec<&'static str> {
    let mut names = Slot::NAMES.to_vec();
    names.push("entry");
    names
}

/// In a layout string: the slots after it take from the next entry.
const ENTRY: u8 = Slot::NAMES.len() as u8;

/// The order of the answer (the core's `tool_result::layout`) once decided
/// and every attachment held back is spilled; `None` before. One character a slot, in
/// the order the answer is built: the slot's code, an index in
/// `layoutSlotNames`, and `ENTRY` each time the slots move on to the next
/// entry (the slots of entry `i` follow its `i + 1`-th mark). A string:
/// arrays of numbers and names made a one-part result take 14 us instead
/// of 9 and 1,000 parts 1.5 ms more, typed arrays still 11.4.
fn layout_of(plan: &ResultPlan) -> Option<String> {
    let spilled = lock(&plan.spilled);
    let verdicts: Vec<layout::Verdict> = plan
        .held
        .iter()
        .zip(spilled.iter())
        .map(|((_, verdict), spilled)| match verdict {
            Verdict::InResult => layout::Verdict::InResult,
            Verdict::Deferred { .. } => layout::Verdict::Deferred,
            Verdict::Held(_) => layout::Verdict::Held(*spilled),
        })
        .collect();
    let fitted: Vec<bool> = plan
        .held
        .iter()
        .map(|(a, _)| a.original.is_some())
        .collect();
    let entries = layout::place(plan.given.as_deref()?, &verdicts, &fitted)?;
    let slots = layout::layout(&Shape {
        error_note: plan.error_note,
        entries: &entries,
        structured: plan.structured,
    });
    let mut answer = String::with_capacity(slots.len() + entries.len());
    let mut next_entry = 0;
    for slot in slots {
        if let Some(entry) = slot.entry() {
            while next_entry <= entry {
                answer.push(char::from(ENTRY));
                next_entry += 1;
            }
        }
        answer.push(char::from(slot.code()));
    }
    Some(answer)
}

/// The order of the answer of a result whose `resultDecide` held back
/// attachments, once `resultSpill` has saved each (see `Decision.layout`).
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle",
    ts_return_type = "string"
)]
pub fn result_layout(result: Unknown) -> Result<String, String> {
    let plan = plan_of(&result)?;
    guarded(|| Ok(layout_of(plan)))?.ok_or_else(|| {
        invalid("the result must be decided and every attachment held back spilled first")
    })
}

/// An attachment held back, to save (or make fit again), owned.
pub struct SpillWork {
    attachment: Attachment,
    reason: Reason,
    settings: Settings,
    defer: bool,
    data: OwnedData,
    /// Where its answer is recorded for the layout: the result's record and
    /// the attachment's index in it.
    spilled: Arc<Mutex<Vec<Option<Spilled>>>>,
    index: usize,
}

impl SpillWork {
    /// Save it, or make it fit again (the core's [`content::Conversion::hold`]).
    fn spill(&self, payload: Payload) -> Result<ResultAnswer, String> {
        let attachment = &self.attachment;
        let part = MediaPart::new(attachment.kind, attachment.uri.as_deref(), None, payload);
        let held = match &attachment.original {
            Some(original) => Held {
                media_type: &original.media_type,
                reason: &self.reason,
                saved_original: Some(&original.path),
            },
            None => Held {
                media_type: attachment.media_type,
                reason: &self.reason,
                saved_original: None,
            },
        };
        let conversion = self.settings.conversion(style(self.defer));
        let HeldPart {
            converted,
            placeholder,
        } = guarded(|| Ok(conversion.hold(&part, held, &self.settings.store)))?;
        let answer = result_answer(converted, None, placeholder);
        // What the entry reads of the answer (a text answer has no note or
        // placeholder), so the layout and the entry agree.
        let spilled = match &answer {
            Either::A(text) => Spilled {
                saved: text.saved.is_some(),
                ..Spilled::default()
            },
            Either::B(file) => Spilled {
                note: file.note.is_some(),
                saved: file.saved.is_some(),
                placeholder: file.placeholder.is_some(),
            },
        };
        if let Some(slot) = lock(&self.spilled).get_mut(self.index) {
            *slot = Some(spilled);
        }
        Ok(answer)
    }
}

impl PoolWork for SpillWork {
    type Answer = ResultAnswer;

    fn run(&mut self) -> Result<ResultAnswer, String> {
        self.spill(self.data.payload())
    }
}

/// The attachment `resultDecide` held back at `index` (in attachment
/// order), with its data still to be read.
fn spill_work(result: &Unknown, index: Unknown) -> Result<SpillWork, String> {
    let plan = plan_of(result)?;
    let index = number_arg(Some(index), "index")?.unwrap_or(-1.0);
    let index = (index >= 0.0 && index.fract() == 0.0).then_some(index as usize);
    match index.and_then(|i| Some((i, plan.held.get(i)?))) {
        Some((index, (attachment, Verdict::Held(reason)))) => Ok(SpillWork {
            attachment: attachment.clone(),
            reason: reason.clone(),
            settings: plan.settings.clone(),
            defer: plan.defer,
            data: OwnedData::Absent,
            spilled: Arc::clone(&plan.spilled),
            index,
        }),
        _ => Err(invalid("`index` must name an attachment held back")),
    }
}

/// Save the attachment `resultDecide` held back at `index` (`data`: its
/// file part's base64, or for an image made to fit, the original part's
/// data): the note and the saved file, as `resultMediaSync` answers.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, index: number, data: string | Uint8Array, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "ResultText | ResultFile"
)]
pub fn result_spill_sync(
    result: Unknown,
    index: Unknown,
    data: Unknown,
    data_is_latin1: Option<Unknown>,
) -> Result<ResultAnswer, String> {
    let work = spill_work(&result, index)?;
    let data = DataArg::read(Some(data), data_is_latin1)?;
    data.with_payload("data", |p| work.spill(p))?
}

/// A promise of `resultSpillSync` done on the libuv thread pool, from a
/// copy of the data.
#[napi(
    catch_unwind,
    ts_args_type = "result: ResultHandle, index: number, data: string | Uint8Array, dataIsLatin1: boolean | 'base64Bytes'",
    ts_return_type = "Promise<ResultText | ResultFile>"
)]
pub fn result_spill(
    result: Unknown,
    index: Unknown,
    data: Unknown,
    data_is_latin1: Option<Unknown>,
) -> Result<AsyncTask<OnPool<SpillWork>>, String> {
    let mut work = spill_work(&result, index)?;
    work.data = DataArg::read(Some(data), data_is_latin1)?.into_owned("data")?;
    Ok(on_pool(work))
}
