'use strict'
// repairHistory: a conversation history a provider refuses because of an
// attachment already in it, repaired. Each inline attachment found in the
// history's own shape is converted as in a tool result, the whole history
// budgeted as one request, and written back in that shape.
//
// The caller's history is never written to: every object is read once
// through a snapshot, and only the copies made here are changed.

const native = require('./native.js')
const { invalidArgument, own, setField, append } = require('./own-objects.js')
const { readOptions } = require('./options.js')
const { Media } = require('./parts.js')
const { resultMedia, fromResultAnswer, planResult, spill } = require('./tool-result.js')
const adapters = require('./adapters.js')
const { types } = require('node:util')

const ReflectApply = Reflect.apply
const ObjectKeys = Object.keys
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ArrayIsArray = Array.isArray
const RegExpPrototypeExec = RegExp.prototype.exec
const Uint8ArrayConstructor = Uint8Array
const isUint8Array = types.isUint8Array
const StringPrototypeSlice = String.prototype.slice
const StringPrototypeIndexOf = String.prototype.indexOf
const StringPrototypeStartsWith = String.prototype.startsWith
const isArrayBuffer = types.isArrayBuffer
const isArrayBufferView = types.isArrayBufferView
const WeakSetPrototypeAdd = WeakSet.prototype.add
const WeakSetPrototypeHas = WeakSet.prototype.has
/** The arrays and objects repairHistory made (copies): the only ones it writes to. */
const drafts = new WeakSet()

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

/** `data:<type>;base64,<data>` split, or undefined for any other string. */
function parseDataUrl(url) {
  if (typeof url !== 'string' || !ReflectApply(StringPrototypeStartsWith, url, ['data:'])) return undefined
  const comma = ReflectApply(StringPrototypeIndexOf, url, [','])
  if (comma < 0) return undefined
  const head = ReflectApply(StringPrototypeSlice, url, [5, comma])
  const marker = ReflectApply(StringPrototypeIndexOf, head, [';base64'])
  if (marker < 0) return undefined
  return { mediaType: ReflectApply(StringPrototypeSlice, head, [0, marker]) || undefined, data: ReflectApply(StringPrototypeSlice, url, [comma + 1]) }
}

/**
 * Data the history holds inline, as native code reads it: a base64 string
 * (a data URL's payload), bytes, or undefined for what is not inline (a
 * URL, a file id: nothing to check here).
 */
function inlineData(value) {
  if (typeof value === 'string') {
    const url = parseDataUrl(value)
    if (url !== undefined) return url
    if (ReflectApply(RegExpPrototypeExec, URL_LIKE, [value]) !== null) return undefined
    return { mediaType: undefined, data: value }
  }
  if (isUint8Array(value)) return { mediaType: undefined, data: value }
  if (isArrayBuffer(value)) return { mediaType: undefined, data: new Uint8ArrayConstructor(value) }
  return undefined
}
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i

/** One attachment found in a history: what native code converts, and how to write it back. */
class Found {
  // Fields, not assignments: defined on the instance, whatever Object.prototype holds.
  media
  /** (part: ContentPart) => the part in the history's own shape. */
  write
  /** The element of the history it stands for. */
  original = undefined
  /** What goes back in its place. */
  final = undefined

  constructor(kind, data, mimeType, write) {
    this.media = new Media(kind, data, mimeType, undefined)
    this.write = write
  }
}

/** An Anthropic image or document block with base64 data, as a Found; else undefined. */
function anthropicFound(block) {
  if (block === null || typeof block !== 'object') return undefined
  const type = own(block, 'type')
  if (type !== 'image' && type !== 'document') return undefined
  const source = own(block, 'source')
  if (source === null || typeof source !== 'object' || own(source, 'type') !== 'base64') return undefined
  const data = own(source, 'data')
  const declared = own(source, 'media_type')
  return new Found(type === 'image' ? 'image' : 'media', typeof data === 'string' ? data : '', typeof declared === 'string' ? declared : undefined, (part) =>
    adapters.toAnthropicContent([part])[0],
  )
}

