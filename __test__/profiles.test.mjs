// Provider profiles, one part at a time (toContent with `provider`): each
// row's image size limit and side limit at both sides, with real PNGs
// (zlib-encoded rows, valid CRCs, sized by a tEXt chunk: makePng), the types
// each row takes, and animated GIFs where only still images go. The numbers
// are the provider documents' (see src/provider.rs); sizes are measured as
// each provider measures them (Anthropic and Gemini on the base64 string,
// Bedrock on the decoded bytes).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import {
  loadBinding,
  bindingPath,
  corpus,
  tempDir,
  b64,
  makePng,
  makeWav,
  referenceImageInfo,
  checkFilePart,
  checkSavedNote,
  assertSameResult,
  canonicalBase64Length,
} from './fixtures/index.mjs'
import { animatedGif, gifFrames } from './fixtures/results.mjs'

const { toContent, toContentAsync } = loadBinding()

/** toContent and toContentAsync for one provider, each into its own folder; they must agree. */
async function convert(t, part, provider) {
  const dir = tempDir(t)
  const sync = toContent(part, { fitImages: false, provider, outputDir: dir })
  const async_ = await toContentAsync(part, { fitImages: false, provider, outputDir: tempDir(t) })
  assertSameResult(assert, sync, async_)
  return { result: sync, dir }
}

/** The decoded bytes of a file part, checked to be `bytes` (no 5 MB or 8000 px assumption: rows differ). */
function assertAttached(result, mediaType, bytes) {
  assert.equal(result?.type, 'file', `expected a file part, got ${JSON.stringify(result)?.slice(0, 300)}`)
  assert.equal(result.mediaType, mediaType)
  assert.ok(Buffer.from(result.data, 'base64').equals(bytes), 'file part data is not the input bytes')
  assert.equal(result.data.length, canonicalBase64Length(bytes.length))
}

// Each row's largest image: decoded bytes, the reason one byte more gets.
const sizeRows = [
  { provider: 'default', max: 3_932_160, over: '5.3 MB as base64, over the 5.2 MB limit' },
  { provider: 'anthropic', max: 7_864_320, over: '10.5 MB as base64, over the 10.4 MB limit' },
  { provider: 'anthropic-bedrock', max: 3_932_160, over: '5.3 MB as base64, over the 5.2 MB limit' },
  { provider: 'anthropic-vertex', max: 3_932_160, over: '5.3 MB as base64, over the 5.2 MB limit' },
  { provider: 'bedrock', max: 3_932_160, over: '4.0 MB, over the 3.9 MB limit' },
  { provider: 'openrouter', max: 3_932_160, over: '5.3 MB as base64, over the 5.2 MB limit' },
]

