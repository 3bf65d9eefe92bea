'use strict'
// Resource links read on request (`readResource`, convertToolResult only): before a result is
// converted, each `resource_link` part for the model is read through the caller's function, a
// few at a time, each read bounded in time, and its contents take the link's place as embedded
// resource parts, which readPart reads as any other. A link past the bounds (links or bytes read
// per result), or whose read failed, timed out or answered what is not a resource's contents,
// stays a link, and its note says why. Nothing a read does throws out of here, keeps the
// conversion waiting past its time, or is looked at once its time is up.

const native = require('./native.js')
const { own, append } = require('./own-objects.js')
const { isForModel, readPart } = require('./parts.js')
const { textPart } = require('./text.js')

const ReflectApply = Reflect.apply
const ArrayIsArray = Array.isArray
const PromiseConstructor = Promise
const PromisePrototypeThen = Promise.prototype.then
const BufferByteLength = Buffer.byteLength
const setTimer = setTimeout
const clearTimer = clearTimeout

/** Reads of one result under way at once: round trips overlap, and one server gets a few requests at a time, not a burst. */
const CONCURRENT_READS = 4
/** Contents one read may answer: a resource is one document; a read answering more (a whole folder) would flood the result with parts. */
const MAX_CONTENTS = 100

/** A link's note, saying why it was not read: the model reads it as it is (no text cap, as a link's note). */
class LinkNote {
  constructor(text) {
    this.text = text
  }
}

/** A result's parts with its links read: `parts` to read (the caller's, our resource parts, LinkNotes), each one's `sources` index, and whether it is the caller's own (`kept`). */
class Linked {
  constructor(length) {
    this.parts = []
    this.sources = []
    this.kept = []
    this.length = length
  }

  add(part, source, kept) {
    append(this.parts, part)
    append(this.sources, source)
    append(this.kept, kept)
  }
}

const isOptionalString = (value) => value === undefined || value === null || typeof value === 'string'

/** A link this module reads: for the model, with a string uri and details the core takes; else undefined (readPart handles it). */
function readableLink(part, index) {
  if (own(part, 'type') !== 'resource_link' || !isForModel(part)) return undefined
  const uri = own(part, 'uri')
  const name = own(part, 'name')
  const mimeType = own(part, 'mimeType')
  const description = own(part, 'description')
  if (typeof uri !== 'string' || !isOptionalString(name) || !isOptionalString(mimeType) || !isOptionalString(description)) return undefined
  return { index, uri, name, mimeType, size: own(part, 'size'), description }
}

/** An error's words, whatever was thrown; `fallback` when it has none (or reading them throws). */
function messageOf(error, fallback) {
  try {
    if (typeof error === 'string' && error !== '') return error
    if (error !== null && typeof error === 'object') {
      const message = error.message
      if (typeof message === 'string' && message !== '') return message
    }
  } catch {
    // a hostile `message`: the fallback says it
  }
  return fallback
}

const failed = (message) => ({ contents: undefined, bytes: 0, why: 'failed', message })
const TIMED_OUT = { contents: undefined, bytes: 0, why: 'timed-out', message: undefined }
const NOT_STARTED = { contents: undefined, bytes: 0, why: 'byte-limit', message: undefined }

/** Decoded bytes of base64, from its length (whitespace inside counts: an overestimate, never under). */
function base64Bytes(blob) {
  const length = blob.length
  const padding = length > 0 && blob[length - 1] === '=' ? (length > 1 && blob[length - 2] === '=' ? 2 : 1) : 0
  return Math.max(0, Math.floor((length * 3) / 4) - padding)
}

/** A read's answer as embedded resource parts and their bytes, or why it is none; own properties, each read once. */
function readAnswer(answer, linkUri) {
  if (answer === null || typeof answer !== 'object') return failed('the answer is not an object')
  const contents = own(answer, 'contents')
  if (!ArrayIsArray(contents)) return failed('the answer has no `contents` array')
  const count = contents.length
  if (count === 0) return failed('the answer has no contents')
  if (count > MAX_CONTENTS) return failed(`the answer has ${count} contents, over the limit of ${MAX_CONTENTS} for one link`)
  const parts = []
  let bytes = 0
  for (let i = 0; i < count; i++) {
    const item = own(contents, i)
    const n = i + 1
    if (item === null || typeof item !== 'object') return failed(`content ${n} is not an object`)
    const uri = own(item, 'uri')
    const mimeType = own(item, 'mimeType')
    const text = own(item, 'text')
    if (!isOptionalString(uri)) return failed(`content ${n} has a \`uri\` that is not a string`)
    if (!isOptionalString(mimeType)) return failed(`content ${n} has a \`mimeType\` that is not a string`)
    // A content without a uri is the linked resource's.
    const resource = typeof mimeType === 'string' ? { uri: uri ?? linkUri, mimeType } : { uri: uri ?? linkUri }
    if (text !== undefined && text !== null) {
      if (typeof text !== 'string') return failed(`content ${n} has a \`text\` that is not a string`)
      resource.text = text
      bytes += BufferByteLength(text, 'utf8')
    } else {
      const blob = own(item, 'blob')
      if (blob === undefined || blob === null) return failed(`content ${n} has neither \`text\` nor \`blob\``)
      if (typeof blob !== 'string') return failed(`content ${n} has a \`blob\` that is not a string`)
      resource.blob = blob
      bytes += base64Bytes(blob)
    }
    append(parts, { type: 'resource', resource })
  }
  return { contents: parts, bytes, why: undefined, message: undefined }
}

