'use strict'
// mcp-content proxy [options] -- <command> [args...]: runs a stdio MCP server and serves it over
// stdio, every tools/call result (and resources/read blob) converted for the provider, every
// other message passed through byte for byte. This file runs the server and moves the messages;
// proxy-routing.js says what each message is, proxy-convert.js converts answers, proxy-limits.js
// keeps lines and messages within the limits. Responses are matched to requests by id, so a
// converted response may overtake nothing and be overtaken by anything: JSON-RPC does not order.
// Nothing the client could take as the answer to a tools/call reaches it unconverted, and every
// message written to the client fits the message limit (message-limit.js).
const { spawn } = require('node:child_process')
const os = require('node:os')
const options = require('./options.js')
const { LineReader } = require('./lines.js')
const { MAX_MESSAGE_BYTES, lineBytes, bounded } = require('./message-limit.js')
const { EXIT, CliError, oneLine, usageError } = require('./terminal.js')
const { Requests, SERVER_GONE, INTERNAL_ERROR, isObject, shownId } = require('./proxy-routing.js')
const { taskAnswer, toolResultAnswer, resourceAnswer } = require('./proxy-convert.js')
const { maxLineBytes, messageOverLimit, serverLineOverLimit, clientLineOverLimit } = require('./proxy-limits.js')
const { LinkReads, linkFlags, LINK_OPTIONS, LINK_DEFAULTS } = require('./proxy-links.js')

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
  --output-dir <dir>      where files are saved (default: the per-user temp store), or
                          s3://bucket/prefix (credentials and endpoint from AWS_* variables);
                          the store's retention (7 days) is applied at start and every hour
  --presign-seconds <n>   with an s3:// --output-dir: each note naming a saved object also
                          gives a presigned URL of it, valid n seconds (at most 604800)
  --max-text-tokens <n>   the text cap (default 12500; Infinity: off)
  --max-line-bytes <n>    the longest line read from the server or the client (default
                          67108864, 64 MiB; at most 268435456): a longer line is dropped
                          unread, and the request it answers gets a JSON-RPC error
  --resolve-links         read each resource link of a tools/call result through the server
                          (a resources/read of the proxy's own, its answer not passed on) and
                          convert what it holds in the link's place; a link not read keeps its
                          note, which says why (a bound, a timeout, the server's error)
  --max-links <n>         links read per result (default ${LINK_DEFAULTS.maxLinks})
  --max-linked-bytes <n>  bytes read per result (default ${LINK_DEFAULTS.maxLinkedBytes}, 16 MiB)
  --link-timeout-ms <n>   time one read may take (default ${LINK_DEFAULTS.linkTimeoutMs}; 4 reads at a time)
  -h, --help              this help

Every message written to the client is at most 9 MiB (SDK 1.x clients drop the connection
over 10 MiB): a larger tool result has its largest attachments saved, then the whole result;
another message over it becomes a JSON-RPC error for its id.

The server's stderr is the proxy's. Exit code: the server's (128 + the signal number when a
signal ended it); 1 when the server could not be started, 2 bad command line.`

const CLEANUP_EVERY_MS = 60 * 60 * 1000
/** Grace the server gets after its stdin closes, then after SIGTERM (as MCP's stdio shutdown). */
const GRACE_MS = 2000

class Proxy {
  constructor(command, args, settings) {
    this.command = command
    this.args = args
    this.settings = settings
    /** Requests from the client not yet answered. */
    this.requests = new Requests()
    /** With --resolve-links: the proxy's own reads of resource links. */
    this.links = settings.links === undefined ? undefined : new LinkReads((message) => this.toServer(message))
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
      const fromServer = new LineReader((line) => this.fromServer(line), { maxBytes: maxLineBytes, onOverlong: (o) => serverLineOverLimit(this, o) })
      child.stdout.on('data', (chunk) => fromServer.push(chunk))
      child.stdout.on('end', () => fromServer.end())
      const fromClient = new LineReader((line) => this.fromClient(line), { maxBytes: maxLineBytes, onOverlong: (o) => clientLineOverLimit(this, o) })
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
    for (const m of Array.isArray(message) ? message : [message]) this.requests.track(m)
    this.child.stdin.write(line)
    this.child.stdin.write('\n')
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
    // An answer to the proxy's own read of a resource link: taken here, never sent on.
    if (this.links !== undefined && isObject(m) && m.method === undefined && this.links.owns(m.id)) return this.links.answer(m)
    const plan = this.requests.plan(m)
    if (plan.keep === 'drop') return undefined
    if (plan.keep === 'raw') return this.sendRaw(m, line, plan.request)
    if (plan.keep === 'task') return this.sendConverted(taskAnswer(m, plan.request), plan.request)
    const request = plan.request
    const work = this.convert(m, plan)
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
        this.requests.forget(request)
      })
    this.converting.add(work)
    return undefined
  }

  /** The message to send for an answer the plan converts. */
  async convert(m, plan) {
    const { request } = plan
    if (plan.what === 'tools') return { jsonrpc: '2.0', id: request.id, result: plan.tools }
    if (plan.what === 'resource') return resourceAnswer(m, request, this.settings)
    if (this.links === undefined) return toolResultAnswer(m, request, this.settings)
    const reader = this.links.readerFor(request)
    try {
      return await toolResultAnswer(m, request, this.settings, reader)
    } finally {
      reader.done()
    }
  }

  /** A converted answer, or an error for its request when it is still over the message limit. */
  sendConverted(message, request) {
    const text = JSON.stringify(message)
    const bytes = Buffer.byteLength(text) + 1
    if (bytes > MAX_MESSAGE_BYTES) return messageOverLimit(this, message, bytes, request)
    return this.send(text)
  }

  /** A message passed through: its own bytes when it came alone and fits, else as the limit says. */
  sendRaw(m, line, request) {
    const bytes = line !== undefined ? line.length + 1 : lineBytes(m)
    if (bytes > MAX_MESSAGE_BYTES) return messageOverLimit(this, m, bytes, request)
    return this.send(line ?? JSON.stringify(m))
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
    const how = signal ? `was ended by ${signal}` : `exited with code ${code}`
    // Links being read are noted as such, so the conversions waiting for them finish now.
    this.links?.failAll(`the MCP server ${how} before it answered`)
    await Promise.all(this.converting)
    // Requests the server will never answer get an error rather than silence.
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

async function run(args) {
  const dash = args.indexOf('--')
  const own = dash === -1 ? args : args.slice(0, dash)
  const server = dash === -1 ? [] : args.slice(dash + 1)
  const { values, positionals } = options.parse('proxy', own, {
    provider: { type: 'string' },
    'output-dir': { type: 'string' },
    'presign-seconds': { type: 'string' },
    'max-text-tokens': { type: 'string' },
    'max-line-bytes': { type: 'string' },
    ...LINK_OPTIONS,
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
    store: options.store(values['output-dir'], options.presignSeconds('proxy', values['presign-seconds'], values['output-dir'])),
    maxLineBytes: maxLineBytes(values['max-line-bytes']),
    links: linkFlags(values),
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