describe('image size limit of each row, at both sides', () => {
  const pngs = new Map()
  const pngOf = (len) => {
    if (!pngs.has(len)) pngs.set(len, makePng(512, 512, { fill: 'random', padTo: len }))
    return pngs.get(len)
  }

  for (const { provider, max, over } of sizeRows) {
    test(`${provider}: ${max} bytes attached, ${max + 1} saved with the limit`, async (t) => {
      const atLimit = pngOf(max)
      const tooBig = pngOf(max + 1)
      assert.deepEqual(referenceImageInfo(tooBig), { mediaType: 'image/png', width: 512, height: 512 })
      for (const data of [b64(atLimit), Buffer.from(atLimit)]) {
        const { result } = await convert(t, { type: 'image', data, mimeType: 'image/png' }, provider)
        assertAttached(result, 'image/png', atLimit)
      }
      for (const data of [b64(tooBig), Buffer.from(tooBig)]) {
        const { result, dir } = await convert(t, { type: 'image', data, mimeType: 'image/png' }, provider)
        checkSavedNote(assert, result, { head: 'Binary image', mediaType: 'image/png', reason: over, bytes: tooBig, dir, ext: 'png' })
      }
    })
  }

  test('anthropic: the direct API takes what the partner platforms refuse', async (t) => {
    const png = pngOf(3_932_161)
    assert.equal(b64(png).length, 5_242_884)
    const direct = await convert(t, { type: 'image', data: b64(png), mimeType: 'image/png' }, 'anthropic')
    assertAttached(direct.result, 'image/png', png)
    for (const provider of ['anthropic-bedrock', 'anthropic-vertex']) {
      const { result } = await convert(t, { type: 'image', data: b64(png), mimeType: 'image/png' }, provider)
      assert.equal(result.type, 'text', provider)
    }
  })

  test('openai and openai-chat: no per-image size limit below the 512 MB payload', async (t) => {
    // Documented only as the request payload; 7.8 MB is over every other row.
    const png = pngOf(7_864_321)
    for (const provider of ['openai', 'openai-chat']) {
      const { result } = await convert(t, { type: 'image', data: Buffer.from(png), mimeType: 'image/png' }, provider)
      assertAttached(result, 'image/png', png)
    }
  })

  test('google: 75,000,000 bytes (100 MB as base64) attached, one byte more saved', (t) => {
    // Sync only, from bytes: two 75 MB images are enough work for one test.
    for (const [len, expected] of [
      [75_000_000, 'file'],
      [75_000_001, '100.1 MB as base64, over the 100.0 MB limit'],
    ]) {
      let png = makePng(64, 64, { fill: 'random', padTo: len })
      const dir = tempDir(t)
      const result = toContent({ type: 'image', data: png, mimeType: 'image/png' }, { fitImages: false, provider: 'google', outputDir: dir })
      if (expected === 'file') {
        assert.equal(result.type, 'file')
        assert.equal(result.data.length, 100_000_000)
      } else {
        checkSavedNote(assert, result, { head: 'Binary image', mediaType: 'image/png', reason: expected, bytes: png, dir, ext: 'png' })
      }
      png = undefined
    }
  })
})

const sideRows = ['default', 'anthropic', 'anthropic-bedrock', 'anthropic-vertex', 'bedrock', 'openrouter']

describe('side limit of each row, at both sides', () => {
  const at = makePng(8000, 1)
  const wide = makePng(8001, 1)
  const tall = makePng(1, 8001)

  for (const provider of sideRows) {
    test(`${provider}: 8000 px attached, 8001 px saved`, async (t) => {
      assert.deepEqual(referenceImageInfo(wide), { mediaType: 'image/png', width: 8001, height: 1 })
      const { result } = await convert(t, { type: 'image', data: b64(at), mimeType: 'image/png' }, provider)
      checkFilePart(assert, result, { mediaType: 'image/png', bytes: at })
      for (const [png, w, h] of [
        [wide, 8001, 1],
        [tall, 1, 8001],
      ]) {
        const { result: over, dir } = await convert(t, { type: 'image', data: b64(png), mimeType: 'image/png' }, provider)
        checkSavedNote(assert, over, { head: 'Binary image', mediaType: 'image/png', reason: `${w}x${h} px, over the 8000 px limit`, bytes: png, dir })
      }
    })
  }

  for (const provider of ['openai', 'openai-chat', 'google']) {
    test(`${provider}: no side limit (images are scaled by the provider)`, async (t) => {
      for (const png of [wide, makePng(20_000, 1)]) {
        const { result } = await convert(t, { type: 'image', data: b64(png), mimeType: 'image/png' }, provider)
        assertAttached(result, 'image/png', png)
      }
    })
  }
})

