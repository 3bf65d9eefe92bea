// mcp-content proxy between the TypeScript SDKs' real clients and servers over stdio: SDK v2
// (@modelcontextprotocol/client and /server) in each way its client negotiates the protocol
// ('legacy': 2025-11-25; 'auto': server/discover, 2026-07-28 with a v2 server; pinned to
// 2026-07-28), and mixed with SDK 1.x (@modelcontextprotocol/sdk, 2025-11-25 only). Each converted
// result is compared with the library's conversion of the server's direct answer, read by the same
// client. The Python SDK is in proxy-python.test.mjs.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { createRequire } from 'node:module'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { loadBinding, repoRoot, testDir, tempDir, cliPath as cli, withSavedBytes } from './fixtures/index.mjs'
import { cases, bytes } from './fixtures/mcp-cases.mjs'
import { sdkV2, childEnv } from './fixtures/mcp-sdks.mjs'

const require = createRequire(import.meta.url)
const { convertToolResult } = loadBinding()
const { toMcpResult } = require('../cli/mcp-shape.js')

const v2 = sdkV2()
if (v2.skip) console.log(`proxy-sdks.test: SDK v2 tests skipped: ${v2.skip}`)
const skipV2 = v2.skip ?? false

const v2Server = [path.join(testDir, 'fixtures', 'mcp-v2-server.mjs')]
const v1Server = [path.join(testDir, 'mcp-test-server.mjs')]
const TIMEOUT = { timeout: 60_000 }
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const viaProxy = (dir, server) => [cli, 'proxy', '--output-dir', dir, '--', process.execPath, ...server]

/** An SDK v2 client on `args` (run with this runtime), negotiating as `mode` says; elicitations accepted with { yes: true }. */
async function connectV2(args, mode, onToolsChanged) {
  const options = { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } }
  if (onToolsChanged) options.listChanged = { tools: { onChanged: onToolsChanged, debounceMs: 0 } }
  const client = new v2.Client({ name: 'mcp-content-sdk-test', version: '0.0.0' }, options)
  client.elicitations = 0
  client.setRequestHandler('elicitation/create', async () => {
    client.elicitations++
    return { action: 'accept', content: { yes: true } }
  })
  const transport = new v2.StdioClientTransport({ command: process.execPath, args, env: childEnv(), stderr: 'pipe', cwd: repoRoot })
  await client.connect(transport)
  return client
}

async function connectV1(args) {
  const client = new V1Client({ name: 'mcp-content-sdk-test', version: '0.0.0' })
  await client.connect(new V1Transport({ command: process.execPath, args, env: childEnv(), stderr: 'pipe', cwd: repoRoot }))
  return client
}

/** What the proxy must answer for `raw`, the server's answer as the client read it directly. */
async function expected(raw, dir) {
  return toMcpResult(await convertToolResult(raw, { outputDir: dir, deferMedia: false }), raw)
}

const settled = (promise) =>
  promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  )

