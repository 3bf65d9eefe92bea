'use strict'
// A tool result's `structuredContent` as JSON text for the model, and the
// same value with the same strings replaced, for an MCP client (the proxy).
// Servers often repeat their content there: server-filesystem sends a file's
// base64 or text both as a content part and inside `structuredContent`, so a
// 4.5 MB image would come back as 6 million characters of JSON. Long strings
// that repeat a content part, and long base64 strings, are replaced by short
// markers; native code says what a long string becomes and writes every word.
//
// Each value is read once, from own enumerable properties only: JSON.stringify
// would call a `toJSON` found on a polluted prototype.

const native = require('./native.js')
const { invalidArgument, own, append } = require('./own-objects.js')
const { isLatin1, nativeData, nativeWord } = require('./data.js')
const { Media } = require('./parts.js')
const { LongText, textOrLong } = require('./text.js')
const { types } = require('node:util')

const ReflectApply = Reflect.apply
const PromisePrototypeThen = Promise.prototype.then
const ObjectKeys = Object.keys
const ArrayIsArray = Array.isArray
const JSONStringify = JSON.stringify
const NumberIsFinite = Number.isFinite
const DatePrototypeGetTime = Date.prototype.getTime
const DatePrototypeToISOString = Date.prototype.toISOString
const MapConstructor = Map
const MapPrototypeGet = Map.prototype.get
const MapPrototypeSet = Map.prototype.set
const isDate = types.isDate

/** Strings at least this long may become markers (the core's figure). */
const LONG_STRING_CHARS = native.structuredLongStringChars()
/** Deeper `structuredContent` is refused: a cycle would never end. */
const MAX_JSON_DEPTH = 1000

/**
 * The strings of a result's content parts that `structuredContent` may
 * repeat, by length: `strings[i]` is the text or data of part `i` (or
 * undefined). Only strings of at least `longChars` are kept.
 */
function repeatIndex(strings, longChars) {
  const byLength = new MapConstructor()
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]
    if (typeof s !== 'string' || s.length < longChars) continue
    const same = ReflectApply(MapPrototypeGet, byLength, [s.length])
    if (same === undefined) ReflectApply(MapPrototypeSet, byLength, [s.length, [[s, i]]])
    else same.push([s, i])
  }
  return byLength
}

/** The 1-based number of the content part `s` repeats, or null. */
function repeatedPart(s, byLength) {
  const same = ReflectApply(MapPrototypeGet, byLength, [s.length])
  if (same === undefined) return null
  for (let i = 0; i < same.length; i++) if (same[i][0] === s) return same[i][1] + 1
  return null
}

/**
 * Walks a JSON value: `json` is its text (undefined for what JSON leaves
 * out), `value` the value with long strings replaced (the value itself when
 * none was). `markerOf(string, repeatsPart)` gives a long string's marker or
 * null; counts go to `counts` when given (the model's view), else the value
 * is written whole (the JSON saved beside the view).
 */
function walk(value, depth, walker) {
  switch (typeof value) {
    case 'string': {
      if (walker.counts === undefined || value.length < walker.longChars) return { json: JSONStringify(value), value }
      const repeats = repeatedPart(value, walker.byLength)
      const marker = walker.markerOf(value, repeats)
      if (marker === null) return { json: JSONStringify(value), value }
      if (repeats !== null) walker.counts.repeats++
      else walker.counts.base64++
      return { json: JSONStringify(marker), value: marker }
    }
    case 'number':
      return { json: NumberIsFinite(value) ? JSONStringify(value) : 'null', value }
    case 'boolean':
      return { json: value ? 'true' : 'false', value }
    case 'bigint':
      throw invalidArgument('`structuredContent` holds a BigInt, which JSON cannot carry')
    case 'undefined':
    case 'function':
    case 'symbol':
      return { json: undefined, value }
  }
  if (value === null) return { json: 'null', value }
  if (depth > MAX_JSON_DEPTH) throw invalidArgument('`structuredContent` is nested too deeply, or refers to itself')
  if (isDate(value)) {
    const json = NumberIsFinite(ReflectApply(DatePrototypeGetTime, value, [])) ? JSONStringify(ReflectApply(DatePrototypeToISOString, value, [])) : 'null'
    return { json, value }
  }
  if (ArrayIsArray(value)) {
    const length = value.length
    let json = '['
    let copy
    for (let i = 0; i < length; i++) {
      const item = own(value, i)
      const out = walk(item, depth + 1, walker)
      json += `${i === 0 ? '' : ','}${out.json === undefined ? 'null' : out.json}`
      if (out.value !== item && copy === undefined) copy = copyUpTo(value, i)
      if (copy !== undefined) copy.push(out.value)
    }
    return { json: `${json}]`, value: copy === undefined ? value : copy }
  }
  const keys = ObjectKeys(value)
  let json = '{'
  let first = true
  let copy
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const item = own(value, key)
    const out = walk(item, depth + 1, walker)
    if (out.value !== item && copy === undefined) copy = copyKeys(value, keys, i)
    if (copy !== undefined) defineField(copy, key, out.value)
    if (out.json === undefined) continue
    json += `${first ? '' : ','}${JSONStringify(key)}:${out.json}`
    first = false
  }
  return { json: `${json}}`, value: copy === undefined ? value : copy }
}

