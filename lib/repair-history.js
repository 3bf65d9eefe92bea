'use strict'
// repairHistory: a conversation history a provider refuses because of an
// attachment already in it, repaired. Generic over the wire formats: each
// format (lib/wire/<format>.js, `history`) finds the inline media of one
// message and writes a converted part back in its own shape; here each
// media is converted as in a tool result, the whole history budgeted as one
// request, and the repaired parts put in place.
//
// The caller's history is never written to: every object is read once
// through a snapshot, and only the copies made here are changed.

const native = require('./native.js')
const { invalidArgument, own, setField, append } = require('./own-objects.js')
const { readOptions, settingsFor } = require('./options.js')
const { Media } = require('./parts.js')
const { resultMediaSync, fromResultAnswer, planResult, spillSync } = require('./tool-result.js')
const { types } = require('node:util')

const FORMATS = {
  __proto__: null,
  anthropic: require('./wire/anthropic.js').history,
  'openai-responses': require('./wire/openai-responses.js').history,
  'openai-chat': require('./wire/openai-chat.js').history,
  gemini: require('./wire/gemini.js').history,
  bedrock: require('./wire/bedrock.js').history,
  'ai-sdk': require('./wire/ai-sdk.js').history,
}

const ReflectApply = Reflect.apply
const ObjectKeys = Object.keys
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ArrayIsArray = Array.isArray
const isArrayBufferView = types.isArrayBufferView
const WeakSetPrototypeAdd = WeakSet.prototype.add
const WeakSetPrototypeHas = WeakSet.prototype.has
const WeakMapPrototypeGet = WeakMap.prototype.get
const WeakMapPrototypeSet = WeakMap.prototype.set
/** The arrays and objects repairHistory made (copies): the only ones it writes to. */
const drafts = new WeakSet()
/** A drafted list's finishing step (a format's), with what the list held when read. */
const finishes = new WeakMap()

/** A shallow copy of an object a caller gave: its own enumerable properties, each read once. */
function copyObject(object) {
  const copy = ObjectGetPrototypeOf(object) === null ? { __proto__: null } : {}
  const keys = ObjectKeys(object)
  for (let i = 0; i < keys.length; i++) {
    setField(copy, keys[i], own(object, keys[i]))
  }
  return copy
}

/** A copy of an array a caller gave, each element read once. */
function copyArray(list) {
  const copy = []
  const length = list.length
  for (let i = 0; i < length; i++) append(copy, own(list, i))
  return copy
}

/**
 * Each object of a history is read once, through a snapshot (its own
 * enumerable properties, copied): the checks and any copy handed back read
 * the snapshot, never the caller's object again.
 */
function snapshotOf(value) {
  if (value === null || typeof value !== 'object' || ArrayIsArray(value) || isArrayBufferView(value)) return value
  const copy = copyObject(value)
  ReflectApply(WeakSetPrototypeAdd, drafts, [copy])
  return copy
}

/** One attachment found in a history: what native code converts, and how to write it back. */
class Found {
  // Fields, not assignments: defined on the instance, whatever Object.prototype holds.
  media
  /** (part) => whether the part, written back, is the same kind of block as the original. */
  sameBlock
  /** (part: ContentPart) => the part in the history's own shape. */
  write
  /** The element of the history it stands for, and its snapshot. */
  original = undefined
  snapshot = undefined
  /** What goes back in its place. */
  final = undefined

  constructor(described, original, snapshot) {
    this.media = new Media(described.kind, described.data, described.mimeType, undefined)
    this.sameBlock = described.sameBlock
    this.write = described.write
    this.original = original
    this.snapshot = snapshot
  }
}

/**
 * What a format's `draftMessage(snapshot, draft)` works with: `field`
 * drafts one list of a snapshot, `snapshot` reads an object once, `state`
 * is the format's own record across the whole history.
 */
class Draft {
  found = []
  state = { __proto__: null }

  snapshot(value) {
    return snapshotOf(value)
  }

  /**
   * `snapshot` with its list `key` replaced by a draft: a copy in which each
   * element `find` describes as media is replaced by a Found, and each other
   * element `nested` drafts by its draft; undefined when nothing in it was
   * found. `finish(list, read)`, when given, runs on the list once repaired
   * (`read`: each element's snapshot, or what was written back in its place).
   */
  field(snapshot, key, find, nested, finish) {
    if (snapshot === null || typeof snapshot !== 'object') return undefined
    const list = snapshot[key]
    if (!ArrayIsArray(list)) return undefined
    const copy = copyArray(list)
    ReflectApply(WeakSetPrototypeAdd, drafts, [copy])
    const read = []
    let any = false
    for (let i = 0; i < copy.length; i++) {
      const element = copy[i]
      const snapshotted = snapshotOf(element)
      append(read, snapshotted)
      const described = find(snapshotted)
      if (described !== undefined) {
        const hit = new Found(described, element, snapshotted)
        append(this.found, hit)
        copy[i] = hit
        read[i] = hit
        any = true
      } else if (nested !== undefined) {
        const inner = nested(snapshotted)
        if (inner !== undefined) {
          copy[i] = inner
          read[i] = inner
          any = true
        }
      }
    }
    if (!any) return undefined
    if (finish !== undefined) ReflectApply(WeakMapPrototypeSet, finishes, [copy, { finish, read }])
    setField(snapshot, key, copy)
    return snapshot
  }
}

