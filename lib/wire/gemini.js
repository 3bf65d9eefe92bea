'use strict'
// The Gemini wire format: a converted result written as the parts of the
// user turn answering a function call, and the inlineData parts of a Gemini
// history (in a turn's parts and in functionResponse.parts) read for
// repairHistory.

const { own, setField, append } = require('../own-objects.js')
const { stringArg, readConverted, readParts, fileName, joinedText, isObject } = require('./shared.js')

const ReflectApply = Reflect.apply
const BufferFrom = Buffer.from
const BufferConstructor = Buffer
const BufferToString = Buffer.prototype.toString

// ------------------------------------------------------------------ writing

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

// ------------------------------------------------------------------ reading a history

/**
 * An inlineData part as the media repairHistory converts; else undefined.
 * `inResponse`: the part is one of a functionResponse's parts, which hold
 * inlineData only, so a note goes there as text/plain data.
 */
function findMedia(part, inResponse) {
  if (!isObject(part)) return undefined
  const inline = own(part, 'inlineData')
  if (!isObject(inline)) return undefined
  const data = own(inline, 'data')
  const mimeType = own(inline, 'mimeType')
  const displayName = own(inline, 'displayName')
  if (typeof data !== 'string') return undefined
  return {
    kind: 'media',
    data,
    // Gemini needs a type: none declared is none it could keep ('').
    mimeType: typeof mimeType === 'string' ? mimeType : '',
    // One kind of part for every media type.
    sameBlock: () => true,
    write: (out) => {
      const read = readParts([out], 'part')[0]
      if (read.text !== undefined) {
        if (!inResponse) return { text: read.text }
        const data = ReflectApply(BufferToString, ReflectApply(BufferFrom, BufferConstructor, [read.text, 'utf8']), ['base64'])
        return { inlineData: { mimeType: 'text/plain', data, displayName: typeof displayName === 'string' ? displayName : 'note.txt' } }
      }
      if (typeof displayName === 'string') read.filename = displayName
      return inlineData(read, 0)
    },
  }
}

const findInTurn = (part) => findMedia(part, false)
const findInResponse = (part) => findMedia(part, true)

/** inlineData parts of a turn and of each functionResponse in it. */
function draftMessage(content, draft) {
  return draft.field(content, 'parts', findInTurn, (part) => {
    if (!isObject(part)) return undefined
    const response = draft.snapshot(own(part, 'functionResponse'))
    if (!isObject(response)) return undefined
    const drafted = draft.field(response, 'parts', findInResponse)
    if (drafted === undefined) return undefined
    setField(part, 'functionResponse', drafted)
    return part
  })
}

const history = { provider: 'google', draftMessage }

module.exports = { toGeminiFunctionResponse, history }
