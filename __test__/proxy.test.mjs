// mcp-content proxy against real MCP servers over stdio, driven by the real SDK client:
// __test__/mcp-test-server.mjs (every case of the source change, plus --proxy-cases: large
// results, delayed answers, a slow tool, an exiting server, blob resources) and
// @modelcontextprotocol/server-everything (the MCP logo, progress, a request from the server
// to the client). Each converted result is compared with the library's own conversion of the
// server's direct answer, and checked against the bytes the server sent.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  loadBinding,
  repoRoot,
  testDir,
  tempDir,
  listFiles,
  parseSavedNote,
  referenceImageInfo,
  cliPath as cli,
  withSavedBytes,
  FITTED_ORIGINAL,
} from './fixtures/index.mjs'
import { bytes, cases } from './fixtures/mcp-cases.mjs'

const require = createRequire(import.meta.url)
const { convertToolResult } = loadBinding()
const { toMcpResult } = require('../cli/mcp-shape.js')

const testServer = [path.join(testDir, 'mcp-test-server.mjs'), '--proxy-cases']
const everythingDir = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything')
const everythingPkg = JSON.parse(fs.readFileSync(path.join(everythingDir, 'package.json'), 'utf8'))
const everything = [path.join(everythingDir, typeof everythingPkg.bin === 'string' ? everythingPkg.bin : Object.values(everythingPkg.bin)[0]), 'stdio']
const TIMEOUT = { timeout: 60_000 }

async function connect(args, capabilities = {}) {
  const client = new Client({ name: 'mcp-content-proxy-test', version: '0.0.0' }, { capabilities })
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', cwd: repoRoot })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  await client.connect(transport)
  client.stderrText = () => stderr
  return client
}

/** The proxy in front of `server`, saving into `dir`. */
const viaProxy = (dir, server, provider = 'default', capabilities) =>
  connect([cli, 'proxy', '--provider', provider, '--output-dir', dir, '--', process.execPath, ...server], capabilities)

describe('proxy: the test server, every case', () => {
  let direct
  let proxied
  let proxiedChat
  let dir
  let chatDir
  before(async () => {
    dir = tempDir(null, 'mcp-content-proxy-test-')
    chatDir = tempDir(null, 'mcp-content-proxy-test-')
    ;[direct, proxied, proxiedChat] = await Promise.all([connect(testServer), viaProxy(dir, testServer), viaProxy(chatDir, testServer, 'openai-chat')])
  })
  after(async () => {
    await Promise.all([direct?.close(), proxied?.close(), proxiedChat?.close()])
  })

  test('tools/list passes through unchanged', TIMEOUT, async () => {
    assert.deepEqual(await proxied.listTools(), await direct.listTools())
  })

  for (const [provider, client] of [
    ['default', () => proxied],
    ['openai-chat', () => proxiedChat],
  ]) {
    test(`every case converted as convertToolResult converts it (${provider}, no deferral)`, TIMEOUT, async (t) => {
      const ref = tempDir(t)
      for (const name of Object.keys(cases)) {
        const raw = await direct.callTool({ name })
        const got = await client().callTool({ name })
        const expected = toMcpResult(await convertToolResult(raw, { provider, outputDir: ref, deferMedia: false }), raw)
        assert.deepEqual(withSavedBytes(got), withSavedBytes(expected), name)
      }
    })
  }

  test('what the client gets, checked against the bytes the server sent', TIMEOUT, async () => {
    const call = async (name) => (await proxied.callTool({ name })).content
    const [markdown] = await call('markdown_blob')
    assert.equal(markdown.type, 'text')
    assert.equal(markdown.text, `[Resource file:///README.md (text/markdown)]\n${bytes.markdown.toString('utf8')}`)
    const [, png] = await call('png_image')
    assert.deepEqual(png, { type: 'image', data: bytes.png.toString('base64'), mimeType: 'image/png' })
    const [jpeg] = await call('mislabelled_jpeg')
    assert.deepEqual(jpeg, { type: 'image', data: bytes.jpeg.toString('base64'), mimeType: 'image/jpeg' })
    const [pdf] = await call('pdf_resource')
    assert.deepEqual(pdf, { type: 'resource', resource: { uri: 'file:///doc.pdf', mimeType: 'application/pdf', blob: bytes.pdf.toString('base64') } })
    const [parquet] = await call('parquet_blob')
    const note = parseSavedNote(parquet.text)
    assert.ok(note, parquet.text)
    assert.equal(path.dirname(note.path), dir)
    assert.ok(fs.readFileSync(note.path).equals(bytes.parquet))
    const [wav] = await call('audio_wav')
    assert.ok(fs.readFileSync(parseSavedNote(wav.text).path).equals(bytes.wav))
    // Parts for the user only are the client's to show: passed as they came; others keep their annotations.
    const audience = await call('audience_user')
    assert.deepEqual(audience, cases.audience_user())
    const errorResult = await proxied.callTool({ name: 'error_result' })
    assert.equal(errorResult.isError, true)
    assert.deepEqual(errorResult.content, [{ type: 'text', text: 'Error: file not found' }])
  })

  test('openai-chat: images are saved with the reason, not sent in the tool result', TIMEOUT, async () => {
    const [, png] = (await proxiedChat.callTool({ name: 'png_image' })).content
    assert.match(png.text, /image\/png is not accepted inside a tool result; saved to /)
    assert.ok(fs.readFileSync(parseSavedNote(png.text).path).equals(bytes.png))
  })

  test('resources/read: blobs converted, text passed through', TIMEOUT, async () => {
    const read = async (uri) => (await proxied.readResource({ uri })).contents
    assert.deepEqual(await read('test://blob/markdown'), [
      { uri: 'test://blob/markdown', mimeType: 'text/plain', text: `[Resource test://blob/markdown (text/markdown)]\n${bytes.markdown.toString('utf8')}` },
    ])
    assert.deepEqual(await read('test://blob/png'), [{ uri: 'test://blob/png', mimeType: 'image/png', blob: bytes.png.toString('base64') }])
    assert.deepEqual(await read('test://blob/mislabelled'), [{ uri: 'test://blob/mislabelled', mimeType: 'image/jpeg', blob: bytes.jpeg.toString('base64') }])
    const [parquet] = await read('test://blob/parquet')
    assert.equal(parquet.mimeType, 'text/plain')
    assert.ok(fs.readFileSync(parseSavedNote(parquet.text).path).equals(bytes.parquet))
    assert.deepEqual(await read('test://text/plain'), await direct.readResource({ uri: 'test://text/plain' }).then((r) => r.contents))
    assert.deepEqual(await proxied.listResources(), await direct.listResources())
  })
})

