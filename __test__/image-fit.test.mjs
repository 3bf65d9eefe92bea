// Images made to fit (fitImages, on by default): every image here is made by
// a real encoder (sharp, or the fixtures' zlib PNG writer for exact byte
// sizes), every output is decoded again by sharp and checked against the
// profile's rules and for its content; the saved original is compared with
// the input byte for byte. Sync and async must agree.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { loadBinding, corpus, tempDir, b64, makePng, canonicalBase64Length, listFiles } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const sharp = require('sharp')
const { toContent, toContentAsync, convertToolResult, convertToolResultSync } = loadBinding()

/** Profiles with image limits: the most decoded bytes and the longest side they take. */
const LIMITED = [
  ['default', 3_932_160, 8000],
  ['anthropic', 7_864_320, 8000],
  ['anthropic-bedrock', 3_932_160, 8000],
  ['anthropic-vertex', 3_932_160, 8000],
  ['bedrock', 3_932_160, 8000],
  ['openrouter', 3_932_160, 8000],
]
/** How each measures: Anthropic-style profiles count base64 characters. */
const BASE64_LIMIT = { default: 5_242_880, anthropic: 10_485_760, 'anthropic-bedrock': 5_242_880, 'anthropic-vertex': 5_242_880, openrouter: 5_242_880 }

const NOTE =
  /^\[(Image|Resource \S+) (resized|converted|resized and converted|re-encoded|sent as its first frame) to fit \((.+)\): original (\S+) (\d+)x(\d+) px, ([\d.]+ [KM]B), (saved to (\S+)|not saved \(.+\)); sent (\S+) (\d+)x(\d+) px, ([\d.]+ [KM]B)\]$/

function parseNote(note) {
  const m = NOTE.exec(note)
  assert.ok(m, `not a fit note: ${note}`)
  return {
    done: m[2],
    why: m[3],
    original: { mediaType: m[4], width: +m[5], height: +m[6] },
    path: m[9],
    sent: { mediaType: m[10], width: +m[11], height: +m[12] },
  }
}

const image = (bytes, mimeType = 'image/png') => ({ type: 'image', data: b64(bytes), mimeType })

/** toContent and toContentAsync, each saving in its own folder: they must agree but for the path. */
async function both(t, part, options = {}) {
  const sync = toContent(part, { ...options, outputDir: tempDir(t) })
  const async_ = await toContentAsync(part, { ...options, outputDir: tempDir(t) })
  const strip = (r) =>
    r.type === 'text'
      ? { ...r, text: r.text.replace(/saved to \S+\]$/, 'saved to ]') }
      : r.note === undefined
        ? r
        : { ...r, note: r.note.replace(/saved to \S+;/, 'saved to ;') }
  assert.deepEqual(strip(async_), strip(sync), 'sync and async differ')
  return sync
}

/** The part's image decoded by sharp: raw pixels, size, format. */
async function decoded(part) {
  assert.equal(part.type, 'file', `not a file part: ${part.text}`)
  const bytes = Buffer.from(part.data, 'base64')
  const meta = await sharp(bytes).metadata()
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
  assert.equal(`image/${meta.format === 'jpeg' ? 'jpeg' : meta.format}`, part.mediaType)
  return { bytes, data, width: info.width, height: info.height, channels: info.channels, meta }
}

/** A fitted part: within the profile's limits, its note consistent with the pixels, the original saved. */
async function checkFitted(part, { maxBytes, maxSide, input, base64Limit }) {
  const img = await decoded(part)
  if (maxSide !== undefined) assert.ok(Math.max(img.width, img.height) <= maxSide, `${img.width}x${img.height} over ${maxSide}`)
  assert.ok(img.bytes.length <= maxBytes, `${img.bytes.length} bytes over ${maxBytes}`)
  if (base64Limit !== undefined) assert.ok(part.data.length <= base64Limit)
  assert.equal(part.data.length, canonicalBase64Length(img.bytes.length))
  const note = parseNote(part.note)
  assert.deepEqual(note.sent, { mediaType: part.mediaType, width: img.width, height: img.height })
  if (input !== undefined) assert.ok(fs.readFileSync(note.path).equals(input), 'the saved original differs from the input')
  return { ...img, note }
}

