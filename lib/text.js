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
const MOST_TOKENS_PER_CHAR = native.mostTokensPerChar()

/**
 * True when `text` is within the cap by its length alone: no character costs
 * more than the core's most per character (see estimateTokens). Longer texts
 * are counted natively.
 */
function isShortText(text, options) {
  const cap = options.maxTextTokens === undefined || options.maxTextTokens === null ? DEFAULT_MAX_TEXT_TOKENS : options.maxTextTokens
  return text.length * MOST_TOKENS_PER_CHAR <= cap
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

/**
 * A long text bounded by the cap, with the settings of `handle`: a settings
 * handle, or a whole result's, whose saved files stay.
 *
 * @param {import('./binding/binding.d.ts').SettingsHandle | import('./binding/binding.d.ts').ResultHandle} handle
 * @param {LongText} long
 */
function boundTextSync(handle, long) {
  return native.boundTextSync(handle, long.text, long.mediaType)
}

/** `boundTextSync` on the libuv thread pool. */
function boundText(handle, long) {
  return native.boundText(handle, long.text, long.mediaType)
}

/**
 * The text part of a long text, bounded (null: within the cap).
 *
 * @param {import('./binding/binding.d.ts').BoundedText | null} bounded
 * @param {LongText} long
 */
function fromBounded(bounded, long) {
  return textPart(join(long.header, bounded === null ? long.text : bounded.text))
}

module.exports = { textPart, isShortText, LongText, textOrLong, boundTextSync, boundText, fromBounded }
