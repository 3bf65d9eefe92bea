'use strict'
// A whole result's answer, built in the order the core decides: the shapes of
// its converted entries as the core reads them, and the answer made by
// following the core's layout (one slot at a time: a part, a note, a
// placeholder, a deferred part or a saved file, from an entry or its spill).

const native = require('./native.js')
const { append } = require('./own-objects.js')
const { textPart } = require('./text.js')
const { queueAdd } = require('./attachment-queue.js')
const { fromResultAnswer } = require('./result-entry.js')

const ReflectApply = Reflect.apply
const StringFromCharCode = String.fromCharCode
const StringPrototypeCharCodeAt = String.prototype.charCodeAt

// The bits of an entry's shape for resultDecide, as the core defines them.
const SHAPE = native.layoutShapeBits()

// The code of each slot of the answer's order in the core's layout strings, by its name there.
const SLOT_NAMES = native.layoutSlotNames()
function slotCode(name) {
  for (let code = 0; code < SLOT_NAMES.length; code++) if (SLOT_NAMES[code] === name) return code
  throw new Error(`mcp-content: the native addon names no layout slot '${name}' (an addon of another version?)`)
}
// Numbers a switch compares at once; a name looked up for each slot cost 1,000 small parts ~4%.
const SLOT_ENTRY = slotCode('entry')
const SLOT_ERROR_NOTE = slotCode('errorNote')
const SLOT_NOTE = slotCode('note')
const SLOT_PART = slotCode('part')
const SLOT_PLACEHOLDER = slotCode('placeholder')
const SLOT_DEFERRED = slotCode('deferred')
const SLOT_SAVED = slotCode('saved')
const SLOT_SPILL_NOTE = slotCode('spillNote')
const SLOT_SPILL_SAVED = slotCode('spillSaved')
const SLOT_SPILL_PLACEHOLDER = slotCode('spillPlaceholder')
const SLOT_SPILL_DEFERRED = slotCode('spillDeferred')
const SLOT_SPILL_PART = slotCode('spillPart')
const SLOT_STRUCTURED = slotCode('structured')
const SLOT_STRUCTURED_SAVED = slotCode('structuredSaved')
const NO_ENTRY = StringFromCharCode(0)

/** A converted entry's shape for the core: one character, its code the shape's bits. */
function entryShape(entry) {
  if (entry === null) return NO_ENTRY
  let shape = entry.isFile ? SHAPE.file : SHAPE.text
  if (entry.note !== undefined) shape |= SHAPE.note
  if (entry.saved !== undefined) shape |= SHAPE.saved
  return StringFromCharCode(shape)
}

/**
 * Put the verdicts and spills in place and build the answer in the core's order; queue deferred
 * media.
 */
function finishResult(job, converted, decision, spilled, structured) {
  const { read, queue, toolCallId } = job
  const content = []
  // The index in the result's content of the part each content part comes from: -1 for the error
  // note added before them all, the number of parts for the structured content's JSON after them.
  const sources = []
  const deferred = []
  const saved = []
  // One character a slot (its code), and a mark where the slots move on to the next entry.
  const layout = decision.layout ?? native.resultLayout(job.handle)
  let i = -1
  let entrySource = -1
  // The entry's attachment (the a-th file entry is the a-th attachment), and what its spill
  // answered when it was held back (the h-th held one).
  let a = -1
  let h = -1
  let spill
  for (let s = 0; s < layout.length; s++) {
    let part
    let source = entrySource
    switch (ReflectApply(StringPrototypeCharCodeAt, layout, [s])) {
      case SLOT_ENTRY:
        i++
        // A linked resource's parts come from their link.
        entrySource = read.sources === undefined ? i : read.sources[i]
        if (converted[i] !== null && converted[i].isFile && decision.verdicts[++a] === false) spill = fromResultAnswer(spilled[++h], converted[i].media)
        continue
      case SLOT_ERROR_NOTE:
        part = textPart(decision.errorText)
        break
      case SLOT_NOTE:
        part = textPart(converted[i].note)
        break
      case SLOT_PART:
        part = converted[i].part
        break
      case SLOT_PLACEHOLDER:
        part = textPart(decision.verdicts[a])
        break
      case SLOT_DEFERRED:
        append(deferred, converted[i].part)
        break
      case SLOT_SAVED:
        append(saved, converted[i].saved)
        break
      case SLOT_SPILL_NOTE:
        part = textPart(spill.note)
        break
      case SLOT_SPILL_SAVED:
        append(saved, spill.saved)
        break
      case SLOT_SPILL_PLACEHOLDER:
        part = textPart(spill.placeholder)
        break
      case SLOT_SPILL_DEFERRED:
        append(deferred, spill.part)
        break
      case SLOT_SPILL_PART:
        part = spill.part
        break
      case SLOT_STRUCTURED:
        part = structured.entry.part
        source = read.partCount
        break
      case SLOT_STRUCTURED_SAVED:
        for (let f = 0; f < structured.saved.length; f++) append(saved, structured.saved[f])
        if (structured.entry.saved !== undefined) append(saved, structured.entry.saved)
        break
    }
    if (part !== undefined) {
      append(content, part)
      append(sources, source)
    }
  }
  if (queue !== undefined && deferred.length > 0) queueAdd(queue, toolCallId, deferred)
  // For an MCP client (the proxy): the value with the same strings replaced.
  if (read.structured !== undefined) return { content, isError: read.isError, deferred, saved, sources, structuredContent: read.structured.value }
  return { content, isError: read.isError, deferred, saved, sources }
}

module.exports = { entryShape, finishResult }