/** Grey screenshot-like rows: dark "text" lines on white, one every 20 px. */
async function screenshot(width, height) {
  const raw = Buffer.alloc(width * height, 255)
  const margin = Math.min(20, Math.floor(width / 4))
  for (let y = 0; y < height; y++) {
    if (y % 20 < 6) raw.fill(40, y * width + margin, y * width + width - margin)
  }
  return sharp(raw, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer()
}

/** A checkerboard of `square` px black and white squares, RGB. */
function checkerboardRaw(width, height, square) {
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if ((Math.floor(x / square) + Math.floor(y / square)) % 2 === 1) raw.fill(255, (y * width + x) * 3, (y * width + x) * 3 + 3)
    }
  }
  return raw
}

/** Deterministic noise: looks like a photo to any compressor. */
function noiseRaw(width, height, channels, seed = 7) {
  const raw = Buffer.alloc(width * height * channels)
  let s = seed
  for (let i = 0; i < raw.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    raw[i] = s >>> 24
  }
  return raw
}

describe('pixel limits of each profile', () => {
  for (const [provider, maxBytes, maxSide] of LIMITED) {
    test(`${provider}: ${maxSide} px sent as it is, ${maxSide + 1} px resized to ${maxSide}, both axes`, async (t) => {
      for (const [w, h] of [
        [maxSide, 10],
        [10, maxSide],
      ]) {
        const png = await screenshot(w, h)
        const r = await both(t, image(png), { provider })
        assert.equal(r.note, undefined)
        assert.equal(r.data, b64(png))
      }
      for (const [w, h, fw, fh] of [
        [maxSide + 1, 10, maxSide, 10],
        [10, maxSide + 1, 10, maxSide],
      ]) {
        const png = await screenshot(w, h)
        const r = await both(t, image(png), { provider })
        const out = await checkFitted(r, { maxBytes, maxSide, input: png, base64Limit: BASE64_LIMIT[provider] })
        assert.deepEqual([out.width, out.height], [fw, fh])
        assert.equal(out.note.done, 'resized')
        assert.match(out.note.why, new RegExp(`over the ${maxSide} px limit`))
        assert.deepEqual(out.note.original, { mediaType: 'image/png', width: w, height: h })
      }
    })
  }
})

describe('byte limits of each profile', () => {
  for (const [provider, maxBytes] of LIMITED) {
    test(`${provider}: ${maxBytes} bytes sent as they are, one more re-encoded within the limit`, async (t) => {
      const at = makePng(64, 64, { padTo: maxBytes })
      const same = await both(t, image(at), { provider })
      assert.equal(same.note, undefined)
      assert.equal(same.data, b64(at))
      const over = makePng(64, 64, { padTo: maxBytes + 1 })
      const r = await both(t, image(over), { provider })
      const out = await checkFitted(r, { maxBytes, maxSide: 8000, input: over, base64Limit: BASE64_LIMIT[provider] })
      assert.deepEqual([out.width, out.height], [64, 64])
      assert.ok(
        out.data.every((v) => v === 0),
        'the black image changed',
      )
    })
  }

  test('a photo-like PNG over the byte limit becomes a JPEG within it; a screenshot stays PNG', async (t) => {
    const raw = noiseRaw(1500, 1500, 3)
    const photo = await sharp(raw, { raw: { width: 1500, height: 1500, channels: 3 } })
      .png()
      .toBuffer()
    assert.ok(photo.length > 3_932_160)
    const r = await both(t, image(photo))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: photo })
    assert.equal(r.mediaType, 'image/jpeg')
    assert.deepEqual([out.width, out.height], [1500, 1500])
    assert.equal(out.note.done, 'converted')

    // Black and white noise: two colours, too large as PNG: made smaller, still PNG.
    const stripes = Buffer.alloc(6000 * 6000, 255)
    for (let y = 0; y < 6000; y += 1) stripes.set(noiseRaw(6000, 1, 1, y + 1), y * 6000)
    for (let i = 0; i < stripes.length; i++) stripes[i] = stripes[i] < 128 ? 0 : 255
    const drawing = await sharp(stripes, { raw: { width: 6000, height: 6000, channels: 1 } })
      .png()
      .toBuffer()
    assert.ok(drawing.length > 3_932_160, `${drawing.length}`)
    const d = await both(t, image(drawing))
    const dout = await checkFitted(d, { maxBytes: 3_932_160, maxSide: 8000, input: drawing })
    assert.equal(d.mediaType, 'image/png')
    assert.ok(dout.width < 6000 && Math.abs(dout.width - dout.height) <= 1, `${dout.width}x${dout.height}`)
  })

  test('a camera JPEG over the byte limit stays JPEG, re-encoded within it', async (t) => {
    const raw = noiseRaw(2200, 1600, 3, 3)
    const camera = await sharp(raw, { raw: { width: 2200, height: 1600, channels: 3 } })
      .jpeg({ quality: 100 })
      .toBuffer()
    assert.ok(camera.length > 3_932_160, `${camera.length}`)
    const r = await both(t, image(camera, 'image/jpeg'), { provider: 'bedrock' })
    await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: camera })
    assert.equal(r.mediaType, 'image/jpeg')
  })
})

