'use strict'
// repairHistory: a conversation history a provider refuses because of an
// attachment already in it, repaired. Generic over the wire formats: the
// history is read and drafted by lib/history.js, each media converted as in
// a tool result, the whole history budgeted as one request, and the
// repaired parts written back in the format's own shape.

const native = require('./native.js')
const { invalidArgument, own, append } = require('./own-objects.js')
const { readOptions, settingsFor } = require('./options.js')
const { resultMediaSync, fromResultAnswer, planResult, spillSync } = require('./tool-result.js')
const { Draft, snapshotOf, copyArray, settleMessage, historyFormat, FORMAT_NAMES } = require('./history.js')

const ArrayIsArray = Array.isArray

/**
 * Repair a conversation history that a provider refuses because of an
 * attachment already in it: every inline image or document is converted
 * as convertToolResult converts a media part for `provider` (by default
 * the format's: see each lib/wire/<format>.js; the whole history budgeted
 * as one request), and what the provider would refuse is
 * replaced by the same note (the bytes saved by the store when there are
 * any); a mislabelled attachment gets its true media type. Returns a new
 * array (messages with nothing to repair are the same objects; nothing
 * given is modified) and how many attachments were repaired.
 */
function repairHistory(messages, options) {
  if (!ArrayIsArray(messages)) throw invalidArgument('`messages` must be an array')
  if (options === null || typeof options !== 'object') throw invalidArgument('`options` must be an object with a `format`')
  const format = own(options, 'format')
  const history = historyFormat(format)
  if (history === undefined) throw invalidArgument(`\`format\` must be ${FORMAT_NAMES}`)
  const given = readOptions(options)
  // The provider the format is written for, unless the caller names one (Claude on Bedrock: 'anthropic-bedrock').
  const settings =
    given.provider !== undefined ? given : settingsFor(history.provider, given.outputDir, given.store, given.maxTextTokens, given.fitImages, given.maxLongSide)
  const job = { settings, read: { isError: false }, withStructured: false, handle: native.resultNew(settings.handle, 'auto') }
  const draft = new Draft()
  const found = draft.found
  const drafted = copyArray(messages)
  // [position, first found, end of found, draft] of each message holding attachments.
  const holding = []
  for (let i = 0; i < drafted.length; i++) {
    const first = found.length
    const message = history.draftMessage(snapshotOf(drafted[i]), draft)
    if (message !== undefined) append(holding, [i, first, found.length, message])
  }
  // Each attachment converted as in a tool result, then budgeted together.
  const converted = []
  const same = []
  for (let i = 0; i < found.length; i++) {
    const media = found[i].media
    const answer = resultMediaSync(job, i, media)
    const entry = fromResultAnswer(answer, media)
    append(converted, entry)
    // Unchanged: attached as it is (its own bytes, canonical base64), with the type it was
    // declared with, in the kind of block that type needs (a PDF in an image block is not).
    append(
      same,
      answer.kind === 'file' &&
        answer.data === null &&
        (media.mimeType === undefined || answer.mediaType === media.mimeType) &&
        found[i].sameBlock(entry.part) === true,
    )
  }
  const decision = planResult(job, converted)
  let a = 0
  let repaired = 0
  for (let i = 0; i < converted.length; i++) {
    const entry = converted[i]
    let part = entry.part
    let kept = same[i]
    if (entry.isFile) {
      if (decision.verdicts[a] === false) {
        part = fromResultAnswer(spillSync(job, converted, decision, a), entry.media).part
        kept = false
      }
      a++
    }
    found[i].final = kept ? found[i].original : found[i].write(part)
    if (!kept) repaired++
  }
  // A message whose attachments all stay is given back as it was.
  for (let h = 0; h < holding.length; h++) {
    // Indexes, not destructuring: that would run the (replaceable) array iterator.
    const entry = holding[h]
    let unchanged = true
    for (let i = entry[1]; i < entry[2]; i++) if (found[i].final !== found[i].original) unchanged = false
    if (!unchanged) drafted[entry[0]] = settleMessage(entry[3])
  }
  return { messages: drafted, repaired }
}

module.exports = { repairHistory }
