// Provider limits as providers measure them, and the reason every saved
// note gives. Anthropic counts an image's size on its base64 string
// ("image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes" for a 3.95 MB
// file): at most 5,242,880 characters, so at most 3,932,160 decoded bytes,
// whatever form the data comes in. The PNGs are real: zlib deflate of
// generated rows, every CRC right, sized by a tEXt chunk (see makePng).
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
  randomBytes,
  referenceImageInfo,
  checkFilePart,
  checkSavedNote,
  assertSameResult,
  canonicalBase64Length,
  MAX_IMAGE_BASE64,
  MAX_IMAGE_DECODED,
} from './fixtures/index.mjs'

const { toContent, toContentAsync } = loadBinding()

/** MIME style: CRLF after every 76 symbols, and the padding left out. */
const lineBrokenUnpadded = (s) => s.replace(/=+$/, '').replace(/.{76}/g, '$&\r\n')

/** The same bytes as each input form a server may send. */
function forms(bytes) {
  return {
    'base64 string': b64(bytes),
    'line-broken, unpadded base64 string': lineBrokenUnpadded(b64(bytes)),
    Buffer: Buffer.from(bytes),
  }
}

/** toContent and toContentAsync, each into its own folder; they must agree. */
async function convert(t, part) {
  const dir = tempDir(t)
  const sync = toContent(part, { fitImages: false, outputDir: dir })
  const async_ = await toContentAsync(part, { fitImages: false, outputDir: tempDir(t) })
  assertSameResult(assert, sync, async_)
  return { result: sync, dir }
}

describe('image size: canonical base64 length, at most 5,242,880', () => {
  const atLimit = makePng(512, 512, { fill: 'random', padTo: MAX_IMAGE_DECODED })
  const over = makePng(512, 512, { fill: 'random', padTo: MAX_IMAGE_DECODED + 1 })

  test('the test images are what they claim', () => {
    assert.equal(MAX_IMAGE_DECODED, 3_932_160)
    assert.deepEqual(referenceImageInfo(atLimit), { mediaType: 'image/png', width: 512, height: 512 })
    assert.deepEqual(referenceImageInfo(over), { mediaType: 'image/png', width: 512, height: 512 })
    assert.equal(b64(atLimit).length, MAX_IMAGE_BASE64)
    assert.equal(b64(over).length, MAX_IMAGE_BASE64 + 4)
    assert.equal(canonicalBase64Length(over.length), MAX_IMAGE_BASE64 + 4)
    // The raw strings are no measure: the line-broken one at the limit is
    // longer than the limit, the unpadded one over it shorter than its
    // canonical form.
    assert.ok(forms(atLimit)['line-broken, unpadded base64 string'].length > MAX_IMAGE_BASE64)
    assert.equal(lineBrokenUnpadded(b64(over)).replace(/\r\n/g, '').length, MAX_IMAGE_BASE64 + 2)
  })

  for (const [form, data] of Object.entries(forms(atLimit))) {
    test(`3,932,160 bytes as a ${form}: attached`, async (t) => {
      const { result } = await convert(t, { type: 'image', data, mimeType: 'image/png' })
      checkFilePart(assert, result, { mediaType: 'image/png', bytes: atLimit })
      assert.equal(result.data.length, MAX_IMAGE_BASE64)
    })
  }

  for (const [form, data] of Object.entries(forms(over))) {
    test(`3,932,161 bytes as a ${form}: saved, with the size and the limit`, async (t) => {
      const { result, dir } = await convert(t, { type: 'image', data, mimeType: 'image/png' })
      checkSavedNote(assert, result, {
        head: 'Binary image',
        mediaType: 'image/png',
        reason: '5.3 MB as base64, over the 5.2 MB limit',
        bytes: over,
        dir,
        ext: 'png',
      })
    })
  }
})