describe('shapes from real servers', () => {
  test('a 1280x20000 full-page screenshot becomes 512x8000, its lines still there', async (t) => {
    const png = await screenshot(1280, 20000)
    const r = await both(t, image(png))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: png })
    assert.deepEqual([out.width, out.height], [512, 8000])
    // A line every 8 px now: the rows alternate dark and light in that rhythm.
    const row = (y) => out.data[y * out.width * out.channels + 256 * out.channels]
    assert.ok(row(1) < 128 && row(5) > 200, `rows 1 and 5: ${row(1)}, ${row(5)}`)
    assert.ok(row(8001 - 8 - 7) < 128 || row(8000 - 8 + 1) < 128)
  })

  test('a 30000x100 strip becomes 8000x27', async (t) => {
    const png = await screenshot(30000, 100)
    const r = await both(t, image(png), { provider: 'anthropic' })
    const out = await checkFitted(r, { maxBytes: 7_864_320, maxSide: 8000, input: png })
    assert.deepEqual([out.width, out.height], [8000, 27])
  })

  test('a downscaled checkerboard is still a checkerboard', async (t) => {
    const raw = checkerboardRaw(16000, 400, 40)
    const png = await sharp(raw, { raw: { width: 16000, height: 400, channels: 3 } })
      .png()
      .toBuffer()
    const r = await both(t, image(png))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: png })
    assert.deepEqual([out.width, out.height], [8000, 200])
    let checked = 0
    for (let sy = 0; sy < 10; sy++) {
      for (let sx = 0; sx < 400; sx += 7) {
        const [x, y] = [sx * 20 + 10, sy * 20 + 10]
        const v = out.data[(y * out.width + x) * out.channels]
        const want = (sx + sy) % 2 === 1 ? 255 : 0
        assert.ok(Math.abs(v - want) < 10, `square ${sx},${sy}: ${v}`)
        checked++
      }
    }
    assert.ok(checked > 500)
  })
})

