'use strict'
// One converted tool result (convertToolResult's answer) in each provider's
// wire shape. Pure shape mapping: what a provider takes, and where, was
// decided by the native core when the result was converted for that
// provider (`provider` option); these functions only write it down.
//
// Inputs are read as the entry reads parts: own properties only, each read
// once, with built-ins captured at load; nothing passed in is modified.

const { invalidArgument, own, setField, append } = require('./own-objects.js')

const ReflectApply = Reflect.apply
const ArrayIsArray = Array.isArray
const StringPrototypeSlice = String.prototype.slice
const StringPrototypeLastIndexOf = String.prototype.lastIndexOf
const StringPrototypeIndexOf = String.prototype.indexOf
const StringPrototypeStartsWith = String.prototype.startsWith
const StringPrototypeTrim = String.prototype.trim
const StringPrototypeReplace = String.prototype.replace
const BufferFrom = Buffer.from
const BufferConstructor = Buffer
const BufferToString = Buffer.prototype.toString

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

// ------------------------------------------------------------------ Anthropic Messages

function anthropicBlock(part) {
  if (part.text !== undefined) return { type: 'text', text: part.text }
  if (isImage(part.mediaType)) {
    return { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } }
  }
  if (part.mediaType === 'text/plain') {
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: ReflectApply(BufferToString, decode(part.data), ['utf8']) } }
  }
  return { type: 'document', source: { type: 'base64', media_type: part.mediaType, data: part.data } }
}

function anthropicBlocks(parts) {
  const blocks = []
  for (let i = 0; i < parts.length; i++) {
    // Anthropic refuses empty text blocks.
    if (parts[i].text === '') continue
    append(blocks, anthropicBlock(parts[i]))
  }
  return blocks
}

/**
 * The `tool_result` block for a result converted with an Anthropic provider.
 * Deferred media (only with `deferMedia: true`) are not in it: put
 * `toAnthropicContent(converted.deferred)` after the tool_result blocks of
 * the same user message.
 */
function toAnthropicToolResult(converted, toolUseId) {
  const id = stringArg(toolUseId, 'toolUseId')
  const { content, isError } = readConverted(converted)
  const block = { type: 'tool_result', tool_use_id: id, content: anthropicBlocks(content) }
  if (isError) setField(block, 'is_error', true)
  return block
}

/** Content parts (e.g. deferred media, or AttachmentQueue#drain()) as Anthropic content blocks. */
function toAnthropicContent(parts) {
  return anthropicBlocks(readParts(parts, 'parts'))
}

// ------------------------------------------------------------------ OpenAI Responses

function responsesItem(part, index) {
  if (part.text !== undefined) return { type: 'input_text', text: part.text }
  if (isImage(part.mediaType)) return { type: 'input_image', image_url: dataUrl(part), detail: 'auto' }
  return { type: 'input_file', file_data: dataUrl(part), filename: fileName(part, index) }
}

function responsesContent(parts) {
  const items = []
  for (let i = 0; i < parts.length; i++) append(items, responsesItem(parts[i], i))
  return items
}

/**
 * The `function_call_output` input item for a result converted with
 * `provider: 'openai'`. The Responses API has no error flag: an error
 * result's text says so. Deferred media (only with `deferMedia: true`) go
 * in `toOpenAIResponsesMessage(converted.deferred)` after it.
 */
function toOpenAIResponsesOutput(converted, callId) {
  const id = stringArg(callId, 'callId')
  const { content } = readConverted(converted)
  return { type: 'function_call_output', call_id: id, output: responsesContent(content) }
}

/** A user message input item carrying content parts (deferred media), or null for none. */
function toOpenAIResponsesMessage(parts) {
  const read = readParts(parts, 'parts')
  return read.length === 0 ? null : { type: 'message', role: 'user', content: responsesContent(read) }
}

// ------------------------------------------------------------------ OpenAI Chat Completions

function chatPart(part, index) {
  if (part.text !== undefined) return { type: 'text', text: part.text }
  if (isImage(part.mediaType)) return { type: 'image_url', image_url: { url: dataUrl(part) } }
  if (isAudio(part.mediaType)) {
    const format = EXTENSIONS[part.mediaType]
    if (format !== 'wav' && format !== 'mp3') throw invalidArgument(`${part.mediaType} has no Chat Completions part: convert the result with provider 'openai-chat'`)
    return { type: 'input_audio', input_audio: { data: part.data, format } }
  }
  return { type: 'file', file: { file_data: dataUrl(part), filename: fileName(part, index) } }
}

function chatUserMessage(parts) {
  const content = []
  for (let i = 0; i < parts.length; i++) append(content, chatPart(parts[i], i))
  return { role: 'user', content }
}

/**
 * The messages for a result converted with `provider: 'openai-chat'`: the
 * tool message (text only, as Chat Completions requires) and, when media
 * were deferred, a user message carrying them. With several tool calls in
 * one assistant turn, send every tool message first and the user messages
 * after them (or queue the media with an AttachmentQueue and send
 * `toOpenAIChatUserMessage(queue.drain())` once).
 */
