'use strict'
// A whole MCP tool result converted for a provider: every part read and
// converted in order, the attachments given to native code, which decides
// which stay, wait for the next user message or are saved instead; the
// structured content as JSON text; the answer built in the order the core
// lays out (result-answer.js). With `readResource`, links are read first
// (resource-links.js) and their contents converted at their places.

const native = require('./native.js')
const { invalidArgument, own, append } = require('./own-objects.js')
const { ON_WASM, INLINE_MAX_DATA, isLatin1, nativeData, nativeWord, dataSize } = require('./data.js')
const { readConvertOptions } = require('./options.js')
const { Media, readPart } = require('./parts.js')
const { LongText, boundTextSync, boundText } = require('./text.js')
const { textEntry, longTextEntry, fromResultAnswer } = require('./result-entry.js')
const { entryShape, finishResult } = require('./result-answer.js')
const { structuredView, structuredText, structuredInText } = require('./structured-content.js')
const { readLinks, readLinkedParts, readsBySource } = require('./resource-links.js')
const { historyMedia } = require('./history.js')

const ReflectApply = Reflect.apply
const ArrayIsArray = Array.isArray
const RegExpPrototypeExec = RegExp.prototype.exec
const PromisePrototypeThen = Promise.prototype.then
const NOT_BLANK = /\S/

function ignore() {}

/**
 * A promise awaited later, after others: marked handled now, so its
 * rejection (awaited in turn) is not reported as unhandled meanwhile.
 */
function started(promise) {
  ReflectApply(PromisePrototypeThen, promise, [undefined, ignore])
  return promise
}

/**
 * A result's parts (as readPart reads them), its error flag and its structured content as the
 * model reads it; with `linked` (its links read), the parts given there, with the index in the
 * result's `content` each comes from (`sources`) and how many parts the result has (`partCount`).
 */
function readResult(result, settings, linked) {
  if (result === null || typeof result !== 'object') throw invalidArgument('`result` must be an object (an MCP CallToolResult)')
  const content = linked === undefined ? own(result, 'content') : undefined
  const structured = own(result, 'structuredContent')
  const isError = own(result, 'isError') === true
  let reads = []
  if (linked !== undefined) {
    reads = readLinkedParts(linked, settings)
  } else if (content !== undefined && content !== null) {
    if (!ArrayIsArray(content)) throw invalidArgument('`content` must be an array')
    const length = content.length
    for (let i = 0; i < length; i++) {
      append(reads, readPart(own(content, i), settings))
    }
  }
  const view =
    structured === undefined || structured === null ? undefined : structuredView(structured, linked === undefined ? reads : readsBySource(reads, linked))
  if (linked !== undefined) return { reads, isError, structured: view, sources: linked.sources, partCount: linked.length }
  return { reads, isError, structured: view, sources: undefined, partCount: reads.length }
}

// Handles of finished results, made ready for the next by resultReuse: a new one costs ~3 us
// (Node-API tracks it until its finalizer runs), a one-text-part result ~9 in all. Only handles
// of results that ended well come back, so no task of theirs is still running. No prototype, so
// no setter planted on Array.prototype sees a handle.
const idleHandles = { __proto__: null }
let idleCount = 0
const MAX_IDLE_HANDLES = 16

function resultHandle(settings, deferMedia) {
  if (idleCount === 0) return native.resultNew(settings.handle, deferMedia)
  const handle = idleHandles[--idleCount]
  idleHandles[idleCount] = undefined
  native.resultReuse(handle, settings.handle, deferMedia)
  return handle
}

function releaseHandle(handle) {
  if (idleCount < MAX_IDLE_HANDLES) idleHandles[idleCount++] = handle
}

/**
 * A whole-result conversion under way: its options, what was read, the native handle, and
 * whether the structured content's JSON text comes last (no text part carries the same JSON).
 */
function startResult(result, options, linked) {
  const { settings, toolCallId, queue, deferMedia, carried } = options
  const read = readResult(result, settings, linked)
  const withStructured = read.structured !== undefined && !structuredInText(read)
  const handle = resultHandle(settings, deferMedia)
  if (carried !== undefined) carry(handle, carried)
  return { settings, toolCallId, queue, read, withStructured, handle }
}

