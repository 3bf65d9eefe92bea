'use strict'
// `mcp-content proxy --resolve-links`: the resource links of a tools/call result are read through
// the server the proxy fronts, for convertToolResult's readResource. Each read is a resources/read
// request of the proxy's own, under an id no client can have sent (a prefix with a random part),
// carrying the protocol fields of the triggering request's `_meta` (MCP 2026-07-28 names its era
// and the client there on every request). Its answer is taken here and never reaches the client.
// Reads still pending when their conversion is done (timed out) are cancelled at the server, and
// an answer that still comes is dropped quietly.
const crypto = require('node:crypto')
const { usageError } = require('./terminal.js')
const { LINK_DEFAULTS } = require('../lib/options.js')
const { isObject, has } = require('./proxy-routing.js')

/** The longest delay setTimeout keeps (the library's limit on linkTimeoutMs). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/** A JSON-RPC error as the SDK clients word it: `MCP error <code>: <message>`. */
function errorWords(error) {
  const message = typeof error.message === 'string' ? error.message : 'no message'
  return typeof error.code === 'number' ? `MCP error ${error.code}: ${message}` : message
}

/** The proxy's reads of resource links, pending by id. */
class LinkReads {
  /** `toServer(message)` writes a message to the server. */
  constructor(toServer) {
    this.toServer = toServer
    this.prefix = `mcp-content-proxy/read/${crypto.randomUUID()}/`
    this.next = 1
    /** id -> { resolve, reject } */
    this.pending = new Map()
    /** Why no read can be answered any more (the server is gone), once it is so. */
    this.gone = undefined
  }

  /** Whether a response with this id answers one of the proxy's reads (pending or given up). */
  owns(id) {
    return typeof id === 'string' && id.startsWith(this.prefix)
  }

  /**
   * A reader for the links of one answer to `request` (the client's, as proxy-routing.js keeps it,
   * with the protocol fields of its `_meta`):
   * `read(uri)` as readResource takes it, and `done()`, which cancels the reads still pending.
   */
  readerFor(request) {
    const mine = []
    const meta = request.meta
    const read = (uri) =>
      new Promise((resolve, reject) => {
        if (this.gone !== undefined) return reject(new Error(this.gone))
        const id = `${this.prefix}${this.next++}`
        this.pending.set(id, { resolve, reject })
        mine.push(id)
        this.toServer({ jsonrpc: '2.0', id, method: 'resources/read', params: meta === undefined ? { uri } : { uri, _meta: meta } })
      })
    const done = () => {
      for (const id of mine) {
        if (!this.pending.delete(id)) continue
        const params = { requestId: id, reason: 'mcp-content proxy: the read took too long; the link was noted instead' }
        if (meta !== undefined) params._meta = meta
        this.toServer({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
      }
    }
    return { read, done }
  }

  /** The server's answer to one of the proxy's reads (see owns). A 2026-07-28 answer of another kind than 'complete' is no resource's contents. */
  answer(m) {
    const waiting = this.pending.get(m.id)
    if (waiting === undefined) return
    this.pending.delete(m.id)
    if (has(m, 'result')) {
      const kind = isObject(m.result) ? m.result.resultType : undefined
      if (kind !== undefined && kind !== 'complete') {
        waiting.reject(new Error(`the server answered with resultType ${JSON.stringify(kind)}, not the resource's contents`))
      } else {
        waiting.resolve(m.result)
      }
    } else if (isObject(m.error)) {
      waiting.reject(new Error(errorWords(m.error)))
    } else {
      waiting.reject(new Error('the answer has neither `result` nor `error`'))
    }
  }

  /** One read fails with `why` (its answer was over the line limit), or every pending one and every later one (the server is gone). */
  fail(id, why) {
    const waiting = this.pending.get(id)
    if (waiting === undefined) return
    this.pending.delete(id)
    waiting.reject(new Error(why))
  }

  failAll(why) {
    this.gone = why
    for (const id of this.pending.keys()) this.fail(id, why)
  }
}

/** A positive integer flag up to `most`, or the library's default. */
function positiveFlag(flag, value, most, fallback) {
  if (value === undefined) return fallback
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > most) {
    throw usageError(`${flag} must be a positive integer up to ${most}, not "${value}" (see mcp-content proxy --help)`)
  }
  return Number(value)
}

/** `--resolve-links` and its bounds: convertToolResult's options, or undefined without it. */
function linkFlags(values) {
  const bounds = { '--max-links': values['max-links'], '--max-linked-bytes': values['max-linked-bytes'], '--link-timeout-ms': values['link-timeout-ms'] }
  const given = Object.keys(bounds).find((flag) => bounds[flag] !== undefined)
  if (!values['resolve-links']) {
    if (given !== undefined) throw usageError(`${given} needs --resolve-links (see mcp-content proxy --help)`)
    return undefined
  }
  return {
    maxLinks: positiveFlag('--max-links', bounds['--max-links'], Number.MAX_SAFE_INTEGER, LINK_DEFAULTS.maxLinks),
    maxLinkedBytes: positiveFlag('--max-linked-bytes', bounds['--max-linked-bytes'], Number.MAX_SAFE_INTEGER, LINK_DEFAULTS.maxLinkedBytes),
    linkTimeoutMs: positiveFlag('--link-timeout-ms', bounds['--link-timeout-ms'], MAX_TIMEOUT_MS, LINK_DEFAULTS.linkTimeoutMs),
  }
}

/** The flags, for options.parse. */
const LINK_OPTIONS = {
  'resolve-links': { type: 'boolean' },
  'max-links': { type: 'string' },
  'max-linked-bytes': { type: 'string' },
  'link-timeout-ms': { type: 'string' },
}

module.exports = { LinkReads, linkFlags, LINK_OPTIONS, LINK_DEFAULTS }
