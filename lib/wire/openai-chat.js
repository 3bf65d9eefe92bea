'use strict'
// The OpenAI Chat Completions wire format: a converted result written as a
// tool message (text only) and a user message carrying its media, and the
// image_url, file and input_audio parts of a Chat history read for
// repairHistory.

const { invalidArgument, own, append } = require('../own-objects.js')
const { stringArg, readConverted, readParts, isImage, isAudio, dataUrl, fileName, joinedText, inlineData, isObject, EXTENSIONS } = require('./shared.js')

// ------------------------------------------------------------------ writing

function chatPart(part, index) {
  if (part.text !== undefined) return { type: 'text', text: part.text }
  if (isImage(part.mediaType)) return { type: 'image_url', image_url: { url: dataUrl(part) } }
  if (isAudio(part.mediaType)) {
    const format = EXTENSIONS[part.mediaType]
    if (format !== 'wav' && format !== 'mp3')
      throw invalidArgument(`${part.mediaType} has no Chat Completions part: convert the result with provider 'openai-chat'`)
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

// ------------------------------------------------------------------ reading a history

/** The media type an input_audio `format` names. */
const AUDIO_FORMATS = { __proto__: null, wav: 'audio/wav', mp3: 'audio/mpeg' }

/** Where each kind of part keeps its data, and the block kind a converted part needs. */
function blockOf(mediaType) {
  return isImage(mediaType) ? 'image_url' : isAudio(mediaType) ? 'input_audio' : 'file'
}

/** An image_url, file or input_audio part with inline data, as the media repairHistory converts; else undefined. */
function findMedia(part) {
  if (!isObject(part)) return undefined
  const type = own(part, 'type')
  const body = type === 'image_url' || type === 'file' || type === 'input_audio' ? own(part, type) : undefined
  if (!isObject(body)) return undefined
  let inline
  let filename
  if (type === 'image_url') {
    inline = inlineData(own(body, 'url'))
  } else if (type === 'file') {
    inline = inlineData(own(body, 'file_data'))
    filename = own(body, 'filename')
  } else {
    const data = own(body, 'data')
    const format = own(body, 'format')
    // A format Chat does not take declares no type it could keep ('').
    inline = typeof data === 'string' ? { mediaType: (typeof format === 'string' ? AUDIO_FORMATS[format] : undefined) ?? '', data } : undefined
  }
  if (inline === undefined || typeof inline.data !== 'string') return undefined
  return {
    kind: type === 'image_url' ? 'image' : type === 'input_audio' ? 'audio' : 'media',
    data: inline.data,
    mimeType: inline.mediaType,
    sameBlock: (out) => blockOf(out.mediaType) === type,
    write: (out) => {
      const read = readParts([out], 'part')[0]
      if (read.text === undefined && typeof filename === 'string') read.filename = filename
      return chatPart(read, 0)
    },
  }
}

/**
 * Media parts of a message's content. A tool message takes text only: its
 * media are read too, so what they hold is checked, but they stay where
 * they are.
 */
function draftMessage(message, draft) {
  return draft.field(message, 'content', findMedia)
}

const history = { provider: 'openai-chat', draftMessage }

module.exports = { toOpenAIChatMessages, toOpenAIChatUserMessage, history }
