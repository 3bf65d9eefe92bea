// mcp-content proxy with the Python SDK (`mcp` from PyPI, pinned in fixtures/python/requirements.txt,
// installed by the test into a cached venv: fixtures/mcp-sdks.mjs): its Client in mode 'auto'
// (server/discover, falling back to initialize), pinned to 2026-07-28, and 'legacy'; its server
// (MCPServer over stdio, both eras); each with the other language's SDK v2 too. Results through the
// proxy are compared with the library's conversion of the direct answer, read by the same client.
// Skipped, with the reason printed, only where no Python 3.10 or later is on PATH.
import { before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { loadBinding, repoRoot, testDir, tempDir, makePng, cliPath as cli, withSavedBytes } from './fixtures/index.mjs'
import { findPython, pythonMcp, pythonDir, sdkV2, childEnv } from './fixtures/mcp-sdks.mjs'

const require = createRequire(import.meta.url)
const { convertToolResult } = loadBinding()
const { toMcpResult } = require('../cli/mcp-shape.js')

const base = findPython()
if (base.skip) console.log(`proxy-python.test: skipped: ${base.skip}`)
const skipPython = base.skip ?? false
const v2 = sdkV2()
if (v2.skip) console.log(`proxy-python.test: the cases with SDK v2 skipped: ${v2.skip}`)
const skipV2 = skipPython || (v2.skip ?? false)

const TIMEOUT = { timeout: 60_000 }
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const PROVIDER = 'openai-chat' // images are saved and noted, so a converted result shows
const v2Server = [process.execPath, path.join(testDir, 'fixtures', 'mcp-v2-server.mjs')]
let python
let pngFile

before(
  () => {
    if (skipPython) return
    python = pythonMcp(base).python
    pngFile = path.join(tempDir(null, 'mcp-content-python-'), 'picture.png')
    fs.writeFileSync(pngFile, makePng(2, 2))
  },
  { timeout: 600_000 },
)

const pyServer = () => [python, path.join(pythonDir, 'mcp_server.py'), pngFile]
const viaProxy = (dir, server) => [process.execPath, cli, 'proxy', '--provider', PROVIDER, '--output-dir', dir, '--', ...server]

/** Runs the Python client (fixtures/python/mcp_client.py) against `server`; its lines, parsed. */
function pyClient(mode, tools, server) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.join(pythonDir, 'mcp_client.py'), mode, tools.join(','), '--', ...server], { env: childEnv(), cwd: repoRoot })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`mcp_client.py exited with ${code}:\n${out}${err}`))
      const lines = out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
      const results = Object.fromEntries(lines.filter((l) => l.tool).map((l) => [l.tool, l]))
      resolve({ version: lines[0].version, results, elicitations: lines.at(-1).elicitations })
    })
  })
}

/** The proxied `got` is what the proxy must make of `raw`, both read by the same client. */
async function assertConverted(got, raw, dir, tool) {
  assert.equal(got.error, undefined, `${tool}: ${got.error}`)
  assert.equal(raw.error, undefined, `${tool} (direct): ${raw.error}`)
  const expected = toMcpResult(await convertToolResult(raw.result, { provider: PROVIDER, outputDir: dir, deferMedia: false }), raw.result)
  assert.deepEqual(withSavedBytes(got.result), withSavedBytes(expected), tool)
}

const TOOLS = ['png', 'ask', 'structured_array']

for (const [mode, version] of [
  ['auto', MODERN],
  [MODERN, MODERN],
  ['legacy', LEGACY],
]) {
  describe(`proxy, Python client (mode ${mode}) and Python server`, { skip: skipPython }, () => {
    test(`${version}: every result converted and readable by the client`, TIMEOUT, async (t) => {
      const [direct, proxied] = await Promise.all([pyClient(mode, TOOLS, pyServer()), pyClient(mode, TOOLS, viaProxy(tempDir(t), pyServer()))])
      assert.equal(direct.version, version)
      assert.equal(proxied.version, version)
      const png = proxied.results.png.result
      assert.equal(png?.resultType, 'complete', JSON.stringify(proxied.results.png))
      assert.match(png.content[1].text, /image\/png is not accepted inside a tool result; saved to /)
      // The server asked (input_required on 2026-07-28, elicitation/create before) and the client answered.
      assert.equal(proxied.elicitations, 1)
      assert.equal(proxied.results.ask.result?.content[0].text, 'confirmed: {"yes":true}')
      const ref = tempDir(t)
      for (const tool of TOOLS) await assertConverted(proxied.results[tool], direct.results[tool], ref, tool)
    })
  })
}

for (const mode of ['auto', MODERN]) {
  describe(`proxy, Python client (mode ${mode}) and SDK v2 server`, { skip: skipV2 }, () => {
    test('2026-07-28: results converted, the server asks through input_required', TIMEOUT, async (t) => {
      const tools = ['png_image', 'pdf_resource', 'ask', 'structured_array']
      const [direct, proxied] = await Promise.all([pyClient(mode, tools, v2Server), pyClient(mode, tools, viaProxy(tempDir(t), v2Server))])
      assert.equal(proxied.version, MODERN)
      assert.equal(proxied.elicitations, 1)
      const ref = tempDir(t)
      for (const tool of tools) await assertConverted(proxied.results[tool], direct.results[tool], ref, tool)
    })
  })
}

for (const mode of ['auto', { pin: MODERN }]) {
  describe(`proxy, SDK v2 client (${typeof mode === 'string' ? mode : `pinned to ${mode.pin}`}) and Python server`, { skip: skipV2 }, () => {
    test('2026-07-28: results converted, the server asks through input_required', TIMEOUT, async (t) => {
      const connect = async (server) => {
        const client = new v2.Client(
          { name: 'mcp-content-python-test', version: '0.0.0' },
          { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
        )
        client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { yes: true } }))
        await client.connect(new v2.StdioClientTransport({ command: server[0], args: server.slice(1), env: childEnv(), stderr: 'pipe', cwd: repoRoot }))
        t.after(() => client.close())
        return client
      }
      const [direct, proxied] = await Promise.all([connect(pyServer()), connect(viaProxy(tempDir(t), pyServer()))])
      assert.equal(proxied.getNegotiatedProtocolVersion(), MODERN)
      const ref = tempDir(t)
      for (const tool of TOOLS) {
        const raw = await direct.callTool({ name: tool })
        const got = await proxied.callTool({ name: tool })
        await assertConverted({ result: got }, { result: raw }, ref, tool)
      }
    })
  })
}