describe('every saved note says why', () => {
  const cases = {
    'over the pixel limit': {
      bytes: () => makePng(1280, 20000),
      mimeType: 'image/png',
      reason: '1280x20000 px, over the 8000 px limit',
    },
    'over the size limit: a 4.5 MB PNG': {
      bytes: () => makePng(2048, 2048, { fill: 'random', padTo: 4_509_042 }),
      mimeType: 'image/png',
      reason: '6.1 MB as base64, over the 5.2 MB limit',
    },
    'over both limits': {
      bytes: () => makePng(9000, 10, { padTo: 4_000_000 }),
      mimeType: 'image/png',
      reason: '9000x10 px, over the 8000 px limit, and 5.4 MB as base64, over the 5.2 MB limit',
    },
    'a PDF over 10 MiB (counted in decoded bytes)': {
      bytes: () => pdfOfLength(10 * 1024 * 1024 + 1),
      mimeType: 'application/pdf',
      label: 'Binary resource file:///big.pdf',
      reason: '10.5 MB, over the 10.4 MB limit',
    },
    'a structural defect': {
      bytes: () => corpus('fixture.png').subarray(0, 4000),
      mimeType: 'image/png',
      reason: 'truncated PNG: IDAT chunk runs past the end of the data',
    },
    'a bad CRC': {
      bytes: () => {
        const png = makePng(16, 16, { fill: 'random' })
        png[png.length - 20] ^= 1 // inside IDAT
        return png
      },
      mimeType: 'image/png',
      reason: 'corrupt PNG: CRC mismatch in IDAT chunk',
    },
    'a type the provider does not take': {
      bytes: () => corpus('fixture.bmp'),
      mimeType: 'image/bmp',
      reason: 'image/bmp is not accepted',
    },
    'a declared type the bytes do not match (another format)': {
      bytes: () => corpus('fixture.bmp'),
      mimeType: 'image/png',
      savedAs: 'image/bmp',
      reason: 'declared image/png but the bytes are image/bmp, which is not accepted',
    },
    'a declared type the bytes do not match (no known format)': {
      bytes: () => randomBytes(2000, 9),
      mimeType: 'image/png',
      savedAs: 'application/octet-stream',
      reason: 'declared image/png but the bytes do not match that format',
    },
    'a declared binary type on text': {
      bytes: () => Buffer.from('404 Not Found\n'),
      mimeType: 'image/png',
      savedAs: 'text/plain',
      reason: 'declared image/png but the bytes are text',
    },
    'a declared text type on binary': {
      bytes: () => Buffer.from([0x80, 0xff, 0xfd, 0x00, 0x01]),
      mimeType: 'text/markdown',
      reason: 'declared text/markdown but the bytes are not text (neither UTF-8 nor UTF-16)',
    },
    'a text format that does not decode': {
      // not UTF-8, and a NUL rules out the windows-1252 reading
      bytes: () =>
        Buffer.concat([Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><text>'), Buffer.from([0x00, 0xc3, 0x28]), Buffer.from('</text></svg>')]),
      mimeType: 'image/svg+xml',
      reason: 'the bytes are not text (neither UTF-8 nor UTF-16)',
    },
  }

  for (const [name, { bytes: build, mimeType, savedAs, label, reason }] of Object.entries(cases)) {
    test(name, async (t) => {
      const bytes = build()
      const part = label
        ? { type: 'resource', resource: { uri: label.slice('Binary resource '.length), mimeType, blob: b64(bytes) } }
        : { type: 'image', data: b64(bytes), mimeType }
      const { result, dir } = await convert(t, part)
      checkSavedNote(assert, result, { head: label ?? 'Binary image', mediaType: savedAs ?? mimeType, reason, bytes, dir })
    })
  }

  test('the PDF limit is inclusive: 10 MiB is attached', async (t) => {
    const pdf = pdfOfLength(10 * 1024 * 1024)
    const { result } = await convert(t, { type: 'resource', resource: { uri: 'file:///big.pdf', mimeType: 'application/pdf', blob: b64(pdf) } })
    checkFilePart(assert, result, { mediaType: 'application/pdf', bytes: pdf })
  })

  test('a note whose file could not be saved gives the reason too', (t) => {
    // a regular file where the folder should be
    const file = path.join(tempDir(t), 'plain-file')
    fs.writeFileSync(file, 'x')
    const r = toContent({ type: 'image', data: b64(corpus('fixture.bmp')), mimeType: 'image/bmp' }, { fitImages: false, outputDir: path.join(file, 'sub') })
    assert.match(r.text, /^\[Binary image \(image\/bmp, \d+ bytes\): image\/bmp is not accepted; could not be saved: .+\]$/s)
  })
})

/** A minimal PDF of exactly `len` bytes: header, a comment as filler, %%EOF. */
function pdfOfLength(len) {
  const head = Buffer.from('%PDF-1.4\n%')
  const tail = Buffer.from('\n%%EOF\n')
  return Buffer.concat([head, Buffer.alloc(len - head.length - tail.length, 0x61), tail])
}