describe('hostile and unusual images', () => {
  test('a 100000x100000 header is refused before decoding: saved with the reason', async (t) => {
    // A valid IHDR, a 10 MB IDAT (enough bytes to claim that many pixels, at deflate's
    // best ratio), IEND: a decompression bomb's shape.
    const { crc32 } = await import('./fixtures/index.mjs')
    const chunk = (type, data) => {
      const head = Buffer.alloc(8)
      head.writeUInt32BE(data.length, 0)
      head.write(type, 4, 'latin1')
      const crc = Buffer.alloc(4)
      crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
      return Buffer.concat([head, data, crc])
    }
    const ihdr = Buffer.alloc(13)
    ihdr.writeUInt32BE(100_000, 0)
    ihdr.writeUInt32BE(100_000, 4)
    ihdr[8] = 8
    const idat = (await import('node:zlib')).deflateSync(noiseRaw(10_000_000, 1, 1))
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))])
    const before = process.memoryUsage().rss
    const r = await both(t, image(png))
    assert.equal(r.type, 'text')
    assert.match(
      r.text,
      /100000x100000 px, over the 8000 px limit.*; it could not be made to fit: 100000x100000 is more than the 268402689 pixels decoded at most; saved to /,
    )
    // 10^10 pixels would take 40 GB: nothing near that was allocated.
    assert.ok(process.memoryUsage().rss - before < 512 * 1024 * 1024)
  })

  test('a 16-bit PNG with alpha keeps its alpha (PNG out), at 8 bits', async (t) => {
    const raw = Buffer.alloc(9000 * 20 * 4)
    for (let i = 0; i < 9000 * 20; i++) raw.set(i % 9000 < 4500 ? [255, 0, 0, 64] : [0, 0, 255, 255], i * 4)
    const png = await sharp(raw, { raw: { width: 9000, height: 20, channels: 4 } })
      .toColourspace('rgb16')
      .png()
      .toBuffer()
    assert.equal((await sharp(png).metadata()).depth, 'ushort')
    const r = await both(t, image(png))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: png })
    assert.equal(r.mediaType, 'image/png')
    assert.equal(out.channels, 4)
    const px = (x) => [...out.data.subarray((10 * out.width + x) * 4, (10 * out.width + x) * 4 + 4)]
    const left = px(100)
    assert.ok(left[0] > 250 && left[2] < 5 && Math.abs(left[3] - 64) <= 1, `${left}`)
    assert.deepEqual(px(7900), [0, 0, 255, 255])
  })

  test('alpha is never black in JPEG: flattened on white', async (t) => {
    // Photo-like noise, left half fully transparent: over the byte limit as PNG.
    const raw = noiseRaw(1500, 1500, 4, 11)
    for (let i = 0; i < 1500 * 1500; i++) raw[i * 4 + 3] = i % 1500 < 750 ? 0 : 255
    const png = await sharp(raw, { raw: { width: 1500, height: 1500, channels: 4 } })
      .png()
      .toBuffer()
    assert.ok(png.length > 3_932_160)
    const r = await both(t, image(png))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: png })
    assert.equal(r.mediaType, 'image/jpeg')
    for (const [x, y] of [
      [10, 10],
      [300, 700],
      [700, 1400],
    ]) {
      const at = (y * out.width + x) * out.channels
      assert.ok(out.data[at] > 240 && out.data[at + 1] > 240 && out.data[at + 2] > 240, `pixel ${x},${y} is not white`)
    }
  })

  test('an EXIF-rotated JPEG is sent upright', async (t) => {
    // Stored 9000x200, red left half; orientation 6 shows it turned 90 degrees clockwise: 200x9000, red on top.
    const raw = Buffer.alloc(9000 * 200 * 3)
    for (let i = 0; i < 9000 * 200; i++) raw.set(i % 9000 < 4500 ? [255, 0, 0] : [0, 0, 255], i * 3)
    const jpeg = await sharp(raw, { raw: { width: 9000, height: 200, channels: 3 } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer()
    const r = await both(t, image(jpeg, 'image/jpeg'))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: jpeg })
    assert.deepEqual([out.width, out.height], [178, 8000])
    assert.equal(out.meta.orientation ?? 1, 1)
    assert.deepEqual(out.note.original, { mediaType: 'image/jpeg', width: 200, height: 9000 })
    const at = (x, y) => [...out.data.subarray((y * out.width + x) * 3, (y * out.width + x) * 3 + 3)]
    assert.ok(at(89, 1000)[0] > 200 && at(89, 1000)[2] < 60, `top: ${at(89, 1000)}`)
    assert.ok(at(89, 7000)[2] > 200 && at(89, 7000)[0] < 60, `bottom: ${at(89, 7000)}`)
  })
})