/**
 * Tell the result's budget what the request carries besides it: the counts given, or each
 * attachment of the history given (counted in native code, by what its bytes are).
 */
function carry(handle, carried) {
  const { counts, history } = carried
  if (counts !== undefined) {
    native.resultCarries(handle, counts[0], counts[1], counts[2], counts[3], counts[4])
    return
  }
  const media = historyMedia(history.messages, history.format)
  for (let i = 0; i < media.length; i++) {
    const data = media[i].data
    const latin1 = isLatin1(data)
    native.resultCarry(handle, nativeData(data, latin1), media[i].mimeType, nativeWord(latin1))
  }
}

/**
 * The media part at `position` of the result converted here.
 *
 * @param {{ handle: import('./binding/binding.d.ts').ResultHandle }} job
 * @param {number} position
 * @param {InstanceType<typeof import('./parts.js').Media>} media
 */
function resultMediaSync(job, position, media) {
  const latin1 = isLatin1(media.data)
  return native.resultMediaSync(job.handle, position, media.kind, nativeData(media.data, latin1), media.mimeType, media.uri, nativeWord(latin1))
}

/** `resultMediaSync`, or undefined when the part needs a disk write. */
function resultMediaInline(job, position, media) {
  const latin1 = isLatin1(media.data)
  return native.resultMediaInline(job.handle, position, media.kind, nativeData(media.data, latin1), media.mimeType, media.uri, nativeWord(latin1))
}

/** A promise of `resultMediaSync` done on the libuv thread pool. */
function resultMediaAsync(job, position, media) {
  const latin1 = isLatin1(media.data)
  return native.resultMedia(job.handle, position, media.kind, nativeData(media.data, latin1), media.mimeType, media.uri, nativeWord(latin1))
}

/**
 * The structured content's entry (see structuredText) and the files saved
 * for it; undefined without one, or when a text part carries it already.
 */
function structuredEntrySync(job) {
  if (!job.withStructured) return undefined
  const saved = []
  const read = structuredText('sync', job.read.structured, job.settings, saved, job.handle)
  const entry = read instanceof LongText ? longTextEntry(boundTextSync(job.handle, read), read) : textEntry(read)
  return { entry, saved }
}

async function structuredEntryAsync(job) {
  const saved = []
  const read = await structuredText('async', job.read.structured, job.settings, saved, job.handle)
  const entry = read instanceof LongText ? longTextEntry(await boundText(job.handle, read), read) : textEntry(read)
  return { entry, saved }
}

/**
 * Give the core the result's verdict question and take its answer: which
 * attachments stay, which are deferred, which are held back (saved by
 * `spill`), which were made to fit when converted, and the answer's order
 * (once the held ones are spilled, if any). Returns the decision for
 * finishResult, with the positions of the attachments and those to spill.
 */
function planResult(job, converted) {
  const attachments = []
  let shapes = ''
  let hasText = false
  for (let i = 0; i < converted.length; i++) {
    const entry = converted[i]
    shapes += entryShape(entry)
    if (entry === null) continue
    if (entry.isFile) append(attachments, i)
    else if (entry.media === undefined && ReflectApply(RegExpPrototypeExec, NOT_BLANK, [entry.part.text]) !== null) hasText = true
  }
  const { verdicts, fittedBefore, errorText, layout } = native.resultDecide(job.handle, job.read.isError, hasText, shapes, job.withStructured)
  const held = []
  for (let a = 0; a < attachments.length; a++) {
    if (verdicts[a] === false) append(held, a)
  }
  return { attachments, verdicts, fittedBefore, errorText, layout, held }
}

/**
 * The data to save for an attachment the core held back, as native code gets
 * it: the part's own base64, or for an image made to fit already, the
 * original it came from, to be fitted again (the many-image rule) or noted
 * with the file that holds it: one fit, one note, one saved file.
 */
