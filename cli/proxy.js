'use strict'
// mcp-content proxy [options] -- <command> [args...]: runs a stdio MCP server and serves it over
// stdio, every tools/call result (and resources/read blob) converted for the provider, every
// other message passed through byte for byte. Responses are matched to requests by id, so a
// converted response may overtake nothing and be overtaken by anything: JSON-RPC does not order.
const { spawn } = require('node:child_process')
const os = require('node:os')
const mcp = require('../mcp-content.js')
const options = require('./options.js')
const { LineReader } = require('./lines.js')
const { toMcpResult, toResourceContents } = require('./mcp-shape.js')
const { EXIT, CliError, oneLine, usageError } = require('./terminal.js')

const HELP = `Usage: mcp-content proxy [options] -- <command> [args...]

Runs the stdio MCP server <command> and serves it on this process's stdin and stdout. Every
tools/call result is converted for the provider (attachments the provider accepts, oversize
text bounded, other binaries saved to disk with a note) and every resources/read blob too;
everything else (other requests and responses, notifications, progress, cancellation, requests
from the server to the client) passes through unchanged. Put it in an MCP client's config in
place of the server's command.

Options:
  --provider <p>          ${options.PROVIDERS.join(', ')}
                          (default: default)
  --output-dir <dir>      where files are saved (default: the per-user temp store); the
                          store's retention (7 days) is applied at start and every hour
  --max-text-tokens <n>   the text cap (default 12500; Infinity: off)
  -h, --help              this help

The server's stderr is the proxy's. Exit code: the server's (128 + the signal number when a
signal ended it); 1 when the server could not be started, 2 bad command line.`

const CLEANUP_EVERY_MS = 60 * 60 * 1000
/** Grace the server gets after its stdin closes, then after SIGTERM (as MCP's stdio shutdown). */
const GRACE_MS = 2000
/** JSON-RPC error code for requests the server left unanswered by exiting (implementation-defined range). */
const SERVER_GONE = -32000

/** A Map key for a JSON-RPC id: 1 and "1" are different ids. */
const idKey = (id) => (typeof id === 'string' ? `s${id}` : `n${id}`)
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

class Proxy {
  constructor(command, args, settings) {
    this.command = command
    this.args = args
    this.settings = settings
    /** Requests from the client not yet answered: id key -> { id, method, cancelled }. */
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
      const fromServer = new LineReader((line) => this.fromServer(line))
      child.stdout.on('data', (chunk) => fromServer.push(chunk))
      child.stdout.on('end', () => fromServer.end())
      const fromClient = new LineReader((line) => this.fromClient(line))
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
    if (m.id !== undefined && m.id !== null) {
      this.requests.set(idKey(m.id), { id: m.id, method: m.method, cancelled: false })
    } else if (m.method === 'notifications/cancelled' && isObject(m.params) && m.params.requestId !== undefined) {
      const request = this.requests.get(idKey(m.params.requestId))
      if (request) request.cancelled = true
    }
  }

  fromServer(line) {
    let message
    try {
      message = JSON.parse(line.toString('utf8'))
    } catch {
      return this.send(line) // not JSON: the client's business
    }
    const batch = Array.isArray(message)
    const messages = batch ? message : [message]
    const plans = messages.map((m) => this.plan(m))
    if (plans.every((p) => p.keep === 'raw')) return this.send(line)
    if (plans.every((p) => p.keep === 'drop')) return undefined
    const work = Promise.all(plans.map((p) => (p.convert ? p.convert() : p.message)))
      .then((out) => {
        // A request cancelled while its answer was converted: dropped as well.
        const kept = out.filter((m, i) => plans[i].keep !== 'drop' && !(plans[i].request && plans[i].request.cancelled))
        if (kept.length > 0) this.send(JSON.stringify(batch ? kept : kept[0]))
      })
      .catch((error) => {
        process.stderr.write(`mcp-content proxy: ${oneLine(error.message)}\n`)
        this.send(line)
      })
      .finally(() => {
        this.converting.delete(work)
        for (const p of plans) if (p.request) this.requests.delete(idKey(p.request.id))
      })
    this.converting.add(work)
    return undefined
  }