describe('formats the provider refuses', () => {
  for (const [name, mimeType] of [
    ['fixture.bmp', 'image/bmp'],
    ['fixture-little-endian.tif', 'image/tiff'],
    ['fixture-big-endian.tif', 'image/tiff'],
    ['fixture.ico', 'image/vnd.microsoft.icon'],
  ]) {
    test(`${name} is converted to PNG or JPEG, the original saved`, async (t) => {
      const bytes = corpus(name)
      const r = await both(t, image(bytes, mimeType))
      const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: bytes })
      assert.ok(['image/png', 'image/jpeg'].includes(r.mediaType))
      assert.equal(out.note.original.mediaType, mimeType)
      assert.match(out.note.why, /is not accepted/)
    })
  }

  test('a TIFF written by sharp keeps its pixels', async (t) => {
    const raw = checkerboardRaw(64, 64, 8)
    const tiff = await sharp(raw, { raw: { width: 64, height: 64, channels: 3 } })
      .tiff({ compression: 'lzw' })
      .toBuffer()
    const r = await both(t, image(tiff, 'image/tiff'))
    const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 8000, input: tiff })
    assert.equal(r.mediaType, 'image/png')
    assert.equal(out.note.done, 'converted')
    assert.equal(out.channels, 3)
    assert.ok(out.data.equals(raw), 'pixels changed')
  })

  test('an animated GIF or WebP for a provider taking still images: the first frame, said in the note', async (t) => {
    // Three 20x10 frames: red, green, blue.
    const raw = Buffer.alloc(20 * 30 * 3)
    for (let f = 0; f < 3; f++) for (let i = 0; i < 200; i++) raw[(f * 200 + i) * 3 + f] = 255
    const frames = { raw: { width: 20, height: 30, channels: 3, pageHeight: 10 } }
    for (const [bytes, mimeType] of [
      [await sharp(raw, frames).gif().toBuffer(), 'image/gif'],
      [await sharp(raw, frames).webp({ lossless: true }).toBuffer(), 'image/webp'],
    ]) {
      assert.equal((await sharp(bytes, { animated: true }).metadata()).pages, 3)
      const r = await both(t, image(bytes, mimeType), { provider: 'openai' })
      const out = await checkFitted(r, { maxBytes: 384_000_000, input: bytes })
      assert.equal(out.note.done, 'sent as its first frame')
      assert.deepEqual([out.width, out.height], [20, 10])
      const first = [...out.data.subarray(0, 3)]
      assert.ok(first[0] > 240 && first[1] < 15 && first[2] < 15, `${mimeType}: ${first}`)
    }
  })
})

describe('options', () => {
  test('fitImages: false keeps saving what is over a limit', async (t) => {
    const png = await screenshot(9000, 10)
    const r = await both(t, image(png), { fitImages: false })
    assert.equal(r.type, 'text')
    assert.match(r.text, /over the 8000 px limit; saved to /)
  })

  test('maxLongSide makes an image within the limits smaller, for any provider', async (t) => {
    const png = await screenshot(3000, 2000)
    for (const provider of ['default', 'openai', 'google']) {
      const r = await both(t, image(png), { provider, maxLongSide: 1568 })
      const out = await checkFitted(r, { maxBytes: 3_932_160, maxSide: 1568, input: png })
      assert.deepEqual([out.width, out.height], [1568, 1045])
      assert.match(out.note.why, /maxLongSide, 1568 px/)
    }
    const small = await screenshot(800, 600)
    const same = await both(t, image(small), { maxLongSide: 1568 })
    assert.equal(same.data, b64(small))
  })

  test('bad values are refused with INVALID_ARGUMENT', async () => {
    for (const options of [{ fitImages: 'yes' }, { maxLongSide: 0 }, { maxLongSide: 1.5 }, { maxLongSide: '1568' }, { maxLongSide: -1 }]) {
      assert.throws(
        () => toContent({ type: 'text', text: 'x' }, options),
        (e) => e.code === 'INVALID_ARGUMENT',
        JSON.stringify(options),
      )
      await assert.rejects(convertToolResult({ content: [] }, options), (e) => e.code === 'INVALID_ARGUMENT')
    }
  })

  test('toContentAsync fits a large image off the JS thread', async (t) => {
    const png = await screenshot(1280, 20000)
    let turns = 0
    let spinning = true
    const spin = () => {
      turns++
      if (spinning) setImmediate(spin)
    }
    setImmediate(spin)
    const r = await toContentAsync(image(png), { outputDir: tempDir(t) })
    spinning = false
    assert.equal(r.type, 'file')
    // The event loop went round while the image was decoded and resized.
    assert.ok(turns > 3, `the event loop turned ${turns} times`)
  })
})