/** An OpenAI Responses input_image or input_file with inline data, as a Found; else undefined. */
function responsesFound(item) {
  if (item === null || typeof item !== 'object') return undefined
  const type = own(item, 'type')
  if (type !== 'input_image' && type !== 'input_file') return undefined
  const inline = inlineData(own(item, type === 'input_image' ? 'image_url' : 'file_data'))
  if (inline === undefined || typeof inline.data !== 'string') return undefined
  const filename = own(item, 'filename')
  return new Found(type === 'input_image' ? 'image' : 'media', inline.data, inline.mediaType, (part) => {
    const named = part.type === 'file' && typeof filename === 'string' ? { type: 'file', mediaType: part.mediaType, data: part.data, filename } : part
    return adapters.toOpenAIResponsesMessage([named]).content[0]
  })
}

/** An AI SDK user image or file part with inline data, as a Found; else undefined. */
function aiSdkUserFound(part) {
  if (part === null || typeof part !== 'object') return undefined
  const type = own(part, 'type')
  if (type !== 'image' && type !== 'file') return undefined
  let value = own(part, type === 'image' ? 'image' : 'data')
  // AI SDK 7 tagged data: { type: 'data', data }.
  if (value !== null && typeof value === 'object' && !isUint8Array(value) && !isArrayBuffer(value)) {
    if (own(value, 'type') !== 'data') return undefined
    value = own(value, 'data')
  }
  const inline = inlineData(value)
  if (inline === undefined) return undefined
  const declared = own(part, 'mediaType')
  const filename = own(part, 'filename')
  return new Found(type === 'image' ? 'image' : 'media', inline.data, typeof declared === 'string' ? declared : inline.mediaType, (out) => {
    if (out.type === 'text') return out
    if (type === 'image') return { type: 'image', image: out.data, mediaType: out.mediaType }
    if (typeof filename === 'string') return { type: 'file', data: out.data, mediaType: out.mediaType, filename }
    return { type: 'file', data: out.data, mediaType: out.mediaType }
  })
}