describe('the types each row takes', () => {
  const samples = {
    png: ['image/png', makePng(16, 16)],
    jpeg: ['image/jpeg', corpus('fixture.jpg')],
    gif: ['image/gif', corpus('fixture.gif')],
    webp: ['image/webp', corpus('fixture.webp')],
    heic: ['image/heic', corpus('fixture-heic.heic')],
    pdf: ['application/pdf', corpus('fixture.pdf')],
    docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', corpus('fixture.docx')],
    xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', corpus('fixture.xlsx')],
    wav: ['audio/wav', makeWav()],
    mp3: ['audio/mpeg', corpus('fixture.mp3')],
    flac: ['audio/flac', corpus('fixture.flac')],
    ogg: ['audio/ogg', corpus('fixture.ogg')],
    aiff: ['audio/aiff', corpus('fixture.aif')],
  }
  const claude = ['png', 'jpeg', 'gif', 'webp', 'pdf']
  const takes = {
    default: claude,
    anthropic: claude,
    'anthropic-bedrock': claude,
    'anthropic-vertex': claude,
    openai: ['png', 'jpeg', 'gif', 'webp', 'pdf', 'docx', 'xlsx'],
    'openai-chat': ['png', 'jpeg', 'gif', 'webp', 'pdf', 'wav', 'mp3'],
    google: ['png', 'jpeg', 'webp', 'heic', 'pdf', 'wav', 'mp3', 'flac', 'ogg', 'aiff'],
    bedrock: ['png', 'jpeg', 'gif', 'webp', 'pdf', 'docx', 'xlsx'],
    openrouter: ['png', 'jpeg', 'gif', 'webp', 'pdf', 'wav', 'mp3', 'flac', 'ogg', 'aiff'],
  }
  for (const [provider, accepted] of Object.entries(takes)) {
    test(`${provider}: ${accepted.join(', ')}; nothing else`, async (t) => {
      for (const [name, [mediaType, bytes]] of Object.entries(samples)) {
        const part = { type: 'resource', resource: { uri: `file:///sample.${name}`, mimeType: mediaType, blob: b64(bytes) } }
        const { result, dir } = await convert(t, part, provider)
        if (accepted.includes(name)) {
          assertAttached(result, mediaType, bytes)
          assert.equal(result.filename, `sample.${name}`)
        } else {
          checkSavedNote(assert, result, {
            head: `Binary resource file:///sample.${name}`,
            mediaType,
            // No decoder here reads HEIC: nothing of it can be shown.
            reason:
              mediaType === 'image/heic' ? `${mediaType} is not accepted and cannot be converted here, so it cannot be shown` : `${mediaType} is not accepted`,
            bytes,
            dir,
          })
        }
      }
    })
  }
})

describe('animated GIFs', () => {
  const animated = animatedGif()
  const still = corpus('fixture.gif')

  test('the test GIFs are what they claim', () => {
    assert.equal(gifFrames(still), 1)
    assert.equal(gifFrames(animated), 2)
    assert.deepEqual(referenceImageInfo(animated), referenceImageInfo(still))
  })

  for (const provider of ['openai', 'openai-chat']) {
    test(`${provider} takes still GIFs only`, async (t) => {
      const { result } = await convert(t, { type: 'image', data: b64(still), mimeType: 'image/gif' }, provider)
      assertAttached(result, 'image/gif', still)
      for (const data of [b64(animated), Buffer.from(animated)]) {
        const { result: refused, dir } = await convert(t, { type: 'image', data, mimeType: 'image/gif' }, provider)
        checkSavedNote(assert, refused, {
          head: 'Binary image',
          mediaType: 'image/gif',
          reason: 'animated image/gif is not accepted, only still images',
          bytes: animated,
          dir,
          ext: 'gif',
        })
      }
    })
  }

  test('an animation whose second frame lies past the sniffed head is still seen', async (t) => {
    // Over 64 KiB of frame data before the second image: the whole base64 is read.
    const big = makeBigAnimatedGif()
    assert.equal(gifFrames(big), 2)
    assert.ok(big.length > 100_000)
    const { result } = await convert(t, { type: 'image', data: b64(big), mimeType: 'image/gif' }, 'openai')
    assert.equal(result.type, 'text')
    assert.match(result.text, /animated image\/gif is not accepted/)
    const { result: taken } = await convert(t, { type: 'image', data: b64(big), mimeType: 'image/gif' }, 'anthropic')
    assertAttached(taken, 'image/gif', big)
  })

  for (const provider of ['default', 'anthropic', 'anthropic-bedrock', 'bedrock', 'openrouter']) {
    test(`${provider} takes animated GIFs`, async (t) => {
      const { result } = await convert(t, { type: 'image', data: b64(animated), mimeType: 'image/gif' }, provider)
      assertAttached(result, 'image/gif', animated)
    })
  }
})

