'use strict'
// The core's checks on their own, for callers that route data themselves:
// what a blob is, whether bytes are UTF-8, whether a media type is text,
// and the token estimate the text cap uses.

const native = require('./native.js')
const { invalidArgument } = require('./own-objects.js')
const { isLatin1, nativeData, nativeWord, privateData } = require('./data.js')

function classify(data, declaredMediaType) {
  const bytes = privateData(data)
  const latin1 = isLatin1(bytes)
  return native.classify(nativeData(bytes, latin1), declaredMediaType, nativeWord(latin1))
}

function isUtf8(data) {
  return native.isUtf8(privateData(data))
}

function isTextualMediaType(mediaType) {
  return native.isTextualMediaType(mediaType)
}

/** decocms' token estimate: ceil(non-CJK characters / 4) + ceil(CJK characters * 1.5). An estimate, not a tokenizer. */
function estimateTokens(text) {
  if (typeof text !== 'string') throw invalidArgument('`text` must be a string')
  return native.estimateTokens(text)
}

module.exports = { classify, isUtf8, isTextualMediaType, estimateTokens }