for (const [mode, version] of [
  ['legacy', LEGACY],
  ['auto', MODERN],
  [{ pin: MODERN }, MODERN],
]) {
  const name = typeof mode === 'string' ? mode : `pinned to ${mode.pin}`
  describe(`proxy, SDK v2 client (${name}) and SDK v2 server`, { skip: skipV2 }, () => {
    let direct
    let proxied
    let changed = 0
    before(async () => {
      const dir = tempDir(null, 'mcp-content-sdk-v2-')
      ;[direct, proxied] = await Promise.all([connectV2(v2Server, mode), connectV2(viaProxy(dir, v2Server), mode, () => changed++)])
    })
    after(async () => {
      await Promise.all([direct?.close(), proxied?.close()])
    })

    test(`they settle on ${version}, as without the proxy`, TIMEOUT, () => {
      assert.equal(direct.getNegotiatedProtocolVersion(), version)
      assert.equal(proxied.getNegotiatedProtocolVersion(), version)
    })

    test('every case converted as convertToolResult converts it', TIMEOUT, async (t) => {
      const ref = tempDir(t)
      for (const tool of Object.keys(cases)) {
        const raw = await settled(direct.callTool({ name: tool }))
        const got = await proxied.callTool({ name: tool })
        // A result the client refuses whole (invalid base64) arrives through the proxy with a note instead.
        if (raw.error) continue
        assert.deepEqual(withSavedBytes(got), withSavedBytes(await expected(raw.value, ref)), tool)
      }
    })

    test("the server's question reaches the client, its answer the server, and the final result is converted", TIMEOUT, async (t) => {
      const before = proxied.elicitations
      const raw = await direct.callTool({ name: 'ask' })
      const got = await proxied.callTool({ name: 'ask' })
      assert.equal(proxied.elicitations, before + 1)
      assert.deepEqual(got.content[0], { type: 'text', text: 'confirmed: {"yes":true}' })
      assert.deepEqual(got.content[1], { type: 'image', data: bytes.png.toString('base64'), mimeType: 'image/png' })
      assert.deepEqual(withSavedBytes(got), withSavedBytes(await expected(raw, tempDir(t))))
    })

    test('structuredContent is kept, an array where the era allows one', TIMEOUT, async (t) => {
      const raw = await direct.callTool({ name: 'structured_array' })
      const got = await proxied.callTool({ name: 'structured_array' })
      // 2025-11-25 takes an object only: the server wraps the array (and adds its JSON as text).
      const structured = version === MODERN ? [1, 'two', { three: 3 }] : { result: [1, 'two', { three: 3 }] }
      assert.deepEqual(raw.structuredContent, structured)
      assert.deepEqual(got.structuredContent, structured)
      assert.deepEqual(got.content.at(-1), { type: 'text', text: JSON.stringify(structured) })
      assert.deepEqual(got, await expected(raw, tempDir(t)))
    })

    test("a protocol error is the server's, unchanged", TIMEOUT, async () => {
      const raw = await settled(direct.callTool({ name: 'no_such_tool' }))
      const got = await settled(proxied.callTool({ name: 'no_such_tool' }))
      assert.ok(raw.error && got.error)
      assert.equal(got.error.code, raw.error.code)
      assert.equal(got.error.message, raw.error.message)
    })

    test('the tool list changing reaches the client (on 2026-07-28 through subscriptions/listen)', TIMEOUT, async () => {
      await proxied.callTool({ name: 'add_tool' })
      for (let i = 0; i < 200 && changed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
      assert.ok(changed > 0, 'no list change reached the client')
    })
  })
}

describe('proxy, mixed SDK majors', { skip: skipV2 }, () => {
  test('SDK v2 client (auto) and SDK 1.x server settle on 2025-11-25; results converted', TIMEOUT, async (t) => {
    const [direct, proxied] = await Promise.all([connectV2(v1Server, 'auto'), connectV2(viaProxy(tempDir(t), v1Server), 'auto')])
    t.after(() => Promise.all([direct.close(), proxied.close()]))
    assert.equal(proxied.getNegotiatedProtocolVersion(), LEGACY)
    for (const tool of ['png_image', 'pdf_resource', 'parquet_blob']) {
      const raw = await direct.callTool({ name: tool })
      assert.deepEqual(withSavedBytes(await proxied.callTool({ name: tool })), withSavedBytes(await expected(raw, tempDir(t))), tool)
    }
  })

  test('SDK v2 client pinned to 2026-07-28 and SDK 1.x server: no common era, the same failure as without the proxy', TIMEOUT, async (t) => {
    const raw = await settled(connectV2(v1Server, { pin: MODERN }))
    const got = await settled(connectV2(viaProxy(tempDir(t), v1Server), { pin: MODERN }))
    assert.ok(raw.error && got.error, 'a pinned client connected to a 2025-only server')
    assert.equal(got.error.code, raw.error.code)
  })

  test('SDK 1.x client and SDK v2 server settle on 2025-11-25; results converted', TIMEOUT, async (t) => {
    const [direct, proxied] = await Promise.all([connectV1(v2Server), connectV1(viaProxy(tempDir(t), v2Server))])
    t.after(() => Promise.all([direct.close(), proxied.close()]))
    for (const tool of ['png_image', 'pdf_resource', 'parquet_blob', 'structured_array']) {
      const raw = await direct.callTool({ name: tool })
      assert.deepEqual(withSavedBytes(await proxied.callTool({ name: tool })), withSavedBytes(await expected(raw, tempDir(t))), tool)
    }
  })

  test('SDK 1.x client and a 2026-07-28-only SDK v2 server: the -32022 error reaches the client unchanged', TIMEOUT, async (t) => {
    const modernOnly = [...v2Server, '--modern-only']
    const raw = await settled(connectV1(modernOnly))
    const got = await settled(connectV1(viaProxy(tempDir(t), modernOnly)))
    assert.equal(raw.error?.code, -32022)
    assert.equal(got.error?.code, -32022)
    assert.equal(got.error.message, raw.error.message)
  })
})