/**
 * Repair a conversation history that a provider refuses because of an
 * attachment already in it: every inline image or document is converted
 * as convertToolResult converts a media part for `provider` (by default
 * the format's: see each lib/wire/<format>.js; the whole history budgeted
 * as one request), and what the provider would refuse is
 * replaced by the same note (the bytes saved by the store when there are
 * any); a mislabelled attachment gets its true media type. Returns a new
 * array (messages with nothing to repair are the same objects; nothing
 * given is modified) and how many attachments were repaired.
 */
function repairHistory(messages, options) {
  if (!ArrayIsArray(messages)) throw invalidArgument('`messages` must be an array')
  if (options === null || typeof options !== 'object') throw invalidArgument('`options` must be an object with a `format`')
  const format = own(options, 'format')
  const history = typeof format === 'string' ? FORMATS[format] : undefined
  if (history === undefined) throw invalidArgument("`format` must be 'anthropic', 'openai-responses', 'openai-chat', 'gemini', 'bedrock' or 'ai-sdk'")
  const given = readOptions(options)
  // The provider the format is written for, unless the caller names one (Claude on Bedrock: 'anthropic-bedrock').
  const settings =
    given.provider !== undefined ? given : settingsFor(history.provider, given.outputDir, given.store, given.maxTextTokens, given.fitImages, given.maxLongSide)
  const job = { settings, read: { isError: false }, handle: native.resultNew(settings.handle, 'auto', undefined) }
  const draft = new Draft()
  const found = draft.found
  const drafted = copyArray(messages)
  // [position, first found, end of found, draft] of each message holding attachments.
  const holding = []
  for (let i = 0; i < drafted.length; i++) {
    const first = found.length
    const message = history.draftMessage(snapshotOf(drafted[i]), draft)
    if (message !== undefined) append(holding, [i, first, found.length, message])
  }
  // Each attachment converted as in a tool result, then budgeted together.
  const converted = []
  const same = []
  for (let i = 0; i < found.length; i++) {
    const media = found[i].media
    const answer = resultMediaSync(job, i, media)
    const entry = fromResultAnswer(answer, media)
    append(converted, entry)
    // Unchanged: attached as it is (its own bytes, canonical base64), with the type it was
    // declared with, in the kind of block that type needs (a PDF in an image block is not).
    append(
      same,
      answer.kind === 'file' &&
        answer.data === null &&
        (media.mimeType === undefined || answer.mediaType === media.mimeType) &&
        found[i].sameBlock(entry.part) === true,
    )
  }
  const decision = planResult(job, converted)
  let a = 0
  let repaired = 0
  for (let i = 0; i < converted.length; i++) {
    const entry = converted[i]
    let part = entry.part
    let kept = same[i]
    if (entry.isFile) {
      if (decision.verdicts[a] === false) {
        part = fromResultAnswer(spillSync(job, converted, decision, a), entry.media).part
        kept = false
      }
      a++
    }
    found[i].final = kept ? found[i].original : found[i].write(part)
    if (!kept) repaired++
  }
  // A message whose attachments all stay is given back as it was.
  for (let h = 0; h < holding.length; h++) {
    // Indexes, not destructuring: that would run the (replaceable) array iterator.
    const entry = holding[h]
    let unchanged = true
    for (let i = entry[1]; i < entry[2]; i++) if (found[i].final !== found[i].original) unchanged = false
    if (!unchanged) drafted[entry[0]] = settleMessage(entry[3])
  }
  return { messages: drafted, repaired }
}

/** Replace the Found placeholders inside a drafted message (its arrays are this file's own copies). */
function settleMessage(value) {
  if (value instanceof Found) return value.final
  if (ArrayIsArray(value) && ReflectApply(WeakSetPrototypeHas, drafts, [value])) {
    for (let i = 0; i < value.length; i++) value[i] = settleMessage(value[i])
    const finishing = ReflectApply(WeakMapPrototypeGet, finishes, [value])
    if (finishing !== undefined) {
      const read = finishing.read
      // Each element as read, or as written back: never the caller's object again.
      for (let i = 0; i < read.length; i++) {
        const hit = read[i]
        if (hit instanceof Found) read[i] = hit.final === hit.original ? hit.snapshot : hit.final
      }
      finishing.finish(value, read)
    }
    return value
  }
  if (value !== null && typeof value === 'object' && ReflectApply(WeakSetPrototypeHas, drafts, [value])) {
    const keys = ObjectKeys(value)
    for (let i = 0; i < keys.length; i++) setField(value, keys[i], settleMessage(value[keys[i]]))
  }
  return value
}

module.exports = { repairHistory }
