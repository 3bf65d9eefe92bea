// Results and parts as MCP 2026-07-28 and the SDKs' v2 types shape them, with fields no revision
// defines yet: convertToolResult(Sync) and toContent(Async) read what they know, never crash on the
// rest, and nothing they do not read reaches the model. structuredContent may be any JSON value.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, tempDir, makePng, snapshot } from './fixtures/index.mjs'

const { convertToolResult, convertToolResultSync, toContent, toContentAsync } = loadBinding()

const SECRET = 'NOT-FOR-THE-MODEL'
const png = makePng(3, 3).toString('base64')
const meta = { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' }, 'io.example/x': SECRET }

/** The same parts twice: as MCP 2025-11-25 writes them, and with `_meta` and fields of a later revision. */
const plainParts = [
  { type: 'text', text: 'hello' },
  { type: 'image', data: png, mimeType: 'image/png' },
  { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# notes' } },
  { type: 'resource_link', uri: 'file:///big.bin', name: 'big.bin', mimeType: 'application/octet-stream' },
]
const futureParts = [
  { type: 'text', text: 'hello', _meta: meta, future: SECRET },
  { type: 'image', data: png, mimeType: 'image/png', _meta: meta, future: { data: SECRET } },
  { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# notes', _meta: meta, future: SECRET }, _meta: meta },
  { type: 'resource_link', uri: 'file:///big.bin', name: 'big.bin', mimeType: 'application/octet-stream', title: 'Big', icons: [{ src: SECRET }], _meta: meta },
]
const plain = { content: plainParts }
const future = { content: futureParts, resultType: 'complete', _meta: meta, futureField: { text: SECRET, data: png }, inputRequests: SECRET }

test('a result with fields of a later revision converts as the same result without them, and none reaches the model', async (t) => {
  const before = snapshot(future)
  const options = { outputDir: tempDir(t), deferMedia: false }
  const expected = await convertToolResult(plain, options)
  for (const got of [await convertToolResult(future, options), convertToolResultSync(future, options)]) {
    assert.deepEqual(got, expected)
    assert.ok(!JSON.stringify(got).includes(SECRET))
  }
  assert.deepEqual(snapshot(future), before, 'the input was modified')
})

test('each part with fields of a later revision converts as the part without them (toContent, toContentAsync)', async (t) => {
  const options = { outputDir: tempDir(t) }
  for (let i = 0; i < plainParts.length; i++) {
    const expected = toContent(plainParts[i], options)
    assert.deepEqual(toContent(futureParts[i], options), expected, futureParts[i].type)
    assert.deepEqual(await toContentAsync(futureParts[i], options), expected, futureParts[i].type)
  }
})

test('a content block of a type no revision defines yet becomes a note; the rest of the result is kept', async () => {
  const result = {
    content: [
      { type: 'tool_use', id: SECRET, input: { secret: SECRET } },
      { type: 'text', text: 'after' },
    ],
    resultType: 'complete',
  }
  const got = await convertToolResult(result)
  assert.deepEqual(got.content, [
    { type: 'text', text: '[Unsupported content part of type "tool_use"]' },
    { type: 'text', text: 'after' },
  ])
  assert.deepEqual(toContent(result.content[0]), got.content[0])
})

test('structuredContent of any JSON value is kept and given to the model as JSON text', async () => {
  for (const value of ['a string', 42, 0, true, false, [1, 'two', { three: 3 }], [[]], { a: [1] }]) {
    for (const got of [
      await convertToolResult({ content: [], structuredContent: value, resultType: 'complete' }),
      convertToolResultSync({ content: [], structuredContent: value }),
    ]) {
      assert.deepEqual(got.structuredContent, value, JSON.stringify(value))
      assert.deepEqual(got.content, [{ type: 'text', text: JSON.stringify(value) }], JSON.stringify(value))
      assert.deepEqual(got.sources, [0])
    }
  }
  // null, as absent: nothing for the model.
  const none = await convertToolResult({ content: [{ type: 'text', text: 'x' }], structuredContent: null })
  assert.deepEqual(none.content, [{ type: 'text', text: 'x' }])
})
