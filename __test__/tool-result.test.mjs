// Whole tool results (convertToolResult / convertToolResultSync): parts in
// order, audience honoured, per-request budgets (image and document counts,
// Anthropic's 2000 px rule past 20 images, byte totals), deferred media with
// and without a queue, structuredContent beside the media, error results,
// inputs never modified, and sync equal to async throughout. Images are real
// PNGs (makePng: zlib-encoded rows, valid CRCs).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import {
  loadBinding,
  corpus,
  tempDir,
  b64,
  makePng,
  makeWav,
  checkFilePart,
  checkSavedNote,
  snapshot,
  referenceImageInfo,
  wasmCannot,
} from './fixtures/index.mjs'
import { kb, deepFreeze, normalized, savedPath } from './fixtures/results.mjs'

const { convertToolResult, convertToolResultSync, toContent, AttachmentQueue, estimateTokens } = loadBinding()

/** Both conversions, each saving in its own folder; they must agree. Returns the sync one. */
async function both(t, result, options = {}) {
  const dir = tempDir(t)
  const sync = convertToolResultSync(result, { fitImages: false, ...options, outputDir: dir })
  const async_ = await convertToolResult(result, { fitImages: false, ...options, outputDir: tempDir(t) })
  assert.deepEqual(normalized(async_), normalized(sync), 'sync and async results differ')
  return { converted: sync, dir }
}

const image = (bytes) => ({ type: 'image', data: b64(bytes), mimeType: 'image/png' })

/** Distinct real PNGs of one pixel size (each a byte longer than the last). */
function pngs(count, width, height) {
  const base = makePng(width, height).length + 64
  return Array.from({ length: count }, (_, i) => makePng(width, height, { padTo: base + i }))
}

/** A saved entry names a file holding `bytes`. */
function checkSaved(entry, bytes, mediaType, dir) {
  assert.equal(entry.mediaType, mediaType)
  assert.equal(entry.byteLength, bytes.length)
  assert.ok(fs.readFileSync(entry.path).equals(bytes), 'saved file differs from the input')
  if (dir !== undefined) assert.equal(fs.realpathSync(path.dirname(entry.path)), fs.realpathSync(dir))
}

const MANY_IMAGES = '2500x300 px, over the 2000 px limit for requests with more than 20 images'

