// Runs part of the node:test suite against the WebAssembly build
// (`npm run build:wasm` writes lib/binding/mcp-content.wasm32-wasi.wasm), forced with
// NAPI_RS_FORCE_WASI=error: the generated loader then loads the wasm binary
// or fails, never the native addon. The files are those about conversion,
// classification and the spill store; the ones that start MCP servers, SDKs
// or other runtimes exercise the same core and are left to the native runs.
// Exits non-zero when the wasm binary is missing, a test fails, or none ran.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const testDir = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(testDir, '..')
const wasm = path.join(repoRoot, 'lib', 'binding', 'mcp-content.wasm32-wasi.wasm')

// corpus and reference (about 30 s and 50 s here) compare the same core on the
// same inputs as the native runs; hostile-options, large-input and soak test
// what the wasm build does not offer (docs/platforms.md, "WebAssembly fallback").
const FILES = [
  'classify',
  'content',
  'store',
  'store-s3',
  'text-cap',
  'tool-result',
  'result-layout',
  'bad-input',
  'png-repair',
  'limits',
  'profiles',
  'entry',
  'image-fit',
  'input-reads',
  'memory-safety',
  'wire-anthropic',
  'wire-openai',
  'wire-gemini',
  'wire-bedrock',
  'wire-ai-sdk',
  'adapters',
  'real-formats',
  'legacy-text',
  'decoder-agreement',
  'future-fields',
  'resource-links',
  'request-budget',
  'read-saved-output',
  'wasm-loader',
]

if (!fs.existsSync(wasm)) {
  console.error(`run-wasm: ${path.relative(repoRoot, wasm)} is missing (run npm run build:wasm)`)
  process.exit(1)
}

const files = FILES.map((name) => `__test__/${name}.test.mjs`)
console.log(`run-wasm: node ${process.version}, NAPI_RS_FORCE_WASI=error, ${files.length} files`)
// TAP on every Node: from Node 23 the default reporter is spec, without `# pass N`.
const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', ...files], {
  cwd: repoRoot,
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
  // MCP_CONTENT_RUNTIME: tests that run once per suite (the long sessions) ran in npm test.
  env: { ...process.env, NAPI_RS_FORCE_WASI: 'error', NODE_NO_WARNINGS: '1', MCP_CONTENT_RUNTIME: 'wasm' },
})
process.stdout.write(r.stdout ?? '')
process.stderr.write(r.stderr ?? '')
const passed = Number(/^# pass (\d+)$/m.exec(r.stdout ?? '')?.[1] ?? 0)
if (r.status !== 0) process.exit(r.status ?? 1)
if (passed === 0) {
  console.error('run-wasm: no test ran')
  process.exit(1)
}
