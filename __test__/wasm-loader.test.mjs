// The WebAssembly fallback's pool Workers (lib/binding/wasi-worker.mjs) load
// the runtime's ES modules through import(), never first through require():
// Node 20 aborts the whole process when a Worker is terminated inside a
// require(esm), and the loader's 'exit' teardown terminates Workers that may
// still be booting (scripts/patch-wasi-loaders.mjs). Node's module log
// (NODE_DEBUG=esm) names each require(esm) and whether the module was there
// already. Meaningful under `npm run test:wasm`; the native addon has no
// such Workers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { loadBinding, tempDir, testDir } from './fixtures/index.mjs'

const child = path.join(testDir, 'fixtures', 'wasm-pool-child.mjs')
const target = loadBinding().bindingTarget
const runtime = typeof globalThis.Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`

const notWasm = target !== 'wasm32-wasi' && `${runtime}: the ${target} binding is loaded, which starts no wasm pool Workers (npm run test:wasm runs this)`
// bun test does not print a skip's reason.
if (notWasm) console.log(`skipped: ${notWasm}`)

test('wasm pool Workers: every ES module they require was imported before, so a termination cannot abort the process', { skip: notWasm }, (t) => {
  const dir = tempDir(t)
  const r = spawnSync(process.execPath, [child, dir], { encoding: 'utf8', timeout: 90_000, maxBuffer: 64 * 1024 * 1024 })
  assert.equal(r.status, 0, `child exited with ${r.status} ${r.signal ?? ''}\n${String(r.stderr).slice(-2000)}`)
  assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').at(-1)), { bindingTarget: 'wasm32-wasi', type: 'file' })
  // "ESM <pid>: importSyncForRequire <parent> -> <module> <job>": the job is
  // `undefined` when the require loads the module itself.
  const requires = [...r.stderr.matchAll(/importSyncForRequire (\S+) -> (\S+) (\S+)/g)]
  if (requires.length === 0) {
    const reason = `${runtime} logs no require(esm) under NODE_DEBUG=esm`
    console.log(`skipped: ${reason}`)
    t.skip(reason)
    return
  }
  const loadedByRequire = requires.filter((m) => m[3] === 'undefined').map((m) => `${m[1]} -> ${m[2]}`)
  assert.deepEqual(loadedByRequire, [], 'ES modules a pool Worker loaded through require()')
})
