// A PNG whose only damage is bad CRCs on ancillary chunks is attached as a
// copy without them; damage to a critical chunk is refused. The copies are
// decoded again by pngjs with its CRC checks on (it checks IHDR, PLTE, IDAT,
// IEND, tRNS and gAMA, and skips other ancillary chunks unchecked), every
// chunk's CRC is checked by the independent walk of fixtures/index.mjs, and
// the pixels are compared with the original's.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import zlib from 'node:zlib'
import { pathToFileURL } from 'node:url'
import pngjs from 'pngjs'
import { loadBinding, repoRoot, tempDir, b64, crc32, checkSavedNote, checkFilePart, referenceImageInfo, randomBytes } from './fixtures/index.mjs'

const { PNG } = pngjs
const { toContent, toContentAsync, classify } = loadBinding()

/** The MCP logo of @modelcontextprotocol/server-everything's get-tiny-image tool. */
const { MCP_TINY_IMAGE } = await import(
  pathToFileURL(path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js')).href
)

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  Buffer.from(data).copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** The chunk with one bit of its CRC flipped. */
function damaged(c) {
  const out = Buffer.from(c)
  out[out.length - 1] ^= 1
  return out
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** An RGB PNG of random pixels, made with zlib: its IHDR, IDAT and IEND chunks. */
function rgbChunks(width, height, seed = 3) {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const rows = Buffer.alloc(height * (1 + 3 * width))
  const pixels = randomBytes(height * 3 * width, seed)
  for (let y = 0; y < height; y++) pixels.copy(rows, y * (1 + 3 * width) + 1, y * 3 * width, (y + 1) * 3 * width)
  return { IHDR: chunk('IHDR', ihdr), IDAT: chunk('IDAT', zlib.deflateSync(rows)), IEND: chunk('IEND', Buffer.alloc(0)) }
}

const png = (...chunks) => Buffer.concat([SIGNATURE, ...chunks])

/** Chunk types in file order. */
function chunkTypes(buf) {
  const types = []
  for (let p = 8; p + 8 <= buf.length; p += 12 + buf.readUInt32BE(p)) types.push(buf.toString('latin1', p + 4, p + 8))
  return types
}

/** Strict decode (pngjs' CRC checks on): rejects on a bad CRC it checks.
 * The stream parser, as pngjs' sync reader reports a CRC error as
 * "unrecognised content at end of stream". */
function decodeStrict(buf) {
  return new Promise((resolve, reject) => {
    new PNG({ checkCRC: true }).parse(buf, (error, image) => (error ? reject(error) : resolve(image)))
  })
}

/** Sync and async, base64 and bytes: the same part each way. */
async function convertEveryWay(t, bytes, mimeType = 'image/png') {
  const results = []
  for (const data of [b64(bytes), new Uint8Array(bytes)]) {
    const part = { type: 'image', data, mimeType }
    results.push(toContent(part, { outputDir: tempDir(t) }), await toContentAsync(part, { outputDir: tempDir(t) }))
  }
  return results
}

// Chunks pngjs does not know are skipped without a CRC check, so the
// original still decodes; gAMA and tRNS it checks.
const ANCILLARY = {
  iCCP: () => chunk('iCCP', Buffer.concat([Buffer.from('icc\0\0'), zlib.deflateSync(Buffer.alloc(128, 7))])),
  tEXt: () => chunk('tEXt', Buffer.from('Comment\0made by hand')),
  gAMA: () => chunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
  pHYs: () => chunk('pHYs', Buffer.from([0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1])),
}

describe('png with damaged ancillary chunks', () => {
  test('the MCP logo (server-everything get-tiny-image) is attached without its iCCP chunk', async (t) => {
    const original = Buffer.from(MCP_TINY_IMAGE, 'base64')
    // The premise: the iCCP chunk's CRC is wrong, every other one is right.
    assert.equal(referenceImageInfo(original), null)
    assert.deepEqual(chunkTypes(original), ['IHDR', 'iCCP', 'eXIf', 'pHYs', 'iTXt', 'IDAT', 'IEND'])
    const c = classify(MCP_TINY_IMAGE, 'image/png')
    assert.equal(c.kind, 'image')
    assert.equal(c.mediaType, 'image/png')
    assert.equal(c.problem, undefined)
    assert.equal(c.repair, 'dropped ancillary chunk iCCP with a bad CRC')

    const before = await decodeStrict(original) // pngjs skips iCCP: it decodes
    for (const result of await convertEveryWay(t, original)) {
      const copy = checkFilePart(assert, result, { mediaType: 'image/png' })
      assert.deepEqual(chunkTypes(copy), ['IHDR', 'eXIf', 'pHYs', 'iTXt', 'IDAT', 'IEND'])
      assert.ok(referenceImageInfo(copy), 'a chunk of the copy has a bad CRC')
      const after = await decodeStrict(copy)
      assert.deepEqual([after.width, after.height], [20, 20])
      assert.ok(after.data.equals(before.data), 'the pixels changed')
      // Only the iCCP chunk is gone: its 2,748 bytes.
      assert.equal(copy.length, original.length - (12 + 2736))
    }
  })

  for (const names of [['iCCP'], ['gAMA'], ['tEXt', 'pHYs'], ['iCCP', 'tEXt', 'gAMA', 'pHYs']]) {
    test(`damaged ${names.join(', ')}: attached as the copy without them, pixels unchanged`, async (t) => {
      const { IHDR, IDAT, IEND } = rgbChunks(16, 16)
      const clean = png(IHDR, IDAT, IEND)
      const extras = Object.entries(ANCILLARY).map(([name, make]) => (names.includes(name) ? damaged(make()) : make()))
      const bytes = png(IHDR, ...extras, IDAT, IEND)
      if (names.includes('gAMA')) await assert.rejects(decodeStrict(bytes), /Crc error/, 'pngjs should refuse the original')
      const kept = Object.keys(ANCILLARY).filter((n) => !names.includes(n))
      const words = names.length === 1 ? `dropped ancillary chunk ${names[0]} with a bad CRC` : `dropped ancillary chunks ${names.join(', ')} with bad CRCs`
      assert.equal(classify(bytes, 'image/png').repair, words)
      for (const result of await convertEveryWay(t, bytes)) {
        const copy = checkFilePart(assert, result, { mediaType: 'image/png' })
        assert.deepEqual(chunkTypes(copy), ['IHDR', ...kept, 'IDAT', 'IEND'])
        assert.ok(referenceImageInfo(copy), 'a chunk of the copy has a bad CRC')
        assert.ok((await decodeStrict(copy)).data.equals((await decodeStrict(clean)).data), 'the pixels changed')
      }
    })
  }

  test('a sound png is sent as it came, with no repair', async (t) => {
    const { IHDR, IDAT, IEND } = rgbChunks(8, 8)
    const bytes = png(IHDR, ANCILLARY.gAMA(), IDAT, IEND)
    assert.equal(classify(bytes, 'image/png').repair, undefined)
    const encoded = b64(bytes)
    const result = toContent({ type: 'image', data: encoded, mimeType: 'image/png' })
    assert.equal(result.data, encoded)
  })
})

describe('png with a damaged critical chunk', () => {
  for (const name of ['IHDR', 'IDAT', 'IEND']) {
    test(`bad ${name} CRC: refused and saved with the reason`, async (t) => {
      const chunks = rgbChunks(16, 16)
      chunks[name] = damaged(chunks[name])
      // A damaged ancillary chunk before it changes nothing.
      const bytes = png(chunks.IHDR, damaged(ANCILLARY.tEXt()), chunks.IDAT, chunks.IEND)
      await assert.rejects(decodeStrict(bytes), /Crc error/, 'pngjs should refuse it too')
      const reason = `corrupt PNG: CRC mismatch in ${name} chunk`
      const c = classify(bytes, 'image/png')
      assert.equal(c.problem, reason)
      assert.equal(c.repair, undefined)
      for (const result of await convertEveryWay(t, bytes)) {
        checkSavedNote(assert, result, { head: 'Binary image', mediaType: 'image/png', reason, bytes, ext: 'png' })
      }
    })
  }

  test('past the first 64 KiB, CRCs are summed too', async (t) => {
    const { IHDR, IDAT, IEND } = rgbChunks(128, 128) // about 49 KB of pixels
    const filler = chunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(70_000, 0x61)]))
    const badIdat = damaged(IDAT)
    // A damaged tEXt in the first 64 KiB: the repair walks everything and
    // meets the IDAT past it.
    const refused = png(IHDR, damaged(ANCILLARY.tEXt()), filler, badIdat, IEND)
    const reason = 'corrupt PNG: CRC mismatch in IDAT chunk'
    for (const result of await convertEveryWay(t, refused)) {
      checkSavedNote(assert, result, { head: 'Binary image', mediaType: 'image/png', reason, bytes: refused })
    }
    // Nothing wrong in the first 64 KiB: the IDAT past it is summed all the same.
    const past = png(IHDR, filler, badIdat, IEND)
    assert.equal(classify(past, 'image/png').problem, reason)
    for (const result of await convertEveryWay(t, past)) {
      checkSavedNote(assert, result, { head: 'Binary image', mediaType: 'image/png', reason, bytes: past })
    }
  })
})
