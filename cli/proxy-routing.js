'use strict'
// Which message is what, for the proxy: the client's requests it awaits, kept by id and matched as
// clients match ids, and what to do with each message from the server: pass it through, drop it,
// answer with a task alone, or convert it. Nothing the client could take as the answer to a
// tools/call is passed through unconverted: ids match as widely as clients match them, and a
// second answer is dropped.
const { toolsForProxy } = require('./mcp-shape.js')
const { bounded } = require('./message-limit.js')

/** JSON-RPC error code for requests the server left unanswered by exiting (implementation-defined range). */
const SERVER_GONE = -32000
/** JSON-RPC error codes for an answer the proxy cannot forward, and a request it cannot. */
const INTERNAL_ERROR = -32603
const INVALID_REQUEST = -32600
/** The `_meta` key of a 2026-07-28 request that names its protocol version. */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion'
/** The `_meta` keys of a 2026-07-28 request that say in which era, and for which client, it is made. */
const PROTOCOL_META = [PROTOCOL_VERSION_META, 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities']

const isId = (id) => typeof id === 'string' || typeof id === 'number'
/** A Map key for a JSON-RPC id as sent: 1 and "1" are different ids. */
const idKey = (id) => (typeof id === 'string' ? `s${id}` : `n${id}`)
/**
 * The id as an SDK 1.x client matches it (`Number(id)`: "1", "0x1", "1e0", " 1 " are all 1);
 * a string that is no number stays itself.
 */
function matchKey(id) {
  const n = Number(id)
  return typeof id === 'string' && Number.isNaN(n) ? `s${id}` : n
}
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const has = (o, key) => Object.prototype.hasOwnProperty.call(o, key)
/**
 * A request of MCP 2026-07-28 or later: each carries its protocol version in `_meta` (there is no
 * `initialize`). Its result says what it is in `resultType`; before 2026 the field means nothing.
 */
const isModernRequest = (m) => isObject(m.params) && isObject(m.params._meta) && typeof m.params._meta[PROTOCOL_VERSION_META] === 'string'
/**
 * A result the client must not take for a final answer: on 2026-07-28 a `resultType` other than
 * 'complete' (absent means 'complete') is `input_required` (the server's questions and its
 * `requestState`) or a kind an extension defines, passed as the server sent it.
 */
const isUnfinished = (request, result) => request.modern && isObject(result) && result.resultType !== undefined && result.resultType !== 'complete'
/** A CreateTaskResult (MCP 2025-11-25): the tools/call runs as a task, its result comes by tasks/result. */
const isTaskAnswer = (result) => isObject(result) && isObject(result.task) && typeof result.task.taskId === 'string'
/** An id in a line of stderr. */
const shownId = (id) => bounded(JSON.stringify(id) ?? String(id)).slice(0, 100)

/**
 * The protocol fields of a request's `_meta` (not its progress token, trace or extensions' keys),
 * for the proxy's own requests on its behalf; undefined when it has none (before 2026-07-28).
 */
function protocolMeta(params) {
  if (!isObject(params) || !isObject(params._meta)) return undefined
  let meta
  for (const key of PROTOCOL_META) {
    if (has(params._meta, key)) (meta ??= {})[key] = params._meta[key]
  }
  return meta
}

/** The client's requests not yet answered, by id: { id, method, modern, meta (protocolMeta), cancelled, answered }. */
class Requests {
  constructor() {
    this.byKey = new Map()
  }

  /** Remembers the client's requests, and which it cancelled. */
  track(m) {
    if (!isObject(m) || typeof m.method !== 'string') return
    if (isId(m.id)) {
      this.byKey.set(idKey(m.id), { id: m.id, method: m.method, modern: isModernRequest(m), meta: protocolMeta(m.params), cancelled: false })
    } else if (m.method === 'notifications/cancelled' && isObject(m.params) && isId(m.params.requestId)) {
      const request = this.byKey.get(idKey(m.params.requestId))
      if (request) request.cancelled = true
    }
  }

  /**
   * The client's request a response answers: the one with its id as sent, else one whose id a
   * client matching with `Number(id)` (SDK 1.x) takes for it.
   */
  requestFor(id) {
    if (!isId(id)) return undefined
    const exact = this.byKey.get(idKey(id))
    if (exact) return exact
    const key = matchKey(id)
    for (const request of this.byKey.values()) if (matchKey(request.id) === key) return request
    return undefined
  }

  /** The request is no longer awaited. */
  forget(request) {
    this.byKey.delete(idKey(request.id))
  }

  values() {
    return this.byKey.values()
  }

  clear() {
    this.byKey.clear()
  }

  /**
   * What to do with one message from the server: `{ keep: 'raw' | 'drop' | 'task' | 'convert',
   * request }`; a conversion says `what` it converts: 'tool-result' (a tools/call or tasks/result
   * result), 'resource' (a resources/read answer) or 'tools' (a tools/list answer, `tools` its result
   * as the proxy sends it).
   */
  plan(m) {
    const isResponse = isObject(m) && m.method === undefined && (has(m, 'result') || has(m, 'error') || isId(m.id))
    if (!isResponse) {
      this.streamEnded(m)
      return { keep: 'raw' }
    }
    // An error without an id (a parse error, say) answers no request: passed on.
    if (!has(m, 'result') && (m.id === undefined || m.id === null)) return { keep: 'raw' }
    const request = this.requestFor(m.id)
    if (!request || request.answered) {
      process.stderr.write(`mcp-content proxy: dropped a response to id ${shownId(m.id)}, which no request awaits (answered already, or never asked)\n`)
      return { keep: 'drop' }
    }
    // A cancelled request's late answer: the client ignores it (MCP cancellation), so it is not converted or sent.
    if (request.cancelled) {
      this.forget(request)
      return { keep: 'drop' }
    }
    if (has(m, 'result') && isUnfinished(request, m.result)) {
      this.forget(request)
      return { keep: 'raw', request }
    }
    // tasks/result carries the result of a tools/call run as a task (the only task a server runs).
    const isToolResult = request.method === 'tools/call' || request.method === 'tasks/result'
    if (has(m, 'result') && request.method === 'tools/call' && isTaskAnswer(m.result)) {
      this.forget(request)
      return { keep: 'task', request }
    }
    // Output schemas that a replaced structuredContent string could fail are sent without those constraints.
    const tools = has(m, 'result') && request.method === 'tools/list' ? toolsForProxy(m.result) : undefined
    if (tools !== undefined && tools !== m.result) {
      request.answered = true
      return { keep: 'convert', what: 'tools', tools, request }
    }
    const converts = has(m, 'result') && (isToolResult || (request.method === 'resources/read' && isObject(m.result) && Array.isArray(m.result.contents)))
    if (!converts) {
      this.forget(request)
      return { keep: 'raw', request }
    }
    // Still listed while converting, so a cancellation (or a second answer) meanwhile is seen; removed once sent.
    request.answered = true
    return { keep: 'convert', what: isToolResult ? 'tool-result' : 'resource', request }
  }

  /**
   * On stdio a 2026-07-28 server ends a `subscriptions/listen` stream with `notifications/cancelled`
   * naming it, and sends no answer: the request is no longer awaited. (It names no other request of
   * the client's: before 2026 a server cancels only its own requests, whose ids are its own.)
   */
  streamEnded(m) {
    if (!isObject(m) || m.method !== 'notifications/cancelled' || !isObject(m.params)) return
    const request = this.requestFor(m.params.requestId)
    if (request && request.method === 'subscriptions/listen') this.forget(request)
  }
}

module.exports = { Requests, SERVER_GONE, INTERNAL_ERROR, INVALID_REQUEST, PROTOCOL_VERSION_META, isId, isObject, has, shownId }