describe('per-request budgets', () => {
  test('anthropic, 24 images of 2500x300: the first 20 attached, the last 4 saved and noted (2000 px rule)', async (t) => {
    const images = pngs(24, 2500, 300)
    const result = { content: [{ type: 'text', text: 'Screenshots' }, ...images.map(image)] }
    const { converted, dir } = await both(t, result, { provider: 'anthropic' })
    assert.equal(converted.content.length, 25)
    assert.deepEqual(converted.content[0], { type: 'text', text: 'Screenshots' })
    for (let i = 0; i < 20; i++) checkFilePart(assert, converted.content[1 + i], { mediaType: 'image/png', bytes: images[i] })
    assert.equal(converted.saved.length, 4)
    for (let i = 20; i < 24; i++) {
      const note = checkSavedNote(assert, converted.content[1 + i], {
        head: 'Binary image',
        mediaType: 'image/png',
        reason: MANY_IMAGES,
        bytes: images[i],
        dir,
      })
      assert.equal(converted.saved[i - 20].path, note.path)
      checkSaved(converted.saved[i - 20], images[i], 'image/png', dir)
    }
    assert.deepEqual(converted.deferred, [])
    assert.equal(converted.isError, false)
  })

  test('anthropic: 22 small images push out the 2 large ones; 19 small leave room for one', async (t) => {
    const large = pngs(2, 2500, 300)
    const small = pngs(22, 1000, 300)
    let { converted } = await both(t, { content: [image(large[0]), ...small.map(image), image(large[1])] }, { provider: 'anthropic' })
    assert.match(converted.content[0].text, /px, over the 2000 px limit for requests with more than 20 images; saved to /)
    assert.match(converted.content[23].text, /over the 2000 px limit/)
    assert.equal(converted.content.filter((p) => p.type === 'file').length, 22)
    ;({ converted } = await both(t, { content: [...small.slice(0, 19).map(image), ...large.map(image)] }, { provider: 'anthropic' }))
    assert.deepEqual(
      converted.content.map((p) => p.type),
      [...Array(20).fill('file'), 'text'],
    )
  })

  test('Claude: PDF pages and images count together, 100 a request; OpenAI counts no pages', async (t) => {
    const { PDFDocument } = await import('pdf-lib')
    const pdfOf = async (pages) => {
      const doc = await PDFDocument.create()
      for (let i = 0; i < pages; i++) doc.addPage([100, 100])
      return Buffer.from(await doc.save({ useObjectStreams: false }))
    }
    const [pdf60, pdf61, pdf39] = [await pdfOf(60), await pdfOf(61), await pdfOf(39)]
    const png = makePng(64, 64)
    const pdf = (bytes, name) => ({ type: 'resource', resource: { uri: `file:///${name}.pdf`, mimeType: 'application/pdf', blob: b64(bytes) } })
    const result = { content: [pdf(pdf60, 'a'), pdf(pdf61, 'b'), image(png), pdf(pdf39, 'c')] }
    for (const provider of ['default', 'anthropic', 'anthropic-bedrock']) {
      const { converted, dir } = await both(t, result, { provider })
      checkFilePart(assert, converted.content[0], { mediaType: 'application/pdf', bytes: pdf60 })
      checkSavedNote(assert, converted.content[1], {
        head: 'Binary resource file:///b.pdf',
        mediaType: 'application/pdf',
        reason: 'its 61 pages would bring the request to 121 images and PDF pages, over the limit of 100',
        bytes: pdf61,
        dir,
        ext: 'pdf',
      })
      // The image makes 61, the last PDF 100: both fit.
      checkFilePart(assert, converted.content[2], { mediaType: 'image/png', bytes: png })
      checkFilePart(assert, converted.content[3], { mediaType: 'application/pdf', bytes: pdf39 })
      assert.equal(converted.saved.length, 1, provider)
    }
    const { converted } = await both(t, result, { provider: 'openai' })
    assert.deepEqual(
      converted.content.map((p) => p.type),
      ['file', 'file', 'file', 'file'],
    )
  })

  test('priorImages: images already in the request count toward the many-image rule and the image limit', async (t) => {
    const large = pngs(6, 2500, 300)
    // 15 before and 6 now: 21, so the sixth large image is held back (fitting off) or fitted.
    const held = await both(t, { content: large.map(image) }, { provider: 'anthropic', priorImages: 15, fitImages: false })
    assert.equal(held.converted.content.filter((p) => p.type === 'file').length, 5)
    assert.match(held.converted.content[5].text, /over the 2000 px limit for requests with more than 20 images; saved to /)
    const alone = await both(t, { content: large.map(image) }, { provider: 'anthropic', priorImages: 14, fitImages: false })
    assert.equal(alone.converted.content.filter((p) => p.type === 'file').length, 6)
    const fitted = await both(t, { content: large.map(image) }, { provider: 'anthropic', priorImages: 15, fitImages: true })
    const files = fitted.converted.content.filter((p) => p.type === 'file')
    assert.equal(files.length, 6)
    for (const file of files) {
      const { width, height } = referenceImageInfo(Buffer.from(file.data, 'base64'))
      assert.ok(Math.max(width, height) <= 2000, `${width}x${height}`)
    }
    // Bedrock: 20 images a request, 19 before: one of these fits.
    const small = pngs(3, 50, 50)
    const bedrock = await both(t, { content: small.map(image) }, { provider: 'bedrock', priorImages: 19, fitImages: true })
    assert.equal(bedrock.converted.content.filter((p) => p.type === 'file').length, 1)
    for (const bad of [-1, 1.5, 'x', NaN]) {
      assert.throws(
        () => convertToolResultSync({ content: [] }, { priorImages: bad }),
        (e) => e.code === 'INVALID_ARGUMENT',
        String(bad),
      )
    }
  })

  test('20 large images are fine: the rule starts past 20', async (t) => {
    const { converted } = await both(t, { content: pngs(20, 2500, 300).map(image) }, { provider: 'anthropic' })
    assert.ok(converted.content.every((p) => p.type === 'file'))
    assert.deepEqual(converted.saved, [])
  })

  test('anthropic: 100 images and documents per request', async (t) => {
    const images = pngs(101, 8, 8)
    const { converted, dir } = await both(t, { content: images.map(image) }, { provider: 'anthropic' })
    assert.equal(converted.content.filter((p) => p.type === 'file').length, 100)
    checkSavedNote(assert, converted.content[100], {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: 'over the limit of 100 images and documents per request',
      bytes: images[100],
      dir,
    })
  })

  test('bedrock: 20 images and 5 documents per request', async (t) => {
    const images = pngs(21, 8, 8)
    let { converted, dir } = await both(t, { content: images.map(image) }, { provider: 'bedrock' })
    checkSavedNote(assert, converted.content[20], { reason: 'over the limit of 20 images per request', bytes: images[20], dir })
    const pdf = corpus('fixture.pdf')
    const pdfs = Array.from({ length: 6 }, (_, i) => ({
      type: 'resource',
      resource: { uri: `file:///doc${i}.pdf`, mimeType: 'application/pdf', blob: b64(pdf) },
    }))
    ;({ converted, dir } = await both(t, { content: [{ type: 'text', text: 'Reports' }, ...pdfs] }, { provider: 'bedrock' }))
    for (let i = 1; i <= 5; i++) checkFilePart(assert, converted.content[i], { mediaType: 'application/pdf', bytes: pdf, uri: `file:///doc${i - 1}.pdf` })
    checkSavedNote(assert, converted.content[6], {
      head: 'Binary resource file:///doc5.pdf',
      mediaType: 'application/pdf',
      reason: 'over the limit of 5 documents per request',
      bytes: pdf,
      dir,
      ext: 'pdf',
    })
    assert.deepEqual(
      converted.saved.map((s) => s.uri),
      ['file:///doc5.pdf'],
    )
  })

  test('the default profile: the strictest counts (20 images)', async (t) => {
    const images = pngs(24, 2500, 300)
    const { converted } = await both(t, { content: images.map(image) })
    assert.equal(converted.content.filter((p) => p.type === 'file').length, 20)
    for (const part of converted.content.slice(20)) assert.match(part.text, /: over the limit of 20 images per request; saved to /)
  })

  test('openai: 24 large images all attached (1500 a request, no pixel limit)', async (t) => {
    const { converted } = await both(t, { content: pngs(24, 2500, 300).map(image) }, { provider: 'openai' })
    assert.ok(converted.content.every((p) => p.type === 'file'))
  })

  test('anthropic-bedrock: 20 MB per request, measured as base64', async (t) => {
    // 5,242,880 characters of base64 each: three fit in 20,000,000.
    const big = makePng(512, 512, { fill: 'random', padTo: 3_932_160 })
    const small = makePng(8, 8)
    const result = { content: [image(big), image(big), image(big), image(big), image(small), image(big)] }
    const { converted, dir } = await both(t, result, { provider: 'anthropic-bedrock' })
    assert.deepEqual(
      converted.content.map((p) => p.type),
      ['file', 'file', 'file', 'text', 'file', 'text'],
    )
    for (const i of [3, 5]) {
      checkSavedNote(assert, converted.content[i], {
        reason: 'the attachments would pass the request limit of 20.0 MB as base64',
        bytes: big,
        dir,
      })
    }
    assert.equal(converted.saved.length, 2)
  })
})

