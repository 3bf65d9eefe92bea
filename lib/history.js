'use strict'
// A conversation history in one of the wire formats, read once: each
// format (lib/wire/<format>.js, `history`) finds the inline media of a
// message; here every object is read through a snapshot (its own enumerable
// properties, copied), the lists holding media are drafted as copies, and
// a drafted message is settled with what goes back in each media's place.
// The caller's history is never written to: only the copies made here are.

const { own, setField, append } = require('./own-objects.js')
const { Media } = require('./parts.js')
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
/** The arrays and objects drafted here (copies): the only ones ever written to. */
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
 * The history format named `format` (see FORMATS), or undefined.
 *
 * @param {unknown} format
 */
function historyFormat(format) {
  return typeof format === 'string' ? FORMATS[format] : undefined
}

/** The names of the history formats, as an error message lists them: 'a', 'b' or 'c'. */
const FORMAT_NAMES = (() => {
  const quoted = ObjectKeys(FORMATS).map((name) => `'${name}'`)
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`
})()

/** The inline media of a history (an array of messages) in `history`'s format, in order. */
function historyMedia(messages, history) {
  const draft = new Draft()
  const length = messages.length
  for (let i = 0; i < length; i++) history.draftMessage(snapshotOf(own(messages, i)), draft)
  const media = []
  for (let i = 0; i < draft.found.length; i++) append(media, draft.found[i].media)
  return media
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

module.exports = { Draft, snapshotOf, copyArray, settleMessage, historyFormat, historyMedia, FORMAT_NAMES }
