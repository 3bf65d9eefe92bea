'use strict'
// What a conversion did to one part, read back from its answer: attached, deferred, sent as text,
// saved with a reason, or left out. The note texts are the documented ones (docs/routing.md, "Note formats").

const SAVED_NOTE = /^\[[^()\n]*\(([^,()\n]+), (\d+) bytes\): ([^\n]*?); (?:saved to |could not be saved: )/
const HELD_NOTE = /^\[(\S+) (?:image|document|audio), \d+ KB, not shown to the model: ([^\n]*?); (?:saved to |could not be saved: )/
const FITTED_NOTE = /^\[[^()\n]* to fit \(([^\n]*?)\): original ([^;\n]*?), (?:saved to [^\n]*|not saved \([^\n]*\)); sent ([^\n]*)\]$/
const REFUSED_NOTE = /^\[[^()\n]*\(([^()\n]*)\): ([^\n]*); nothing was saved\]$/

/** The outcome of converting a result of one part (`convertToolResult({ content: [part] })`). */
function outcomeOf(converted) {
  if (converted.deferred.length > 0) {
    return { action: 'deferred', mediaType: converted.deferred[0].mediaType }
  }
  const part = converted.content[0]
  if (part === undefined) return { action: 'dropped', reason: 'the audience leaves out the assistant' }
  if (part.type === 'file') return { action: 'attached', mediaType: part.mediaType }
  const text = part.text
  // An image made to fit: the note, then the image sent.
  let m = FITTED_NOTE.exec(text)
  const next = converted.content[1]
  if (m && next !== undefined && next.type === 'file') {
    return { action: 'fitted', mediaType: next.mediaType, reason: m[1], original: m[2], sent: m[3] }
  }
  m = SAVED_NOTE.exec(text)
  if (m) return { action: 'saved', mediaType: m[1], reason: m[3] }
  m = HELD_NOTE.exec(text)
  if (m) return { action: 'saved', mediaType: m[1], reason: m[2] }
  m = REFUSED_NOTE.exec(text)
  if (m) return { action: 'note', reason: m[2] }
  if (/^\[Unsupported content part of type "[^\n]*"\]$/.test(text)) return { action: 'note', reason: 'not a content part type MCP defines' }
  if (text.includes('\n[Text truncated: ')) return { action: 'text', truncated: true, chars: text.length }
  return { action: 'text', chars: text.length }
}

/** The outcome in a few words: `attached image/jpeg`, `saved: 1200x20000 px, over the 8000 px limit`. */
function outcomeWords(o) {
  switch (o.action) {
    case 'attached':
      return `attached as ${o.mediaType}`
    case 'fitted':
      return `made to fit (${o.reason}), sent as ${o.sent}`
    case 'deferred':
      return `${o.mediaType}, moved to a following user message`
    case 'saved':
      return `saved to disk, noted: ${o.reason}`
    case 'note':
      return `a note: ${o.reason}`
    case 'dropped':
      return `left out: ${o.reason}`
    default:
      return o.truncated ? 'text, a preview (the whole text saved)' : `text, ${o.chars} characters`
  }
}

module.exports = { outcomeOf, outcomeWords }
