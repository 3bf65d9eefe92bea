'use strict'
// The conversion options (`provider`, `outputDir`, `store`, `maxTextTokens`,
// `fitImages`, `maxLongSide`, and a whole result's own), each read once as an
// own property and checked by native code when they change; `readResource`
// and the bounds on reading links are checked here (they never reach native code).

const native = require('./native.js')
const { invalidArgument, own } = require('./own-objects.js')
const { hostDir } = require('./data.js')
const { ToolOutputStore, storeHandle } = require('./store.js')
const { isQueue } = require('./attachment-queue.js')
const { historyFormat, FORMAT_NAMES } = require('./history.js')

const ObjectHasOwn = Object.hasOwn
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ObjectPrototype = Object.prototype
const NumberIsInteger = Number.isInteger
const NUMBER_MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER
const ArrayIsArray = Array.isArray
const StringPrototypeStartsWith = Function.prototype.call.bind(String.prototype.startsWith)

/**
 * The settings last made: the option values and the native handle they were
 * checked into (which owns the store an `outputDir` names). Most calls repeat
 * them, and get this object again.
 */
let lastSettings

/** The settings for these option values: the last ones when they are the same, else checked into a new handle. */
function settingsFor(provider, outputDir, store, maxTextTokens, fitImages, maxLongSide) {
  const last = lastSettings
  if (
    last !== undefined &&
    provider === last.provider &&
    outputDir === last.outputDir &&
    store === last.store &&
    maxTextTokens === last.maxTextTokens &&
    fitImages === last.fitImages &&
    maxLongSide === last.maxLongSide
  ) {
    return last
  }
  lastSettings = checkedSettings(provider, outputDir, store, maxTextTokens, fitImages, maxLongSide)
  return lastSettings
}

function checkedSettings(provider, outputDir, store, maxTextTokens, fitImages, maxLongSide) {
  // An `s3://` outputDir is a bucket store, reached as the AWS environment says (the settings
  // keep it, as they keep a folder's); any other URL is refused by native code.
  const bucket =
    store === undefined && typeof outputDir === 'string' && StringPrototypeStartsWith(outputDir, 's3://')
      ? storeHandle(new ToolOutputStore(outputDir))
      : undefined
  // Checked even when the part turns out to need no native conversion.
  const handle = native.settingsNew(provider, bucket === undefined ? outputDir : undefined, bucket ?? store, maxTextTokens, fitImages, maxLongSide)
  return { provider, outputDir, store, maxTextTokens, fitImages, maxLongSide, handle }
}

/**
 * The settings of a call without options, made as the package loads (naming
 * the default store's folder touches no disk). A constant, apart from
 * lastSettings: a text part without options then costs no comparison, and no
 * check of a variable set later (a lazy `let` made toContent(part) ~10% slower).
 */
const DEFAULT_SETTINGS = checkedSettings(undefined, undefined, undefined, undefined, undefined, undefined)

function readOptions(options) {
  return options === undefined || options === null ? DEFAULT_SETTINGS : readGivenOptions(options)
}

function readGivenOptions(options) {
  if (typeof options !== 'object') throw invalidArgument('`options` must be an object')
  // Named reads (each site keeps its own inline cache), `in` first: most
  // options are absent. The first `in` also gives the engine the object's
  // shape, so the prototype check after it folds to a constant; where the
  // prototype is an Object.prototype without the key, `in` finds only own
  // properties and no Object.hasOwn call is needed.
  const hasProvider = 'provider' in options
  const plain = ObjectGetPrototypeOf(options) === ObjectPrototype
  const provider = hasProvider && ((plain && !('provider' in ObjectPrototype)) || ObjectHasOwn(options, 'provider')) ? options.provider : undefined
  const outputDir = hostDir(
    'outputDir' in options && ((plain && !('outputDir' in ObjectPrototype)) || ObjectHasOwn(options, 'outputDir')) ? options.outputDir : undefined,
  )
  const store = storeHandle(
    'store' in options && ((plain && !('store' in ObjectPrototype)) || ObjectHasOwn(options, 'store')) ? options.store : undefined,
    true,
  )
  const maxTextTokens =
    'maxTextTokens' in options && ((plain && !('maxTextTokens' in ObjectPrototype)) || ObjectHasOwn(options, 'maxTextTokens'))
      ? options.maxTextTokens
      : undefined
  const fitImages =
    'fitImages' in options && ((plain && !('fitImages' in ObjectPrototype)) || ObjectHasOwn(options, 'fitImages')) ? options.fitImages : undefined
  const maxLongSide =
    'maxLongSide' in options && ((plain && !('maxLongSide' in ObjectPrototype)) || ObjectHasOwn(options, 'maxLongSide')) ? options.maxLongSide : undefined
  return settingsFor(provider, outputDir, store, maxTextTokens, fitImages, maxLongSide)
}

// ------------------------------------------------------------------ whole results

/**
 * The bounds on reading resource links (`readResource`), by default: 10 links a result (a
 * result's few documents passed by reference are read; a listing of many links is left to the
 * model to pick from), 16 MiB read a result (a PDF at the default profile's 10 MiB limit and its
 * images; more is saved to disk rather than sent anyway), 10 s a read (a local server answers in
 * milliseconds; a result's reads take at most ceil(maxLinks / 4) times this, 4 running at once).
 */
