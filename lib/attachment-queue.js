'use strict'
// AttachmentQueue: media deferred from tool results, waiting for the next
// user message (providers that take no media in a tool result).

const { invalidArgument, own, append } = require('./own-objects.js')

const ReflectApply = Reflect.apply
const ArrayIsArray = Array.isArray
const MapConstructor = Map
const MapPrototypeHas = Map.prototype.has
const MapPrototypeSet = Map.prototype.set

/** Set by AttachmentQueue's static block: the package's own access to a queue. */
let isQueue
let queueAdd

/**
 * Media deferred from tool results, waiting for the next user message.
 * Each tool call's media are queued once, however often its result is
 * converted.
 */
class AttachmentQueue {
  #parts = []
  #ids = new MapConstructor()

  /** Queue `parts` for `toolCallId`; false (and nothing queued) when that id was queued before. */
  add(toolCallId, parts) {
    if (!isQueue(this)) throw invalidArgument('`add` must be called on an AttachmentQueue')
    if (typeof toolCallId !== 'string') throw invalidArgument('`toolCallId` must be a string')
    if (!ArrayIsArray(parts)) throw invalidArgument('`parts` must be an array')
    return queueAdd(this, toolCallId, parts)
  }

  /** Everything queued, in order, once: the queue is empty afterwards. */
  drain() {
    if (!isQueue(this)) throw invalidArgument('`drain` must be called on an AttachmentQueue')
    const parts = this.#parts
    this.#parts = []
    return parts
  }

  /** How many parts are waiting. */
  get size() {
    if (!isQueue(this)) throw invalidArgument('`size` must be read on an AttachmentQueue')
    return this.#parts.length
  }

  static {
    isQueue = (value) => value !== null && typeof value === 'object' && #ids in value
    queueAdd = (queue, toolCallId, parts) => {
      const ids = queue.#ids
      if (ReflectApply(MapPrototypeHas, ids, [toolCallId])) return false
      ReflectApply(MapPrototypeSet, ids, [toolCallId, true])
      const length = parts.length
      for (let i = 0; i < length; i++) append(queue.#parts, own(parts, i))
      return true
    }
  }
}

module.exports = { AttachmentQueue, isQueue, queueAdd }
