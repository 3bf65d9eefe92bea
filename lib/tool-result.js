'use strict'
// A whole MCP tool result converted for a provider: every part read and
// converted in order, the attachments given to native code, which decides
// which stay, wait for the next user message or are saved instead; the
// structured content as JSON text; the answer built in the result's order.
// With `readResource`, links are read first (resource-links.js) and their
// contents converted at their places.

const native = require('./native.js')
const { invalidArgument, own, append } = require('./own-objects.js')
const { ON_WASM, INLINE_MAX_DATA, isLatin1, nativeData, nativeWord, dataSize } = require('./data.js')
const { readConvertOptions } = require('./options.js')
const { Media, readPart } = require('./parts.js')
const { textPart, LongText, boundText, fromBounded } = require('./text.js')
const { fromAnswer } = require('./to-content.js')
const { structuredView, structuredText, structuredInText } = require('./structured-content.js')
const { queueAdd } = require('./attachment-queue.js')
const { readLinks, readLinkedParts, readsBySource } = require('./resource-links.js')

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

/** A whole-result conversion under way: its options, what was read, the native handle. */
function startResult(result, settings, linked) {
  const read = readResult(result, settings, linked)
  const handle = native.resultNew(settings.provider, settings.deferMedia, settings.fitImages, settings.maxLongSide, settings.priorImages)
  return { settings, read, handle }
}

function resultMedia(how, job, media) {
  const { kind, data, mimeType, uri } = media
  const { outputDir, store, maxTextTokens } = job.settings
  const latin1 = isLatin1(data)
  return native.resultMedia(how, job.handle, kind, nativeData(data, latin1), mimeType, uri, outputDir, store, maxTextTokens, nativeWord(latin1))
}

/**
 * The structured content's entry (see structuredText) and the files saved
 * for it; undefined without one, or when a text part carries it already.
 */
function structuredEntrySync(job) {
  const view = job.read.structured
  if (view === undefined || structuredInText(job.read)) return undefined
  const saved = []
  const read = structuredText('sync', view, job.settings, saved, job.handle)
  const entry = read instanceof LongText ? longTextEntry(boundText('sync', read, job.settings, job.handle), read) : textEntry(read)
  return { entry, saved }
}

async function structuredEntryAsync(job) {
  if (structuredInText(job.read)) return undefined
  const saved = []
  const read = await structuredText('async', job.read.structured, job.settings, saved, job.handle)
  const entry = read instanceof LongText ? longTextEntry(await boundText('async', read, job.settings, job.handle), read) : textEntry(read)
  return { entry, saved }
}

/** A converted text part of a result (no media, nothing to budget). */
function textEntry(part) {
  return { part, media: undefined, attachment: undefined, saved: undefined, note: undefined, placeholder: undefined }
}

/** A long text's entry in a whole result: its part, and the file holding the whole text. */
function longTextEntry(bounded, long) {
  const entry = textEntry(fromBounded(bounded, long))
  if (bounded === null || bounded[1] === null) return entry
  const mediaType = typeof long.mediaType === 'string' ? long.mediaType : 'text/plain'
  entry.saved =
    typeof long.uri === 'string'
      ? { path: bounded[1], byteLength: bounded[2], mediaType, uri: long.uri }
      : { path: bounded[1], byteLength: bounded[2], mediaType }
  return entry
}

/** The saved file whose path, size and type are at `at`, `at + 1`, `at + 2` of the answer. */
function savedEntry(answer, media, at) {
  const path = answer[at]
  const byteLength = answer[at + 1]
  const mediaType = answer[at + 2]
  if (typeof media.uri === 'string') return { path, byteLength, mediaType, uri: media.uri }
  return { path, byteLength, mediaType }
}

/**
 * A media part's native answer, made into what the result needs: the model
 * part, and the attachment facts or the saved file. Bytes are encoded here,
 * right after they were checked (see fromAnswer).
 */