/** A new array of `list`'s first `end` elements. */
function copyUpTo(list, end) {
  const copy = []
  for (let i = 0; i < end; i++) copy.push(own(list, i))
  return copy
}

/** A new object with `object`'s first `end` keys. */
function copyKeys(object, keys, end) {
  const copy = {}
  for (let i = 0; i < end; i++) defineField(copy, keys[i], own(object, keys[i]))
  return copy
}

/** A plain own property, whatever setters Object.prototype holds (`__proto__` included). */
function defineField(object, key, value) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
}

/**
 * `structuredContent` as the model reads it: `json` with every long string
 * that repeats a content part's text or data (`reads`, as readPart reads
 * them) or holds base64 replaced by its marker, `value` the same for an MCP
 * client, and how many of each were replaced. `whole` is the JSON of the
 * value as given, when anything was replaced (to be saved), else undefined.
 */
function structuredView(structured, reads) {
  const strings = []
  for (let i = 0; i < reads.length; i++) append(strings, partString(reads[i]))
  const counts = { repeats: 0, base64: 0 }
  const longChars = LONG_STRING_CHARS
  const view = walk(structured, 0, { counts, byLength: repeatIndex(strings, longChars), markerOf: longStringMarker, longChars })
  const changed = counts.repeats + counts.base64 > 0
  const whole = counts.base64 > 0 ? walk(structured, 0, { counts: undefined, longChars }).json : undefined
  return { json: view.json, value: view.value, repeats: counts.repeats, base64: counts.base64, changed, whole }
}

/** The string a read part carries (its data or text), for finding it repeated; else undefined. */
function partString(read) {
  if (read instanceof Media) return read.data
  if (read instanceof LongText) return read.text
  return read !== null && read.type === 'text' ? read.text : undefined
}

/** What a long string of structuredContent becomes (see structured-content.js). */
function longStringMarker(string, repeatsPart) {
  if (repeatsPart !== null) return native.structuredMarker('', false, repeatsPart)
  const latin1 = isLatin1(string)
  return native.structuredMarker(nativeData(string, latin1), nativeWord(latin1), null)
}

/**
 * The structured content's text part (as readPart reads one): its JSON under
 * a line saying what was left out, the whole JSON saved first when base64
 * was. `saved` gets the saved file's entry. Async with `how` 'async'.
 * `result`: the conversion's native handle, whose saved files stay.
 *
 * @param {'sync' | 'async'} how
 * @param {import('./binding/binding.d.ts').ResultHandle} result
 */
function structuredText(how, view, settings, saved, result) {
  if (!view.changed) return textOrLong('', view.json, 'application/json', settings)
  /** @param {import('./binding/binding.d.ts').SavedFile | null} file */
  const withHeader = (file, error) => {
    if (file !== null) append(saved, { path: file.path, byteLength: file.byteLength, mediaType: file.mediaType })
    const header = native.structuredHeader(result, view.repeats, view.base64, file === null ? null : file.path, file === null ? null : file.byteLength, error)
    return textOrLong(`${header}\n`, view.json, 'application/json', settings)
  }
  if (view.whole === undefined) return withHeader(null, null)
  if (how === 'sync') {
    let file
    try {
      file = native.saveTextSync(result, view.whole, 'application/json')
    } catch (error) {
      return withHeader(null, savedError(error))
    }
    return withHeader(file, null)
  }
  return ReflectApply(PromisePrototypeThen, native.saveText(result, view.whole, 'application/json'), [
    (file) => withHeader(file, null),
    (error) => withHeader(null, savedError(error)),
  ])
}

/** A store error's message, for a note; anything else is thrown on. */
function savedError(error) {
  if (error !== null && typeof error === 'object' && typeof error.code === 'string' && error.code !== 'INVALID_ARGUMENT') return String(error.message)
  throw error
}

/** True when a text part of the result is the structured content's JSON already (as MCP advises servers to send it). */
function structuredInText(read) {
  const view = read.structured
  const { reads } = read
  for (let i = 0; i < reads.length; i++) {
    const part = reads[i]
    if (part !== null && !(part instanceof Media) && !(part instanceof LongText) && native.sameJson(view.whole ?? view.json, part.text)) return true
  }
  return false
}

module.exports = { structuredView, structuredText, structuredInText }