describe('whole tool results', () => {
  test('the note goes just before the fitted image; the original is in saved', async (t) => {
    const png = await screenshot(1280, 20000)
    const dir = tempDir(t)
    const r = convertToolResultSync({ content: [{ type: 'text', text: 'page' }, image(png)] }, { outputDir: dir })
    assert.equal(r.content.length, 3)
    assert.equal(r.content[0].text, 'page')
    const note = parseNote(r.content[1].text)
    assert.equal(r.content[2].type, 'file')
    assert.equal(r.content[2].note, undefined)
    assert.deepEqual(
      r.saved.map((s) => s.path),
      [note.path],
    )
    assert.equal(r.saved[0].byteLength, png.length)
    const a = await convertToolResult({ content: [{ type: 'text', text: 'page' }, image(png)] }, { outputDir: tempDir(t) })
    assert.equal(a.content[2].data, r.content[2].data)
  })

  test('anthropic, 24 images of 2500x300: all sent, each within 2000 px (the many-image rule)', async (t) => {
    const pngs = []
    for (let i = 0; i < 24; i++) pngs.push(await screenshot(2500, 300 + i))
    const content = pngs.map((p) => image(p))
    for (const convert of [convertToolResultSync, convertToolResult]) {
      const r = await convert({ content }, { provider: 'anthropic', outputDir: tempDir(t) })
      const files = r.content.filter((p) => p.type === 'file')
      assert.equal(files.length, 24)
      for (const f of files) {
        const img = await decoded(f)
        assert.ok(Math.max(img.width, img.height) <= 2000, `${img.width}x${img.height}`)
      }
      const notes = r.content.filter((p) => p.type === 'text').map((p) => parseNote(p.text))
      assert.ok(notes.length >= 4, `${notes.length} notes`)
      for (const n of notes) assert.match(n.why, /over the 2000 px limit for requests with more than 20 images/)
      assert.equal(r.saved.length, notes.length)
      for (const s of r.saved) assert.ok(pngs.some((p) => fs.readFileSync(s.path).equals(p)))
    }
  })

  test('an image fitted for 8000 px and then held by the many-image rule: fitted once from the original, one note, one saved file', async (t) => {
    const tall = await screenshot(1280, 20000)
    const small = []
    for (let i = 0; i < 20; i++) small.push(await screenshot(400, 300 + i))
    const content = [image(tall), ...small.map((p) => image(p))]
    for (const convert of [convertToolResultSync, convertToolResult]) {
      const dir = tempDir(t)
      const r = await convert({ content }, { provider: 'anthropic', outputDir: dir })
      assert.equal(r.content.length, 22)
      const note = parseNote(r.content[0].text)
      assert.equal(note.why, '1280x20000 px, over the 2000 px limit for requests with more than 20 images')
      assert.deepEqual([note.original.width, note.original.height], [1280, 20000])
      const img = await decoded(r.content[1])
      assert.deepEqual([img.width, img.height], [128, 2000])
      assert.deepEqual(
        r.saved.map((s) => s.path),
        [note.path],
      )
      assert.ok(fs.readFileSync(note.path).equals(tall))
      assert.equal(listFiles(dir).length, 1, 'the original is saved once')
      r.content.slice(2).forEach((p, i) => assert.equal(p.data, b64(small[i])))
    }
  })

  test('an image fitted and then over the image count: noted with the file already holding its original', async (t) => {
    const tall = await screenshot(1280, 20000)
    const small = []
    for (let i = 0; i < 20; i++) small.push(await screenshot(400, 300 + i))
    const content = [...small.map((p) => image(p)), image(tall)]
    for (const convert of [convertToolResultSync, convertToolResult]) {
      const dir = tempDir(t)
      const r = await convert({ content }, { outputDir: dir })
      assert.equal(r.content.length, 21)
      const last = r.content[20].text
      assert.match(last, /^\[Binary image \(image\/png, \d+ bytes\): over the limit of 20 images per request; saved to (.+)\]$/)
      const path = /saved to (.+)\]$/.exec(last)[1]
      assert.deepEqual(
        r.saved.map((s) => s.path),
        [path],
      )
      assert.ok(fs.readFileSync(path).equals(tall))
      assert.equal(listFiles(dir).length, 1, 'the original is saved once')
    }
  })

  test('20 images of 2500x300 are within the rule: sent as they are', async (t) => {
    const pngs = []
    for (let i = 0; i < 20; i++) pngs.push(await screenshot(2500, 300 + i))
    const r = convertToolResultSync({ content: pngs.map((p) => image(p)) }, { provider: 'anthropic', outputDir: tempDir(t) })
    assert.equal(r.content.length, 20)
    r.content.forEach((p, i) => assert.equal(p.data, b64(pngs[i])))
  })
})
