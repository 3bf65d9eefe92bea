'use strict'
// Text parts and the text cap: a text whose length alone shows it within
// `maxTextTokens` is answered here outright; a longer one is a LongText,
// which native code counts, previews and saves whole when over the cap.

const native = require('./native.js')

const ObjectDefineProperty = Object.defineProperty
const RangeErrorConstructor = RangeError

function textPart(text) {
  return { type: 'text', text }
}

const DEFAULT_MAX_TEXT_TOKENS = native.defaultMaxTextTokens()

/**
 * True when `text` is within the cap by its length alone: no character costs
 * more than 1.5 tokens (see estimateTokens). Longer texts are counted natively.
 */
function isShortText(text, options) {
  const cap = options.maxTextTokens === undefined || options.maxTextTokens === null ? DEFAULT_MAX_TEXT_TOKENS : options.maxTextTokens
  return text.length * 1.5 <= cap
}

/** A text the cap may cut: native code previews it and saves the whole. */
class LongText {
  constructor(header, text, mediaType, uri) {
    this.header = header
    this.text = text
    this.mediaType = mediaType
    this.uri = uri
  }
}

/**
 * `header + text` (a rope: a long text is never copied). A text near the
 * engine's longest string has no room for the header: a coded error, not a
 * bare RangeError (only with the cap turned off; the cap keeps texts short).
 */
function join(header, text) {
  try {
    return header + text
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    const tooLong = new RangeErrorConstructor(`text of ${text.length} characters is too long to send with its header; keep maxTextTokens on`)
    ObjectDefineProperty(tooLong, 'code', { value: 'TEXT_TOO_LONG', writable: true, enumerable: true, configurable: true })
    throw tooLong
  }
}

/** A text part, or a LongText when its length alone does not settle the cap. */
function textOrLong(header, text, mediaType, options, uri) {
  if (isShortText(text, options)) return textPart(join(header, text))
  return new LongText(header, text, mediaType, uri)
}

/** `result`: the native handle of the whole result the text is part of, whose saved files stay. */
function boundText(how, long, options, result) {
  const { provider, outputDir, store, maxTextTokens } = options
  return native.boundText(how, long.text, long.mediaType, provider, outputDir, store, maxTextTokens, result)
}

/** `bounded`: null (within the cap) or `[previewAndNote, savedPath, savedByteLength]`. */
function fromBounded(bounded, long) {
  return textPart(join(long.header, bounded === null ? long.text : bounded[0]))
}

module.exports = { textPart, isShortText, LongText, textOrLong, boundText, fromBounded }
