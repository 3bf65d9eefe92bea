// The package entry (mcp-content.js) answers plain text parts in JS and fills
// in file data the native binding leaves to it. Neither may change an answer:
// for text parts entry and binding must agree exactly (errors included), and
// for media parts the entry's file data must be the input itself or its
// canonical encoding.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { repoRoot, corpus } from './fixtures/index.mjs'

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
  // Parts without binary data, answered from native notes.
  { type: 'resource_link', uri: 'file:///a.rs', name: 'a.rs', mimeType: 'text/x-rust', size: 12, description: 'main' },
  { type: 'resource_link', uri: 'file:///a.rs', name: 'a.rs', size: 0.5 },
  { type: 'resource_link', uri: 'file:///a.rs', size: '12' },
  { type: 'resource_link' },
  { type: 'resource_link', uri: 'file:///a.rs', name: 7 },
  { type: 'resource_link', uri: 'file:///a.rs', annotations: { audience: ['user'] } },
  { type: 'resource', resource: { uri: 'file:///R.md', mimeType: 'text/markdown', text: '# R' } },
  { type: 'resource', resource: { uri: 'file:///R.md', text: 'x'.repeat(100_000) } },
  { type: 'resource', resource: { text: 'no uri', mimeType: 'Text/Plain; charset=utf-8' } },
  { type: 'resource', resource: { uri: 'file:///R.md', text: 5 } },
  { type: 'resource', resource: { uri: 'file:///R.md', text: 5 }, annotations: { audience: ['user'] } },
  { type: 'resource', resource: { uri: 'file:///R.md', text: '# R' }, annotations: { audience: ['user'] } },
  { type: 'resource', resource: { uri: 5, text: 'x' } },
  { type: 'resource', resource: null },
  { type: 'resource' },
  { type: 'unknown_kind', data: 'x' },
  { type: 5 },
  {},
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

test('parts without binary data: the entry and the native binding agree (sync and async)', async () => {
  for (const part of parts) {
    for (const options of optionSets) {
      const label = `${JSON.stringify(part).slice(0, 80)} with ${JSON.stringify(options)}`
      const expected = outcome(() => native.convertContent(part, options))
      assert.deepEqual(outcome(() => entry.toContent(part, options)), expected, label)
      // These parts have no async native path: the sync answer, as a promise.
      const expectedAsync = await outcomeAsync(async () => native.convertContent(part, options))
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

test('media parts: the entry fills in exactly the data native code left out', async () => {
  const png = corpus('fixture.png')
  const b64 = png.toString('base64')
  const urlSafe = b64.replace(/\+/g, '-').replace(/\//g, '_')
  const offsetView = new Uint8Array(Buffer.concat([Buffer.from('xx'), png, Buffer.from('yy')]).buffer, 2, png.length)
  const cases = [
    { type: 'image', data: b64, mimeType: 'image/png' },
    { type: 'image', data: new Uint8Array(png), mimeType: 'image/png' },
    { type: 'image', data: offsetView, mimeType: 'image/png' },
    { type: 'image', data: urlSafe, mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'file:///a.png', mimeType: 'image/png', blob: b64 } },
    { type: 'media', data: png, mimeType: 'image/png', uri: 'file:///b.png' },
  ]
  for (const part of cases) {
    for (const [out, raw] of [
      [entry.toContent(part), native.convertContent(part)],
      [await entry.toContentAsync(part), native.convertContent(part)],
    ]) {
      assert.equal(out.type, 'file')
      const { data, ...rest } = out
      const { data: rawData, ...rawRest } = raw
      assert.deepEqual(rest, rawRest)
      assert.equal(data, rawData ?? b64)
      assert.ok(Buffer.from(data, 'base64').equals(png))
    }
  }
  // A canonical input string is handed back itself, not a copy of it.
  assert.equal(entry.toContent(cases[0]).data, b64)
})

test('the entry exports the native API plus toContent and toContentAsync', () => {
  assert.deepEqual(Object.keys(entry).sort(), [...Object.keys(native), 'toContent', 'toContentAsync'].sort())
  assert.equal(entry.ToolOutputStore, native.ToolOutputStore)
})

test('toContentAsync reports bad arguments as a rejection, never a throw', async () => {
  for (const [part, options] of [[5, undefined], [null, undefined], [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }, { provider: 'nope' }]]) {
    let promise
    assert.doesNotThrow(() => {
      promise = entry.toContentAsync(part, options)
    })
    await assert.rejects(promise, (error) => error.code === 'INVALID_ARGUMENT')
  }
})

test('small parts that need a disk write still go to the thread pool and are saved', async () => {
  const bytes = Buffer.from('PAR1\u0000\u0001\u0002PAR1')
  const part = { type: 'resource', resource: { uri: 'file:///d.parquet', mimeType: 'application/vnd.apache.parquet', blob: bytes.toString('base64') } }
  assert.equal(native.convertMediaWithoutDisk('resource', part.resource.blob, part.resource.mimeType, part.resource.uri, { outputDir: dir }), undefined)
  const out = await entry.toContentAsync(part, { outputDir: dir })
  const saved = /saved to (.+)\]$/.exec(out.text)?.[1]
  assert.ok(saved, out.text)
  assert.ok(fs.readFileSync(saved).equals(bytes))
})

test('a Latin-1 read (the entry vouches for one-byte strings) answers as the UTF-8 read', () => {
  const png = corpus('fixture.png').toString('base64')
  const strings = [png, png.replace(/=+$/, ''), `${png.slice(0, 40)}\u00e9${png.slice(41)}`, `${png.slice(0, 40)} ${png.slice(41)}`, '']
  for (const s of strings) {
    const viaUtf8 = native.convertMedia('image', s, 'image/png', null, { outputDir: dir }, false)
    const viaLatin1 = native.convertMedia('image', s, 'image/png', null, { outputDir: dir }, true)
    assert.deepEqual(viaLatin1, viaUtf8, s.slice(0, 50))
  }
  // Above U+00FF the entry never vouches: U+0141 would fold into a valid 'A'.
  const folded = `${png.slice(0, 40)}\u0141${png.slice(41)}`
  assert.equal(entry.toContent({ type: 'image', data: folded, mimeType: 'image/png' }).type, 'text')
})