describe('structuredContent', () => {
  const png = makePng(64, 48, { fill: 'random' })
  const structured = { frame: 'Card', size: { width: 320, height: 200 }, tags: ['a', 'ü', null], ok: true }

  test('kept beside the image: the image attached, the JSON as text', async (t) => {
    const { converted } = await both(t, { content: [image(png)], structuredContent: structured })
    checkFilePart(assert, converted.content[0], { mediaType: 'image/png', bytes: png })
    assert.deepEqual(converted.content[1], { type: 'text', text: JSON.stringify(structured) })
    assert.equal(converted.content.length, 2)
  })

  test('not repeated when a text block carries the same JSON, however laid out', async (t) => {
    const reordered = JSON.stringify({ ok: true, tags: ['a', '\u00fc', null], size: { height: 200.0, width: 320 }, frame: 'Card' }, null, 2)
    const { converted } = await both(t, { content: [{ type: 'text', text: reordered }, image(png)], structuredContent: structured })
    assert.deepEqual(converted.content[0], { type: 'text', text: reordered })
    assert.equal(converted.content[1].type, 'file')
    assert.equal(converted.content.length, 2)
  })

  test('added when the text blocks say something else', async (t) => {
    const { converted } = await both(t, {
      content: [
        { type: 'text', text: '{"frame":"Other"}' },
        { type: 'text', text: 'Card 320x200' },
      ],
      structuredContent: structured,
    })
    assert.deepEqual(
      converted.content.map((p) => p.text),
      ['{"frame":"Other"}', 'Card 320x200', JSON.stringify(structured)],
    )
  })

  test('any JSON value (2026-07-28); dates as JSON.stringify writes them; null means none', async (t) => {
    for (const value of [[1, 2, 3], 'plain', 42, false, { when: new Date(0), skip: undefined, fn() {} }]) {
      const { converted } = await both(t, { content: [], structuredContent: value })
      assert.deepEqual(converted.content, [{ type: 'text', text: JSON.stringify(value) }])
    }
    const { converted } = await both(t, { content: [{ type: 'text', text: 'x' }], structuredContent: null })
    assert.deepEqual(converted.content, [{ type: 'text', text: 'x' }])
  })

  test(
    'a polluted Object.prototype changes nothing (no inherited toJSON, property or descriptor field is read)',
    { skip: wasmCannot("run with a polluted Object.prototype: emnapi's JS runtime reads inherited descriptor fields") },
    () => {
      const result = { content: [image(png)], structuredContent: structured }
      const expected = convertToolResultSync(result)
      const names = ['toJSON', 'get', 'set', 'content', 'isError', 'structuredContent', 'text', 'type', 'provider', 'deferMedia']
      let converted
      try {
        for (const name of names) {
          Object.defineProperty(Object.prototype, name, { get: () => (name === 'toJSON' ? () => 'polluted' : 'polluted'), set() {}, configurable: true })
        }
        converted = convertToolResultSync(result)
      } finally {
        for (const name of names) delete Object.prototype[name]
      }
      assert.deepEqual(converted, expected)
    },
  )

  test('values JSON cannot carry are refused', async () => {
    const cyclic = { a: 1 }
    cyclic.self = cyclic
    for (const structuredContent of [{ n: 1n }, cyclic]) {
      assert.throws(
        () => convertToolResultSync({ content: [], structuredContent }),
        (e) => e.code === 'INVALID_ARGUMENT',
      )
      await assert.rejects(convertToolResult({ content: [], structuredContent }), (e) => e.code === 'INVALID_ARGUMENT')
    }
  })
})

