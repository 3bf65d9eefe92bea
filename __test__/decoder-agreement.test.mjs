// Differential test against a real decoder: images made here with sharp
// (PNG, JPEG, GIF, WebP lossy and lossless, several sizes up to the default
// profile's 3.75 MiB), damaged at many offsets by a seeded generator (a byte
// flipped, two bytes flipped, 16 bytes zeroed, the data cut, and for PNG an
// IDAT byte flipped with the chunk's CRC made right again), each decoded
// whole by sharp (libvips: libpng, libjpeg-turbo, libwebp, its GIF loader)
// and converted by this package as one-line base64, MIME-wrapped base64
// (76-character lines) and bytes.
//
// sharp decodes with failOn 'error': what libvips reports as an error
// ("libpng read error", "gifload_buffer: Invalid frame data", "webp2vips:
// unable to read pixels") is what a provider's decoder refuses. Warnings
// (libjpeg-turbo's "Corrupt JPEG data: N extraneous bytes", which still
// yields the whole image) are not refusals; with failOn 'none' libvips
// returns part of a broken image and refuses nothing.
//
// The test fails on any image attached that sharp cannot decode (what is
// attached is decoded, the repaired copy of a PNG included), and on any
// verdict that differs between the three forms. Images refused here that
// sharp decodes are counted and printed, not failed: a stricter check is
// safe, only a looser one breaks a session.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { loadBinding } from './fixtures/index.mjs'
import { prng, damage } from './fixtures/damage.mjs'

const { toContent, toContentAsync } = loadBinding()

/** Pixels with noise over a gradient: neither flat nor wholly random. */
function pixels(width, height, channels, random) {
  const out = Buffer.alloc(width * height * channels)
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++, i++) out[i] = ((x * 255) / width + (y * 97) / height + c * 40 + random() * 64) & 0xff
    }
  }
  return out
}

function noise(width, height, channels, random) {
  const out = Buffer.alloc(width * height * channels)
  for (let i = 0; i < out.length; i++) out[i] = (random() * 256) | 0
  return out
}

/** The corpus: [name, bytes, damaged cases per kind]. The largest PNG is the
 * size of the (1200x1060 uncompressed noise, 3.8 MB, just under the
 * default profile's limit); large images get fewer cases to keep the run short. */
async function corpus(random) {
  const raw = (w, h, ch, fill = pixels) => sharp(fill(w, h, ch, random), { raw: { width: w, height: h, channels: ch } })
  return [
    ['png 64x48 level 6', await raw(64, 48, 3).png({ compressionLevel: 6 }).toBuffer(), 10],
    ['png 300x200 rgba level 9', await raw(300, 200, 4).png({ compressionLevel: 9 }).toBuffer(), 10],
    ['png 300x200 palette', await raw(300, 200, 3).png({ palette: true }).toBuffer(), 8],
    ['png 1200x1060 noise level 0', await raw(1200, 1060, 3, noise).png({ compressionLevel: 0 }).toBuffer(), 5],
    ['jpeg 64x48', await raw(64, 48, 3).jpeg({ quality: 80 }).toBuffer(), 10],
    ['jpeg 640x480', await raw(640, 480, 3).jpeg({ quality: 85 }).toBuffer(), 8],
    ['jpeg 1600x1200 progressive', await raw(1600, 1200, 3).jpeg({ quality: 90, progressive: true }).toBuffer(), 4],
    ['gif 64x48', await raw(64, 48, 3).gif().toBuffer(), 10],
    ['gif 400x300', await raw(400, 300, 3).gif().toBuffer(), 8],
    ['webp lossy 64x48', await raw(64, 48, 3).webp({ quality: 80 }).toBuffer(), 10],
    ['webp lossy 800x600 alpha', await raw(800, 600, 4).webp({ quality: 80 }).toBuffer(), 6],
    ['webp lossless 64x48', await raw(64, 48, 3).webp({ lossless: true }).toBuffer(), 10],
    ['webp lossless 600x400', await raw(600, 400, 4).webp({ lossless: true }).toBuffer(), 6],
  ]
}

async function sharpDecodes(bytes) {
  try {
    await sharp(bytes, { failOn: 'error', limitInputPixels: false, animated: true }).raw().toBuffer()
    return true
  } catch {
    return false
  }
}

const wrapped = (s) => s.replace(/.{76}/g, '$&\r\n')

// About 30 s on 2 cores under load; Bun's default per-test timeout is 5 s.
const LONG = { timeout: 180_000 }

test('nothing attached that sharp (libvips) refuses, the same verdict in every form', LONG, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-agreement-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const random = prng(0x23)
  const counts = { cases: 0, agree: 0, attachedButRefused: 0, falsePositives: 0 }
  const byFormat = {}
  const attachedButRefused = []
  const falsePositives = []
  const formsDiffer = []

  for (const [name, original, n] of await corpus(random)) {
    assert.ok(await sharpDecodes(original), `${name}: sharp decodes the undamaged image`)
    const mimeType = `image/${name.split(' ')[0]}`
    for (const [what, bytes] of [['undamaged', original], ...damage(original, n, random)]) {
      const label = `${name}, ${what}`
      const base64 = bytes.toString('base64')
      const results = [
        toContent({ type: 'image', data: base64, mimeType }, { outputDir: dir }),
        toContent({ type: 'image', data: wrapped(base64), mimeType }, { outputDir: dir }),
        await toContentAsync({ type: 'image', data: new Uint8Array(bytes), mimeType }, { outputDir: dir }),
      ]
      const attached = results.map((r) => r.type !== 'text')
      if (new Set(attached).size !== 1) formsDiffer.push(`${label}: attached as ${attached.join('/')} (base64/wrapped/bytes)`)
      const decodes = await sharpDecodes(bytes)
      const row = (byFormat[name.split(' ').slice(0, 2).join(' ')] ??= { cases: 0, attachedButRefused: 0, falsePositives: 0 })
      counts.cases++
      row.cases++
      for (const r of results.filter((r) => r.type !== 'text')) {
        // What is sent (a repaired PNG's copy) must decode.
        if (!(await sharpDecodes(Buffer.from(r.data, 'base64')))) {
          attachedButRefused.push(label)
          counts.attachedButRefused++
          row.attachedButRefused++
          break
        }
      }
      if (attached[0] === decodes) counts.agree++
      else if (decodes) {
        counts.falsePositives++
        row.falsePositives++
        falsePositives.push(`${label}: ${results[0].text}`)
      }
    }
  }

  console.log(`decoder agreement: ${JSON.stringify(counts)}`)
  for (const [format, row] of Object.entries(byFormat)) console.log(`  ${format}: ${JSON.stringify(row)}`)
  for (const line of falsePositives) console.log(`  refused here, decoded by sharp: ${line}`)
  assert.deepEqual(formsDiffer, [], 'the same verdict for base64, wrapped base64 and bytes')
  assert.deepEqual(attachedButRefused, [], 'attached although sharp refuses it')
})

