// mcp-content proxy and MCP 2026-07-28 (stateless: no `initialize`, `server/discover`, the protocol
// version in each request's `_meta`, results with `resultType`). Driven line by line against
// __test__/fixtures/mcp-2026-wire-server.mjs (raw JSON-RPC, no SDK), so each message can be checked
// as the spec writes it: what passes byte for byte, what is converted, and what a converted result
// keeps. The SDK clients and servers (TypeScript v1 and v2, Python) are in proxy-sdks.test.mjs.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createRequire } from 'node:module'
import { testDir, tempDir, makePng, parseSavedNote, cliPath as cli } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const { toMcpResult } = require('../cli/mcp-shape.js')
const { fitToolResult, MAX_MESSAGE_BYTES } = require('../cli/message-limit.js')
const { ToolOutputStore } = require('../lib/index.js')

const wireServer = path.join(testDir, 'fixtures', 'mcp-2026-wire-server.mjs')
const TIMEOUT = { timeout: 30_000 }
const VERSION = '2026-07-28'
const PNG = makePng(2, 2).toString('base64')
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-content-wire-2026', version: '0.0.0' } }
/** The per-request `_meta` a 2026-07-28 client sends. */
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-content-wire-test', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
}

/** The proxy in front of `server`, spoken to line by line: requests answered by id, everything else listed in order. */
class LineClient {
  constructor(args) {
    this.child = spawn(process.execPath, [cli, 'proxy', ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    this.pending = new Map()
    this.others = []
    this.stderr = ''
    this.nextId = 1
    let buffered = ''
    this.child.stdout.setEncoding('utf8')
    this.child.stdout.on('data', (chunk) => {
      buffered += chunk
      let nl
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        this.onLine(line)
      }
    })
    this.child.stderr.on('data', (d) => (this.stderr += d))
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)))
  }

  onLine(line) {
    const m = JSON.parse(line)
    const waiting = m.method === undefined ? this.pending.get(m.id) : undefined
    if (waiting) {
      this.pending.delete(m.id)
      waiting({ message: m, line })
    } else {
      this.others.push({ message: m, line })
    }
  }

  /** Writes `line` as it is; resolves with the answer to `id` ({ message, line }). */
  sendLine(id, line) {
    const answered = new Promise((resolve) => this.pending.set(id, resolve))
    this.child.stdin.write(`${line}\n`)
    return answered
  }

  request(method, params) {
    const id = this.nextId++
    return this.sendLine(id, JSON.stringify({ jsonrpc: '2.0', id, method, params }))
  }

  async call(name, extra = {}) {
    return (await this.request('tools/call', { name, arguments: {}, ...extra, _meta: META })).message
  }

  /** Waits until a message that is no answer satisfies `match`. */
  async notification(match) {
    for (let i = 0; i < 200; i++) {
      const found = this.others.find((o) => match(o.message))
      if (found) return found
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    throw new Error(`no such message; got ${JSON.stringify(this.others.map((o) => o.message))}\n${this.stderr}`)
  }

  /** Closes stdin and waits for the proxy to exit. */
  async close() {
    this.child.stdin.end()
    return this.exited
  }
}

