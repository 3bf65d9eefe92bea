'use strict'
// The conversion options (`provider`, `outputDir`, `store`, `maxTextTokens`,
// `fitImages`, `maxLongSide`, and a whole result's own), each read once as an
// own property and checked by native code when they change; `readResource`
// and the bounds on reading links are checked here (they never reach native code).

const native = require('./native.js')
const { invalidArgument, own } = require('./own-objects.js')
const { hostDir } = require('./data.js')
const { storeHandle } = require('./store.js')
const { isQueue } = require('./attachment-queue.js')

const ObjectHasOwn = Object.hasOwn
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ObjectPrototype = Object.prototype
const NumberIsInteger = Number.isInteger
const NUMBER_MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER

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
  // Checked even when the part turns out to need no native conversion.
  const handle = native.settingsNew(provider, outputDir, store, maxTextTokens, fitImages, maxLongSide)
  lastSettings = { provider, outputDir, store, maxTextTokens, fitImages, maxLongSide, handle }
  return lastSettings
}

function readOptions(options) {
  return options === undefined || options === null ? settingsFor(undefined, undefined, undefined, undefined, undefined, undefined) : readGivenOptions(options)
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

/** The options of a whole result, each read once; the conversion ones checked as for toContent. */
function readConvertOptions(options) {
  const settings = readOptions(options)
  let toolCallId
  let attachments
  let deferMedia
  let priorImages
  let links
  if (options !== undefined && options !== null) {
    toolCallId = own(options, 'toolCallId')
    attachments = own(options, 'attachments')
    deferMedia = own(options, 'deferMedia')
    priorImages = own(options, 'priorImages')
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
  return { settings, toolCallId, queue, deferMedia, priorImages, links }
}

module.exports = { LINK_DEFAULTS, readOptions, readConvertOptions, settingsFor }