const LINK_DEFAULTS = { maxLinks: 10, maxLinkedBytes: 16 * 1024 * 1024, linkTimeoutMs: 10_000 }
/** The longest delay setTimeout keeps. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/** A positive integer option up to `most`, or `fallback` when absent. */
function positiveInteger(value, name, most, fallback) {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || !NumberIsInteger(value) || value < 1 || value > most) {
    throw invalidArgument(`\`${name}\` must be a positive integer up to ${most}`)
  }
  return value
}

/** `readResource` and its bounds, checked; undefined without a reader. */
function readLinkOptions(readResource, maxLinks, maxLinkedBytes, linkTimeoutMs) {
  const links = {
    read: readResource,
    maxLinks: positiveInteger(maxLinks, 'maxLinks', NUMBER_MAX_SAFE_INTEGER, LINK_DEFAULTS.maxLinks),
    maxLinkedBytes: positiveInteger(maxLinkedBytes, 'maxLinkedBytes', NUMBER_MAX_SAFE_INTEGER, LINK_DEFAULTS.maxLinkedBytes),
    timeoutMs: positiveInteger(linkTimeoutMs, 'linkTimeoutMs', MAX_TIMEOUT_MS, LINK_DEFAULTS.linkTimeoutMs),
  }
  if (readResource === undefined || readResource === null) return undefined
  if (typeof readResource !== 'function')
    throw invalidArgument('`readResource` must be a function: (uri) => a promise of { contents } (an MCP ReadResourceResult)')
  return links
}

/** A whole-number option from 0 to `most`, 0 when absent. */
function amount(value, name, most) {
  if (value === undefined || value === null) return 0
  if (typeof value !== 'number' || !NumberIsInteger(value) || value < 0 || value > most) {
    throw invalidArgument(`\`${name}\` must be a whole number from 0 to ${most}`)
  }
  return value
}

const MAX_COUNT = 2 ** 32 - 1

/**
 * What the request carries besides the result, as one of three options says: `requestCarries`
 * (counts and bytes), `history` (the messages to count them from, in a wire format) or
 * `priorImages` (images only). Undefined when none is given.
 */
function readCarried(requestCarries, history, priorImages) {
  const given = [requestCarries, history, priorImages].filter((value) => value !== undefined && value !== null)
  if (given.length === 0) return undefined
  if (given.length > 1) throw invalidArgument('give one of `requestCarries`, `history` and `priorImages`: each says what the request carries')
  if (priorImages !== undefined && priorImages !== null) {
    return { counts: [amount(priorImages, 'priorImages', MAX_COUNT), 0, 0, 0, 0], history: undefined }
  }
  if (requestCarries !== undefined && requestCarries !== null) {
    if (typeof requestCarries !== 'object') throw invalidArgument('`requestCarries` must be an object: { images, documents, pages, bytes, documentBytes }')
    const counts = [
      amount(own(requestCarries, 'images'), 'requestCarries.images', MAX_COUNT),
      amount(own(requestCarries, 'documents'), 'requestCarries.documents', MAX_COUNT),
      amount(own(requestCarries, 'pages'), 'requestCarries.pages', MAX_COUNT),
      amount(own(requestCarries, 'bytes'), 'requestCarries.bytes', NUMBER_MAX_SAFE_INTEGER),
      amount(own(requestCarries, 'documentBytes'), 'requestCarries.documentBytes', NUMBER_MAX_SAFE_INTEGER),
    ]
    return { counts, history: undefined }
  }
  if (typeof history !== 'object') throw invalidArgument('`history` must be an object: { format, messages }')
  const format = historyFormat(own(history, 'format'))
  if (format === undefined) throw invalidArgument(`\`history.format\` must be ${FORMAT_NAMES}`)
  const messages = own(history, 'messages')
  if (!ArrayIsArray(messages)) throw invalidArgument('`history.messages` must be an array of messages')
  return { counts: undefined, history: { format, messages } }
}

/** The options of a whole result, each read once; the conversion ones checked as for toContent. */
function readConvertOptions(options) {
  const settings = readOptions(options)
  let toolCallId
  let attachments
  let deferMedia
  let carried
  let links
  if (options !== undefined && options !== null) {
    toolCallId = own(options, 'toolCallId')
    attachments = own(options, 'attachments')
    deferMedia = own(options, 'deferMedia')
    carried = readCarried(own(options, 'requestCarries'), own(options, 'history'), own(options, 'priorImages'))
    links = readLinkOptions(own(options, 'readResource'), own(options, 'maxLinks'), own(options, 'maxLinkedBytes'), own(options, 'linkTimeoutMs'))
  }
  if (toolCallId === null) toolCallId = undefined
  if (toolCallId !== undefined && typeof toolCallId !== 'string') throw invalidArgument('`toolCallId` must be a string')
  let queue
  if (attachments !== undefined && attachments !== null) {
    if (!isQueue(attachments)) {
      throw invalidArgument('`attachments` must be an AttachmentQueue of this copy of mcp-content')
    }
    if (toolCallId === undefined) throw invalidArgument('`toolCallId` is required with `attachments`: media are queued once per tool call')
    queue = attachments
  }
  return { settings, toolCallId, queue, deferMedia, carried, links }
}

module.exports = { LINK_DEFAULTS, readOptions, readConvertOptions, settingsFor }