describe('error results', () => {
  const NO_MESSAGE = '[The tool reported an error and sent no message]'
  const png = makePng(32, 32)

  test('isError with text: the text as it came', async (t) => {
    const { converted } = await both(t, { isError: true, content: [{ type: 'text', text: 'Permission denied: /etc/shadow' }] })
    assert.deepEqual(converted, { content: [{ type: 'text', text: 'Permission denied: /etc/shadow' }], isError: true, deferred: [], saved: [], sources: [0] })
  })

  test('isError without text: a text that says so, first', async (t) => {
    for (const content of [[], [{ type: 'text', text: '  \n' }], [image(png)], undefined]) {
      const { converted } = await both(t, { isError: true, content })
      assert.equal(converted.isError, true)
      assert.deepEqual(converted.content[0], { type: 'text', text: NO_MESSAGE })
      assert.equal(converted.content.length, 1 + (content?.length ?? 0))
      assert.deepEqual(converted.sources, [-1, ...(content ?? []).map((_, i) => i)], 'the note is added, the parts come from their places')
    }
  })

  test('only isError: true is an error', async (t) => {
    for (const isError of [undefined, false, 'true', 1]) {
      const { converted } = await both(t, { isError, content: [] })
      assert.deepEqual(converted, { content: [], isError: false, deferred: [], saved: [], sources: [] })
    }
  })
})

describe('audience', () => {
  test('parts not for the assistant are left out, media included (nothing saved)', async (t) => {
    const png = makePng(16, 16)
    const { converted } = await both(t, {
      content: [
        { type: 'text', text: 'for the user', annotations: { audience: ['user'] } },
        { ...image(png), annotations: { audience: ['user'] } },
        { type: 'text', text: 'for both', annotations: { audience: ['user', 'assistant'] } },
        { ...image(png), annotations: { audience: ['assistant'] } },
      ],
    })
    assert.deepEqual(converted.content[0], { type: 'text', text: 'for both' })
    checkFilePart(assert, converted.content[1], { mediaType: 'image/png', bytes: png })
    assert.equal(converted.content.length, 2)
    assert.deepEqual(converted.saved, [])
  })
})

