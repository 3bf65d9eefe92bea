// Formats real tools write that no provider takes, converted (or, where no
// decoder here reads them, saved with a plain note): TIFF in the compressions
// sharp (libtiff) writes, JPEG-in-TIFF its default. Every input is made by a
// real encoder, every output decoded again by sharp; AVIF and HEIC, which no
// decoder here reads, get a note that says they cannot be shown.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { loadBinding, tempDir, b64, corpus } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const sharp = require('sharp')
const { toContent, toContentAsync, convertToolResult, convertToolResultSync } = loadBinding()

const image = (bytes, mimeType) => ({ type: 'image', data: b64(bytes), mimeType })

/** toContent and toContentAsync, each saving in its own folder: they must agree but for the path. */
async function both(t, part, options = {}) {
  const sync = toContent(part, { ...options, outputDir: tempDir(t) })
  const async_ = await toContentAsync(part, { ...options, outputDir: tempDir(t) })
  const strip = (r) => {
    const s = (text) => text?.replace(/saved to \S+(\]|;)/, 'saved to $1')
    return { ...r, text: s(r.text), note: s(r.note) }
  }
  assert.deepEqual(strip(async_), strip(sync), 'sync and async differ')
  return sync
}

/** A smooth RGB gradient with a few edges: what a photo looks like to JPEG. */
function photoRaw(width, height, channels = 3) {
  const raw = Buffer.alloc(width * height * channels)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels
      const edge = x > width / 2 && y > height / 3 ? 60 : 0
      raw[at] = Math.round((255 * x) / width)
      if (channels > 1) raw[at + 1] = Math.round((255 * y) / height)
      if (channels > 2) raw[at + 2] = 200 - edge
    }
  }
  return raw
}

/** The part's image decoded by sharp: its type, size and raw pixels. */
async function decodedPart(part) {
  assert.equal(part.type, 'file', `not a file part: ${part.text}`)
  const bytes = Buffer.from(part.data, 'base64')
  const meta = await sharp(bytes).metadata()
  assert.equal(`image/${meta.format}`, part.mediaType)
  // sharp's raw output is sRGB unless a grey image is kept grey.
  const pipeline = sharp(bytes)
  if (meta.channels === 1) pipeline.toColourspace('b-w')
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true })
  assert.equal(info.channels, meta.channels)
  return { data, width: info.width, height: info.height, channels: info.channels }
}

/** Mean absolute difference of two equal-length sample buffers. */
function meanDifference(a, b) {
  assert.equal(a.length, b.length)
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i])
  return sum / a.length
}

const CONVERTED =
  /^\[Image converted to fit \(image\/tiff is not accepted\): original image\/tiff (\d+)x(\d+) px, [\d.]+ [KM]B, saved to (\S+); sent image\/png (\d+)x(\d+) px, [\d.]+ [KM]B\]$/

