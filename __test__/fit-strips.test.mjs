// Images made to fit in memory that follows the output (docs/images.md,
// "Bounds"): a PNG is read a row at a time and reduced in strips, a JPEG
// decoded at 1/2, 1/4 or 1/8 of its size, and the output's rows go into the
// encoder as they are made, so a fit holds a few strips and the encoded
// bytes, neither the source's pixels nor the output's. Each large image is
// converted in a child process (fixtures/fit-strips-child.mjs) whose peak
// resident memory (VmHWM) is printed and held to the bound docs/images.md
// states; the quality is held to sharp's (libvips) output of the same resize
// by PSNR on decoded pixels. Images are made by sharp, in os.tmpdir().
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { bindingPath, loadBinding, tempDir } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const sharp = require('sharp')
const { toContentAsync } = loadBinding()

const here = path.dirname(fileURLToPath(import.meta.url))
const child = path.join(here, 'fixtures', 'fit-strips-child.mjs')
const MiB = 1024 * 1024
const TIMEOUT = { timeout: 240_000 }
const linux = process.platform === 'linux'

/**
 * The bound docs/images.md states for one fit's peak RSS growth, for an image
 * not turned by an EXIF orientation (its output rows go into the encoder as
 * they are made, never held whole): the input twice (the copy of its base64
 * string the call makes, and its decoded bytes), three times the answer's
 * base64 (the encoded bytes in a buffer at most twice their length, 1.5 times
 * the base64, and the base64 itself), plus 40 MiB (the strips, up to 20 MiB
 * at these sizes, the decoder's rows and the encoder's, and the runtime's own
 * growth: threads, allocator arenas, V8). It follows the output's encoded
 * size, not its pixels.
 */
const bound = ({ inputChars, outChars }) => 2 * inputChars + 3 * outChars + 40 * MiB

/** A screenshot-like tile: a light page, dark "text" runs, coloured blocks. */
function pageTile(width, height) {
  const raw = Buffer.alloc(width * height * 3, 245)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3
      if (y % 24 < 12 && x > 16 && x < width - 16 && (x * 7 + y * 13) % 11 < 6) raw.fill(33, at, at + 3)
      else if (y % 480 < 60 && x < width / 3) raw.set([200, 220, 255], at)
    }
  }
  return raw
}

/** A `width` x `height` PNG page, the tile repeated (libvips tiles it in strips). */
async function pagePng(width, height) {
  const [w, h] = [Math.min(640, width), Math.min(480, height)]
  const tile = await sharp(pageTile(w, h), { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer()
  return sharp({ create: { width, height, channels: 3, background: '#f5f5f5' }, limitInputPixels: false })
    .composite([{ input: tile, tile: true }])
    .png()
    .toBuffer()
}

/** Text-like glyphs: rows of small dark strokes on white, a few pixels each. */
function textRaw(width, height) {
  const raw = Buffer.alloc(width * height * 3, 255)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const line = y % 20
      const glyph = Math.floor(x / 9)
      const stroke = line >= 4 && line < 15 && (x % 9 === 1 + (glyph % 3) || (line === 4 + (glyph % 11) && x % 9 < 7))
      if (stroke) raw.fill(20, (y * width + x) * 3, (y * width + x) * 3 + 3)
    }
  }
  return raw
}

/** A photo-like image: smooth colour fields with fine grain. */
function photoRaw(width, height) {
  const raw = Buffer.alloc(width * height * 3)
  let s = 11
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0
      const grain = (s >>> 28) - 8
      const [u, v] = [x / width, y / height]
      const at = (y * width + x) * 3
      raw[at] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(6 * u + 2 * v) + grain))
      raw[at + 1] = Math.max(0, Math.min(255, 120 + 90 * Math.cos(4 * v - 3 * u * u) + grain))
      raw[at + 2] = Math.max(0, Math.min(255, 110 + 80 * Math.sin(9 * u * v + 1) + grain))
    }
  }
  return raw
}

function checkerboardRaw(width, height, square) {
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if ((Math.floor(x / square) + Math.floor(y / square)) % 2 === 1) raw.fill(255, (y * width + x) * 3, (y * width + x) * 3 + 3)
    }
  }
  return raw
}

/** PSNR in dB of two 8-bit images of the same size and channels. */
function psnr(a, b) {
  assert.equal(a.length, b.length)
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2
  const mse = sum / a.length
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse)
}

const sentSize = (note) => {
  const m = /sent image\/\w+ (\d+)x(\d+) px/.exec(note)
  assert.ok(m, `a fitted note: ${note}`)
  return [Number(m[1]), Number(m[2])]
}

let dir
const files = {}

before(async () => {
  dir = tempDir()
  const write = async (name, bytes) => {
    files[name] = path.join(dir, name)
    fs.writeFileSync(files[name], bytes)
  }
  await write('page-1280x20000.png', await pagePng(1280, 20000))
  await write('page-10000x10000.png', await pagePng(10000, 10000))
  await write('warm.png', await pagePng(64, 64))
}, TIMEOUT)

after(() => fs.rmSync(dir, { recursive: true, force: true }))

