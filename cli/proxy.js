'use strict'
// mcp-content proxy [options] -- <command> [args...]: runs a stdio MCP server and serves it over
// stdio, every tools/call result (and resources/read blob) converted for the provider, every
// other message passed through byte for byte. Responses are matched to requests by id, so a
// converted response may overtake nothing and be overtaken by anything: JSON-RPC does not order.
// Nothing the client could take as the answer to a tools/call reaches it unconverted: ids match as
// widely as clients match them, a second answer is dropped, a result the package refuses is
// replaced by one that says why, a line over the line limit is never forwarded nor kept, and every
// message written to the client fits the message limit (message-limit.js).
const { spawn } = require('node:child_process')
const os = require('node:os')
const mcp = require('../lib/index.js')
const options = require('./options.js')
const { LineReader, peekMessage } = require('./lines.js')
const { toMcpResult, toResourceContents, toolsForProxy } = require('./mcp-shape.js')
const { MAX_MESSAGE_BYTES, lineBytes, bounded, fitToolResult } = require('./message-limit.js')
const { EXIT, CliError, oneLine, usageError } = require('./terminal.js')

const HELP = `Usage: mcp-content proxy [options] -- <command> [args...]

Runs the stdio MCP server <command> and serves it on this process's stdin and stdout. Every
tools/call result is converted for the provider (attachments the provider accepts, oversize
text bounded, other binaries saved to disk with a note) and every resources/read blob too;
everything else (other requests and responses, notifications, progress, cancellation, requests
from the server to the client) passes through unchanged. MCP 2025-11-25 and 2026-07-28: a result
that asks the client for input first (resultType "input_required") passes unchanged, a converted
one keeps its resultType. Put it in an MCP client's config in place of the server's command.

Options:
  --provider <p>          ${options.PROVIDERS.join(', ')}
                          (default: default)
  --output-dir <dir>      where files are saved (default: the per-user temp store); the
                          store's retention (7 days) is applied at start and every hour
  --max-text-tokens <n>   the text cap (default 12500; Infinity: off)
  --max-line-bytes <n>    the longest line read from the server or the client (default
                          67108864, 64 MiB; at most 268435456): a longer line is dropped
                          unread, and the request it answers gets a JSON-RPC error
  -h, --help              this help

Every message written to the client is at most 9 MiB (SDK 1.x clients drop the connection
over 10 MiB): a larger tool result has its largest attachments saved, then the whole result;
another message over it becomes a JSON-RPC error for its id.

The server's stderr is the proxy's. Exit code: the server's (128 + the signal number when a
signal ended it); 1 when the server could not be started, 2 bad command line.`

const CLEANUP_EVERY_MS = 60 * 60 * 1000
/** Grace the server gets after its stdin closes, then after SIGTERM (as MCP's stdio shutdown). */
const GRACE_MS = 2000
/** JSON-RPC error code for requests the server left unanswered by exiting (implementation-defined range). */
const SERVER_GONE = -32000
/** JSON-RPC error codes for an answer the proxy cannot forward, and a request it cannot. */
const INTERNAL_ERROR = -32603
const INVALID_REQUEST = -32600
/** The `_meta` key of a 2026-07-28 request that names its protocol version. */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion'
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
/** Lines are decoded as one string, and V8 strings end near 512 MiB. */
const MOST_MAX_LINE_BYTES = 256 * 1024 * 1024

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
/**
 * A part for the user alone, as the proxy sends it: itself, unless its data is not valid base64,
 * which makes an SDK client refuse the whole result; then the note the model would get, with the
 * part's annotations.
 */
function readableUserPart(part) {
  const media = part.type === 'image' || part.type === 'audio' ? part : part.type === 'resource' && isObject(part.resource) ? part.resource : undefined
  const data = media === undefined ? undefined : (media.data ?? media.blob)
  if (typeof data !== 'string' || mcp.classify(data).kind !== 'invalid') return part
  const { annotations, ...forModel } = part
  return { ...mcp.toContent(forModel), annotations }
}

const shownId = (id) => bounded(JSON.stringify(id) ?? String(id)).slice(0, 100)

class Proxy {
  constructor(command, args, settings) {
    this.command = command
    this.args = args
    this.settings = settings
    /** Requests from the client not yet answered: id key -> { id, method, modern, cancelled }. */
    this.requests = new Map()
    /** Conversions under way; the proxy ends only after they are written. */
    this.converting = new Set()
    this.stdoutBroken = false
  }

