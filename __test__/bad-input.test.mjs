// The bad-input matrix: each case through the public API, sync and async,
// with its expected outcome. Never a crash, a hang or an error without a code;
// a file part only where the bytes are what it says.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { Worker } from 'node:worker_threads'
import { loadBinding, bindingPath, corpus, makePng, crc32, wasmCannot, testDir } from './fixtures/index.mjs'

const { toContent, toContentAsync, ToolOutputStore } = loadBinding()

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-bad-input-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
const options = { outputDir: dir }

const png = makePng(16, 16)
const jpeg = corpus('fixture.jpg')
const pdf = corpus('fixture.pdf')
const gif = corpus('fixture.gif')

/** Expected outcomes. */
const INVALID = { code: 'INVALID_ARGUMENT' }
const note = (pattern) => ({ note: pattern })
const file = (mediaType) => ({ file: mediaType })
const NOT_A_FILE = { notFile: true }
const NULL = { value: null }

function chunk(type, body) {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(body.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0)
  return Buffer.concat([head, body, crc])
}

/** A PNG whose header claims `width` x `height` over a tiny IDAT. */
function pngClaiming(width, height) {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(64))), chunk('IEND', Buffer.alloc(0))])
}

function gifClaiming(width, height) {
  const out = Buffer.from(gif)
  out.writeUInt16LE(width, 6)
  out.writeUInt16LE(height, 8)
  return out
}

function resizedToZero(bytes) {
  const ab = new ArrayBuffer(bytes.length, { maxByteLength: bytes.length })
  const view = new Uint8Array(ab)
  view.set(bytes)
  ab.resize(0)
  return view
}

function detached(bytes) {
  const view = new Uint8Array(bytes)
  structuredClone(view.buffer, { transfer: [view.buffer] })
  return view
}

function shared(bytes) {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.length))
  view.set(bytes)
  return view
}

function lengthTracking(bytes) {
  const ab = new ArrayBuffer(bytes.length, { maxByteLength: bytes.length * 2 })
  const view = new Uint8Array(ab)
  view.set(bytes)
  return view
}

const image = (data, mimeType = 'image/png') => ({ type: 'image', data, mimeType })
const blob = (data, mimeType, uri = 'file:///x') => ({ type: 'resource', resource: { uri, mimeType, blob: data } })