function spillData(converted, decision, a) {
  const entry = converted[decision.attachments[a]]
  const original = decision.fittedBefore[a]
  const data = original ? entry.media.data : entry.part.data
  // Our own base64 is Latin-1, which only the wasm build is told.
  const latin1 = original ? isLatin1(data) : ON_WASM && isLatin1(data)
  return { data: nativeData(data, latin1), word: nativeWord(latin1) }
}

/** Save an attachment the core held back; its note replaces the file part. */
function spillSync(job, converted, decision, a) {
  const { data, word } = spillData(converted, decision, a)
  return native.resultSpillSync(job.handle, a, data, word)
}

/** `spillSync` on the libuv thread pool. */
function spillAsync(job, converted, decision, a) {
  const { data, word } = spillData(converted, decision, a)
  return native.resultSpill(job.handle, a, data, word)
}

/**
 * Convert a whole MCP tool result for a provider: every part in order
 * (audience honoured), attachments budgeted against what one request may
 * carry, media deferred to a following user message where the provider
 * needs it, structured content kept as JSON text. The input is not modified.
 */
function convertToolResultSync(result, options) {
  const given = readConvertOptions(options)
  if (given.links !== undefined) {
    throw invalidArgument('`readResource` needs convertToolResult: reading resource links is asynchronous, and convertToolResultSync cannot wait for it')
  }
  const job = startResult(result, given, undefined)
  const converted = []
  const { reads } = job.read
  for (let i = 0; i < reads.length; i++) {
    const read = reads[i]
    if (read === null) append(converted, null)
    else if (read instanceof Media) append(converted, fromResultAnswer(resultMediaSync(job, i, read), read))
    else if (read instanceof LongText) append(converted, longTextEntry(boundTextSync(job.handle, read), read))
    else append(converted, textEntry(read))
  }
  const structured = structuredEntrySync(job)
  const decision = planResult(job, converted)
  const spilled = []
  for (let h = 0; h < decision.held.length; h++) append(spilled, spillSync(job, converted, decision, decision.held[h]))
  const answer = finishResult(job, converted, decision, spilled, structured)
  releaseHandle(job.handle)
  return answer
}

/**
 * `convertToolResultSync` with decoding, checks and disk writes on the libuv
 * thread pool (parts of at most 256 KiB that need no disk write are
 * converted on the spot). All parts are started before any is awaited.
 * With `readResource`, the result's links are read first (resource-links.js).
 */
async function convertToolResult(result, options) {
  const given = readConvertOptions(options)
  const linked = given.links === undefined ? undefined : await readLinks(result, given.links)
  const job = startResult(result, given, linked)
  const pending = []
  const { reads } = job.read
  for (let i = 0; i < reads.length; i++) {
    const read = reads[i]
    if (read instanceof LongText) {
      append(pending, [started(boundText(job.handle, read)), read])
      continue
    }
    if (!(read instanceof Media)) {
      append(pending, read === null ? null : textEntry(read))
      continue
    }
    const answer = dataSize(read.data) <= INLINE_MAX_DATA ? resultMediaInline(job, i, read) : undefined
    append(pending, answer === undefined ? [started(resultMediaAsync(job, i, read)), read] : fromResultAnswer(answer, read))
  }
  const structuring = job.withStructured ? started(structuredEntryAsync(job)) : undefined
  const converted = []
  for (let i = 0; i < pending.length; i++) {
    const item = pending[i]
    if (!ArrayIsArray(item)) append(converted, item)
    else if (item[1] instanceof LongText) append(converted, longTextEntry(await item[0], item[1]))
    else append(converted, fromResultAnswer(await item[0], item[1]))
  }
  const decision = planResult(job, converted)
  const saving = []
  for (let h = 0; h < decision.held.length; h++) append(saving, started(spillAsync(job, converted, decision, decision.held[h])))
  const spilled = []
  for (let h = 0; h < saving.length; h++) append(spilled, await saving[h])
  const answer = finishResult(job, converted, decision, spilled, structuring === undefined ? undefined : await structuring)
  releaseHandle(job.handle)
  return answer
}

module.exports = { convertToolResult, convertToolResultSync, resultMediaSync, fromResultAnswer, planResult, spillSync }
