// A short soak (npm run soak runs the long one): mixed parts, sync and async,
// on the main thread and 2 workers at once; memory flat after warm-up, no file
// descriptor or temporary file left behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { repoRoot, isBun } from './fixtures/index.mjs'

test('soak: 3,000 mixed parts on 3 threads leak nothing', () => {
  const args = [...(isBun ? [] : ['--expose-gc']), path.join(repoRoot, 'benchmark', 'soak.mjs'), '--parts', '3000', '--workers', '2', '--json']
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 })
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`)
  const summary = JSON.parse(run.stdout.trim().split('\n').pop())
  assert.deepEqual(summary.failures, [])
  assert.equal(summary.parts, 3000)
  assert.equal(summary.leftoverTempFiles, 0)
  if (summary.fdsBefore !== null) assert.equal(summary.fdsAfter, summary.fdsBefore)
})
