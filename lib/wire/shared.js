'use strict'
// What the wire formats (lib/wire/<format>.js) share: reading a converted
// result (convertToolResult's answer) once, the file name a part is sent
// under, and reading the inline data a history holds (a data URL, a base64
// string, bytes) for repairHistory.
//
// Inputs are read as the entry reads parts: own properties only, each read
// once, with built-ins captured at load; nothing passed in is modified.

const { invalidArgument, own, append } = require('../own-objects.js')
const { types } = require('node:util')

const ReflectApply = Reflect.apply
const ArrayIsArray = Array.isArray
const RegExpPrototypeExec = RegExp.prototype.exec
const StringPrototypeSlice = String.prototype.slice
const StringPrototypeLastIndexOf = String.prototype.lastIndexOf
const StringPrototypeIndexOf = String.prototype.indexOf
const StringPrototypeStartsWith = String.prototype.startsWith
const BufferFrom = Buffer.from
const BufferConstructor = Buffer
const Uint8ArrayConstructor = Uint8Array
const isUint8Array = types.isUint8Array
const isArrayBuffer = types.isArrayBuffer

function stringArg(value, name) {
  if (typeof value !== 'string') throw invalidArgument(`\`${name}\` must be a string`)
  return value
}

/**
 * A part of a converted result, read once: `{ text }` or
 * `{ mediaType, data, filename, uri }` (data: base64).
 */
function readPart(part, where) {
  if (part === null || typeof part !== 'object') throw invalidArgument(`${where} must be a content part`)
  const type = own(part, 'type')
  if (type === 'text') {
    const text = own(part, 'text')
    if (typeof text !== 'string') throw invalidArgument(`${where}.text must be a string`)
    return { text, mediaType: undefined, data: undefined, filename: undefined, uri: undefined }
  }
  if (type === 'file') {
    const mediaType = own(part, 'mediaType')
    const data = own(part, 'data')
    const filename = own(part, 'filename')
    const uri = own(part, 'uri')
    if (typeof mediaType !== 'string') throw invalidArgument(`${where}.mediaType must be a string`)
    if (typeof data !== 'string') throw invalidArgument(`${where}.data must be a base64 string`)
    return {
      text: undefined,
      mediaType,
      data,
      filename: typeof filename === 'string' ? filename : undefined,
      uri: typeof uri === 'string' ? uri : undefined,
    }
  }
  throw invalidArgument(`${where}.type must be 'text' or 'file'`)
}

function readParts(list, where) {
  if (list === undefined || list === null) return []
  if (!ArrayIsArray(list)) throw invalidArgument(`\`${where}\` must be an array`)
  const parts = []
  const length = list.length
  for (let i = 0; i < length; i++) append(parts, readPart(own(list, i), `${where}[${i}]`))
  return parts
}

/** A ConvertedToolResult, read once. */
function readConverted(converted) {
  if (converted === null || typeof converted !== 'object') {
    throw invalidArgument('`converted` must be the answer of convertToolResult')
  }
  return {
    content: readParts(own(converted, 'content'), 'content'),
    deferred: readParts(own(converted, 'deferred'), 'deferred'),
    isError: own(converted, 'isError') === true,
  }
}

const isImage = (mediaType) => ReflectApply(StringPrototypeStartsWith, mediaType, ['image/'])
const isAudio = (mediaType) => ReflectApply(StringPrototypeStartsWith, mediaType, ['audio/'])
const dataUrl = (part) => `data:${part.mediaType};base64,${part.data}`
const decode = (data) => ReflectApply(BufferFrom, BufferConstructor, [data, 'base64'])

/**
 * The extension a file name needs for a media type that a provider reads by
 * name (OpenAI's input_file and Chat's file part): a shape rule for the
 * document types the profiles attach, not a routing decision.
 */
const EXTENSIONS = {
  __proto__: null,
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
}

function baseName(path) {
  const cut = ReflectApply(StringPrototypeLastIndexOf, path, ['/'])
  return cut < 0 ? path : ReflectApply(StringPrototypeSlice, path, [cut + 1])
}

/** The part's file name (from the converter), else one made from its media type. */
function fileName(part, index) {
  const name = part.filename !== undefined ? part.filename : part.uri !== undefined ? baseName(part.uri) : ''
  const extension = EXTENSIONS[part.mediaType]
  if (name !== '' && ReflectApply(StringPrototypeIndexOf, name, ['.']) > 0) return name
  const stem = name === '' ? `file-${index + 1}` : name
  return extension === undefined ? stem : `${stem}.${extension}`
}

/** The texts of parts, one paragraph each. */
function joinedText(parts) {
  let out = ''
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].text === undefined) continue
    out = out === '' ? parts[i].text : `${out}\n\n${parts[i].text}`
  }
  return out
}

// ------------------------------------------------------------------ reading histories

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

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * Data a history holds inline, as native code reads it: a base64 string
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

/** An object (not null, not an array of bytes): what a block of a history must be to be read. */
function isObject(value) {
  return value !== null && typeof value === 'object'
}

module.exports = {
  stringArg,
  readPart,
  readParts,
  readConverted,
  isImage,
  isAudio,
  dataUrl,
  decode,
  EXTENSIONS,
  baseName,
  fileName,
  joinedText,
  parseDataUrl,
  inlineData,
  isObject,
}