function fromResultAnswer(answer, media) {
  if (answer[0] === 'text') {
    const saved = answer[2] === null ? undefined : savedEntry(answer, media, 2)
    return { part: textPart(answer[1]), media, attachment: undefined, saved, note: undefined, placeholder: undefined }
  }
  const part = fromAnswer([answer[1], answer[2], answer[3], answer[4], null], media.data)
  // An image made to fit: its note goes beside it, its original is saved.
  const note = answer[8] === null ? undefined : answer[8]
  const saved = answer[9] === null ? undefined : savedEntry(answer, media, 9)
  const placeholder = answer[12] === null ? undefined : answer[12]
  return { part, media, attachment: [answer[1], answer[5], answer[6], answer[7], answer[13]], saved, note, placeholder }
}

/**
 * Give the core the result's attachments in order and take its verdicts:
 * which stay, which are deferred, which are held back (saved by `spill`).
 * Returns the decision for finishResult, with the positions to spill.
 */
function planResult(job, converted) {
  const { handle } = job
  const attachments = []
  let hasText = false
  for (let i = 0; i < converted.length; i++) {
    const entry = converted[i]
    if (entry === null) continue
    if (entry.attachment !== undefined) {
      // Indexes, not destructuring: that would run the (replaceable) array iterator.
      const facts = entry.attachment
      native.resultAttachment(handle, facts[0], facts[1], facts[2], facts[3], facts[4])
      append(attachments, i)
    } else if (entry.media === undefined && ReflectApply(RegExpPrototypeExec, NOT_BLANK, [entry.part.text]) !== null) {
      hasText = true
    }
  }
  const decided = native.resultDecide(handle, job.read.isError, hasText)
  const verdicts = decided[0]
  const errorText = decided[1]
  const held = []
  for (let a = 0; a < attachments.length; a++) {
    if (verdicts[a] === false) append(held, a)
  }
  return { attachments, verdicts, errorText, held }
}

/** An image made to fit when converted, its original saved: `note` and `saved` say so. */
function fittedBefore(entry) {
  return entry.note !== undefined && entry.saved !== undefined
}

/**
 * Save an attachment the core held back; its note replaces the file part.
 * An image made to fit already goes back as its original, to be fitted
 * again (the many-image rule) or noted, with the file that holds it: one
 * fit, one note, one saved file.
 */
function spill(how, job, converted, decision, a) {
  const entry = converted[decision.attachments[a]]
  const { outputDir, store } = job.settings
  const { kind, data, uri } = entry.media
  if (fittedBefore(entry)) {
    const latin1 = isLatin1(data)
    return native.resultSpill(
      how,
      job.handle,
      a,
      kind,
      nativeData(data, latin1),
      uri,
      outputDir,
      store,
      entry.saved.path,
      entry.saved.mediaType,
      nativeWord(latin1),
    )
  }
  // Our own base64: Latin-1, which only the wasm build is told.
  const partData = entry.part.data
  const latin1 = ON_WASM && isLatin1(partData)
  return native.resultSpill(how, job.handle, a, kind, nativeData(partData, latin1), uri, outputDir, store, null, null, nativeWord(latin1))
}

/** Put the verdicts and spills in place and build the answer; queue deferred media. */
function finishResult(job, converted, decision, spilled, structured) {
  const { read, settings } = job
  const content = []
  // The index in the result's content of the part each content part comes from: -1 for the error
  // note added before them all, the number of parts for the structured content's JSON after them.
  const sources = []
  const add = (part, source) => {
    append(content, part)
    append(sources, source)
  }
  const deferred = []
  const saved = []
  if (decision.errorText !== null) add(textPart(decision.errorText), -1)
  let a = 0
  let held = 0
  for (let i = 0; i < converted.length; i++) {
    const entry = converted[i]
    if (entry === null) continue
    // A linked resource's parts come from their link.
    const source = read.sources === undefined ? i : read.sources[i]
    if (entry.attachment === undefined) {
      add(entry.part, source)
      if (entry.saved !== undefined) append(saved, entry.saved)
      continue
    }
    const verdict = decision.verdicts[a]
    a++
    // Held back after a fit: the spill's answer has the one note and file.
    if (verdict !== false || !fittedBefore(entry)) {
      if (entry.note !== undefined) add(textPart(entry.note), source)
      if (entry.saved !== undefined) append(saved, entry.saved)
    }
    if (verdict === true) {
      add(entry.part, source)
    } else if (typeof verdict === 'string') {
      add(textPart(verdict), source)
      append(deferred, entry.part)
    } else {
      // Saved instead; or, held back by the many-image rule, made to fit it.
      const answer = fromResultAnswer(spilled[held], entry.media)
      held++
      if (answer.note !== undefined) add(textPart(answer.note), source)
      if (answer.saved !== undefined) append(saved, answer.saved)
      if (answer.placeholder !== undefined) {
        add(textPart(answer.placeholder), source)
        append(deferred, answer.part)
      } else {
        add(answer.part, source)
      }
    }
  }
  if (structured !== undefined) {
    add(structured.entry.part, read.partCount)
    for (let i = 0; i < structured.saved.length; i++) append(saved, structured.saved[i])
    if (structured.entry.saved !== undefined) append(saved, structured.entry.saved)
  }
  if (settings.queue !== undefined && deferred.length > 0) queueAdd(settings.queue, settings.toolCallId, deferred)
  // For an MCP client (the proxy): the value with the same strings replaced.
  if (read.structured !== undefined) return { content, isError: read.isError, deferred, saved, sources, structuredContent: read.structured.value }
  return { content, isError: read.isError, deferred, saved, sources }
}

