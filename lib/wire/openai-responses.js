'use strict'
// The OpenAI Responses wire format: a converted result written as a
// `function_call_output` item or a user message item, and the input_image
// and input_file items of a Responses history read for repairHistory.

const { own, append } = require('../own-objects.js')
const { stringArg, readConverted, readParts, isImage, dataUrl, fileName, inlineData, isObject } = require('./shared.js')

// ------------------------------------------------------------------ writing

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

// ------------------------------------------------------------------ reading a history

/** An input_image or input_file item with inline data, as the media repairHistory converts; else undefined. */
function findMedia(item) {
  if (!isObject(item)) return undefined
  const type = own(item, 'type')
  if (type !== 'input_image' && type !== 'input_file') return undefined
  const inline = inlineData(own(item, type === 'input_image' ? 'image_url' : 'file_data'))
  if (inline === undefined || typeof inline.data !== 'string') return undefined
  const filename = own(item, 'filename')
  return {
    kind: type === 'input_image' ? 'image' : 'media',
    data: inline.data,
    mimeType: inline.mediaType,
    sameBlock: (part) => isImage(part.mediaType) === (type === 'input_image'),
    write: (part) => {
      const read = readParts([part], 'part')[0]
      // A file keeps the name it was sent under.
      if (read.text === undefined && typeof filename === 'string') read.filename = filename
      return responsesItem(read, 0)
    },
  }
}

/** Media items of a message's content and of a function_call_output's output. */
function draftMessage(item, draft) {
  if (!isObject(item)) return undefined
  return draft.field(item, own(item, 'type') === 'function_call_output' ? 'output' : 'content', findMedia)
}

const history = { provider: 'openai', draftMessage }

module.exports = { toOpenAIResponsesOutput, toOpenAIResponsesMessage, history }
