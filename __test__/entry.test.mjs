// The package entry (lib/parts.js) reads every part and answers plain text
// parts itself; native code converts media. Sync and async must agree, a
// file part's data is the canonical encoding of the bytes checked, and the
// entry exports the documented API and nothing else.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { repoRoot, corpus } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const entry = require(repoRoot)
const native = require(path.join(repoRoot, 'lib', 'binding', 'index.js'))

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-fast-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))

const parts = [
  { type: 'text', text: 'hello' },
  { type: 'text', text: '' },
  { type: 'text', text: 'caf\u00e9 \u{1F600} \u0000 end' },
  { type: 'text', text: 'x'.repeat(40_000) }, // within the default text cap
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
  { type: 'resource', resource: { uri: 'file:///R.md', text: 'x'.repeat(40_000) } },
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

/** What a conversion gave: the value, or the coded error (no message: wording may differ). */
function sameOutcome(a, b, label) {
  assert.deepEqual(a, b, label)
  if (a.code === undefined) return
  assert.equal(typeof a.code, 'string', `${label}: an error without a code: ${a.message}`)
}

test('parts without binary data: sync and async give the same answer or the same coded error', async () => {
  for (const part of parts) {
    for (const options of optionSets) {
      const label = `${JSON.stringify(part).slice(0, 80)} with ${JSON.stringify(options)}`
      const sync = outcome(() => entry.toContent(part, options))
      const async = await outcomeAsync(() => entry.toContentAsync(part, options))
      sameOutcome(sync, async, label)
    }
  }
})

test('parts without binary data: the answers', () => {
  const cases = [
    [
      { type: 'text', text: 'hello' },
      { type: 'text', text: 'hello' },
    ],
    [{ type: 'text' }, { type: 'text', text: '' }],
    [{ type: 'text', text: 'a', annotations: { audience: ['user'] } }, null],
    [{ type: 'text', text: 'a', annotations: { audience: [] } }, null],
    [
      { type: 'text', text: 'a', annotations: { audience: [5, 'assistant'] } },
      { type: 'text', text: 'a' },
    ],
    [
      { type: 'text', text: 'a', annotations: { audience: 'assistant' } },
      { type: 'text', text: 'a' },
    ],
    [
      { type: 'resource_link', uri: 'file:///a.rs', name: 'a.rs', mimeType: 'text/x-rust', size: 12, description: 'main' },
      { type: 'text', text: '[Resource link file:///a.rs (a.rs, text/x-rust, 12 bytes)]\nmain' },
    ],
    [
      { type: 'resource_link', uri: 'file:///a.rs', name: 'a.rs', size: 0.5 },
      { type: 'text', text: '[Resource link file:///a.rs (a.rs)]' },
    ],
    [
      { type: 'resource_link', uri: 'file:///a', size: 1e300 },
      { type: 'text', text: '[Resource link file:///a]' },
    ],
    [{ type: 'resource_link' }, { type: 'text', text: '[Resource link ]' }],
    [
      { type: 'resource', resource: { uri: 'file:///R.md', mimeType: 'text/markdown', text: '# R' } },
      { type: 'text', text: '[Resource file:///R.md (text/markdown)]\n# R' },
    ],
    // The label keeps the parameters that say how the text reads.
    [
      { type: 'resource', resource: { text: 'no uri', mimeType: 'Text/Plain; charset=utf-8' } },
      { type: 'text', text: '[Media (text/plain; charset=utf-8)]\nno uri' },
    ],
    [
      { type: 'resource', resource: { text: 'x', mimeType: 'text/plain; name=a.txt' } },
      { type: 'text', text: '[Media (text/plain)]\nx' },
    ],
    [
      { type: 'resource', resource: null },
      { type: 'text', text: '[Resource part without a `resource` object]' },
    ],
    [
      { type: 'unknown_kind', data: 'x' },
      { type: 'text', text: '[Unsupported content part of type "unknown_kind"]' },
    ],
    [{}, { type: 'text', text: '[Unsupported content part of type ""]' }],
  ]
  for (const [part, expected] of cases) assert.deepEqual(entry.toContent(part), expected, JSON.stringify(part))
  const invalid = [
    [{ type: 'text', text: 5 }, undefined],
    [{ type: 'resource', resource: { uri: 'file:///R.md', text: 5 } }, undefined],
    [{ type: 'resource_link', uri: 'file:///a.rs', name: 7 }, undefined],
    [{ type: 5 }, undefined],
    [{ type: 'text', text: 'a' }, 'default'],
    [{ type: 'text', text: 'a' }, { provider: 'nope' }],
    [{ type: 'text', text: 'a' }, { provider: 5 }],
    [{ type: 'text', text: 'a' }, { outputDir: 5 }],
    [{ type: 'text', text: 'a' }, { store: {} }],
  ]
  for (const [part, options] of invalid) {
    assert.throws(
      () => entry.toContent(part, options),
      (e) => e.code === 'INVALID_ARGUMENT',
      `${JSON.stringify(part)} ${JSON.stringify(options)}`,
    )
  }
})

test('the fast path returns a new object, not the input', () => {
  const part = { type: 'text', text: 'hello' }
  const out = entry.toContent(part)
  assert.notEqual(out, part)
  assert.deepEqual(out, { type: 'text', text: 'hello' })
  assert.deepEqual(Object.keys(out), ['type', 'text'])
})

test('media parts: a file part carries canonical base64 of the bytes checked', async () => {
  const png = corpus('fixture.png')
  const b64 = png.toString('base64')
  const urlSafe = b64.replace(/\+/g, '-').replace(/\//g, '_')
  const offsetView = new Uint8Array(Buffer.concat([Buffer.from('xx'), png, Buffer.from('yy')]).buffer, 2, png.length)
  const shared = new Uint8Array(new SharedArrayBuffer(png.length))
  shared.set(png)
  const cases = [
    [{ type: 'image', data: b64, mimeType: 'image/png' }, {}],
    [{ type: 'image', data: new Uint8Array(png), mimeType: 'image/png' }, {}],
    [{ type: 'image', data: offsetView, mimeType: 'image/png' }, {}],
    [{ type: 'image', data: shared, mimeType: 'image/png' }, {}],
    [{ type: 'image', data: urlSafe, mimeType: 'image/png' }, {}],
    [
      { type: 'resource', resource: { uri: 'file:///a.png', mimeType: 'image/png', blob: b64 } },
      { uri: 'file:///a.png', filename: 'a.png' },
    ],
    [
      { type: 'media', data: png, mimeType: 'image/png', uri: 'file:///b.png' },
      { uri: 'file:///b.png', filename: 'b.png' },
    ],
    // The file name is percent-decoded; one that would be unsafe is left out.
    [
      { type: 'media', data: png, mimeType: 'image/png', uri: 'file:///tmp/My%20report%20%C3%A9.pdf' },
      { uri: 'file:///tmp/My%20report%20%C3%A9.pdf', filename: 'My report é.pdf' },
    ],
    ...['file:///tmp/..%2Fx.png', 'file:///tmp/a%5Cb.png', 'file:///tmp/a%00.png', 'file:///tmp/a%1B.png', 'file:///tmp/a%zz.png', 'file:///tmp/a%C3.png'].map(
      (uri) => [{ type: 'media', data: png, mimeType: 'image/png', uri }, { uri }],
    ),
  ]
  for (const [part, extra] of cases) {
    const expected = { type: 'file', mediaType: 'image/png', data: b64, ...extra }
    assert.deepEqual(entry.toContent(part), expected)
    assert.deepEqual(await entry.toContentAsync(part), expected)
  }
})

test('the entry exports the documented API only', () => {
  assert.deepEqual(Object.keys(entry).sort(), [
    'AttachmentQueue',
    'ToolOutputStore',
    'bindingTarget',
    'classify',
    'convertToolResult',
    'convertToolResultSync',
    'estimateTokens',
    'isTextualMediaType',
    'isUtf8',
    'providers',
    'readSavedOutputTool',
    'repairHistory',
    'toAiSdkToolOutput',
    'toAnthropicContent',
    'toAnthropicToolResult',
    'toBedrockContent',
    'toBedrockToolResult',
    'toContent',
    'toContentAsync',
    'toGeminiFunctionResponse',
    'toOpenAIChatMessages',
    'toOpenAIChatUserMessage',
    'toOpenAIResponsesMessage',
    'toOpenAIResponsesOutput',
  ])
  assert.ok(Object.keys(native).includes('convertMedia'), 'the native layer is what the entry builds on')
  // What the generated loader says it loaded: native here, wasm32-wasi under test:wasm.
  assert.equal(entry.bindingTarget, process.env.NAPI_RS_FORCE_WASI ? 'wasm32-wasi' : 'native')
})

test('toContentAsync reports bad arguments as a rejection, never a throw', async () => {
  for (const [part, options] of [
    [5, undefined],
    [null, undefined],
    [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }, { provider: 'nope' }],
  ]) {
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
  const { blob, mimeType, uri } = part.resource
  const settings = native.settingsNew(undefined, dir, undefined, undefined, undefined, undefined)
  assert.equal(native.convertMediaInline(settings, 'resource', blob, mimeType, uri, false), undefined)
  const out = await entry.toContentAsync(part, { outputDir: dir })
  const saved = /saved to (.+)\]$/.exec(out.text)?.[1]
  assert.ok(saved, out.text)
  assert.ok(fs.readFileSync(saved).equals(bytes))
})

test('a Latin-1 read (the entry vouches for one-byte strings) answers as the UTF-8 read', () => {
  const png = corpus('fixture.png').toString('base64')
  const strings = [png, png.replace(/=+$/, ''), `${png.slice(0, 40)}\u00e9${png.slice(41)}`, `${png.slice(0, 40)} ${png.slice(41)}`, '']
  const settings = native.settingsNew(undefined, dir, undefined, undefined, undefined, undefined)
  for (const s of strings) {
    const viaUtf8 = native.convertMediaSync(settings, 'image', s, 'image/png', null, false)
    const viaLatin1 = native.convertMediaSync(settings, 'image', s, 'image/png', null, true)
    assert.deepEqual(viaLatin1, viaUtf8, s.slice(0, 50))
  }
  // Above U+00FF the entry never vouches: U+0141 would fold into a valid 'A'.
  const folded = `${png.slice(0, 40)}\u0141${png.slice(41)}`
  assert.equal(entry.toContent({ type: 'image', data: folded, mimeType: 'image/png' }).type, 'text')
})

test("base64 text passed as bytes with the word 'base64Bytes' (how the entry feeds the wasm build) answers as the string", () => {
  const pngBytes = corpus('fixture.png')
  const png = pngBytes.toString('base64')
  const strings = [png, png.replace(/=+$/, ''), `${png.slice(0, 40)}\u00e9${png.slice(41)}`, `${png.slice(0, 40)} ${png.slice(41)}`, '', 'not base64!']
  const settings = native.settingsNew(undefined, dir, undefined, undefined, undefined, undefined)
  for (const s of strings) {
    const bytes = Buffer.from(s, 'latin1')
    const viaString = native.convertMediaSync(settings, 'image', s, 'image/png', null, true)
    const viaBytes = native.convertMediaSync(settings, 'image', bytes, 'image/png', null, 'base64Bytes')
    assert.deepEqual(viaBytes, viaString, s.slice(0, 50))
    assert.deepEqual(native.classify(bytes, 'image/png', 'base64Bytes'), native.classify(s, 'image/png', true), s.slice(0, 50))
  }
  // Without the word the same bytes are the data itself, not base64.
  assert.equal(native.classify(Buffer.from(png, 'latin1'), undefined, false).mediaType, 'text/plain')
  const store = native.storeNew(dir, undefined, undefined)
  const saved = native.storeSaveSync(store, Buffer.from(png, 'latin1'), 'image/png', undefined, 'base64Bytes')
  assert.ok(fs.readFileSync(saved.path).equals(pngBytes))
  assert.throws(
    () => native.classify(pngBytes, undefined, 'base64'),
    (e) => e.code === 'INVALID_ARGUMENT' && /dataIsLatin1/.test(e.message),
  )
})

test('a SharedArrayBuffer view: native code refuses it, the entry reads a copy', () => {
  const png = corpus('fixture.png')
  const shared = new Uint8Array(new SharedArrayBuffer(png.length))
  shared.set(png)
  // Another thread may write shared memory while native code reads it.
  assert.throws(
    () => native.isUtf8(shared),
    (e) => e.code === 'INVALID_ARGUMENT' && /SharedArrayBuffer/.test(e.message),
  )
  assert.equal(entry.isUtf8(shared), false)
  assert.equal(entry.classify(shared).mediaType, 'image/png')
  const store = new entry.ToolOutputStore(dir)
  assert.ok(fs.readFileSync(store.save(shared).path).equals(png))
})
