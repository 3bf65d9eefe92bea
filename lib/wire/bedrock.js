'use strict'
// The Amazon Bedrock Converse wire format: a converted result written as a
// `toolResult` block or content blocks, and the image and document blocks
// of a Converse history (in a message's content and in toolResult content)
// read for repairHistory.

const { invalidArgument, own, setField, append } = require('../own-objects.js')
const { stringArg, readConverted, readParts, baseName, decode, inlineData, isObject } = require('./shared.js')

const ReflectApply = Reflect.apply
const StringPrototypeSlice = String.prototype.slice
const StringPrototypeLastIndexOf = String.prototype.lastIndexOf
const StringPrototypeTrim = String.prototype.trim
const StringPrototypeReplace = String.prototype.replace

// Converse's `format` enums (ImageBlock, DocumentBlock), by media type: what
// the writer names a part's type, and what the reader takes a block's to be.
const IMAGE_FORMATS = { __proto__: null, 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' }
const DOCUMENT_FORMATS = {
  __proto__: null,
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
}

/** The media type a block's `format` names, from one of the tables above; '' for a format Bedrock does not take. */
function mediaTypeOf(table, format) {
  for (const mediaType in table) if (table[mediaType] === format) return mediaType
  return ''
}

// ------------------------------------------------------------------ writing

// Bedrock's DocumentBlock name: letters, digits, single spaces, hyphens,
// parentheses and square brackets only.
const NOT_NAME_CHARACTER = /[^A-Za-z0-9\s\-()[\]]+/g
const SPACES = /\s+/g

/** A file name made into one Bedrock accepts: its stem, within the character rules; '' or '-' when nothing is left. */
function validName(given) {
  const dot = ReflectApply(StringPrototypeLastIndexOf, given, ['.'])
  const stem = dot > 0 ? ReflectApply(StringPrototypeSlice, given, [0, dot]) : given
  const name = ReflectApply(StringPrototypeReplace, stem, [NOT_NAME_CHARACTER, '-'])
  return ReflectApply(StringPrototypeTrim, ReflectApply(StringPrototypeReplace, name, [SPACES, ' ']), [])
}

/** A document name Bedrock accepts, unique among `used` (names already taken). */
function bedrockName(part, index, used) {
  let name = validName(part.filename !== undefined ? part.filename : part.uri !== undefined ? baseName(part.uri) : '')
  if (name === '' || name === '-') name = `document-${index + 1}`
  let unique = name
  for (let n = 2; used[unique] === true; n++) unique = `${name} (${n})`
  setField(used, unique, true)
  return unique
}

/** One media part as an image or document block (`used`: the document names taken). */
function mediaBlock(part, index, used) {
  const imageFormat = IMAGE_FORMATS[part.mediaType]
  if (imageFormat !== undefined) return { image: { format: imageFormat, source: { bytes: decode(part.data) } } }
  const documentFormat = DOCUMENT_FORMATS[part.mediaType]
  if (documentFormat === undefined) throw invalidArgument(`${part.mediaType} has no Bedrock block: convert the result with provider 'bedrock'`)
  return { document: { format: documentFormat, name: bedrockName(part, index, used), source: { bytes: decode(part.data) } } }
}

/** The text block a list with documents needs (Bedrock refuses documents without one). */
const documentsText = (documents) => ({ text: documents === 1 ? '[1 document attached]' : `[${documents} documents attached]` })

/**
 * The `toolResult` content block (`{ toolResult: { toolUseId, content,
 * status } }`) for a result converted with `provider: 'bedrock'`. Document
 * names are made from the file name within Bedrock's character rules; a
 * document gets a text block beside it when the result has none (Bedrock
 * requires one). Deferred media (only with `deferMedia: true`) go in
 * `toBedrockContent(converted.deferred)` after the toolResult blocks of the
 * same user message.
 */
function toBedrockToolResult(converted, toolUseId) {
  const id = stringArg(toolUseId, 'toolUseId')
  const { content, isError } = readConverted(converted)
  return { toolResult: { toolUseId: id, content: bedrockBlocks(content), status: isError ? 'error' : 'success' } }
}

function bedrockBlocks(parts) {
  const blocks = []
  const used = { __proto__: null }
  let hasText = false
  let documents = 0
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    if (part.text !== undefined) {
      if (part.text === '') continue
      hasText = true
      append(blocks, { text: part.text })
      continue
    }
    const block = mediaBlock(part, documents, used)
    append(blocks, block)
    if (block.document !== undefined) documents++
  }
  if (documents > 0 && !hasText) append(blocks, documentsText(documents))
  return blocks
}

/** Content parts (deferred media) as Bedrock content blocks for a user message. */
function toBedrockContent(parts) {
  return bedrockBlocks(readParts(parts, 'parts'))
}

// ------------------------------------------------------------------ reading a history

/**
 * An image or document block with inline bytes (a Uint8Array, or base64 in
 * a JSON history), as the media repairHistory converts; else undefined.
 * `names`: the document names of the whole history, so a new one is unique.
 */
function findMedia(block, names) {
  if (!isObject(block)) return undefined
  const image = own(block, 'image')
  const document = image === undefined ? own(block, 'document') : undefined
  const body = image !== undefined ? image : document
  if (!isObject(body)) return undefined
  const source = own(body, 'source')
  const inline = isObject(source) ? inlineData(own(source, 'bytes')) : undefined
  if (inline === undefined) return undefined
  const format = own(body, 'format')
  const name = image === undefined ? own(body, 'name') : undefined
  if (typeof name === 'string') setField(names, name, true)
  return {
    kind: image !== undefined ? 'image' : 'media',
    data: inline.data,
    mimeType: mediaTypeOf(image !== undefined ? IMAGE_FORMATS : DOCUMENT_FORMATS, format),
    sameBlock: (out) => (IMAGE_FORMATS[out.mediaType] !== undefined) === (image !== undefined),
    write: (out) => {
      const read = readParts([out], 'part')[0]
      if (read.text !== undefined) return { text: read.text }
      // A document keeps its name when Bedrock takes it (each name was counted when read).
      const keep = typeof name === 'string' && name !== '' && validName(name) === name
      if (typeof name === 'string' && !keep) read.filename = name
      const block = mediaBlock(read, 0, keep ? { __proto__: null } : names)
      if (keep && block.document !== undefined) block.document.name = name
      return block
    },
  }
}

/** A repaired content list with documents and no text block gets one (`read`: its blocks, as read or written). */
function finishList(list, read) {
  let documents = 0
  for (let i = 0; i < read.length; i++) {
    const block = read[i]
    if (!isObject(block)) continue
    if (typeof own(block, 'text') === 'string') return
    if (own(block, 'document') !== undefined) documents++
  }
  if (documents > 0) append(list, documentsText(documents))
}

/** Media blocks of a message's content and of the toolResult blocks in it. */
function draftMessage(message, draft) {
  if (draft.state.names === undefined) draft.state.names = { __proto__: null }
  const names = draft.state.names
  const find = (block) => findMedia(block, names)
  return draft.field(
    message,
    'content',
    find,
    (block) => {
      if (!isObject(block)) return undefined
      const result = draft.snapshot(own(block, 'toolResult'))
      if (!isObject(result)) return undefined
      const drafted = draft.field(result, 'content', find, undefined, finishList)
      if (drafted === undefined) return undefined
      setField(block, 'toolResult', drafted)
      return block
    },
    finishList,
  )
}

const history = { provider: 'bedrock', draftMessage }

module.exports = { toBedrockToolResult, toBedrockContent, history }