/**
 * The corpus GIF with a large application extension (valid sub-blocks of
 * 255 bytes) before its frame, then the frame again: the second image lies
 * past the first 64 KiB.
 */
function makeBigAnimatedGif() {
  const animated = animatedGif()
  const table = (flags) => (flags & 0x80 ? 3 << ((flags & 7) + 1) : 0)
  const at = 13 + table(animated[10])
  const blocks = [Buffer.from([0x21, 0xff, 11]), Buffer.from('MCPTESTPAD1.0', 'latin1').subarray(0, 11)]
  for (let i = 0; i < 400; i++) blocks.push(Buffer.from([255]), Buffer.alloc(255, i & 0xff))
  blocks.push(Buffer.from([0]))
  return Buffer.concat([animated.subarray(0, at), ...blocks, animated.subarray(at)])
}

describe('PDF page limits', () => {
  /** A PDF of `pages` pages written by pdf-lib, its page tree in plain sight. */
  async function pdfOf(pages) {
    const { PDFDocument } = await import('pdf-lib')
    const doc = await PDFDocument.create()
    for (let i = 0; i < pages; i++) doc.addPage([100, 100])
    return Buffer.from(await doc.save({ useObjectStreams: false }))
  }

  test('Claude takes 100 pages; 101 are saved with the page count in the note; Gemini takes 1000', async (t) => {
    const pdf100 = await pdfOf(100)
    const pdf101 = await pdfOf(101)
    const part = (bytes) => ({ type: 'resource', resource: { uri: 'file:///report.pdf', mimeType: 'application/pdf', blob: b64(bytes) } })
    for (const provider of ['default', 'anthropic', 'anthropic-bedrock', 'anthropic-vertex']) {
      const { result } = await convert(t, part(pdf100), provider)
      assertAttached(result, 'application/pdf', pdf100)
      const { result: refused, dir } = await convert(t, part(pdf101), provider)
      checkSavedNote(assert, refused, {
        head: 'Binary resource file:///report.pdf',
        mediaType: 'application/pdf',
        reason: '101 pages, over the 100-page limit',
        bytes: pdf101,
        dir,
        ext: 'pdf',
      })
    }
    for (const provider of ['google', 'openai', 'bedrock']) {
      const { result } = await convert(t, part(pdf101), provider)
      assert.equal(result.type, 'file', `${provider}: ${JSON.stringify(result).slice(0, 200)}`)
    }
  })
})

describe('the providers export', () => {
  test('lists exactly the names of ProviderName in index.d.ts, each accepted, frozen', () => {
    const { providers } = loadBinding()
    const dts = fs.readFileSync(path.join(bindingPath, 'index.d.ts'), 'utf8')
    const union = /export type ProviderName =([^]*?)\n\n/.exec(dts)
    assert.ok(union, 'index.d.ts declares ProviderName')
    const declared = [...union[1].matchAll(/'([^']+)'/g)].map((m) => m[1])
    assert.deepEqual([...providers].sort(), [...declared].sort())
    assert.equal(providers[0], 'default')
    assert.ok(Object.isFrozen(providers))
    for (const provider of providers) assert.equal(toContent({ type: 'text', text: 'x' }, { provider }).text, 'x')
    assert.throws(() => toContent({ type: 'text', text: 'x' }, { provider: 'not-a-provider' }), { code: 'INVALID_ARGUMENT' })
  })
})