test("the issue's images: a PNG flipped past the first 64 KiB, a GIF and a lossless WebP damaged near their end", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-agreement-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const random = prng(7)
  const png = await sharp(noise(1200, 1060, 3, random), { raw: { width: 1200, height: 1060, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer()
  const gif = await sharp(pixels(200, 150, 3, random), { raw: { width: 200, height: 150, channels: 3 } })
    .gif()
    .toBuffer()
  const webp = await sharp(pixels(200, 150, 3, random), { raw: { width: 200, height: 150, channels: 3 } })
    .webp({ lossless: true })
    .toBuffer()
  const damaged = (bytes, ...offsets) => {
    const copy = Buffer.from(bytes)
    for (const at of offsets) copy[at] ^= 0xff
    return copy
  }
  // The first damage, walking back from the end (GIF) or on from the
  // middle (WebP), that sharp refuses: not every flipped byte breaks a decode.
  const firstRefused = async (bytes, offsets) => {
    for (const at of offsets) {
      const copy = damaged(bytes, ...at)
      if (!(await sharpDecodes(copy))) return copy
    }
    throw new Error('no damage sharp refuses')
  }
  const nearEnd = Array.from({ length: 200 }, (_, i) => [gif.length - 8 - i])
  const inMiddle = Array.from({ length: 200 }, (_, i) => [(webp.length >> 1) + i, (webp.length >> 1) + i + 7])
  const cases = [
    ['png, byte 1,000 flipped', 'image/png', damaged(png, 1_000), /CRC mismatch in IDAT chunk/],
    ['png, byte 100,000 flipped', 'image/png', damaged(png, 100_000), /CRC mismatch in IDAT chunk/],
    ['png, byte 2,000,000 flipped', 'image/png', damaged(png, 2_000_000), /CRC mismatch in IDAT chunk/],
    ['gif, LZW data damaged near its end', 'image/gif', await firstRefused(gif, nearEnd), /corrupt GIF/],
    ['lossless webp, two bytes damaged', 'image/webp', await firstRefused(webp, inMiddle), /corrupt WebP/],
  ]
  for (const [what, mimeType, bytes, reason] of cases) {
    assert.equal(await sharpDecodes(bytes), false, `${what}: sharp refuses it`)
    const base64 = bytes.toString('base64')
    for (const [form, data] of [
      ['base64', base64],
      ['wrapped base64', wrapped(base64)],
      ['bytes', new Uint8Array(bytes)],
    ]) {
      for (const convert of [toContent, toContentAsync]) {
        const result = await convert({ type: 'image', data, mimeType }, { outputDir: dir })
        assert.equal(result.type, 'text', `${what} as ${form} (${convert.name}): not attached`)
        assert.match(result.text, reason, `${what} as ${form} (${convert.name})`)
        assert.match(result.text, /saved to /, `${what} as ${form} (${convert.name}): the original is saved`)
      }
    }
  }
})

test('a GIF frame is read up to its last pixel, as libvips reads it: a bad code after it is not seen', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-agreement-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  // One frame, 2-colour table, LZW minimum code size 2 (3-bit codes):
  // clear (4), pixel 0, code 7 where the next entry is 6 (no decoder
  // decodes it), end (5). `width` pixels wide: 1 needs only pixel 0, 2
  // reads code 7 too.
  const gif = (width) => {
    const codes = [4, 0, 7, 5].reduce((bits, code, i) => bits | (code << (3 * i)), 0)
    const screen = [width, 0, 1, 0, 0x80, 0, 0]
    const colors = [0, 0, 0, 255, 255, 255]
    const image = [0x2c, 0, 0, 0, 0, width, 0, 1, 0, 0]
    const data = [2, 2, codes & 0xff, codes >> 8, 0]
    return Buffer.concat([Buffer.from('GIF89a'), Buffer.from([...screen, ...colors, ...image, ...data, 0x3b])])
  }
  for (const [width, attached] of [
    [1, true],
    [2, false],
  ]) {
    const bytes = gif(width)
    assert.equal(await sharpDecodes(bytes), attached, `${width}x1: sharp's verdict`)
    for (const convert of [toContent, toContentAsync]) {
      const result = await convert({ type: 'image', data: bytes.toString('base64'), mimeType: 'image/gif' }, { outputDir: dir })
      assert.equal(result.type !== 'text', attached, `${width}x1 (${convert.name}): ${result.text ?? 'attached'}`)
      if (!attached) assert.match(result.text, /corrupt GIF: its image data does not decode/)
    }
  }
})