describe('deferred media', () => {
  const png = makePng(450, 768, { fill: 'random' })
  const pdf = corpus('fixture.pdf')
  const wav = makeWav(4000)
  const figma = () => ({ content: [{ type: 'text', text: 'FRAME Card 320x200' }, image(png)] })
  const placeholder = (mediaType, noun, bytes) => `[${mediaType} ${noun}, ${kb(bytes.length)} KB, attached below]`

  test('openai-chat: each medium replaced by a placeholder and returned in `deferred`', async (t) => {
    const result = {
      content: [
        { type: 'text', text: 'FRAME Card 320x200' },
        image(png),
        { type: 'resource', resource: { uri: 'file:///spec.pdf', mimeType: 'application/pdf', blob: b64(pdf) } },
        { type: 'audio', data: b64(wav), mimeType: 'audio/wav' },
      ],
    }
    const { converted } = await both(t, result, { provider: 'openai-chat' })
    assert.deepEqual(converted.content, [
      { type: 'text', text: 'FRAME Card 320x200' },
      { type: 'text', text: placeholder('image/png', 'image', png) },
      { type: 'text', text: placeholder('application/pdf', 'document', pdf) },
      { type: 'text', text: placeholder('audio/wav', 'audio', wav) },
    ])
    assert.deepEqual(
      converted.deferred,
      result.content.slice(1).map((part) => toContent(part, { provider: 'openai-chat' })),
    )
    assert.equal(converted.deferred[2].mediaType, 'audio/wav')
    assert.deepEqual(converted.saved, [])
  })

  test('auto: on for openai-chat, openrouter and google; off elsewhere', async (t) => {
    for (const provider of ['openai-chat', 'openrouter', 'google']) {
      const { converted } = await both(t, figma(), { provider })
      assert.equal(converted.content[1].text, placeholder('image/png', 'image', png), provider)
      assert.equal(converted.deferred.length, 1, provider)
    }
    for (const provider of ['default', 'anthropic', 'anthropic-bedrock', 'anthropic-vertex', 'openai', 'bedrock']) {
      const { converted } = await both(t, figma(), { provider })
      checkFilePart(assert, converted.content[1], { mediaType: 'image/png', bytes: png })
      assert.deepEqual(converted.deferred, [], provider)
    }
  })

  test('deferMedia true and false override the profile', async (t) => {
    let { converted } = await both(t, figma(), { provider: 'anthropic', deferMedia: true })
    assert.equal(converted.deferred.length, 1)
    ;({ converted } = await both(t, figma(), { provider: 'google', deferMedia: false }))
    checkFilePart(assert, converted.content[1], { mediaType: 'image/png', bytes: png })
    ;({ converted } = await both(t, figma(), { provider: 'openrouter', deferMedia: 'auto' }))
    assert.equal(converted.deferred.length, 1)
  })

  test('not deferred, what a provider takes only in a user message is saved and noted', async (t) => {
    let { converted, dir } = await both(t, figma(), { provider: 'openai-chat', deferMedia: false })
    checkSavedNote(assert, converted.content[1], {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: 'image/png is not accepted inside a tool result',
      bytes: png,
      dir,
    })
    checkSaved(converted.saved[0], png, 'image/png', dir)
    const heic = corpus('fixture-heic.heic')
    ;({ converted, dir } = await both(t, { content: [{ type: 'image', data: b64(heic), mimeType: 'image/heic' }] }, { provider: 'google', deferMedia: false }))
    checkSavedNote(assert, converted.content[0], { mediaType: 'image/heic', reason: 'image/heic is not accepted inside a tool result', bytes: heic, dir })
  })

  test('without a queue, `deferred` still carries them', async (t) => {
    const { converted } = await both(t, figma(), { provider: 'openai-chat', toolCallId: 'call_1' })
    assert.deepEqual(converted.deferred, [toContent(image(png))])
  })

  test('with a queue: queued once per toolCallId, drained once', async () => {
    const queue = new AttachmentQueue()
    const options = { provider: 'openai-chat', attachments: queue, toolCallId: 'call_1' }
    const first = convertToolResultSync(figma(), options)
    assert.equal(queue.size, 1)
    // The SDK converts the same result again: nothing more is queued.
    const again = await convertToolResult(figma(), options)
    assert.equal(queue.size, 1)
    assert.deepEqual(normalized(again), normalized(first))
    assert.equal(again.deferred.length, 1)
    const other = makePng(20, 10)
    await convertToolResult({ content: [image(other)] }, { ...options, toolCallId: 'call_2' })
    assert.equal(queue.size, 2)
    const drained = queue.drain()
    assert.deepEqual(drained, [toContent(image(png)), toContent(image(other))])
    assert.equal(queue.size, 0)
    assert.deepEqual(queue.drain(), [])
    convertToolResultSync(figma(), options)
    assert.equal(queue.size, 0, 'a drained id is still queued once only')
  })

  test('over its limits, a medium is described, not shown, and saved', async (t) => {
    const big = makePng(512, 512, { fill: 'random', padTo: 3_932_161 })
    const { converted, dir } = await both(t, { content: [image(big)] }, { provider: 'openrouter' })
    const text = converted.content[0].text
    const path = savedPath(text)
    assert.equal(text, `[image/png image, ${kb(big.length)} KB, not shown to the model: 5.3 MB as base64, over the 5.2 MB limit; saved to ${path}]`)
    assert.deepEqual(converted.deferred, [])
    checkSaved(converted.saved[0], big, 'image/png', dir)
    assert.equal(converted.saved[0].path, path)
  })

  test('over the request budget while deferring: the same words, with the reason', async (t) => {
    const images = pngs(21, 8, 8)
    const { converted, dir } = await both(t, { content: images.map(image) }, { provider: 'openrouter' })
    assert.equal(converted.deferred.length, 20)
    for (let i = 0; i < 20; i++) assert.equal(converted.content[i].text, placeholder('image/png', 'image', images[i]))
    const text = converted.content[20].text
    assert.equal(
      text,
      `[image/png image, ${kb(images[20].length)} KB, not shown to the model: over the limit of 20 images per request; saved to ${savedPath(text)}]`,
    )
    checkSaved(converted.saved[0], images[20], 'image/png', dir)
  })

  test('a type no row takes keeps the usual note while deferring', async (t) => {
    const bytes = Buffer.from('PAR1\u0000\u0001\u0002PAR1', 'latin1')
    const part = { type: 'resource', resource: { uri: 'file:///d.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(bytes) } }
    const { converted, dir } = await both(t, { content: [part] }, { provider: 'openai-chat' })
    checkSavedNote(assert, converted.content[0], {
      head: 'Binary resource file:///d.parquet',
      reason: 'application/vnd.apache.parquet is not accepted',
      bytes,
      dir,
    })
    assert.deepEqual(converted.saved, [
      { path: savedPath(converted.content[0].text), byteLength: bytes.length, mediaType: 'application/vnd.apache.parquet', uri: 'file:///d.parquet' },
    ])
  })
})

describe('inputs and answers', () => {
  test('deep-frozen inputs are read, never modified', async (t) => {
    const png = makePng(300, 200, { fill: 'random' })
    const bytes = Buffer.from(makePng(40, 40))
    const result = deepFreeze({
      content: [
        { type: 'text', text: 'hi' },
        image(png),
        { type: 'resource', resource: { uri: 'file:///r.md', mimeType: 'text/markdown', blob: b64(Buffer.from('# R')) } },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
      ],
      structuredContent: { a: [1, { b: 2 }] },
      isError: false,
    })
    const options = deepFreeze({ provider: 'openai-chat', toolCallId: 'call_9' })
    const before = snapshot(result)
    for (const provider of ['openai-chat', 'anthropic']) {
      await both(t, result, { ...options, provider })
    }
    assert.deepEqual(snapshot(result), before)
    // Bytes cannot be frozen: compare them before and after.
    const withBytes = { content: [{ type: 'image', data: bytes, mimeType: 'image/png' }] }
    const beforeBytes = snapshot(withBytes)
    const { converted } = await both(t, withBytes, { provider: 'anthropic' })
    checkFilePart(assert, converted.content[0], { mediaType: 'image/png', bytes })
    assert.deepEqual(snapshot(withBytes), beforeBytes)
    convertToolResultSync(result, options)
  })

  test('large parts go through the thread pool and agree with sync', async (t) => {
    const big = makePng(700, 700, { fill: 'random' })
    assert.ok(big.length > 256 * 1024)
    const parquet = Buffer.alloc(300_000, 7)
    const { converted } = await both(t, {
      content: [image(big), { type: 'image', data: big, mimeType: 'image/png' }, { type: 'resource', resource: { uri: 'file:///p', blob: b64(parquet) } }],
    })
    checkFilePart(assert, converted.content[0], { mediaType: 'image/png', bytes: big })
    checkFilePart(assert, converted.content[1], { mediaType: 'image/png', bytes: big })
    assert.equal(converted.saved.length, 1)
  })

  test('a 100,000-line text beside an image: previewed, the image attached, the whole text listed in saved', async (t) => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join('\n')
    const png = makePng(64, 64)
    const notes = 'x'.repeat(80_000)
    const { converted, dir } = await both(t, {
      content: [{ type: 'text', text: lines }, image(png), { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: notes } }],
    })
    assert.equal(converted.content.length, 3)
    assert.match(converted.content[0].text, /^line 0\nline 1\n/)
    assert.match(
      converted.content[0].text,
      /\[Text truncated: the first \d+ of 100000 lines are shown above; the whole text \(\d+ bytes\) is saved to [^\]]+\]$/,
    )
    checkFilePart(assert, converted.content[1], { mediaType: 'image/png', bytes: png })
    assert.equal(converted.saved.length, 2)
    checkSaved(converted.saved[0], Buffer.from(lines), 'text/plain', dir)
    assert.ok(converted.content[0].text.endsWith(`saved to ${converted.saved[0].path}]`))
    checkSaved(converted.saved[1], Buffer.from(notes), 'text/markdown', dir)
    assert.equal(converted.saved[1].uri, 'file:///notes.md')
  })

  test('bad arguments: INVALID_ARGUMENT, thrown by the sync function, a rejection from the async one', async () => {
    const cases = [
      [null, undefined],
      ['result', undefined],
      [{ content: 'x' }, undefined],
      [{ content: [5] }, undefined],
      [{ content: [] }, 'options'],
      [{ content: [] }, { provider: 'claude' }],
      [{ content: [] }, { deferMedia: 'yes' }],
      [{ content: [] }, { deferMedia: 1 }],
      [{ content: [] }, { toolCallId: 7 }],
      [{ content: [] }, { attachments: {}, toolCallId: 'a' }],
      [{ content: [] }, { attachments: new AttachmentQueue() }],
      [{ content: [] }, { maxTextTokens: -1 }],
      [{ content: [] }, { maxTextTokens: 1.5 }],
      [{ content: [] }, { maxTextTokens: '100' }],
    ]
    for (const [result, options] of cases) {
      const label = `${JSON.stringify(result)} ${JSON.stringify(options)}`
      assert.throws(
        () => convertToolResultSync(result, options),
        (e) => e.code === 'INVALID_ARGUMENT',
        label,
      )
      let promise
      assert.doesNotThrow(() => {
        promise = convertToolResult(result, options)
      }, label)
      await assert.rejects(promise, (e) => e.code === 'INVALID_ARGUMENT', label)
    }
    // Accepted: the text cap it sets is applied once that lands.
    assert.deepEqual(convertToolResultSync({ content: [{ type: 'text', text: 'x' }] }, { maxTextTokens: 1000 }).content, [{ type: 'text', text: 'x' }])
  })
})