  /** What to do with one message from the server: pass it, drop it, or convert it. */
  plan(m) {
    if (!isObject(m) || m.method !== undefined || m.id === undefined || m.id === null) return { keep: 'raw', message: m }
    const key = idKey(m.id)
    const request = this.requests.get(key)
    if (!request || request.answered) return { keep: 'raw', message: m }
    const converts =
      !request.cancelled &&
      isObject(m.result) &&
      (request.method === 'tools/call' || (request.method === 'resources/read' && Array.isArray(m.result.contents)))
    if (!converts) this.requests.delete(key)
    // A cancelled request's late answer: the client ignores it (MCP cancellation), so it is not converted or sent.
    if (request.cancelled) return { keep: 'drop', message: m }
    if (!converts) return { keep: 'raw', message: m }
    // Still listed while converting, so a cancellation meanwhile is seen; removed once sent.
    request.answered = true
    const convert = request.method === 'tools/call' ? () => this.convertToolResult(m) : () => this.convertResource(m)
    return { keep: 'convert', convert, message: m, request }
  }

  async convertToolResult(m) {
    const { provider, store, maxTextTokens } = this.settings
    try {
      const converted = await mcp.convertToolResult(m.result, { provider, store, maxTextTokens, deferMedia: false })
      return { ...m, result: toMcpResult(converted, m.result) }
    } catch (error) {
      process.stderr.write(`mcp-content proxy: the result of request ${JSON.stringify(m.id)} is passed unchanged: ${oneLine(error.message)}\n`)
      return m
    }
  }

  async convertResource(m) {
    const { provider, store, maxTextTokens } = this.settings
    const contents = await Promise.all(
      m.result.contents.map(async (item) => {
        if (!isObject(item) || typeof item.blob !== 'string' || typeof item.uri !== 'string') return item
        try {
          const resource = { uri: item.uri, blob: item.blob }
          if (typeof item.mimeType === 'string') resource.mimeType = item.mimeType
          const part = await mcp.toContentAsync({ type: 'resource', resource }, { provider, store, maxTextTokens })
          return toResourceContents(part, item)
        } catch (error) {
          process.stderr.write(`mcp-content proxy: the resource ${JSON.stringify(item.uri)} is passed unchanged: ${oneLine(error.message)}\n`)
          return item
        }
      }),
    )
    return { ...m, result: { ...m.result, contents } }
  }

  send(line) {
    if (this.stdoutBroken) return
    process.stdout.write(line)
    process.stdout.write('\n')
  }

  async serverClosed(code, signal) {
    if (this.ended) return
    this.ended = true
    await Promise.all([...this.converting])
    // Requests the server will never answer get an error rather than silence.
    const how = signal ? `was ended by ${signal}` : `exited with code ${code}`
    for (const request of this.requests.values()) {
      if (request.cancelled || request.answered) continue
      this.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: SERVER_GONE, message: `mcp-content proxy: the MCP server ${how} before it answered` } }))
    }
    this.requests.clear()
    if (signal || code !== 0) process.stderr.write(`mcp-content proxy: the MCP server ${how}\n`)
    this.detach()
    const exitCode = signal ? 128 + (os.constants.signals[signal] ?? 0) : code ?? EXIT.FAILED
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

async function run(args) {
  const dash = args.indexOf('--')
  const own = dash === -1 ? args : args.slice(0, dash)
  const server = dash === -1 ? [] : args.slice(dash + 1)
  const { values, positionals } = options.parse('proxy', own, {
    provider: { type: 'string' },
    'output-dir': { type: 'string' },
    'max-text-tokens': { type: 'string' },
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
