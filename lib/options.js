'use strict'
// The conversion options (`provider`, `outputDir`, `store`, `maxTextTokens`,
// `fitImages`, `maxLongSide`, and a whole result's own), each read once as an
// own property and checked by native code when they change.

const native = require('./native.js')
const { invalidArgument, own } = require('./own-objects.js')
const { hostDir } = require('./data.js')
const { storeHandle } = require('./store.js')
const { isQueue } = require('./attachment-queue.js')

const ObjectHasOwn = Object.hasOwn
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ObjectPrototype = Object.prototype

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

// ------------------------------------------------------------------ text

/** The options of a whole result, each read once; the conversion ones checked as for toContent. */
function readConvertOptions(options) {
  const settings = readOptions(options)
  let toolCallId
  let attachments
  let deferMedia
  let priorImages
  if (options !== undefined && options !== null) {
    toolCallId = own(options, 'toolCallId')
    attachments = own(options, 'attachments')
    deferMedia = own(options, 'deferMedia')
    priorImages = own(options, 'priorImages')
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
  return { settings, toolCallId, queue, deferMedia, priorImages }
}

module.exports = { readOptions, readConvertOptions, settingsFor }