function toOpenAIChatMessages(converted, toolCallId) {
  const id = stringArg(toolCallId, 'toolCallId')
  const { content, deferred } = readConverted(converted)
  const media = []
  for (let i = 0; i < content.length; i++) if (content[i].text === undefined) append(media, content[i])
  for (let i = 0; i < deferred.length; i++) append(media, deferred[i])
  const messages = [{ role: 'tool', tool_call_id: id, content: joinedText(content) }]
  if (media.length > 0) append(messages, chatUserMessage(media))
  return messages
}

/** A Chat Completions user message carrying content parts (deferred media), or null for none. */
function toOpenAIChatUserMessage(parts) {
  const read = readParts(parts, 'parts')
  return read.length === 0 ? null : chatUserMessage(read)
}

// ------------------------------------------------------------------ Gemini

function inlineData(part, index) {
  return { inlineData: { mimeType: part.mediaType, data: part.data, displayName: fileName(part, index) } }
}

/**
 * The parts of the user turn answering one function call, for a result
 * converted with `provider: 'google'`: first the `functionResponse` (with
 * the call's `id`, which Gemini 3 requires; `response.output`, or
 * `response.error` for an error result, is the result's text), its media as
 * `functionResponse.parts` (Gemini 3 and later take png, jpeg, webp, pdf and
 * text/plain there; the result has such parts only when converted with
 * `deferMedia: false`), then the deferred media as sibling `inlineData`
 * parts of the same turn.
 */
function toGeminiFunctionResponse(converted, name, id) {
  const callName = stringArg(name, 'name')
  if (id !== undefined) stringArg(id, 'id')
  const { content, deferred, isError } = readConverted(converted)
  const text = joinedText(content)
  const functionResponse = { name: callName }
  if (id !== undefined) setField(functionResponse, 'id', id)
  setField(functionResponse, 'response', isError ? { error: text } : { output: text })
  const media = []
  for (let i = 0; i < content.length; i++) if (content[i].text === undefined) append(media, inlineData(content[i], media.length))
  if (media.length > 0) setField(functionResponse, 'parts', media)
  const parts = [{ functionResponse }]
  for (let i = 0; i < deferred.length; i++) append(parts, inlineData(deferred[i], media.length + i))
  return parts
}

// ------------------------------------------------------------------ Bedrock Converse

const BEDROCK_IMAGE_FORMATS = { __proto__: null, 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' }
const BEDROCK_DOCUMENT_FORMATS = {
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

// Bedrock's DocumentBlock name: letters, digits, single spaces, hyphens,
// parentheses and square brackets only.
const NOT_NAME_CHARACTER = /[^A-Za-z0-9\s\-()[\]]+/g
const SPACES = /\s+/g

/** A document name Bedrock accepts, unique within the result. */
function bedrockName(part, index, used) {
  const given = part.filename !== undefined ? part.filename : part.uri !== undefined ? baseName(part.uri) : ''
  const dot = ReflectApply(StringPrototypeLastIndexOf, given, ['.'])
  const stem = dot > 0 ? ReflectApply(StringPrototypeSlice, given, [0, dot]) : given
  let name = ReflectApply(StringPrototypeReplace, stem, [NOT_NAME_CHARACTER, '-'])
  name = ReflectApply(StringPrototypeTrim, ReflectApply(StringPrototypeReplace, name, [SPACES, ' ']), [])
  if (name === '' || name === '-') name = `document-${index + 1}`
  let unique = name
  for (let n = 2; used[unique] === true; n++) unique = `${name} (${n})`
  setField(used, unique, true)
  return unique
}

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
    const imageFormat = BEDROCK_IMAGE_FORMATS[part.mediaType]
    if (imageFormat !== undefined) {
      append(blocks, { image: { format: imageFormat, source: { bytes: decode(part.data) } } })
      continue
    }
    const documentFormat = BEDROCK_DOCUMENT_FORMATS[part.mediaType]
    if (documentFormat === undefined) throw invalidArgument(`${part.mediaType} has no Bedrock block: convert the result with provider 'bedrock'`)
    append(blocks, {
      document: { format: documentFormat, name: bedrockName(part, documents, used), source: { bytes: decode(part.data) } },
    })
    documents++
  }
  if (documents > 0 && !hasText) append(blocks, { text: documents === 1 ? '[1 document attached]' : `[${documents} documents attached]` })
  return blocks
}

/** Content parts (deferred media) as Bedrock content blocks for a user message. */
function toBedrockContent(parts) {
  return bedrockBlocks(readParts(parts, 'parts'))
}

// ------------------------------------------------------------------ AI SDK

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
  for (let i = 0; i < content.length; i++) {
    const part = content[i]
    if (part.text !== undefined) append(value, { type: 'text', text: part.text })
    else if (version === 7) append(value, aiSdk7File(part))
    else append(value, aiSdk6File(part))
  }
  return { type: 'content', value }
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

module.exports = {
  toAnthropicToolResult,
  toAnthropicContent,
  toOpenAIResponsesOutput,
  toOpenAIResponsesMessage,
  toOpenAIChatMessages,
  toOpenAIChatUserMessage,
  toGeminiFunctionResponse,
  toBedrockToolResult,
  toBedrockContent,
  toAiSdkToolOutput,
}