/** A media part of an AI SDK tool output (`file`, `file-data`, `image-data`, `media`), as a Found; else undefined. */
function aiSdkOutputFound(part) {
  if (part === null || typeof part !== 'object') return undefined
  const type = own(part, 'type')
  let value
  if (type === 'file') {
    const tagged = own(part, 'data')
    if (tagged === null || typeof tagged !== 'object' || isUint8Array(tagged) || own(tagged, 'type') !== 'data') return undefined
    value = own(tagged, 'data')
  } else if (type === 'file-data' || type === 'image-data' || type === 'media') {
    value = own(part, 'data')
  } else {
    return undefined
  }
  const inline = inlineData(value)
  if (inline === undefined) return undefined
  const declared = own(part, 'mediaType')
  const filename = own(part, 'filename')
  return new Found(type === 'image-data' ? 'image' : 'media', inline.data, typeof declared === 'string' ? declared : inline.mediaType, (out) => {
    if (out.type === 'text') return out
    const named = typeof filename === 'string' ? { type: 'file', mediaType: out.mediaType, data: out.data, filename } : out
    const output = adapters.toAiSdkToolOutput({ content: [named], deferred: [], isError: false }, { version: type === 'file' ? 7 : 6 })
    return output.value[0]
  })
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

/**
 * The draft of a list a caller gave: a copy in which each element `find`
 * makes a Found of is replaced by it, and each other element `nested`
 * drafts is replaced by its draft; undefined when nothing in it was found.
 */
function draftList(list, find, nested, found) {
  if (!ArrayIsArray(list)) return undefined
  const copy = copyArray(list)
  ReflectApply(WeakSetPrototypeAdd, drafts, [copy])
  let any = false
  for (let i = 0; i < copy.length; i++) {
    const element = copy[i]
    const snapshot = snapshotOf(element)
    const hit = find(snapshot)
    if (hit !== undefined) {
      hit.original = element
      append(found, hit)
      copy[i] = hit
      any = true
    } else if (nested !== undefined) {
      const inner = nested(snapshot, found)
      if (inner !== undefined) {
        copy[i] = inner
        any = true
      }
    }
  }
  return any ? copy : undefined
}

/** `snapshot` (see snapshotOf) with `key` replaced by the draft of its list, or undefined. */
function draftField(snapshot, key, find, nested, found) {
  if (snapshot === null || typeof snapshot !== 'object') return undefined
  const list = draftList(snapshot[key], find, nested, found)
  if (list === undefined) return undefined
  setField(snapshot, key, list)
  return snapshot
}

/** Anything but an object (null, a number, a string) is left as it is. */
function isObject(value) {
  return value !== null && typeof value === 'object'
}

/** The drafting of one message (or input item, given as its snapshot) of each history format. */
const DRAFT = {
  __proto__: null,
  anthropic: (message, found) =>
    draftField(message, 'content', anthropicFound, (block, f) => (isObject(block) && own(block, 'type') === 'tool_result' ? draftField(block, 'content', anthropicFound, undefined, f) : undefined), found),
  'openai-responses': (item, found) => {
    if (item === null || typeof item !== 'object') return undefined
    if (own(item, 'type') === 'function_call_output') return draftField(item, 'output', responsesFound, undefined, found)
    return draftField(item, 'content', responsesFound, undefined, found)
  },
  'ai-sdk': (message, found) => {
    if (message === null || typeof message !== 'object') return undefined
    const role = own(message, 'role')
    if (role === 'user') return draftField(message, 'content', aiSdkUserFound, undefined, found)
    if (role !== 'tool') return undefined
    const resultPart = (part, f) => {
      if (part === null || typeof part !== 'object' || own(part, 'type') !== 'tool-result') return undefined
      const output = snapshotOf(own(part, 'output'))
      if (output === null || typeof output !== 'object' || own(output, 'type') !== 'content') return undefined
      const drafted = draftField(output, 'value', aiSdkOutputFound, undefined, f)
      if (drafted === undefined) return undefined
      setField(part, 'output', drafted)
      return part
    }
    return draftField(message, 'content', () => undefined, resultPart, found)
  },
}

/**
 * Repair a conversation history that a provider refuses because of an
 * attachment already in it: every inline image or document is converted
 * as convertToolResult converts a media part for `provider` (the whole
 * history budgeted as one request), and what the provider would refuse is
 * replaced by the same note (the bytes saved by the store when there are
 * any); a mislabelled attachment gets its true media type. Returns a new
 * array (messages with nothing to repair are the same objects; nothing
 * given is modified) and how many attachments were repaired.
 */
function repairHistory(messages, options) {
  if (!ArrayIsArray(messages)) throw invalidArgument('`messages` must be an array')
  if (options === null || typeof options !== 'object') throw invalidArgument('`options` must be an object with a `format`')
  const format = own(options, 'format')
  const draft = typeof format === 'string' ? DRAFT[format] : undefined
  if (draft === undefined) throw invalidArgument("`format` must be 'anthropic', 'openai-responses' or 'ai-sdk'")
  const settings = readOptions(options)
  const job = { settings, read: { isError: false }, handle: native.resultNew(settings.provider, 'auto', settings.fitImages, settings.maxLongSide) }
  const found = []
  const drafted = copyArray(messages)
  // [position, first found, end of found, draft] of each message holding attachments.
  const holding = []
  for (let i = 0; i < drafted.length; i++) {
    const first = found.length
    const message = draft(snapshotOf(drafted[i]), found)
    if (message !== undefined) append(holding, [i, first, found.length, message])
  }
  // Each attachment converted as in a tool result, then budgeted together.
  const converted = []
  const same = []
  for (let i = 0; i < found.length; i++) {
    const media = found[i].media
    const answer = resultMedia('sync', job, media)
    append(converted, fromResultAnswer(answer, media))
    // Unchanged: attached as it is, with the type it was declared with.
    append(same, answer[0] === 'file' && answer[2] === null && (media.mimeType === undefined || answer[1] === media.mimeType))
  }
  const decision = planResult(job, converted)
  let a = 0
  let repaired = 0
  for (let i = 0; i < converted.length; i++) {
    const entry = converted[i]
    let part = entry.part
    let kept = same[i]
    if (entry.attachment !== undefined) {
      if (decision.verdicts[a] === false) {
        part = fromResultAnswer(spill('sync', job, converted, decision, a), entry.media).part
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
    return value
  }
  if (value !== null && typeof value === 'object' && ReflectApply(WeakSetPrototypeHas, drafts, [value])) {
    const keys = ObjectKeys(value)
    for (let i = 0; i < keys.length; i++) setField(value, keys[i], settleMessage(value[keys[i]]))
  }
  return value
}

module.exports = { repairHistory }