describe('TIFF as sharp (libtiff) writes it', () => {
  const width = 96
  const height = 64
  const cases = [
    ['sharp default (JPEG)', {}, 3, true],
    ['JPEG', { compression: 'jpeg' }, 3, true],
    ['JPEG, quality 40', { compression: 'jpeg', quality: 40 }, 3, true],
    ['JPEG, tiled', { compression: 'jpeg', tile: true, tileWidth: 32, tileHeight: 32 }, 3, true],
    ['JPEG, grey', { compression: 'jpeg' }, 1, true],
    ['LZW', { compression: 'lzw' }, 3, false],
    ['LZW, horizontal predictor', { compression: 'lzw', predictor: 'horizontal' }, 3, false],
    ['Deflate', { compression: 'deflate' }, 3, false],
    ['Deflate, horizontal predictor', { compression: 'deflate', predictor: 'horizontal' }, 3, false],
    ['PackBits', { compression: 'packbits' }, 3, false],
    ['uncompressed', { compression: 'none' }, 3, false],
    ['uncompressed, grey', { compression: 'none' }, 1, false],
  ]
  for (const [name, options, channels, lossy] of cases) {
    test(`${name}: converted to PNG with its pixels, the original saved`, async (t) => {
      const raw = photoRaw(width, height, channels)
      // sharp writes sRGB unless told the image is grey.
      const source = sharp(raw, { raw: { width, height, channels } })
      if (channels === 1) source.toColourspace('b-w')
      const tiff = await source.tiff(options).toBuffer()
      const meta = await sharp(tiff).metadata()
      assert.deepEqual([meta.format, meta.channels], ['tiff', channels])
      const r = await both(t, image(tiff, 'image/tiff'))
      const m = CONVERTED.exec(r.note ?? '')
      assert.ok(m, `not converted: ${r.note ?? r.text}`)
      assert.deepEqual([+m[1], +m[2], +m[4], +m[5]], [width, height, width, height])
      assert.ok(fs.readFileSync(m[3]).equals(tiff), 'the saved original differs from the input')
      const out = await decodedPart(r)
      assert.deepEqual([out.width, out.height, out.channels], [width, height, channels])
      if (lossy) {
        // What libvips itself decodes from the TIFF, against ours.
        const theirs = await (channels === 1 ? sharp(tiff).toColourspace('b-w') : sharp(tiff)).raw().toBuffer()
        const diff = meanDifference(out.data, theirs)
        assert.ok(diff < 1.5, `mean difference from libvips' decoding: ${diff}`)
        assert.ok(meanDifference(out.data, raw) < 4, 'far from the original pixels')
      } else {
        assert.ok(out.data.equals(raw), 'pixels changed')
      }
    })
  }

  test('convertToolResult: the note, then the converted image; the original listed as saved', async (t) => {
    const raw = photoRaw(width, height)
    const tiff = await sharp(raw, { raw: { width, height, channels: 3 } })
      .tiff()
      .toBuffer()
    const result = { content: [{ type: 'text', text: 'scan' }, image(tiff, 'image/tiff')] }
    const sync = convertToolResultSync(result, { outputDir: tempDir(t) })
    const async_ = await convertToolResult(result, { outputDir: tempDir(t) })
    for (const r of [sync, async_]) {
      assert.equal(r.content.length, 3)
      assert.equal(r.content[0].text, 'scan')
      const m = CONVERTED.exec(r.content[1].text)
      assert.ok(m, `not a conversion note: ${r.content[1].text}`)
      assert.deepEqual(
        r.saved.map((s) => s.path),
        [m[3]],
      )
      const out = await decodedPart(r.content[2])
      assert.deepEqual([out.width, out.height], [width, height])
    }
    assert.equal(async_.content[2].data, sync.content[2].data)
  })
})

describe('AVIF and HEIC: no decoder here, said plainly', () => {
  // AVIF as sharp (libheif with aom) writes it; HEIC from the corpus (an
  // iPhone photo), since sharp's prebuilt libheif has no HEVC encoder.
  const cases = [
    [
      'AVIF written by sharp',
      'image/avif',
      async () =>
        sharp(photoRaw(96, 64), { raw: { width: 96, height: 64, channels: 3 } })
          .avif()
          .toBuffer(),
    ],
    ['HEIC from an iPhone', 'image/heic', async () => corpus('fixture-heic.heic')],
  ]
  for (const [name, mimeType, make] of cases) {
    test(`${name}: the note says it cannot be shown, and the original is saved`, async (t) => {
      const bytes = await make()
      for (const declared of [mimeType, undefined]) {
        const r = await both(t, { type: 'image', data: b64(bytes), ...(declared && { mimeType: declared }) })
        assert.equal(r.type, 'text')
        const m = new RegExp(
          `^\\[Binary image \\(${mimeType.replace('/', '\\/')}, ${bytes.length} bytes\\): ${mimeType.replace('/', '\\/')} is not accepted and cannot be converted here, so it cannot be shown; saved to (\\S+)\\]$`,
        ).exec(r.text)
        assert.ok(m, r.text)
        assert.ok(fs.readFileSync(m[1]).equals(bytes), 'the saved original differs from the input')
      }
    })
  }
})