/**
 * Convert a whole MCP tool result for a provider: every part in order
 * (audience honoured), attachments budgeted against what one request may
 * carry, media deferred to a following user message where the provider
 * needs it, structured content kept as JSON text. The input is not modified.
 */
function convertToolResultSync(result, options) {
  const settings = readConvertOptions(options)
  if (settings.links !== undefined) {
    throw invalidArgument('`readResource` needs convertToolResult: reading resource links is asynchronous, and convertToolResultSync cannot wait for it')
  }
  const job = startResult(result, settings, undefined)
  const converted = []
  const { reads } = job.read
  for (let i = 0; i < reads.length; i++) {
    const read = reads[i]
    if (read === null) append(converted, null)
    else if (read instanceof Media) append(converted, fromResultAnswer(resultMedia('sync', job, read), read))
    else if (read instanceof LongText) append(converted, longTextEntry(boundText('sync', read, job.settings, job.handle), read))
    else append(converted, textEntry(read))
  }
  const structured = structuredEntrySync(job)
  const decision = planResult(job, converted)
  const spilled = []
  for (let h = 0; h < decision.held.length; h++) append(spilled, spill('sync', job, converted, decision, decision.held[h]))
  return finishResult(job, converted, decision, spilled, structured)
}

/**
 * `convertToolResultSync` with decoding, checks and disk writes on the libuv
 * thread pool (parts of at most 256 KiB that need no disk write are
 * converted on the spot). All parts are started before any is awaited.
 * With `readResource`, the result's links are read first (resource-links.js).
 */
async function convertToolResult(result, options) {
  const settings = readConvertOptions(options)
  const linked = settings.links === undefined ? undefined : await readLinks(result, settings.links)
  const job = startResult(result, settings, linked)
  const pending = []
  const { reads } = job.read
  for (let i = 0; i < reads.length; i++) {
    const read = reads[i]
    if (read instanceof LongText) {
      append(pending, [started(boundText('async', read, job.settings, job.handle)), read])
      continue
    }
    if (!(read instanceof Media)) {
      append(pending, read === null ? null : textEntry(read))
      continue
    }
    const answer = dataSize(read.data) <= INLINE_MAX_DATA ? resultMedia('inline', job, read) : undefined
    append(pending, answer === undefined ? [started(resultMedia('async', job, read)), read] : fromResultAnswer(answer, read))
  }
  const structuring = job.read.structured === undefined ? undefined : started(structuredEntryAsync(job))
  const converted = []
  for (let i = 0; i < pending.length; i++) {
    const item = pending[i]
    if (!ArrayIsArray(item)) append(converted, item)
    else if (item[1] instanceof LongText) append(converted, longTextEntry(await item[0], item[1]))
    else append(converted, fromResultAnswer(await item[0], item[1]))
  }
  const decision = planResult(job, converted)
  const saving = []
  for (let h = 0; h < decision.held.length; h++) append(saving, started(spill('async', job, converted, decision, decision.held[h])))
  const spilled = []
  for (let h = 0; h < saving.length; h++) append(spilled, await saving[h])
  return finishResult(job, converted, decision, spilled, structuring === undefined ? undefined : await structuring)
}

module.exports = { convertToolResult, convertToolResultSync, resultMedia, fromResultAnswer, planResult, spill }
