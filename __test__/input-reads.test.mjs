// The binding reads each field of a part once: what it validates is what it
// sends on. A getter that answers differently on a second read must not get
// its second answer into the result. Options are read again on every call,
// though the entry keeps the last settings native code accepted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadBinding, corpus } from './fixtures/index.mjs'

const { toContent, toContentAsync, ToolOutputStore } = loadBinding()
const png = corpus('fixture.png').toString('base64')

function countingPart() {
  const reads = { data: 0 }
  const part = {
    type: 'image',
    mimeType: 'image/png',
    get data() {
      reads.data += 1
      return reads.data === 1 ? png : 'AAAA'
    },
  }
  return { part, reads }
}

test('sync: data is read once and the same canonical string is sent on', () => {
  const { part, reads } = countingPart()
  const out = toContent(part)
  assert.equal(out.type, 'file')
  assert.equal(out.data, png)
  assert.equal(reads.data, 1)
})

test('async: data is read once, on the calling thread', async () => {
  const { part, reads } = countingPart()
  const pending = toContentAsync(part)
  assert.equal(reads.data, 1)
  const out = await pending
  assert.equal(out.data, png)
  assert.equal(reads.data, 1)
})

test('a text part: type and text are read once each, with or without annotations', () => {
  for (const annotations of [undefined, { audience: ['assistant'] }]) {
    const reads = { type: 0, text: 0 }
    const part = {
      get type() {
        reads.type += 1
        return reads.type === 1 ? 'text' : 'image'
      },
      get text() {
        reads.text += 1
        return reads.text === 1 ? 'first' : 'second'
      },
    }
    if (annotations !== undefined) part.annotations = annotations
    assert.deepEqual(toContent(part), { type: 'text', text: 'first' })
    assert.deepEqual(reads, { type: 1, text: 1 })
  }
})

test('options are read on every call: one options object changed between calls, and two stores in turn', (t) => {
  const folders = [mkdtempSync(path.join(os.tmpdir(), 'mcp-content-reads-a-')), mkdtempSync(path.join(os.tmpdir(), 'mcp-content-reads-b-'))]
  t.after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))
  const text = 'line of text\n'.repeat(200)
  const options = { outputDir: folders[0] }
  assert.deepEqual(toContent({ type: 'text', text }, options), { type: 'text', text })
  options.maxTextTokens = 100
  const cut = toContent({ type: 'text', text }, options)
  assert.ok(cut.text.length < text.length && cut.text.includes(folders[0]), cut.text)
  options.provider = 'no-such-provider'
  assert.throws(() => toContent({ type: 'text', text: 'x' }, options), { code: 'INVALID_ARGUMENT' })
  delete options.provider
  delete options.maxTextTokens
  assert.deepEqual(toContent({ type: 'text', text }, options), { type: 'text', text })

  const stores = folders.map((folder) => new ToolOutputStore(folder))
  const blob = {
    type: 'resource',
    resource: { uri: 'file:///x.bin', mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2, 3]).toString('base64') },
  }
  for (const i of [0, 1, 0, 1]) {
    const out = toContent(blob, { store: stores[i] })
    assert.ok(out.text.includes(folders[i]) && !out.text.includes(folders[1 - i]), out.text)
  }
})
