// The package entry answers plain text parts in JS; the native binding
// answers everything. For every text-part shape both must agree exactly,
// including which inputs throw and with which code.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { repoRoot } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const entry = require(repoRoot)
const native = require(path.join(repoRoot, 'index.js'))

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-fast-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))

const parts = [
  { type: 'text', text: 'hello' },
  { type: 'text', text: '' },
  { type: 'text', text: 'caf\u00e9 \u{1F600} \u0000 end' },
  { type: 'text', text: 'x'.repeat(100_000) },
  { type: 'text', text: 'a', annotations: { audience: ['user'] } },
  { type: 'text', text: 'a', annotations: { audience: ['assistant'] } },
  { type: 'text', text: 'a', annotations: { audience: ['user', 'assistant'] } },
  { type: 'text', text: 'a', annotations: { audience: [] } },
  { type: 'text', text: 'a', annotations: { audience: 'assistant' } },
  { type: 'text', text: 'a', annotations: { audience: [5, 'assistant'] } },
  { type: 'text', text: 'a', annotations: { audience: null } },
  { type: 'text', text: 'a', annotations: { priority: 1 } },
  { type: 'text', text: 'a', annotations: null },
  { type: 'text', text: 'a', annotations: 'user' },
  { type: 'text', text: 'a', extra: { nested: true } },
  { type: 'text' },
  { type: 'text', text: 5 },
  { type: 'text', text: null },
]

const optionSets = [
  undefined,
  null,
  {},
  { provider: 'default' },
  { provider: 'nope' },
  { provider: 5 },
  { outputDir: dir },
  { outputDir: 5 },
  { store: new entry.ToolOutputStore(dir) },
  { store: {} },
  'default',
]

function outcome(fn) {
  try {
    return { value: fn() }
  } catch (error) {
    return { code: error.code, message: error.message }
  }
}

async function outcomeAsync(fn) {
  try {
    return { value: await fn() }
  } catch (error) {
    return { code: error.code, message: error.message }
  }
}

test('text parts: the entry and the native binding agree (sync and async)', async () => {
  for (const part of parts) {
    for (const options of optionSets) {
      const label = `${JSON.stringify(part).slice(0, 80)} with ${JSON.stringify(options)}`
      const expected = outcome(() => native.toContent(part, options))
      assert.deepEqual(outcome(() => entry.toContent(part, options)), expected, label)
      const expectedAsync = await outcomeAsync(() => native.toContentAsync(part, options))
      assert.deepEqual(await outcomeAsync(() => entry.toContentAsync(part, options)), expectedAsync, label)
    }
  }
})

test('the fast path returns a new object, not the input', () => {
  const part = { type: 'text', text: 'hello' }
  const out = entry.toContent(part)
  assert.notEqual(out, part)
  assert.deepEqual(out, { type: 'text', text: 'hello' })
  assert.deepEqual(Object.keys(out), ['type', 'text'])
})

test('the entry exports exactly the native API', () => {
  assert.deepEqual(Object.keys(entry).sort(), ['ToolOutputStore', 'classify', 'isTextualMediaType', 'isUtf8', 'toContent', 'toContentAsync'])
  assert.equal(entry.ToolOutputStore, native.ToolOutputStore)
})