  run() {
    return new Promise((resolve) => {
      this.finish = resolve
      let child
      try {
        child = spawn(this.command, this.args, { stdio: ['pipe', 'pipe', 'inherit'] })
      } catch (error) {
        resolve(this.failedToStart(error))
        return
      }
      this.child = child
      child.on('error', (error) => {
        if (child.pid === undefined) resolve(this.failedToStart(error))
      })
      child.stdin.on('error', () => {}) // EPIPE once the server is gone: its exit says the rest
      const { maxLineBytes } = this.settings
      const fromServer = new LineReader((line) => this.fromServer(line), { maxBytes: maxLineBytes, onOverlong: (o) => this.serverLineOverLimit(o) })
      child.stdout.on('data', (chunk) => fromServer.push(chunk))
      child.stdout.on('end', () => fromServer.end())
      const fromClient = new LineReader((line) => this.fromClient(line), { maxBytes: maxLineBytes, onOverlong: (o) => this.clientLineOverLimit(o) })
      this.onStdinData = (chunk) => fromClient.push(chunk)
      this.onStdinEnd = () => {
        fromClient.end()
        this.closeServer()
      }
      process.stdin.on('data', this.onStdinData)
      process.stdin.on('end', this.onStdinEnd)
      process.stdout.on('error', () => {
        // The client is gone: nobody to serve.
        this.stdoutBroken = true
        this.closeServer()
      })
      this.signals = {}
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
        this.signals[signal] = () => child.kill(signal)
        process.on(signal, this.signals[signal])
      }
      // 'close' comes after the server's stdout ended, so every line it wrote has been read.
      child.on('close', (code, signal) => this.serverClosed(code, signal))
    })
  }

  /** A rejection with the one line to show; the proxy ends without a server. */
  failedToStart(error) {
    const why = error.code === 'ENOENT' ? 'no such command' : error.code === 'EACCES' ? 'permission denied' : error.message
    this.ended = true
    this.detach()
    return Promise.reject(new CliError(`cannot start ${this.command}: ${why}`))
  }

  /** The client closed its side: close the server's stdin, then SIGTERM, then SIGKILL. */
  closeServer() {
    const child = this.child
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    child.stdin.end()
    const term = setTimeout(() => {
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), GRACE_MS).unref()
    }, GRACE_MS)
    term.unref()
  }

  fromClient(line) {
    let message
    try {
      message = JSON.parse(line.toString('utf8'))
    } catch {
      message = undefined // not JSON: the server answers it as it will
    }
    for (const m of Array.isArray(message) ? message : [message]) this.track(m)
    this.child.stdin.write(line)
    this.child.stdin.write('\n')
  }

  /** Remembers the client's requests, and which it cancelled. */
  track(m) {
    if (!isObject(m) || typeof m.method !== 'string') return
    if (isId(m.id)) {
      this.requests.set(idKey(m.id), { id: m.id, method: m.method, modern: isModernRequest(m), cancelled: false })
    } else if (m.method === 'notifications/cancelled' && isObject(m.params) && isId(m.params.requestId)) {
      const request = this.requests.get(idKey(m.params.requestId))
      if (request) request.cancelled = true
    }
  }

  /**
   * The client's request a response answers: the one with its id as sent, else one whose id a
   * client matching with `Number(id)` (SDK 1.x) takes for it.
   */
  requestFor(id) {
    if (!isId(id)) return undefined
    const exact = this.requests.get(idKey(id))
    if (exact) return exact
    const key = matchKey(id)
    for (const request of this.requests.values()) if (matchKey(request.id) === key) return request
    return undefined
  }

  fromServer(line) {
    let message
    try {
      message = JSON.parse(line.toString('utf8'))
    } catch {
      // Not JSON for this parser; a laxer client (NaN, comments) might still read an answer in it.
      process.stderr.write(`mcp-content proxy: dropped a line of ${line.length} bytes from the MCP server that is not JSON\n`)
      return undefined
    }
    // A batch is taken apart: each message is answered as if it came alone.
    if (Array.isArray(message)) {
      for (const m of message) this.fromServerMessage(m, undefined)
      return undefined
    }
    return this.fromServerMessage(message, line)
  }

  /** One message from the server; `line` its bytes when it came alone, to pass through unchanged. */
  fromServerMessage(m, line) {
    const plan = this.plan(m)
    if (plan.keep === 'drop') return undefined
    if (plan.keep === 'raw') return this.sendRaw(m, line, plan.request)
    if (plan.keep === 'task') return this.sendTask(m, plan.request)
    const request = plan.request
    const work = plan
      .convert()
      .then((out) => {
        // A request cancelled while its answer was converted: dropped as well.
        if (!request.cancelled) this.sendConverted(out, request)
      })
      .catch((error) => {
        // Not reached by a conversion (it answers with why); a bug here must not forward the raw answer.
        process.stderr.write(`mcp-content proxy: the answer to request ${shownId(request.id)} is not passed on: ${oneLine(error.message)}\n`)
        this.sendError(request, INTERNAL_ERROR, `mcp-content proxy: the MCP server's answer could not be converted: ${bounded(error.message)}`)
      })
      .finally(() => {
        this.converting.delete(work)
        this.requests.delete(idKey(request.id))
      })
    this.converting.add(work)
    return undefined
  }

  /** What to do with one message from the server: pass it, drop it, or convert it. */
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
      this.requests.delete(idKey(request.id))
      return { keep: 'drop' }
    }
    if (has(m, 'result') && isUnfinished(request, m.result)) {
      this.requests.delete(idKey(request.id))
      return { keep: 'raw', request }
    }
    // tasks/result carries the result of a tools/call run as a task (the only task a server runs).
    const isToolResult = request.method === 'tools/call' || request.method === 'tasks/result'
    if (has(m, 'result') && request.method === 'tools/call' && isTaskAnswer(m.result)) {
      this.requests.delete(idKey(request.id))
      return { keep: 'task', request }
    }
    // Output schemas that a replaced structuredContent string could fail are sent without those constraints.
    const tools = has(m, 'result') && request.method === 'tools/list' ? toolsForProxy(m.result) : undefined
    if (tools !== undefined && tools !== m.result) {
      request.answered = true
      return { keep: 'convert', convert: async () => ({ jsonrpc: '2.0', id: request.id, result: tools }), request }
    }
    const converts = has(m, 'result') && (isToolResult || (request.method === 'resources/read' && isObject(m.result) && Array.isArray(m.result.contents)))
    if (!converts) {
      this.requests.delete(idKey(request.id))
      return { keep: 'raw', request }
    }
    // Still listed while converting, so a cancellation (or a second answer) meanwhile is seen; removed once sent.
    request.answered = true
    const convert = isToolResult ? () => this.convertToolResult(m, request) : () => this.convertResource(m, request)
    return { keep: 'convert', convert, request }
  }

  /**
   * On stdio a 2026-07-28 server ends a `subscriptions/listen` stream with `notifications/cancelled`
   * naming it, and sends no answer: the request is no longer awaited. (It names no other request of
   * the client's: before 2026 a server cancels only its own requests, whose ids are its own.)
   */
  streamEnded(m) {
    if (!isObject(m) || m.method !== 'notifications/cancelled' || !isObject(m.params)) return
    const request = this.requestFor(m.params.requestId)
    if (request && request.method === 'subscriptions/listen') this.requests.delete(idKey(request.id))
  }

  /** The answer that a tools/call runs as a task: the task (and `_meta`) alone, nothing beside it. */
  sendTask(m, request) {
    const result = { task: m.result.task }
    if (m.result._meta !== undefined) result._meta = m.result._meta
    this.sendConverted({ jsonrpc: '2.0', id: request.id, result }, request)
  }

  /** The converted answer to a tools/call; a result the package refuses is replaced by one that says why. */
  async convertToolResult(m, request) {
    const { provider, store, maxTextTokens } = this.settings
    const envelope = { jsonrpc: '2.0', id: request.id }
    let result
    try {
      // An array is an object to the package (a result with no content); the client refuses it.
      if (!isObject(m.result)) throw new Error('`result` must be an object (an MCP CallToolResult)')
      const converted = await mcp.convertToolResult(m.result, { provider, store, maxTextTokens, deferMedia: false })
      result = toMcpResult(converted, m.result, readableUserPart)
    } catch (error) {
      process.stderr.write(
        `mcp-content proxy: the result of request ${shownId(request.id)} could not be converted, so it is not passed on: ${oneLine(bounded(error.message))}\n`,
      )
      const text = `[mcp-content proxy: the tool result could not be converted, so it is not passed on: ${bounded(error.message)}]`
      const result = { content: [{ type: 'text', text }], isError: true }
      // A 2026-07-28 client takes no result without its kind.
      if (request.modern) result.resultType = 'complete'
      return { ...envelope, result }
    }
    return { ...envelope, result: await fitToolResult(result, envelope, store) }
  }

  /** The converted answer to a resources/read: each blob item converted, or replaced by a text item that says why. */
  async convertResource(m, request) {
    const { provider, store, maxTextTokens } = this.settings
    const refused = (item, why) => ({
      uri: typeof item.uri === 'string' ? item.uri : '',
      mimeType: 'text/plain',
      text: `[mcp-content proxy: the resource could not be converted, so it is not passed on: ${bounded(why)}]`,
    })
    const contents = await Promise.all(
      m.result.contents.map(async (item) => {
        if (!isObject(item) || !has(item, 'blob')) return item
        if (typeof item.blob !== 'string') return refused(item, '`blob` is not a string')
        if (typeof item.uri !== 'string') return refused(item, '`uri` is not a string')
        try {
          const resource = { uri: item.uri, blob: item.blob }
          if (typeof item.mimeType === 'string') resource.mimeType = item.mimeType
          const part = await mcp.toContentAsync({ type: 'resource', resource }, { provider, store, maxTextTokens })
          return toResourceContents(part, item)
        } catch (error) {
          process.stderr.write(`mcp-content proxy: the resource ${shownId(item.uri)} could not be converted: ${oneLine(bounded(error.message))}\n`)
          return refused(item, error.message)
        }
      }),
    )
    return { ...m, jsonrpc: '2.0', id: request.id, result: { ...m.result, contents } }
  }

  /** A converted answer, or an error for its request when it is still over the message limit. */
  sendConverted(message, request) {
    const text = JSON.stringify(message)
    const bytes = Buffer.byteLength(text) + 1
    if (bytes > MAX_MESSAGE_BYTES) return this.overLimit(message, bytes, request)
    return this.send(text)
  }

  /** A message passed through: its own bytes when it came alone and fits, else as the limit says. */
  sendRaw(m, line, request) {
    const bytes = line !== undefined ? line.length + 1 : lineBytes(m)
    if (bytes > MAX_MESSAGE_BYTES) return this.overLimit(m, bytes, request)
    return this.send(line ?? JSON.stringify(m))
  }

  /** A message over the limit: the request it answers gets an error, the server's request an error too, others a line on stderr. */
  overLimit(m, bytes, request) {
    const why = `(${bytes} bytes) is over the proxy's message limit of ${MAX_MESSAGE_BYTES} bytes`
    if (request) return this.sendError(request, INTERNAL_ERROR, `mcp-content proxy: the MCP server's answer ${why}`)
    if (isObject(m) && typeof m.method === 'string' && isId(m.id))
      this.toServer({ jsonrpc: '2.0', id: m.id, error: { code: INTERNAL_ERROR, message: `mcp-content proxy: the request ${why}` } })
    process.stderr.write(`mcp-content proxy: dropped a message from the MCP server ${why}\n`)
    return undefined
  }

  /** A line from the server over the line limit: dropped unread; the request it answers (when its id can be read) gets an error. */
  serverLineOverLimit({ bytes, head, tail }) {
    const { keys, id } = peekMessage(head, tail)
    const why = `over the proxy's line limit (${this.settings.maxLineBytes} bytes); it was discarded`
    const isResponse = (keys.has('result') || keys.has('error')) && !keys.has('method')
    const request = isResponse ? this.requestFor(id) : undefined
    if (request && !request.answered) {
      this.requests.delete(idKey(request.id))
      // A cancelled request's answer is dropped anyway (MCP cancellation).
      if (request.cancelled) return undefined
      return this.sendError(request, INTERNAL_ERROR, `mcp-content proxy: the MCP server's answer is ${why}`)
    }
    if (keys.has('method') && id !== undefined)
      this.toServer({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `mcp-content proxy: the request is ${why}` } })
    process.stderr.write(
      `mcp-content proxy: discarded a line of ${bytes} bytes from the MCP server, over the line limit (${this.settings.maxLineBytes} bytes)\n`,
    )
    return undefined
  }

  /** A line from the client over the line limit: not sent to the server; a request gets its error from the proxy. */
  clientLineOverLimit({ bytes, head, tail }) {
    const { keys, id } = peekMessage(head, tail)
    const why = `over the proxy's line limit (${this.settings.maxLineBytes} bytes); it was not sent to the MCP server`
    if (keys.has('method') && id !== undefined) {
      return this.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `mcp-content proxy: the request is ${why}` } }))
    }
    // The client's answer to the server's request: the server gets an error in its place.
    if ((keys.has('result') || keys.has('error')) && id !== undefined) {
      this.toServer({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `mcp-content proxy: the client's answer is ${why}` } })
    }
    process.stderr.write(`mcp-content proxy: discarded a line of ${bytes} bytes from the client, over the line limit (${this.settings.maxLineBytes} bytes)\n`)
    return undefined
  }

  sendError(request, code, message) {
    this.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code, message } }))
  }

  toServer(message) {
    if (this.child.stdin.writable) this.child.stdin.write(`${JSON.stringify(message)}\n`)
  }

  send(line) {
    if (this.stdoutBroken) return
    process.stdout.write(line)
    process.stdout.write('\n')
  }

  async serverClosed(code, signal) {
    if (this.ended) return
    this.ended = true
    await Promise.all(this.converting)
    // Requests the server will never answer get an error rather than silence.
    const how = signal ? `was ended by ${signal}` : `exited with code ${code}`
    for (const request of this.requests.values()) {
      if (request.cancelled || request.answered) continue
      this.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          error: { code: SERVER_GONE, message: `mcp-content proxy: the MCP server ${how} before it answered` },
        }),
      )
    }
    this.requests.clear()
    if (signal || code !== 0) process.stderr.write(`mcp-content proxy: the MCP server ${how}\n`)
    this.detach()
    const exitCode = signal ? 128 + (os.constants.signals[signal] ?? 0) : (code ?? EXIT.FAILED)
    if (process.stdout.writableNeedDrain) process.stdout.once('drain', () => this.finish(exitCode))
    else this.finish(exitCode)
  }

  /** Lets the process end: no more reading, no signal handlers. */
  detach() {
    if (this.onStdinData) {
      process.stdin.off('data', this.onStdinData)
      process.stdin.off('end', this.onStdinEnd)
      process.stdin.pause()
      process.stdin.destroy()
    }
    for (const [signal, handler] of Object.entries(this.signals ?? {})) process.off(signal, handler)
    if (this.settings.cleanupTimer) clearInterval(this.settings.cleanupTimer)
  }
}

