// Inputs near the limits of a JS runtime: a 1 GiB Buffer and 512 MB base64
// strings (V8's longest string is ~536.9 million characters). Each runs in a
// child process that reports the peak memory the call added, checked
// against the bounds docs/memory-safety.md states:
// - raw bytes, sync: read in place, at most SLACK more;
// - raw bytes, async: one copy (the worker thread may not read the caller's
//   memory), plus SLACK;
// - a base64 string: one copy of it (strings are copied into native memory),
//   plus SLACK; a text blob's bytes are also decoded whole to detect their
//   encoding (0.75 of the string).
// Spills go to /dev/shm when there is one (RAM; a slow disk would make this
// the longest test), else the OS temp folder.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { bindingPath } from './fixtures/index.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const child = path.join(here, 'fixtures', 'large-input-child.mjs')
const MiB = 1024 * 1024
const SLACK = 32 * MiB
const linux = process.platform === 'linux'
const spillRoot = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir()

function run(t, which, how) {
  const dir = fs.mkdtempSync(path.join(spillRoot, 'mcp-content-large-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const runtimeFlags = process.versions.bun ? [] : ['--expose-gc']
  const r = spawnSync(process.execPath, [...runtimeFlags, child, which, how, dir], {
    encoding: 'utf8',
    env: { ...process.env, MCP_CONTENT_MODULE: path.resolve(bindingPath) },
    maxBuffer: 16 * MiB,
  })
  assert.equal(r.status, 0, `${which} ${how}: exit ${r.status} ${r.signal ?? ''}\n${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1))
}

const cases = [
  { which: 'buffer-1gib', how: 'sync', bound: (n) => SLACK, saved: 1024 ** 3 },
  { which: 'buffer-1gib', how: 'async', bound: (n) => n + SLACK, saved: 1024 ** 3 },
  { which: 'base64-512mb-image', how: 'sync', bound: (n) => n + SLACK, saved: 384_000_000 },
  { which: 'base64-512mb-image', how: 'async', bound: (n) => n + SLACK, saved: 384_000_000 },
  { which: 'base64-512mb-text', how: 'sync', bound: (n) => n + 0.75 * n + SLACK, saved: 384_000_000 },
]

describe('large inputs: bounded extra memory, complete spills', { skip: !linux && 'peak memory is read from /proc (Linux only)' }, () => {
  for (const { which, how, bound, saved } of cases) {
    test(`${which}, ${how}`, (t) => {
      const r = run(t, which, how)
      const limit = bound(r.inputBytes)
      t.diagnostic(`${which} ${how}: peak growth ${(r.peakGrowth / MiB).toFixed(1)} MiB, bound ${(limit / MiB).toFixed(1)} MiB`)
      assert.ok(r.peakGrowth <= limit, `peak growth ${r.peakGrowth} > ${limit}`)
      assert.deepEqual(r.saved, [saved], 'one complete file')
      assert.match(r.text, /saved to [^\n]*tool_[^\n]*\]$/)
    })
  }
})
