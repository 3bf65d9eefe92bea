'use strict'
// The entries of a whole result: each part as converted, in the form the
// result's plan and answer read (its model part, whether it is an attachment
// the core budgets, its note, saved file and placeholder).

const { textPart, fromBounded } = require('./text.js')
const { filePart } = require('./to-content.js')

/** A converted text part of a result (no media, nothing to budget). */
function textEntry(part) {
  return { part, media: undefined, isFile: false, saved: undefined, note: undefined, placeholder: undefined }
}

/**
 * A saved file as the result lists it, with the URI of the part it came from.
 *
 * @param {import('./binding/binding.d.ts').SavedFile | null} saved
 * @param {string | undefined} uri
 */
function savedEntry(saved, uri) {
  if (saved === null) return undefined
  const { path, byteLength, mediaType } = saved
  return typeof uri === 'string' ? { path, byteLength, mediaType, uri } : { path, byteLength, mediaType }
}

/**
 * A long text's entry in a whole result: its part, and the file holding the whole text.
 *
 * @param {import('./binding/binding.d.ts').BoundedText | null} bounded
 * @param {InstanceType<typeof import('./text.js').LongText>} long
 */
function longTextEntry(bounded, long) {
  const entry = textEntry(fromBounded(bounded, long))
  if (bounded !== null) entry.saved = savedEntry(bounded.saved, long.uri)
  return entry
}

/**
 * A media part's native answer, made into what the result needs: the model
 * part, whether it is a file (an attachment the core budgets), its note and
 * saved file. Bytes are encoded here, right after they were checked (see
 * filePart).
 *
 * @param {import('./binding/binding.d.ts').ResultText | import('./binding/binding.d.ts').ResultFile} answer
 * @param {InstanceType<typeof import('./parts.js').Media>} media
 */
function fromResultAnswer(answer, media) {
  const saved = savedEntry(answer.saved, media.uri)
  if (answer.kind === 'text') return { part: textPart(answer.text), media, isFile: false, saved, note: undefined, placeholder: undefined }
  // An image made to fit: its note goes beside it, its original is saved.
  const note = answer.note === null ? undefined : answer.note
  const placeholder = answer.placeholder === null ? undefined : answer.placeholder
  return { part: filePart(answer, media.data, null), media, isFile: true, saved, note, placeholder }
}

module.exports = { textEntry, savedEntry, longTextEntry, fromResultAnswer }