/** One read: its outcome (see readAnswer), TIMED_OUT, or failed; never rejects, and settles within `timeoutMs`. */
function readLink(read, uri, timeoutMs) {
  return new PromiseConstructor((settle) => {
    let done = false
    let timer
    const finish = (outcome) => {
      done = true
      clearTimer(timer)
      settle(outcome)
    }
    timer = setTimer(() => {
      if (!done) finish(TIMED_OUT)
    }, timeoutMs)
    let answer
    try {
      answer = ReflectApply(read, undefined, [uri])
    } catch (error) {
      finish(failed(messageOf(error, 'the read failed without a message')))
      return
    }
    // Adopted by a promise of our own: a thenable's `then` is read once, a getter throwing there is a rejection.
    const adopted = new PromiseConstructor((resolve) => resolve(answer))
    ReflectApply(PromisePrototypeThen, adopted, [
      (value) => {
        if (done) return
        let outcome
        try {
          outcome = readAnswer(value, uri)
        } catch (error) {
          outcome = failed(`reading the answer threw: ${messageOf(error, 'no message')}`)
        }
        finish(outcome)
      },
      (error) => {
        if (!done) finish(failed(messageOf(error, 'the read failed without a message')))
      },
    ])
  })
}

/**
 * Read `links` (the first `maxLinks` of the result's) a few at a time. `verdicts[i]` decides
 * link i in result order as the reads settle: its contents while the bytes read stay within
 * `maxLinkedBytes`, else why not. A link whose turn comes once the links before it have used the
 * bytes up is not read at all.
 */
async function readAll(links, bounds) {
  const count = links.length
  const outcomes = []
  const verdicts = []
  for (let i = 0; i < count; i++) {
    append(outcomes, undefined)
    append(verdicts, undefined)
  }
  let next = 0
  let decided = 0
  let spent = 0
  const decide = () => {
    while (decided < count && outcomes[decided] !== undefined) {
      const outcome = outcomes[decided]
      if (spent >= bounds.maxLinkedBytes) verdicts[decided] = NOT_STARTED
      else if (outcome.contents !== undefined && spent + outcome.bytes > bounds.maxLinkedBytes) verdicts[decided] = { ...outcome, why: 'over-byte-limit' }
      else {
        spent += outcome.bytes
        verdicts[decided] = outcome
      }
      decided++
    }
  }
  const worker = async () => {
    while (next < count) {
      const at = next++
      if (decided === at && spent >= bounds.maxLinkedBytes) outcomes[at] = NOT_STARTED
      else outcomes[at] = await readLink(bounds.read, links[at].uri, bounds.timeoutMs)
      decide()
    }
  }
  const workers = []
  for (let w = 0; w < CONCURRENT_READS && w < count; w++) append(workers, worker())
  for (let w = 0; w < workers.length; w++) await workers[w]
  return verdicts
}

/** The note of a link that was not read, saying why. */
function notReadNote(link, why, amount, limit) {
  const reason = native.linkNotReadReason(why, amount, limit)
  return new LinkNote(native.resourceLinkText(link.uri, link.name, link.mimeType, link.size, link.description, reason))
}

/**
 * `result`'s parts with each readable link read through `bounds.read` (options.js reads the
 * bounds): a Linked, or undefined when there is none to read, or when readResult refuses the
 * result (not an object, `content` not an array, a part not an object): then nothing is read.
 */
async function readLinks(result, bounds) {
  if (result === null || typeof result !== 'object') return undefined
  const content = own(result, 'content')
  if (!ArrayIsArray(content)) return undefined
  const parts = []
  const links = []
  const length = content.length
  for (let i = 0; i < length; i++) {
    const part = own(content, i)
    if (part === null || typeof part !== 'object') return undefined
    append(parts, part)
    const link = readableLink(part, i)
    if (link !== undefined) append(links, link)
  }
  if (links.length === 0) return undefined
  const reading = []
  for (let l = 0; l < links.length && l < bounds.maxLinks; l++) append(reading, links[l])
  const verdicts = await readAll(reading, bounds)
  const linked = new Linked(length)
  let l = 0
  for (let i = 0; i < length; i++) {
    const link = l < links.length && links[l].index === i ? links[l] : undefined
    if (link === undefined) {
      linked.add(parts[i], i, true)
      continue
    }
    const verdict = l < verdicts.length ? verdicts[l] : undefined
    l++
    if (verdict === undefined) linked.add(notReadNote(link, 'link-limit', bounds.maxLinks), i, false)
    else if (verdict.why === undefined) {
      for (let c = 0; c < verdict.contents.length; c++) linked.add(verdict.contents[c], i, false)
    } else if (verdict.why === 'over-byte-limit') linked.add(notReadNote(link, verdict.why, verdict.bytes, bounds.maxLinkedBytes), i, false)
    else if (verdict.why === 'byte-limit') linked.add(notReadNote(link, verdict.why, bounds.maxLinkedBytes), i, false)
    else if (verdict.why === 'timed-out') linked.add(notReadNote(link, verdict.why, bounds.timeoutMs), i, false)
    else linked.add(notReadNote(link, verdict.why, verdict.message), i, false)
  }
  return linked
}

/** The parts of a Linked as readPart reads them (a LinkNote as the text part it is). */
function readLinkedParts(linked, settings) {
  const reads = []
  const { parts } = linked
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    append(reads, part instanceof LinkNote ? textPart(part.text) : readPart(part, settings))
  }
  return reads
}

/**
 * The reads of the result's own parts at their places in its `content` (null at a link's), so
 * that "<repeats content part N>" counts the result's parts, not the linked ones.
 */
function readsBySource(reads, linked) {
  const bySource = []
  for (let i = 0; i < linked.length; i++) append(bySource, null)
  for (let i = 0; i < reads.length; i++) if (linked.kept[i]) bySource[linked.sources[i]] = reads[i]
  return bySource
}

module.exports = { readLinks, readLinkedParts, readsBySource }