describe('proxy: large results and many calls', () => {
  let proxied
  let proxiedAnthropic
  let dir
  before(async () => {
    dir = tempDir(null, 'mcp-content-proxy-test-')
    ;[proxied, proxiedAnthropic] = await Promise.all([viaProxy(dir, testServer), viaProxy(dir, testServer, 'anthropic')])
  })
  after(async () => {
    await Promise.all([proxied?.close(), proxiedAnthropic?.close()])
  })

  test('3 MB of text: a bounded preview, the whole text on disk', TIMEOUT, async () => {
    const chars = 3_000_000
    const [part] = (await proxied.callTool({ name: 'big_text', arguments: { chars } })).content
    assert.equal(part.type, 'text')
    assert.ok(part.text.length < 60_000, `${part.text.length} characters reached the client`)
    const saved = /the whole text \((\d+) bytes\) is saved to (\S+)\]$/.exec(part.text)
    assert.ok(saved, part.text.slice(-300))
    const whole = fs.readFileSync(saved[2], 'utf8')
    assert.equal(whole.length, chars)
    assert.ok(whole.startsWith(part.text.slice(0, 1000)))
  })

  test('a 4.7 MB PNG (6.2 MB as base64): made to fit for default, attached unchanged for anthropic (10 MB)', TIMEOUT, async () => {
    const args = { width: 1300, height: 1200, noise: true }
    const [note, fitted] = (await proxied.callTool({ name: 'big_image', arguments: args })).content
    const original = FITTED_ORIGINAL.exec(note.text)?.[1]
    assert.ok(original, note.text)
    assert.match(note.text, /MB as base64, over the 5\.2 MB limit\): original image\/png 1300x1200 px/)
    const png = fs.readFileSync(original)
    assert.deepEqual(referenceImageInfo(png), { ...referenceImageInfo(png), width: 1300, height: 1200 })
    assert.equal(fitted.type, 'image')
    assert.ok(fitted.data.length <= 5_242_880, `${fitted.data.length} characters of base64`)
    const [attached] = (await proxiedAnthropic.callTool({ name: 'big_image', arguments: args })).content
    assert.equal(attached.type, 'image')
    assert.equal(attached.mimeType, 'image/png')
    assert.ok(Buffer.from(attached.data, 'base64').equals(png), 'the same PNG the default proxy saved')
  })

  test('a 20,000 px tall PNG is made to fit: 8000 px tall, the size as the reason', TIMEOUT, async () => {
    const [note, image] = (await proxiedAnthropic.callTool({ name: 'big_image', arguments: { width: 300, height: 20_000, noise: false } })).content
    assert.match(note.text, /^\[Image resized to fit \(300x20000 px, over the 8000 px limit\): original image\/png 300x20000 px, /)
    assert.match(note.text, /; sent image\/png 120x8000 px, \d+ KB\]$/)
    assert.deepEqual([image.type, image.mimeType], ['image', 'image/png'])
    const sent = referenceImageInfo(Buffer.from(image.data, 'base64'))
    assert.deepEqual([sent.width, sent.height], [120, 8000])
  })

  test('60 concurrent calls finishing out of order: each answer reaches its own call, converted', TIMEOUT, async () => {
    const calls = Array.from({ length: 60 }, (_, i) => proxied.callTool({ name: 'echo_after', arguments: { text: `call ${i}`, ms: (i * 37) % 120 } }))
    const lists = Array.from({ length: 5 }, () => proxied.listTools())
    const results = await Promise.all(calls)
    results.forEach((r, i) => {
      assert.deepEqual(r.content[0], { type: 'text', text: `call ${i}` })
      assert.deepEqual(r.content[1], { type: 'image', data: bytes.jpeg.toString('base64'), mimeType: 'image/jpeg' })
    })
    for (const l of await Promise.all(lists)) assert.ok(l.tools.some((tool) => tool.name === 'echo_after'))
  })

  test('progress notifications pass through; a cancelled call stops the server and the proxy goes on', TIMEOUT, async () => {
    const progress = []
    const done = await proxied.callTool({ name: 'slow', arguments: { steps: 3, ms: 20 } }, undefined, { onprogress: (p) => progress.push(p) })
    assert.deepEqual(done.content, [{ type: 'text', text: 'slow done after 3 steps' }])
    assert.deepEqual(
      progress.map((p) => [p.progress, p.total]),
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ],
    )

    const controller = new AbortController()
    const seen = []
    const call = proxied.callTool({ name: 'slow', arguments: { steps: 100, ms: 30 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        seen.push(p)
        if (seen.length === 2) controller.abort('enough')
      },
    })
    await assert.rejects(call)
    // The server learns of it (notifications/cancelled passed through) and stops its loop.
    let count = '0'
    for (let i = 0; i < 50 && count === '0'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 40))
      count = (await proxied.callTool({ name: 'cancelled_count' })).content[0].text
    }
    assert.equal(count, '1')
    assert.equal(seen.length, 2)
    assert.deepEqual((await proxied.callTool({ name: 'echo_after', arguments: { text: 'still here', ms: 0 } })).content[0].text, 'still here')
  })
})

