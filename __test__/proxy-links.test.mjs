// mcp-content proxy --resolve-links: the resource links of each tools/call result are read through
// the server the proxy fronts (resources/read requests of the proxy's own, whose answers never
// reach the client) and converted as convertToolResult's readResource converts them. Against
// __test__/fixtures/link-server.mjs (SDK 1.x server; with --v2 the SDK v2 one, both eras) and
// server-everything, with the SDK 1.x client and the SDK v2 client (2025-11-25 and 2026-07-28).
// The raw 2026-07-28 wire (the `_meta` the reads carry, a late answer dropped) is in
// proxy-2026.test.mjs.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { loadBinding, repoRoot, testDir, tempDir, parseSavedNote, cliPath as cli, withSavedBytes } from './fixtures/index.mjs'
import { sdkV2, childEnv } from './fixtures/mcp-sdks.mjs'
import { bytes, BIG_TEXT_BYTES } from './fixtures/link-cases.mjs'

const require = createRequire(import.meta.url)
const { convertToolResult } = loadBinding()
const { toMcpResult } = require('../cli/mcp-shape.js')

const v2 = sdkV2()
if (v2.skip) console.log(`proxy-links.test: SDK v2 tests skipped: ${v2.skip}`)
const TIMEOUT = { timeout: 60_000 }
const linkServer = [path.join(testDir, 'fixtures', 'link-server.mjs')]
const everything = (() => {
  const dir = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything')
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  return [path.join(dir, typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]), 'stdio']
})()
/** The bounds every proxy here runs with, and the same as convertToolResult options. */
const BOUNDS = ['--max-links', '8', '--max-linked-bytes', '1000000', '--link-timeout-ms', '300']
const OPTIONS = { maxLinks: 8, maxLinkedBytes: 1_000_000, linkTimeoutMs: 300 }
const viaProxy = (dir, server, flags = ['--resolve-links', ...BOUNDS]) => [cli, 'proxy', ...flags, '--output-dir', dir, '--', process.execPath, ...server]

/** An SDK 1.x client on `args`; `errors` collects what its transport could not match (an answer to no request of its own). */
async function connectV1(args) {
  const client = new V1Client({ name: 'mcp-content-links-test', version: '0.0.0' })
  client.errors = []
  client.onerror = (error) => client.errors.push(error.message)
  await client.connect(new V1Transport({ command: process.execPath, args, env: childEnv(), stderr: 'pipe', cwd: repoRoot }))
  return client
}

async function connectV2(args, mode) {
  const client = new v2.Client({ name: 'mcp-content-links-test', version: '0.0.0' }, { versionNegotiation: { mode } })
  await client.connect(new v2.StdioClientTransport({ command: process.execPath, args, env: childEnv(), stderr: 'pipe', cwd: repoRoot }))
  return client
}

/** What the proxy must answer for `raw`: convertToolResult with links read through `direct`, as the proxy converts. */
async function expected(raw, direct, dir) {
  const readResource = (uri) => direct.readResource({ uri })
  return toMcpResult(await convertToolResult(raw, { outputDir: dir, deferMedia: false, readResource, ...OPTIONS }), raw)
}

const linkNote = (uri, details, why) => `[Resource link ${uri} (${details}): ${why}]`

