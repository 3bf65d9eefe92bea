'use strict'
// One part converted for the model: toContent and toContentAsync, and the
// model part made from native code's answer.

const native = require('./native.js')
const { INLINE_MAX_DATA, isLatin1, nativeData, nativeWord, encodeBytes, dataSize } = require('./data.js')
const { readOptions } = require('./options.js')
const { Media, readPart } = require('./parts.js')
const { textPart, LongText, boundText, fromBounded } = require('./text.js')

function convertMedia(how, media, options) {
  const { kind, data, mimeType, uri } = media
  const { provider, outputDir, store, maxTextTokens, fitImages, maxLongSide } = options
  const latin1 = isLatin1(data)
  return native.convertMedia(
    how,
    kind,
    nativeData(data, latin1),
    mimeType,
    uri,
    provider,
    outputDir,
    store,
    maxTextTokens,
    nativeWord(latin1),
    fitImages,
    maxLongSide,
  )
}

/**
 * The part for native code's answer: a text, or `[mediaType, data, uri,
 * filename, note]` where `data` is base64, or null for the input itself (a
 * canonical string, or bytes encoded here right after they were checked,
 * with no other JS in between), or the bytes an async conversion checked;
 * `note` (or null) is what to put beside an image made to fit.
 */
function fromAnswer(answer, input) {
  if (typeof answer === 'string') return textPart(answer)
  const mediaType = answer[0]
  const given = answer[1] === null ? input : answer[1]
  const data = typeof given === 'string' ? given : encodeBytes(given)
  const uri = answer[2]
  const filename = answer[3]
  const note = answer[4]
  // Literals, not assignments: a setter on Object.prototype never runs.
  if (note !== null && note !== undefined) {
    if (uri === null) return { type: 'file', mediaType, data, note }
    if (filename === null) return { type: 'file', mediaType, data, uri, note }
    return { type: 'file', mediaType, data, uri, filename, note }
  }
  if (uri === null) return { type: 'file', mediaType, data }
  if (filename === null) return { type: 'file', mediaType, data, uri }
  return { type: 'file', mediaType, data, uri, filename }
}

/**
 * Convert one MCP content part for the model; null when the part is not
 * meant for the model (annotations.audience without "assistant").
 */
function toContent(part, options) {
  const settings = readOptions(options)
  const read = readPart(part, settings)
  if (read instanceof Media) return fromAnswer(convertMedia('sync', read, settings), read.data)
  if (read instanceof LongText) return fromBounded(boundText('sync', read, settings), read)
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
  if (read instanceof LongText) return fromBounded(await boundText('async', read, settings), read)
  if (!(read instanceof Media)) return read
  if (dataSize(read.data) <= INLINE_MAX_DATA) {
    const answer = convertMedia('inline', read, settings)
    if (answer !== undefined) return fromAnswer(answer, read.data)
  }
  return fromAnswer(await convertMedia('async', read, settings), read.data)
}

module.exports = { toContent, toContentAsync, fromAnswer }