/** `--max-line-bytes`: a positive integer up to MOST_MAX_LINE_BYTES. */
function maxLineBytes(value) {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > MOST_MAX_LINE_BYTES) {
    throw usageError(`--max-line-bytes must be a positive integer up to ${MOST_MAX_LINE_BYTES}, not "${value}" (see mcp-content proxy --help)`)
  }
  return Number(value)
}

async function run(args) {
  const dash = args.indexOf('--')
  const own = dash === -1 ? args : args.slice(0, dash)
  const server = dash === -1 ? [] : args.slice(dash + 1)
  const { values, positionals } = options.parse('proxy', own, {
    provider: { type: 'string' },
    'output-dir': { type: 'string' },
    'max-text-tokens': { type: 'string' },
    'max-line-bytes': { type: 'string' },
  })
  if (values.help) {
    process.stdout.write(`${HELP}\n`)
    return EXIT.OK
  }
  if (positionals.length > 0) throw usageError(`unexpected "${positionals[0]}": the server's command goes after -- (see mcp-content proxy --help)`)
  if (server.length === 0) throw usageError('no server to run: mcp-content proxy [options] -- <command> [args...] (see mcp-content proxy --help)')
  const settings = {
    provider: options.provider('proxy', values.provider),
    maxTextTokens: options.maxTextTokens('proxy', values['max-text-tokens']),
    store: options.store(values['output-dir']),
    maxLineBytes: maxLineBytes(values['max-line-bytes']),
  }
  settings.store.cleanup()
  settings.cleanupTimer = setInterval(() => {
    try {
      settings.store.cleanup()
    } catch {
      // the next hour tries again
    }
  }, CLEANUP_EVERY_MS)
  settings.cleanupTimer.unref()
  return new Proxy(server[0], server.slice(1), settings).run()
}

module.exports = { run, HELP, Proxy }