describe('proxy: server-everything', () => {
  let direct
  let proxied
  let dir
  const capabilities = { sampling: {} }
  const answerSampling = (client) =>
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${request.params.messages[0].content.text}` },
    }))
  before(async () => {
    dir = tempDir(null, 'mcp-content-proxy-test-')
    ;[direct, proxied] = await Promise.all([connect(everything, capabilities), viaProxy(dir, everything, 'default', capabilities)])
  })
  after(async () => {
    await Promise.all([direct?.close(), proxied?.close()])
  })

  test('get-tiny-image: the logo arrives without its damaged iCCP chunk', TIMEOUT, async (t) => {
    const raw = await direct.callTool({ name: 'get-tiny-image' })
    const got = await proxied.callTool({ name: 'get-tiny-image' })
    const expected = toMcpResult(await convertToolResult(raw, { outputDir: tempDir(t), deferMedia: false }), raw)
    assert.deepEqual(got, expected)
    const image = got.content.find((p) => p.type === 'image')
    const original = Buffer.from(raw.content.find((p) => p.type === 'image').data, 'base64')
    assert.equal(referenceImageInfo(original), null, 'the logo as served fails the independent chunk walk')
    assert.ok(referenceImageInfo(Buffer.from(image.data, 'base64')), 'the copy passes it')
  })

  test('a request from the server to the client (sampling) passes through both ways', TIMEOUT, async () => {
    answerSampling(proxied)
    const r = await proxied.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } })
    assert.match(r.content[0].text, /sampled: Resource trigger-sampling-request context: hello/)
  })

  test('progress of trigger-long-running-operation passes through, before the response', TIMEOUT, async (t) => {
    // Raw lines: the SDK client may drop a progress notification read together with its response.
    const p = rawProxy(everything, tempDir(t))
    p.send(initialize)
    await p.response(0)
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const params = { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 }, _meta: { progressToken: 'tok' } }
    p.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params })
    const r = await p.response(7)
    assert.match(r.result.content[0].text, /Long running operation completed/)
    const progress = p.messages.filter((m) => m.method === 'notifications/progress')
    assert.deepEqual(
      progress.map((m) => [m.params.progressToken, m.params.progress]),
      [
        ['tok', 1],
        ['tok', 2],
        ['tok', 3],
      ],
    )
    assert.ok(p.messages.indexOf(progress[2]) < p.messages.indexOf(r))
    p.end()
    assert.equal((await p.exited).code, 0)
  })

  test('gzip-file-as-resource: the gzip is saved and noted', TIMEOUT, async () => {
    const data = `data:text/plain;base64,${Buffer.from('hello\n'.repeat(20)).toString('base64')}`
    const r = await proxied.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'h.txt.gz', data, outputType: 'resource' } })
    const note = parseSavedNote(r.content[0].text)
    assert.ok(note, r.content[0].text)
    assert.match(r.content[0].text, /application\/gzip is not accepted/)
    assert.ok(listFiles(dir).includes(path.basename(note.path)))
  })
})

/** The proxy as a plain child speaking raw JSON-RPC lines: its exit code and stderr can be read. */
function rawProxy(server, dir) {
  const child = spawn(process.execPath, [cli, 'proxy', '--output-dir', dir, '--', process.execPath, ...server], { cwd: repoRoot })
  const messages = []
  const waiters = []
  let buffered = ''
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  child.stdout.on('data', (d) => {
    buffered += d
    let nl
    while ((nl = buffered.indexOf('\n')) !== -1) {
      messages.push(JSON.parse(buffered.slice(0, nl)))
      buffered = buffered.slice(nl + 1)
      for (const w of waiters.splice(0)) w()
    }
  })
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })))
  return {
    send: (m) => child.stdin.write(`${JSON.stringify(m)}\n`),
    end: () => child.stdin.end(),
    async response(id) {
      for (;;) {
        const m = messages.find((x) => x.id === id && x.method === undefined)
        if (m) return m
        await new Promise((resolve) => waiters.push(resolve))
      }
    },
    messages,
    exited,
  }
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
}

/** A bare stdio server that answers every request after 100 ms and ignores cancellation, as some do. */
const STUBBORN_SERVER = `
let buffered = ''
process.stdin.on('data', (d) => {
  buffered += d
  let nl
  while ((nl = buffered.indexOf('\\n')) !== -1) {
    const m = JSON.parse(buffered.slice(0, nl))
    buffered = buffered.slice(nl + 1)
    if (m.id === undefined) continue
    const result = m.method === 'initialize'
      ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'stubborn', version: '0' } }
      : { content: [{ type: 'image', data: ${JSON.stringify(bytes.jpeg.toString('base64'))}, mimeType: 'image/png' }] }
    setTimeout(() => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n'), m.method === 'initialize' ? 0 : 100)
  }
})
`

describe('proxy: cancellation against a server that answers anyway', () => {
  test('the late answer to a cancelled call is dropped; the next call is answered, converted', TIMEOUT, async (t) => {
    const dir = tempDir(t)
    const server = path.join(dir, 'stubborn.cjs')
    fs.writeFileSync(server, STUBBORN_SERVER)
    const p = rawProxy([server], dir)
    p.send(initialize)
    await p.response(0)
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } })
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user' } })
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: {} } })
    const two = await p.response(2)
    assert.deepEqual(two.result.content, [{ type: 'image', data: bytes.jpeg.toString('base64'), mimeType: 'image/jpeg' }])
    assert.equal(p.messages.filter((m) => m.id === 1).length, 0, 'the cancelled call gets no answer')
    p.end()
    await p.exited
  })
})

describe('proxy: the server exiting, the client leaving', () => {
  test('the server exits mid-call: the call gets an error, the proxy exits with the server code', TIMEOUT, async (t) => {
    const p = rawProxy(testServer, tempDir(t))
    p.send(initialize)
    assert.equal((await p.response(0)).result.serverInfo.name, 'mcp-content-test-server')
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'exit_now', arguments: { code: 3 } } })
    p.send({ jsonrpc: '2.0', id: 'two', method: 'tools/call', params: { name: 'slow', arguments: { steps: 100, ms: 50 } } })
    const [one, two] = [await p.response(1), await p.response('two')]
    for (const r of [one, two]) {
      assert.equal(r.error.code, -32000)
      assert.equal(r.error.message, 'mcp-content proxy: the MCP server exited with code 3 before it answered')
    }
    const { code, stderr } = await p.exited
    assert.equal(code, 3)
    assert.match(stderr, /^mcp-content proxy: the MCP server exited with code 3$/m)
  })

  test('the client closes stdin: the server is closed, the proxy exits 0', TIMEOUT, async (t) => {
    const p = rawProxy(testServer, tempDir(t))
    p.send(initialize)
    await p.response(0)
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mislabelled_jpeg', arguments: {} } })
    const r = await p.response(1)
    assert.equal(r.result.content[0].mimeType, 'image/jpeg')
    p.end()
    const { code, signal } = await p.exited
    assert.deepEqual({ code, signal }, { code: 0, signal: null })
  })
})
