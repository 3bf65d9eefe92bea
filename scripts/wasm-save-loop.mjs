// Saves blobs in a loop through the package entry on the wasm binary: the
// loop that corrupted the JS heap on Node 20 and 22 before the WASI loaders
// were patched (scripts/patch-wasi-loaders.mjs; docs/platforms.md, "WebAssembly
// fallback"). Writes only under a temp folder, removed at the end.
//
//   NAPI_RS_FORCE_WASI=error node scripts/wasm-save-loop.mjs save 200
//   NAPI_RS_FORCE_WASI=error node scripts/wasm-save-loop.mjs tocontent 60
//
// `save`: store.save of a fresh 1 MiB Buffer per round. `tocontent`:
// toContent of a 5,000,000-byte PNG as base64 (over the default profile's
// 3,932,160-byte image limit; with fitImages: false it is spilled to the
// store). Prints `ok`
// after the last round; a crash kills the process (SIGSEGV, SIGTRAP).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import * as fx from '../benchmark/fixtures.mjs'

const require = createRequire(import.meta.url)
const mode = process.argv[2] ?? 'save'
const count = Number(process.argv[3] ?? 200)
if (mode !== 'save' && mode !== 'tocontent') throw new Error(`unknown mode ${mode}: save or tocontent`)
const mc = require('../lib/index.js')
const target = require('../lib/binding/index.js').__napiBindingTarget
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-wasm-loop-'))
const store = new mc.ToolOutputStore(dir)
const png = mode === 'tocontent' ? fx.png(5_000_000).toString('base64') : undefined
console.log(`node ${process.version} target=${target} mode=${mode} count=${count}`)
try {
  for (let i = 0; i < count; i++) {
    if (mode === 'save') {
      store.save(Buffer.alloc(1024 * 1024, i & 0xff), { mediaType: 'application/octet-stream' })
    } else {
      const out = mc.toContent({ type: 'image', data: png, mimeType: 'image/png' }, { store, fitImages: false })
      if (out.type !== 'text' || !/saved to /.test(out.text)) throw new Error(`round ${i}: not spilled: ${JSON.stringify(out).slice(0, 200)}`)
    }
    if (i % 10 === 0) console.log(`${i} rss=${(process.memoryUsage().rss / 1048576) | 0}MiB`)
  }
  console.log('ok')
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
