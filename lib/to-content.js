'use strict'
// One part converted for the model: toContent and toContentAsync, and the
// model part made from native code's answer.

const native = require('./native.js')
const { INLINE_MAX_DATA, isLatin1, nativeData, nativeWord, encodeBytes, dataSize } = require('./data.js')
const { readOptions } = require('./options.js')
const { Media, readPart } = require('./parts.js')
const { textPart, LongText, boundTextSync, boundText, fromBounded } = require('./text.js')

function convertSync(settings, media) {
  const latin1 = isLatin1(media.data)
  return native.convertMediaSync(settings.handle, media.kind, nativeData(media.data, latin1), media.mimeType, media.uri, nativeWord(latin1))
}

/**
 * The file part for native code's answer. Its `data` is base64, or null for
 * the input itself (a canonical string, or bytes encoded here right after
 * they were checked, with no other JS in between), or the bytes an async
 * conversion checked. `note` (or null) is what to put beside an image made
 * to fit.
 *
 * @param {import('./binding/binding.d.ts').FileAnswer | import('./binding/binding.d.ts').ResultFile} answer
 * @param {string | Uint8Array | undefined} input
 * @param {string | null} note
 */
function filePart(answer, input, note) {
  const { mediaType, uri, filename } = answer
  const given = answer.data === null ? input : answer.data
  const data = typeof given === 'string' ? given : encodeBytes(given)
  // Literals, not assignments: a setter on Object.prototype never runs.
  if (note !== null) {
    if (uri === null) return { type: 'file', mediaType, data, note }
    if (filename === null) return { type: 'file', mediaType, data, uri, note }
    return { type: 'file', mediaType, data, uri, filename, note }
  }
  if (uri === null) return { type: 'file', mediaType, data }
  if (filename === null) return { type: 'file', mediaType, data, uri }
  return { type: 'file', mediaType, data, uri, filename }
}

/**
 * The part for native code's answer to `toContent`: a text, or a file part.
 *
 * @param {string | import('./binding/binding.d.ts').FileAnswer} answer
 * @param {string | Uint8Array | undefined} input
 */
function fromAnswer(answer, input) {
  return typeof answer === 'string' ? textPart(answer) : filePart(answer, input, answer.note)
}

/**
 * Convert one MCP content part for the model; null when the part is not
 * meant for the model (annotations.audience without "assistant").
 */
function toContent(part, options) {
  const settings = readOptions(options)
  const read = readPart(part, settings)
  if (read instanceof Media) return fromAnswer(convertSync(settings, read), read.data)
  if (read instanceof LongText) return fromBounded(boundTextSync(settings.handle, read), read)
  return read
}

/**
 * `toContent` with decoding, checks and disk writes on the libuv thread pool,
 * on a copy of the data. Parts of at most 256 KiB that need no disk write are
 * converted on the spot: a pool round trip costs more than their conversion.
 * An async function: a bad argument becomes a rejection, never a throw.
 */
async function toContentAsync(part, options) {
  const settings = readOptions(options)
  const read = readPart(part, settings)
  if (read instanceof LongText) return fromBounded(await boundText(settings.handle, read), read)
  if (!(read instanceof Media)) return read
  const { handle } = settings
  const { kind, mimeType, uri } = read
  const latin1 = isLatin1(read.data)
  if (dataSize(read.data) <= INLINE_MAX_DATA) {
    const answer = native.convertMediaInline(handle, kind, nativeData(read.data, latin1), mimeType, uri, nativeWord(latin1))
    if (answer !== undefined) return fromAnswer(answer, read.data)
  }
  return fromAnswer(await native.convertMedia(handle, kind, nativeData(read.data, latin1), mimeType, uri, nativeWord(latin1)), read.data)
}

module.exports = { toContent, toContentAsync, filePart }