describe('proxy, a stateless 2026-07-28 server, message by message', () => {
  let client
  let dir
  before(() => {
    dir = tempDir(null, 'mcp-content-proxy-2026-')
    client = new LineClient(['--provider', 'openai-chat', '--output-dir', dir, '--', process.execPath, wireServer])
  })
  after(async () => {
    await client?.close()
  })

  test('server/discover passes byte for byte', TIMEOUT, async () => {
    const { message } = await client.request('server/discover', { _meta: META })
    assert.deepEqual(message.result, {
      resultType: 'complete',
      supportedVersions: [VERSION],
      capabilities: { tools: { listChanged: true }, resources: {} },
      _meta: SERVER_INFO,
    })
  })

  test("each request's line, `_meta` and all, reaches the server as the client wrote it", TIMEOUT, async () => {
    const id = client.nextId++
    const line = `{ "params": {"_meta": ${JSON.stringify({ ...META, 'io.example/trace': 'x\u2028y' })}, "name":"echo_request" }, "id": ${id}, "method":"tools/call", "jsonrpc":"2.0" }`
    const { message } = await client.sendLine(id, line)
    assert.deepEqual(message.result.content, [{ type: 'text', text: line }])
    assert.equal(message.result.resultType, 'complete')
  })

  test('a complete result is converted and keeps `resultType` and `_meta`; a field the spec does not define is dropped', TIMEOUT, async () => {
    const result = (await client.call('png')).result
    assert.deepEqual(Object.keys(result).sort(), ['_meta', 'content', 'resultType'])
    assert.equal(result.resultType, 'complete')
    assert.deepEqual(result._meta, SERVER_INFO)
    assert.deepEqual(result.content[0], { type: 'text', text: 'a picture' })
    // openai-chat takes no image in a tool message: saved and noted, so the result was converted.
    assert.match(result.content[1].text, /image\/png is not accepted inside a tool result; saved to /)
    assert.equal(path.dirname(parseSavedNote(result.content[1].text).path), dir)
  })

  test('an input_required result passes unchanged; the retry with inputResponses and requestState is converted', TIMEOUT, async () => {
    const first = (await client.call('ask')).result
    assert.deepEqual(first, {
      resultType: 'input_required',
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Go on?', requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } } } },
        },
      },
      requestState: 'round-1',
      _meta: SERVER_INFO,
    })
    const inputResponses = { confirm: { action: 'accept', content: { yes: true } } }
    const second = (await client.call('ask', { inputResponses, requestState: first.requestState })).result
    assert.equal(second.resultType, 'complete')
    assert.deepEqual(second.content[0], { type: 'text', text: 'confirmed: {"yes":true}' })
    assert.match(second.content[1].text, /image\/png is not accepted inside a tool result; saved to /)
  })

  test("a result kind of an extension (resultType not 'complete') passes unchanged", TIMEOUT, async () => {
    const result = (await client.call('claimed')).result
    assert.deepEqual(result, {
      resultType: 'io.example/deferred',
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
      handle: 'h-1',
      _meta: SERVER_INFO,
    })
  })

  test('structuredContent that is not an object is kept, and given to the model as JSON', TIMEOUT, async () => {
    const result = (await client.call('structured')).result
    assert.deepEqual(result, {
      content: [{ type: 'text', text: '[1,"two",{"three":3}]' }],
      structuredContent: [1, 'two', { three: 3 }],
      _meta: SERVER_INFO,
      resultType: 'complete',
    })
  })

  test('a result the proxy cannot convert is replaced by one that says why, with `resultType`', TIMEOUT, async () => {
    const result = (await client.call('broken')).result
    assert.equal(result.resultType, 'complete')
    assert.equal(result.isError, true)
    assert.match(result.content[0].text, /^\[mcp-content proxy: the tool result could not be converted, so it is not passed on: /)
  })

  test('errors with the 2026-07-28 codes pass unchanged, data and all', TIMEOUT, async () => {
    const missing = await client.call('needs_elicitation')
    assert.deepEqual(missing.error, { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { elicitation: {} } } })
    const unsupported = (await client.request('tools/call', { name: 'png', _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }))
      .message
    assert.deepEqual(unsupported.error, { code: -32022, message: 'Unsupported protocol version', data: { supported: [VERSION], requested: '2099-01-01' } })
    const initialize = (await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } }))
      .message
    assert.deepEqual(initialize.error, { code: -32022, message: 'Unsupported protocol version', data: { supported: [VERSION], requested: null } })
  })

  test('resources/read: a blob is converted and keeps resultType; input_required passes unchanged', TIMEOUT, async () => {
    const read = (await client.request('resources/read', { uri: 'mem://png', _meta: META })).message.result
    assert.equal(read.resultType, 'complete')
    assert.deepEqual(read._meta, SERVER_INFO)
    assert.equal(read.contents[0].uri, 'mem://png')
    const ask = (await client.request('resources/read', { uri: 'mem://ask', _meta: META })).message.result
    assert.deepEqual(ask, { resultType: 'input_required', requestState: 'resource-round-1', _meta: SERVER_INFO })
  })

  test('a 2025-era request to the same proxy: its result is converted, whatever `resultType` says', TIMEOUT, async () => {
    const result = (await client.request('tools/call', { name: 'legacy_png' })).message.result
    assert.equal(result.resultType, 'whatever')
    assert.match(result.content[0].text, /image\/png is not accepted inside a tool result; saved to /)
  })
})

