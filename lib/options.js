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

const NO_OPTIONS = { provider: undefined, outputDir: undefined, store: undefined, maxTextTokens: undefined, fitImages: undefined, maxLongSide: undefined }

/** The settings native code last accepted, without a store: most calls repeat them, and get this object again. */
let lastSettings = NO_OPTIONS

function readOptions(options) {
  return options === undefined || options === null ? NO_OPTIONS : readGivenOptions(options)
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
  const last = lastSettings
  if (
    provider !== last.provider ||
    outputDir !== last.outputDir ||
    maxTextTokens !== last.maxTextTokens ||
    fitImages !== last.fitImages ||
    maxLongSide !== last.maxLongSide
  ) {
    // Checked even when the part turns out to need no native conversion.
    native.checkOptions(provider, outputDir, maxTextTokens, fitImages, maxLongSide)
    lastSettings = { provider, outputDir, store: undefined, maxTextTokens, fitImages, maxLongSide }
  }
  // Kept settings hold no store: a store the caller dropped can be collected.
  if (store !== undefined) return { provider, outputDir, store, maxTextTokens, fitImages, maxLongSide }
  return lastSettings
}

// ------------------------------------------------------------------ text

/** The options of a whole result, each read once; the conversion ones checked as for toContent. */
function readConvertOptions(options) {
  const { provider, outputDir, store, maxTextTokens, fitImages, maxLongSide } = readOptions(options)
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
  return { provider, outputDir, store, maxTextTokens, fitImages, maxLongSide, toolCallId, queue, deferMedia, priorImages }
}

module.exports = { NO_OPTIONS, readOptions, readConvertOptions }