describe('proxy --resolve-links, SDK 1.x client, link-server.mjs', () => {
  let direct
  let proxied
  let plain
  before(async () => {
    const dir = tempDir(null, 'mcp-content-proxy-links-')
    ;[direct, proxied, plain] = await Promise.all([
      connectV1(linkServer),
      connectV1(viaProxy(dir, linkServer)),
      connectV1(viaProxy(tempDir(null, 'mcp-content-proxy-links-'), linkServer, [])),
    ])
  })
  after(async () => {
    await Promise.all([direct?.close(), proxied?.close(), plain?.close()])
  })

  test('every link read and converted as convertToolResult converts it: text, markdown, PNG, PDF, a zip saved', TIMEOUT, async (t) => {
    for (const tool of ['good_links', 'pair_link']) {
      const raw = await direct.callTool({ name: tool })
      const got = await proxied.callTool({ name: tool })
      assert.deepEqual(withSavedBytes(got), withSavedBytes(await expected(raw, direct, tempDir(t))), tool)
    }
    const got = await proxied.callTool({ name: 'good_links' })
    assert.equal(got.content[1].text, '[Resource links://good/text (text/plain)]\na text read through its link')
    assert.deepEqual(got.content[3], { type: 'image', data: bytes.png.toString('base64'), mimeType: 'image/png' })
    assert.deepEqual(got.content[4], {
      type: 'resource',
      resource: { uri: 'links://good/pdf', mimeType: 'application/pdf', blob: bytes.pdf.toString('base64') },
    })
    assert.ok(fs.readFileSync(parseSavedNote(got.content[5].text).path).equals(bytes.zip))
  })

  test('reads that fail, hang or answer what is not contents: each note says why, the proxy keeps serving', TIMEOUT, async () => {
    const got = await proxied.callTool({ name: 'bad_links' })
    assert.deepEqual(
      got.content.map((p) => p.text),
      [
        linkNote('links://bad/fails', 'fails, text/plain', 'could not be read: MCP error -32603: the disk is on fire'),
        linkNote('links://bad/hangs', 'hangs, text/plain', 'could not be read: timed out after 300 ms'),
        linkNote('links://bad/no-text-nor-blob', 'no-text-nor-blob, text/plain', 'could not be read: content 1 has neither `text` nor `blob`'),
        linkNote('links://bad/number-blob', 'number-blob, text/plain', 'could not be read: content 1 has a `blob` that is not a string'),
        linkNote('links://bad/no-contents', 'no-contents, text/plain', 'could not be read: the answer has no `contents` array'),
        linkNote('links://bad/empty', 'empty, text/plain', 'could not be read: the answer has no contents'),
        linkNote('links://bad/unknown', 'unknown', 'could not be read: MCP error -32602: MCP error -32602: Resource links://bad/unknown not found'),
        '[Resource links://good/text (text/plain)]\na text read through its link',
      ],
    )
    assert.deepEqual((await proxied.callTool({ name: 'pair_link' })).content[2], { type: 'text', text: 'after the pair' })
    assert.deepEqual(proxied.errors, [], "an answer to the proxy's own read reached the client")
  })

  test('the bounds: links past --max-links are not read, bytes past --max-linked-bytes are left out', TIMEOUT, async () => {
    const reads = async () => JSON.parse((await proxied.callTool({ name: 'reads' })).content[0].text)
    const before = await reads()
    const many = await proxied.callTool({ name: 'many_links' })
    for (let i = 0; i < 8; i++) assert.equal(many.content[i].text, `[Resource links://count/${i + 1} (text/plain)]\ncounted resource ${i + 1}`)
    for (let i = 8; i < 14; i++) {
      assert.equal(many.content[i].text, linkNote(`links://count/${i + 1}`, `${i + 1}, text/plain`, 'not read: over the limit of 8 links read per result'))
    }
    const after = await reads()
    assert.equal(after['links://count/8'], (before['links://count/8'] ?? 0) + 1)
    assert.equal(after['links://count/9'], before['links://count/9'], 'a link past the bound was read')
    const big = await proxied.callTool({ name: 'big_links' })
    // Read, then bounded by the text cap like any text.
    assert.ok(big.content[0].text.startsWith('[Resource links://big/1 (text/plain)]\n1111'), big.content[0].text.slice(0, 100))
    const over = `not read: its ${BIG_TEXT_BYTES} bytes would pass the limit of 1000000 bytes read per result`
    assert.equal(big.content[1].text, linkNote('links://big/2', '2, text/plain', over))
    assert.equal(big.content[2].text, linkNote('links://big/3', '3, text/plain', over))
    assert.equal(big.content[3].text, '[Resource links://small (text/plain)]\nsmall')
  })

  test('a link for the user alone passes as the server sent it, unread', TIMEOUT, async () => {
    const before = JSON.parse((await proxied.callTool({ name: 'reads' })).content[0].text)['links://good/text'] ?? 0
    const got = await proxied.callTool({ name: 'user_link' })
    assert.deepEqual(got.content[0], {
      type: 'resource_link',
      uri: 'links://good/text',
      name: 'text',
      mimeType: 'text/plain',
      annotations: { audience: ['user'] },
    })
    assert.deepEqual(got.content[1], { type: 'image', data: bytes.png.toString('base64'), mimeType: 'image/png', annotations: { audience: ['assistant'] } })
    const after = JSON.parse((await proxied.callTool({ name: 'reads' })).content[0].text)['links://good/text'] ?? 0
    assert.equal(after, before)
  })

  test("the client's own resources/read still passes through the proxy's conversion", TIMEOUT, async () => {
    const read = await proxied.readResource({ uri: 'links://good/png' })
    assert.deepEqual(read.contents, [{ uri: 'links://good/png', mimeType: 'image/png', blob: bytes.png.toString('base64') }])
  })

  test('without --resolve-links a link stays a note', TIMEOUT, async () => {
    const got = await plain.callTool({ name: 'good_links' })
    assert.equal(got.content[1].text, '[Resource link links://good/text (text, text/plain)]\na plain text')
  })
})

