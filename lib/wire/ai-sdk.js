'use strict'
// The AI SDK wire format (AI SDK 7, and AI SDK 6 with `{ version: 6 }`): a
// converted result written as a tool's `toModelOutput` value, and the image
// and file parts of an AI SDK history (user messages and tool-result
// outputs, in the shapes of both versions) read for repairHistory.

const { invalidArgument, own, setField, append } = require('../own-objects.js')
const { readConverted, readParts, isImage, joinedText, inlineData, isObject } = require('./shared.js')
const { types } = require('node:util')

const isUint8Array = types.isUint8Array
const isArrayBuffer = types.isArrayBuffer

// ------------------------------------------------------------------ writing

/**
 * The output of a tool's `toModelOutput` in the AI SDK: `{ type: 'content',
 * value }` with text and file parts, in the shape of AI SDK 7 (`file` with
 * tagged `data`) or, with `{ version: 6 }`, of AI SDK 6 (`image-data` and
 * `file-data`; AI SDK 7 still accepts these). An error result whose parts
 * are all text becomes `{ type: 'error-text', value }`. Deferred media are
 * not in it: pass an AttachmentQueue to convertToolResult and send its
 * drain in the next user message.
 */
function toAiSdkToolOutput(converted, options) {
  let version = 7
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw invalidArgument('`options` must be an object')
    const given = own(options, 'version')
    if (given !== undefined && given !== 6 && given !== 7) throw invalidArgument('`version` must be 6 or 7')
    if (given !== undefined) version = given
  }
  const { content, isError } = readConverted(converted)
  let allText = true
  for (let i = 0; i < content.length; i++) if (content[i].text === undefined) allText = false
  if (isError && allText) return { type: 'error-text', value: joinedText(content) }
  const value = []
  for (let i = 0; i < content.length; i++) append(value, outputPart(content[i], version))
  return { type: 'content', value }
}

/** One part of a tool output's value, in AI SDK `version`'s shape. */
function outputPart(part, version) {
  if (part.text !== undefined) return { type: 'text', text: part.text }
  return version === 7 ? aiSdk7File(part) : aiSdk6File(part)
}

function aiSdk7File(part) {
  const file = { type: 'file', mediaType: part.mediaType, data: { type: 'data', data: part.data } }
  if (part.filename !== undefined) setField(file, 'filename', part.filename)
  return file
}

function aiSdk6File(part) {
  if (isImage(part.mediaType)) return { type: 'image-data', data: part.data, mediaType: part.mediaType }
  const file = { type: 'file-data', data: part.data, mediaType: part.mediaType }
  if (part.filename !== undefined) setField(file, 'filename', part.filename)
  return file
}

// ------------------------------------------------------------------ reading a history

/** The converted part, read, with the file name the history gave it. */
function named(out, filename) {
  const read = readParts([out], 'part')[0]
  if (read.text === undefined && typeof filename === 'string') read.filename = filename
  return read
}

/** A user message's image or file part with inline data, as the media repairHistory converts; else undefined. */
function findUserMedia(part) {
  if (!isObject(part)) return undefined
  const type = own(part, 'type')
  if (type !== 'image' && type !== 'file') return undefined
  let value = own(part, type === 'image' ? 'image' : 'data')
  // AI SDK 7 tagged data: { type: 'data', data }.
  if (isObject(value) && !isUint8Array(value) && !isArrayBuffer(value)) {
    if (own(value, 'type') !== 'data') return undefined
    value = own(value, 'data')
  }
  const inline = inlineData(value)
  if (inline === undefined) return undefined
  const declared = own(part, 'mediaType')
  const filename = own(part, 'filename')
  return {
    kind: type === 'image' ? 'image' : 'media',
    data: inline.data,
    mimeType: typeof declared === 'string' ? declared : inline.mediaType,
    // An image part holds images; a file part any type.
    sameBlock: (out) => type === 'file' || isImage(out.mediaType),
    write: (out) => {
      const read = named(out, filename)
      if (read.text !== undefined) return { type: 'text', text: read.text }
      if (type === 'image' && isImage(read.mediaType)) return { type: 'image', image: read.data, mediaType: read.mediaType }
      if (read.filename !== undefined) return { type: 'file', data: read.data, mediaType: read.mediaType, filename: read.filename }
      return { type: 'file', data: read.data, mediaType: read.mediaType }
    },
  }
}

/** A media part of a tool output (`file`, `file-data`, `image-data`, `media`), as the media repairHistory converts; else undefined. */
function findOutputMedia(part) {
  if (!isObject(part)) return undefined
  const type = own(part, 'type')
  let value
  if (type === 'file') {
    const tagged = own(part, 'data')
    if (!isObject(tagged) || isUint8Array(tagged) || own(tagged, 'type') !== 'data') return undefined
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
  // AI SDK 7's `file` and 6's `media` hold any type; `image-data` images only.
  const version = type === 'file' ? 7 : 6
  return {
    kind: type === 'image-data' ? 'image' : 'media',
    data: inline.data,
    mimeType: typeof declared === 'string' ? declared : inline.mediaType,
    sameBlock: (out) => type === 'file' || type === 'media' || (type === 'image-data') === isImage(out.mediaType),
    write: (out) => outputPart(named(out, filename), version),
  }
}

/** Media parts of a user message and of the tool-result outputs of a tool message. */
function draftMessage(message, draft) {
  if (!isObject(message)) return undefined
  const role = own(message, 'role')
  if (role === 'user') return draft.field(message, 'content', findUserMedia)
  if (role !== 'tool') return undefined
  const resultPart = (part) => {
    if (!isObject(part) || own(part, 'type') !== 'tool-result') return undefined
    const output = draft.snapshot(own(part, 'output'))
    if (!isObject(output) || own(output, 'type') !== 'content') return undefined
    const drafted = draft.field(output, 'value', findOutputMedia)
    if (drafted === undefined) return undefined
    setField(part, 'output', drafted)
    return part
  }
  return draft.field(message, 'content', () => undefined, resultPart)
}

/** No provider of its own: the caller's `provider` (else the default profile, which every provider takes). */
const history = { provider: undefined, draftMessage }

module.exports = { toAiSdkToolOutput, history }