describe('AttachmentQueue', () => {
  test('add, drain, size', () => {
    const queue = new AttachmentQueue()
    assert.equal(queue.size, 0)
    const a = { type: 'text', text: 'a' }
    const b = { type: 'file', mediaType: 'image/png', data: 'AAAA' }
    assert.equal(queue.add('1', [a, b]), true)
    assert.equal(queue.add('1', [a]), false)
    assert.equal(queue.add('2', []), true)
    assert.equal(queue.size, 2)
    assert.deepEqual(queue.drain(), [a, b])
    assert.equal(queue.size, 0)
    for (const args of [[1, []], ['3', 'x'], ['3']]) {
      assert.throws(
        () => queue.add(...args),
        (e) => e.code === 'INVALID_ARGUMENT',
      )
    }
    assert.throws(
      () => AttachmentQueue.prototype.drain.call({}),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
  })
})

describe('estimateTokens', () => {
  test("decocms' formula: ceil(non-CJK / 4) + ceil(CJK * 1.5)", () => {
    assert.equal(estimateTokens(''), 0)
    assert.equal(estimateTokens('hello'), 2)
    assert.equal(estimateTokens('x'.repeat(100_000)), 25_000)
    assert.equal(estimateTokens('日本語ab'), 6)
    assert.equal(estimateTokens('안녕하세요'), 8)
    assert.equal(estimateTokens('カタカナ and 漢字'), Math.ceil(5 / 4) + Math.ceil(6 * 1.5))
    assert.throws(
      () => estimateTokens(5),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
  })
})