describe('proxy --resolve-links: the server exiting, an answer over the line limit', () => {
  test('the server exits while a link is read: the link is noted, the result sent, the proxy exits with its code', TIMEOUT, async (t) => {
    const proxied = await connectV1(viaProxy(tempDir(t), linkServer))
    const closed = new Promise((resolve) => (proxied.onclose = resolve))
    const got = await proxied.callTool({ name: 'exiting_link' })
    assert.deepEqual(
      got.content.map((p) => p.text),
      ['before', linkNote('links://bad/exits', 'exits, text/plain', 'could not be read: the MCP server exited with code 3 before it answered')],
    )
    await closed
  })

  test("an answer to the proxy's read over --max-line-bytes: discarded, and the link says so", TIMEOUT, async (t) => {
    const proxied = await connectV1(viaProxy(tempDir(t), linkServer, ['--resolve-links', '--max-line-bytes', '100000']))
    t.after(() => proxied.close())
    const got = await proxied.callTool({ name: 'big_links' })
    const why = "could not be read: the answer is over the proxy's line limit %28100000 bytes%29; it was discarded"
    assert.equal(got.content[0].text, linkNote('links://big/1', '1, text/plain', why))
    assert.equal(got.content[3].text, '[Resource links://small (text/plain)]\nsmall')
    assert.deepEqual(proxied.errors, [])
  })
})

describe('proxy --resolve-links, SDK 1.x client, server-everything', () => {
  let proxied
  before(async () => {
    proxied = await connectV1(viaProxy(tempDir(null, 'mcp-content-proxy-links-'), everything))
  })
  after(async () => proxied?.close())

  test('get-resource-links: each linked resource read through the server and converted', TIMEOUT, async () => {
    const got = await proxied.callTool({ name: 'get-resource-links', arguments: { count: 4 } })
    assert.equal(got.content.length, 5)
    for (let id = 1; id <= 4; id++) {
      // Odd ids are blobs (text/plain as base64: decoded), even ones text; each made with the time it was read.
      const [kind, made] = id % 2 === 0 ? ['text', 'This is a plaintext resource created at'] : ['blob', 'This is a base64 blob created at']
      const uri = `demo://resource/dynamic/${kind}/${id}`
      assert.ok(got.content[id].text.startsWith(`[Resource ${uri} (text/plain)]\nResource ${id}: ${made} `), got.content[id].text)
    }
    assert.deepEqual(proxied.errors, [])
  })
})

for (const [mode, version] of [
  [{ pin: '2026-07-28' }, '2026-07-28'],
  ['legacy', '2025-11-25'],
]) {
  describe(`proxy --resolve-links, SDK v2 client (${version}), link-server.mjs --v2`, { skip: v2.skip ?? false }, () => {
    const server = [...linkServer, '--v2']
    let direct
    let proxied
    before(async () => {
      ;[direct, proxied] = await Promise.all([connectV2(server, mode), connectV2(viaProxy(tempDir(null, 'mcp-content-proxy-links-v2-'), server), mode)])
    })
    after(async () => {
      await Promise.all([direct?.close(), proxied?.close()])
    })

    test(`on ${version}: every link read and converted as convertToolResult converts it; failures noted`, TIMEOUT, async (t) => {
      assert.equal(proxied.getNegotiatedProtocolVersion(), version)
      for (const tool of ['good_links', 'pair_link']) {
        const raw = await direct.callTool({ name: tool })
        const got = await proxied.callTool({ name: tool })
        assert.deepEqual(withSavedBytes(got), withSavedBytes(await expected(raw, direct, tempDir(t))), tool)
      }
      const bad = await proxied.callTool({ name: 'bad_links' })
      assert.match(bad.content[0].text, /^\[Resource link links:\/\/bad\/fails \(fails, text\/plain\): could not be read: MCP error -32603: .*\]$/)
      assert.equal(bad.content[1].text, linkNote('links://bad/hangs', 'hangs, text/plain', 'could not be read: timed out after 300 ms'))
      assert.equal(bad.content[7].text, '[Resource links://good/text (text/plain)]\na text read through its link')
    })
  })
}

describe('proxy --resolve-links on the command line', () => {
  const proxy = (...args) => spawnSync(process.execPath, [cli, 'proxy', ...args, '--', process.execPath, '-e', ''], { encoding: 'utf8' })

  test('bad bounds, or bounds without --resolve-links, are usage errors (exit 2)', () => {
    for (const [args, message] of [
      [['--resolve-links', '--max-links', '0'], /--max-links must be a positive integer/],
      [['--resolve-links', '--max-linked-bytes', '1e6'], /--max-linked-bytes must be a positive integer/],
      [['--resolve-links', '--link-timeout-ms', '2147483648'], /--link-timeout-ms must be a positive integer up to 2147483647/],
      [['--max-links', '3'], /--max-links needs --resolve-links/],
    ]) {
      const r = proxy(...args)
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, message)
    }
  })

  test('--help names the option and its bounds', () => {
    const r = spawnSync(process.execPath, [cli, 'proxy', '--help'], { encoding: 'utf8' })
    assert.equal(r.status, 0)
    for (const flag of ['--resolve-links', '--max-links <n>', '--max-linked-bytes <n>', '--link-timeout-ms <n>']) assert.ok(r.stdout.includes(flag), flag)
  })
})