function convertInChild(name, options = {}) {
  const r = spawnSync(process.execPath, ['--expose-gc', child, files[name], dir, JSON.stringify(options)], {
    encoding: 'utf8',
    env: { ...process.env, MCP_CONTENT_MODULE: path.resolve(bindingPath), FIT_STRIPS_WARM: files['warm.png'] },
    maxBuffer: 64 * MiB,
  })
  assert.equal(r.status, 0, `${name}: exit ${r.status} ${r.signal ?? ''}\n${r.stderr.slice(-2000)}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1))
}

describe(
  'a fit holds a few strips and its encoded bytes, not the source nor the output pixels',
  { skip: !linux && 'peak memory is read from /proc (Linux only)' },
  () => {
    for (const [name, options, want] of [
      ['page-1280x20000.png', {}, [512, 8000]],
      ['page-10000x10000.png', {}, null],
      ['page-10000x10000.png', { maxLongSide: 1568 }, [1568, 1568]],
    ]) {
      test(`${name} ${JSON.stringify(options)}: fitted, peak RSS growth within the stated bound`, TIMEOUT, () => {
        const r = convertInChild(name, options)
        assert.equal(r.type, 'file', `fitted: ${r.note}`)
        const size = sentSize(r.note)
        if (want) assert.deepEqual(size, want)
        const limit = bound(r)
        console.log(
          `fit-strips: ${name} ${JSON.stringify(options)} -> ${size.join('x')}: peak RSS growth ${(r.peakGrowth / MiB).toFixed(1)} MiB (bound ${(limit / MiB).toFixed(1)} MiB; input ${(r.inputChars / MiB).toFixed(1)} MiB of base64)`,
        )
        assert.ok(r.peakGrowth <= limit, `${(r.peakGrowth / MiB).toFixed(1)} MiB over ${(limit / MiB).toFixed(1)} MiB`)
      })
    }
  },
)

describe('quality: as sharp makes the same resize', () => {
  /** Our fit of `input` to `maxLongSide`, and sharp's Lanczos3 resize of it to the same size, both decoded. */
  async function both(input, mimeType, maxLongSide) {
    const part = await toContentAsync({ type: 'image', data: input.toString('base64'), mimeType }, { maxLongSide, outputDir: dir })
    assert.equal(part.type, 'file', part.note)
    const ours = await sharp(Buffer.from(part.data, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    const theirs = await sharp(input)
      .resize({ width: ours.info.width, height: ours.info.height, fit: 'fill', kernel: 'lanczos3' })
      .removeAlpha()
      .raw()
      .toBuffer()
    return { ours: ours.data, theirs, info: ours.info }
  }

  // Thresholds: measured (docs/images.md) less 3 dB. A JPEG output carries
  // its own quantisation (quality 85) besides the resize.
  for (const [what, make, mimeType, maxLongSide, atLeast] of [
    [
      'a 4000x3000 JPEG photo to 1568 (decoded at 1/2)',
      async () =>
        sharp(photoRaw(4000, 3000), { raw: { width: 4000, height: 3000, channels: 3 } })
          .jpeg({ quality: 90 })
          .toBuffer(),
      'image/jpeg',
      1568,
      40,
    ],
    [
      'a 4000x3000 PNG text screenshot to 1568',
      async () =>
        sharp(textRaw(4000, 3000), { raw: { width: 4000, height: 3000, channels: 3 } })
          .png()
          .toBuffer(),
      'image/png',
      1568,
      53,
    ],
    [
      'a 16000x400 checkerboard of 40 px squares to 8000 px',
      async () =>
        sharp(checkerboardRaw(16000, 400, 40), { raw: { width: 16000, height: 400, channels: 3 } })
          .png()
          .toBuffer(),
      'image/png',
      8000,
      50,
    ],
    [
      'a 6000x4000 PNG text screenshot to 1000 (reduced by 3 in blocks)',
      async () =>
        sharp(textRaw(6000, 4000), { raw: { width: 6000, height: 4000, channels: 3 } })
          .png()
          .toBuffer(),
      'image/png',
      1000,
      44,
    ],
  ]) {
    test(`${what}: PSNR against sharp at least ${atLeast} dB`, TIMEOUT, async () => {
      const { ours, theirs, info } = await both(await make(), mimeType, maxLongSide)
      const db = psnr(ours, theirs)
      console.log(`fit-strips: ${what}: ${info.width}x${info.height}, PSNR against sharp ${db.toFixed(1)} dB`)
      assert.ok(db >= atLeast, `${db.toFixed(1)} dB`)
    })
  }
})

describe('the pixel cap: 16383x16383, libvips default, read from the header', () => {
  /**
   * A PNG claiming `width` x `height` with 1 MB of noise as its image data:
   * enough bytes to hold that many pixels at deflate's best ratio, so only
   * the pixel cap (or the data itself) refuses it.
   */
  function pngClaiming(width, height) {
    const zlib = require('node:zlib')
    const chunk = (type, data) => {
      const head = Buffer.alloc(8)
      head.writeUInt32BE(data.length, 0)
      head.write(type, 4, 'latin1')
      const crc = Buffer.alloc(4)
      crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0)
      return Buffer.concat([head, data, crc])
    }
    const ihdr = Buffer.alloc(13)
    ihdr.writeUInt32BE(width, 0)
    ihdr.writeUInt32BE(height, 4)
    ihdr.set([8, 2, 0, 0, 0], 8)
    let s = 5
    const noise = Buffer.alloc(1_000_000, 0).map(() => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), s >>> 24))
    const idat = zlib.deflateSync(noise)
    return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))])
  }

  test('a header of 16384x16384 is refused for its pixels; one of 16383x16383 gets as far as its (missing) data', async () => {
    const over = await toContentAsync(
      { type: 'image', data: pngClaiming(16384, 16384).toString('base64'), mimeType: 'image/png' },
      { outputDir: dir, fitImages: true },
    )
    const at = await toContentAsync(
      { type: 'image', data: pngClaiming(16383, 16383).toString('base64'), mimeType: 'image/png' },
      { outputDir: dir, fitImages: true },
    )
    for (const part of [over, at]) assert.equal(part.type, 'text', JSON.stringify(part).slice(0, 300))
    assert.match(over.text, /16384x16384 is more than the 268402689 pixels decoded at most/)
    assert.doesNotMatch(at.text, /pixels decoded at most/)
  })
})