const cases = [
  // Wrong JS types and missing fields.
  ['part undefined', undefined, INVALID],
  ['part null', null, INVALID],
  ['part a string', 'x', INVALID],
  ['part a number', 42, INVALID],
  ['part a boolean', true, INVALID],
  ['part a function', () => {}, INVALID],
  ['part a symbol', Symbol('x'), INVALID],
  ['part an array', [], note(/^\[Unsupported content part of type ""\]$/)],
  ['part {}', {}, note(/^\[Unsupported content part of type ""\]$/)],
  ['type a number', { type: 5 }, INVALID],
  ['type unknown', { type: 'video' }, note(/^\[Unsupported content part of type "video"\]$/)],
  ['image without data', { type: 'image', mimeType: 'image/png' }, note(/^\[Image \(image\/png\): empty data; nothing was saved\]$/)],
  ['image without mimeType', { type: 'image', data: png.toString('base64') }, file('image/png')],
  ['data a number', image(5), INVALID],
  ['data an object', image({}), INVALID],
  ['data an array', image([1, 2, 3]), INVALID],
  ['data a DataView', image(new DataView(new ArrayBuffer(8))), INVALID],
  ['data a Float64Array', image(new Float64Array(4)), INVALID],
  ['data a Uint16Array', image(new Uint16Array(4)), INVALID],
  ['data a Uint8ClampedArray', image(new Uint8ClampedArray(png)), INVALID],
  ['data an ArrayBuffer', image(png.buffer.slice(0)), INVALID],
  ['data empty string', image(''), note(/empty data; nothing was saved\]$/)],
  ['data empty Buffer', image(Buffer.alloc(0)), note(/empty data; nothing was saved\]$/)],
  ['mimeType a number', image(png, 5), INVALID],
  ['mimeType an object', image(png, {}), INVALID],
  ['text a number', { type: 'text', text: 5 }, INVALID],
  ['text an object', { type: 'text', text: {} }, INVALID],
  ['text missing', { type: 'text' }, { value: { type: 'text', text: '' } }],
  ['resource without resource', { type: 'resource' }, note(/^\[Resource part without a `resource` object\]$/)],
  ['resource a string', { type: 'resource', resource: 'x' }, note(/^\[Resource part without a `resource` object\]$/)],
  ['resource with neither text nor blob', { type: 'resource', resource: { uri: 'file:///e' } }, note(/empty data; nothing was saved\]$/)],
  ['resource uri a number', { type: 'resource', resource: { uri: 5, blob: 'AAAA' } }, INVALID],
  ['resource text a number', { type: 'resource', resource: { uri: 'u', text: 5 } }, INVALID],
  ['resource_link with nothing', { type: 'resource_link' }, note(/^\[Resource link \]$/)],
  ['resource_link uri an object', { type: 'resource_link', uri: {} }, INVALID],
  ['resource_link size a string', { type: 'resource_link', uri: 'u', size: '12' }, note(/^\[Resource link u\]$/)],
  ['audience user only', { type: 'text', text: 'x', annotations: { audience: ['user'] } }, NULL],
  ['audience not an array', { type: 'text', text: 'x', annotations: { audience: 'user' } }, { value: { type: 'text', text: 'x' } }],

  // Views on shared, resizable and detached buffers.
  ['a SharedArrayBuffer view', image(shared(png)), file('image/png')],
  ['a length-tracking view', image(lengthTracking(png)), file('image/png')],
  ['a view resized to 0 before the call', image(resizedToZero(png)), note(/empty data; nothing was saved\]$/)],
  ['a detached view', image(detached(png)), note(/empty data; nothing was saved\]$/)],

  // Lone surrogates.
  ['text with a lone surrogate', { type: 'text', text: 'a\uD800b' }, { value: { type: 'text', text: 'a\uD800b' } }],
  ['base64 with a lone surrogate', image(`${png.toString('base64').slice(0, 8)}\uD800`), note(/invalid base64 data/)],
  ['mimeType with a lone surrogate', image(png, 'image/\uDC00'), file('image/png')],
  ['uri with a lone surrogate', blob(png.toString('base64'), 'image/png', 'file:///\uD800.png'), file('image/png')],

  // Invalid base64 of every kind.
  ...[
    ['one dangling symbol', 'A'],
    ['padding in the middle', 'AB=C'],
    ['data after padding', 'AB==CD'],
    ['both alphabets', 'AB+-'],
    ['non-zero unused bits', 'QR=='],
    ['a data: url', `data:image/png;base64,${png.toString('base64')}`],
    ['a leading space', ` ${png.toString('base64')}`],
    ['a tab', `${png.toString('base64').slice(0, 8)}\t${png.toString('base64').slice(8)}`],
    ['a non-ASCII letter', `${png.toString('base64').slice(0, 8)}é`],
    ['too much padding', 'AAAA===='],
    ['only padding', '===='],
    ['U+0141, which folds to A in Latin-1', `${png.toString('base64').slice(0, 8)}\u0141AAA`],
  ].map(([name, data]) => [`base64: ${name}`, image(data), note(/invalid base64 data \(.+\); nothing was saved\]$/)]),

  // 0 and 1 byte.
  ['one byte as a Buffer', image(Buffer.from([0x89])), NOT_A_FILE],
  ['one byte as base64', image('AA=='), NOT_A_FILE],

  // Declared types that lie.
  ['PNG declared image/jpeg', image(png, 'image/jpeg'), file('image/png')],
  ['JPEG declared image/png', image(jpeg, 'image/png'), file('image/jpeg')],
  ['GIF declared image/webp', image(gif, 'image/webp'), file('image/gif')],
  ['text declared image/png', image(Buffer.from('just some text\n'), 'image/png'), NOT_A_FILE],
  ['PNG declared text/plain', blob(png, 'text/plain'), file('image/png')],
  ['zip declared text/plain', blob(corpus('fixture.zip'), 'text/plain'), note(/saved to .+\.zip\]$/)],
  ['gzip declared text/markdown', blob(zlib.gzipSync(Buffer.from('# hi')), 'text/markdown'), NOT_A_FILE],
  ['invalid UTF-8 in text/markdown', blob(Buffer.from([0x23, 0x20, 0xc3, 0x28, 0xff, 0xfe, 0x0a]), 'text/markdown'), NOT_A_FILE],
  ['svg declared image/png', image(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/png'), NOT_A_FILE],

  // Truncated and corrupt files at many prefix lengths: never attached.
  ...[8, 16, 33, 40, 50, 60, png.length - 12, png.length - 1].map((n) => [`PNG cut at ${n}`, image(png.subarray(0, n)), NOT_A_FILE]),
  ...[2, 100, 1000, Math.floor(jpeg.length / 2), jpeg.length - 2].map((n) => [`JPEG cut at ${n}`, image(jpeg.subarray(0, n), 'image/jpeg'), NOT_A_FILE]),
  ...[5, 100, Math.floor(pdf.length / 2)].map((n) => [`PDF cut at ${n}`, blob(pdf.subarray(0, n), 'application/pdf'), NOT_A_FILE]),
  ['GIF cut in half', image(gif.subarray(0, gif.length >> 1), 'image/gif'), NOT_A_FILE],
  ['PNG with a flipped byte in IHDR', image(Buffer.from(png).fill(0xff, 20, 21)), NOT_A_FILE],

  // Absurd dimensions and decompression-bomb shapes.
  // A header claiming more pixels than the bytes can hold is corrupt whatever its size.
  ['PNG claiming 100000x100000', image(pngClaiming(100_000, 100_000)), note(/corrupt PNG: \d+ bytes cannot hold 100000x100000 pixels/)],
  ['PNG claiming 8000x8000 in under 100 bytes', image(pngClaiming(8000, 8000)), note(/corrupt PNG: \d+ bytes cannot hold 8000x8000 pixels/)],
  ['PNG claiming 9000x10', image(pngClaiming(9000, 10)), note(/corrupt PNG: \d+ bytes cannot hold 9000x10 pixels/)],
  ['GIF claiming 65535x65535', image(gifClaiming(65535, 65535), 'image/gif'), NOT_A_FILE],

  // Polyglots.
  ['GIF header followed by JavaScript', image(Buffer.concat([Buffer.from('GIF89a/*'), Buffer.from('*/=1;alert(1)//')]), 'image/gif'), NOT_A_FILE],
  ['PDF with a ZIP appended', blob(Buffer.concat([pdf, corpus('fixture.zip')]), 'application/pdf'), NOT_A_FILE],
  ['ZIP with a PDF header inside', blob(Buffer.concat([corpus('fixture.zip'), pdf.subarray(0, 100)]), 'application/zip'), NOT_A_FILE],

  // Huge single line.
  ['a 1 MB single line', { type: 'text', text: 'x'.repeat(1_000_000) }, note(/^x+\n\[Text truncated: the first \d+ characters of line 1 \(of 1 lines\)/)],
]

function outcome(run) {
  try {
    return { value: run() }
  } catch (error) {
    return { error }
  }
}

async function outcomeAsync(run) {
  try {
    return { value: await run() }
  } catch (error) {
    return { error }
  }
}

function check(label, got, expected) {
  if (expected.code) {
    assert.ok(got.error, `${label}: expected ${expected.code}, got ${JSON.stringify(got.value)?.slice(0, 200)}`)
    assert.equal(got.error.code, expected.code, `${label}: ${got.error.message}`)
    return
  }
  assert.equal(got.error, undefined, `${label}: threw ${got.error?.code} ${got.error?.message}`)
  const value = got.value
  if ('value' in expected) return assert.deepEqual(value, expected.value, label)
  if (expected.note) {
    assert.equal(value?.type, 'text', `${label}: ${JSON.stringify(value)?.slice(0, 200)}`)
    return assert.match(value.text, expected.note, label)
  }
  if (expected.file) {
    assert.equal(value?.type, 'file', `${label}: ${JSON.stringify(value)?.slice(0, 300)}`)
    return assert.equal(value.mediaType, expected.file, label)
  }
  assert.equal(value?.type, 'text', `${label}: expected a note, got ${JSON.stringify(value)?.slice(0, 300)}`)
}

test(`the bad-input matrix (${cases.length} cases), sync`, () => {
  assert.ok(cases.length >= 80, `${cases.length} cases`)
  for (const [label, part, expected] of cases)
    check(
      label,
      outcome(() => toContent(part, options)),
      expected,
    )
})

test('the bad-input matrix, async', async () => {
  for (const [label, part, expected] of cases) check(`${label} (async)`, await outcomeAsync(() => toContentAsync(part, options)), expected)
})

test('a getter or Proxy that throws: its own error comes back, unchanged', () => {
  const boom = new Error('boom')
  const throws = () => {
    throw boom
  }
  // A Proxy is read through the traps an ordinary object's reads run: `has`,
  // `getPrototypeOf`, `get`, and `getOwnPropertyDescriptor` where the
  // prototype is not a clean Object.prototype. Whichever of them throws, its error comes back.
  const parts = [
    Object.defineProperty({ type: 'image' }, 'data', { get: throws, enumerable: true }),
    Object.defineProperty({}, 'type', { get: throws, enumerable: true }),
    new Proxy({ type: 'text', text: 'x' }, { has: throws }),
    new Proxy({ type: 'text', text: 'x' }, { getPrototypeOf: throws }),
    new Proxy({ type: 'text', text: 'x' }, { get: throws }),
    new Proxy(Object.assign(Object.create(null), { type: 'text', text: 'x' }), { getOwnPropertyDescriptor: throws }),
  ]
  for (const part of parts)
    assert.throws(
      () => toContent(part, options),
      (e) => e === boom,
    )
})

test('a getter that answers differently on each read is read once', () => {
  let reads = 0
  const part = { data: png.toString('base64'), mimeType: 'image/png' }
  Object.defineProperty(part, 'type', { get: () => (reads++ === 0 ? 'image' : 'text'), enumerable: true })
  assert.equal(toContent(part, options).type, 'file')
  assert.equal(reads, 1)
})

test('a store from another realm is refused', async () => {
  const vm = await import('node:vm')
  const foreign = vm.runInNewContext('({ dir: "/tmp", save() {}, cleanup() {} })')
  assert.throws(
    () => toContent(image(png), { store: foreign }),
    (e) => e.code === 'INVALID_ARGUMENT',
  )
  assert.throws(
    () => toContent(image(png), { store: Object.create(ToolOutputStore.prototype) }),
    (e) => e.code === 'INVALID_ARGUMENT',
  )
})

test('4 worker threads and the main thread at once give the same answers', async () => {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { toContent } = require(workerData.binding)
    const parts = workerData.parts
    const out = []
    for (let round = 0; round < 50; round++) for (const p of parts) out.push(toContent(p, { outputDir: workerData.dir }))
    parentPort.postMessage(out.slice(0, parts.length))
  `
  const parts = [image(png.toString('base64')), image(jpeg.toString('base64'), 'image/png'), { type: 'text', text: 'hi' }, image('QR==')]
  const workers = Array.from(
    { length: 4 },
    () =>
      new Promise((resolve, reject) => {
        const w = new Worker(source, { eval: true, workerData: { binding: bindingPath, parts, dir } })
        w.once('message', resolve)
        w.once('error', reject)
      }),
  )
  const main = []
  for (let round = 0; round < 50; round++) for (const p of parts) main.push(toContent(p, options))
  for (const answers of await Promise.all(workers)) assert.deepEqual(answers, main.slice(0, parts.length))
})

test(
  'answers built natively are not read through a getter planted under an array index',
  { skip: wasmCannot("run with getters planted on Array.prototype indexes: emnapi's JS runtime reads its own arrays through them") },
  async () => {
    const { spawnSync } = await import('node:child_process')
    const child = path.join(testDir, 'fixtures', 'index-pollution-child.cjs')
    const run = spawnSync(process.execPath, [child, bindingPath, dir], { encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    assert.deepEqual(JSON.parse(run.stdout), {
      one: { mediaType: 'image/png', sameData: true },
      whole: { count: 2, mediaType: 'image/png', sameData: true },
      setterRuns: 0,
    })
  },
)
