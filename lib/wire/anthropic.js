'use strict'
// The Anthropic Messages wire format: a converted result written as a
// `tool_result` block or content blocks, and the image and document blocks
// of an Anthropic history read for repairHistory.

const { own, setField, append } = require('../own-objects.js')
const { stringArg, readConverted, readParts, isImage, decode, isObject } = require('./shared.js')

const ReflectApply = Reflect.apply
const BufferToString = Buffer.prototype.toString

// ------------------------------------------------------------------ writing

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

// ------------------------------------------------------------------ reading a history

/** An image or document block with base64 data, as the media repairHistory converts; else undefined. */
function findMedia(block) {
  if (!isObject(block)) return undefined
  const type = own(block, 'type')
  if (type !== 'image' && type !== 'document') return undefined
  const source = own(block, 'source')
  if (!isObject(source) || own(source, 'type') !== 'base64') return undefined
  const data = own(source, 'data')
  const declared = own(source, 'media_type')
  return {
    kind: type === 'image' ? 'image' : 'media',
    data: typeof data === 'string' ? data : '',
    mimeType: typeof declared === 'string' ? declared : undefined,
    // An image goes in an image block, anything else in a document block.
    sameBlock: (part) => isImage(part.mediaType) === (type === 'image'),
    write: (part) => anthropicBlock(readParts([part], 'part')[0]),
  }
}

/** Media blocks of a message's content and of the tool_result blocks in it. */
function draftMessage(message, draft) {
  return draft.field(message, 'content', findMedia, (block) =>
    isObject(block) && own(block, 'type') === 'tool_result' ? draft.field(block, 'content', findMedia) : undefined,
  )
}

const history = { provider: 'anthropic', draftMessage }

module.exports = { toAnthropicToolResult, toAnthropicContent, history }