describe('proxy, subscriptions/listen over stdio', () => {
  test('the stream passes through; once the server ends it, the proxy no longer answers it', TIMEOUT, async (t) => {
    const client = new LineClient(['--output-dir', tempDir(t), '--', process.execPath, wireServer])
    const listenId = 900
    const notifications = { toolsListChanged: true }
    let answer
    client
      .sendLine(listenId, JSON.stringify({ jsonrpc: '2.0', id: listenId, method: 'subscriptions/listen', params: { notifications, _meta: META } }))
      .then((a) => (answer = a))
    const stream = { 'io.modelcontextprotocol/subscriptionId': listenId }
    const ack = await client.notification((m) => m.method === 'notifications/subscriptions/acknowledged')
    assert.deepEqual(ack.message, { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications, _meta: stream } })
    const changed = await client.notification((m) => m.method === 'notifications/tools/list_changed')
    assert.deepEqual(changed.message.params, { _meta: stream })
    await client.call('end_listen')
    const cancelled = await client.notification((m) => m.method === 'notifications/cancelled')
    assert.deepEqual(cancelled.message.params, { requestId: listenId })
    assert.equal(await client.close(), 0)
    assert.equal(answer, undefined, 'the proxy answered a stream the server had ended')
  })

  test('a stream still open when the server exits gets the error every unanswered request gets', TIMEOUT, async (t) => {
    const client = new LineClient(['--output-dir', tempDir(t), '--', process.execPath, wireServer])
    const answered = client.sendLine(
      7,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } }),
    )
    await client.notification((m) => m.method === 'notifications/subscriptions/acknowledged')
    client.child.stdin.end()
    const { message } = await answered
    assert.equal(message.error.code, -32000)
    await client.exited
  })
})

describe('proxy --resolve-links, a stateless 2026-07-28 server, message by message', () => {
  let client
  before(() => {
    client = new LineClient([
      '--resolve-links',
      '--link-timeout-ms',
      '200',
      '--output-dir',
      tempDir(null, 'mcp-content-proxy-2026-links-'),
      '--',
      process.execPath,
      wireServer,
    ])
  })
  after(async () => {
    await client?.close()
  })

  test("each link is read with the tools/call's protocol `_meta` (and nothing else of it), under an id of the proxy's own", TIMEOUT, async () => {
    const meta = { ...META, progressToken: 'p-1', 'io.example/trace': 'x' }
    const { message } = await client.request('tools/call', { name: 'links', arguments: {}, _meta: meta })
    const [png, echo, ask] = message.result.content
    assert.equal(message.result.resultType, 'complete')
    assert.equal(png.type, 'image')
    assert.equal(png.data, PNG)
    // What reached the server for mem://echo: the proxy's resources/read, its line under the text header.
    const read = JSON.parse(echo.text.slice(echo.text.indexOf('\n') + 1))
    assert.equal(read.method, 'resources/read')
    assert.equal(typeof read.id, 'string')
    assert.deepEqual(read.params, { uri: 'mem://echo', _meta: META })
    // A read that asks for input first is no resource's contents.
    assert.equal(
      ask.text,
      '[Resource link mem://ask (ask): could not be read: the server answered with resultType "input_required", not the resource\'s contents]',
    )
    // The answers to the proxy's reads never reached the client.
    assert.deepEqual(
      client.others.filter((o) => o.message.id !== undefined),
      [],
    )
  })

  test('a read answered after its timeout: the note says so, the late answer is dropped quietly', TIMEOUT, async () => {
    const message = await client.call('slow_link')
    assert.deepEqual(message.result.content, [{ type: 'text', text: '[Resource link mem://slow (slow): could not be read: timed out after 200 ms]' }])
    await new Promise((resolve) => setTimeout(resolve, 700))
    // The proxy still serves, and nothing about the late answer reached the client or stderr.
    assert.equal((await client.call('png')).result.content[0].text, 'a picture')
    assert.deepEqual(
      client.others.filter((o) => o.message.id !== undefined),
      [],
    )
    assert.doesNotMatch(client.stderr, /dropped a response/)
  })
})

describe('the proxied result (cli/mcp-shape.js, cli/message-limit.js)', () => {
  test('toMcpResult keeps `resultType` and `_meta`, and no field the spec does not define', () => {
    const original = { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: { a: 1 }, extra: 'x', toolResult: 'y' }
    const converted = { content: [{ type: 'text', text: 'hi' }], sources: [0], isError: false, deferred: [], saved: [] }
    assert.deepEqual(toMcpResult(converted, original), { content: [{ type: 'text', text: 'hi' }], _meta: { a: 1 }, resultType: 'complete' })
    assert.deepEqual(toMcpResult(converted, { content: original.content }), { content: [{ type: 'text', text: 'hi' }] })
  })

  test('a result over the message limit, saved whole, keeps `resultType`', { timeout: 60_000 }, async (t) => {
    const store = new ToolOutputStore(tempDir(t))
    const result = { content: [{ type: 'text', text: 'a'.repeat(MAX_MESSAGE_BYTES) }], _meta: { a: 1 }, resultType: 'complete' }
    const small = await fitToolResult(result, { jsonrpc: '2.0', id: 1 }, store)
    assert.equal(small.resultType, 'complete')
    assert.match(small.content[0].text, /over the proxy's message limit/)
  })
})
