// Benchmark inputs: valid files of an exact size, generated in memory.
//
// Every generator is deterministic (a seeded xorshift fills the "random"
// bytes), so two runs, or the parent and a memory child, see the same bytes.
// The files are structurally valid for the checks the library and the JS
// reference make: PNG chunks with correct CRCs, JPEG segments through SOS and
// EOI, PDF with `%PDF-` first and `startxref` / `%%EOF` last.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import zlib from 'node:zlib'

const here = path.dirname(fileURLToPath(import.meta.url))
/** Real sample files from file-type, vendored in the repository. */
export const CORPUS = path.resolve(here, '../__test__/fixtures/file-type')

export const KB = 1000
export const MB = 1000 * 1000
export const MiB = 1024 * 1024

/** `length` pseudo-random bytes (xorshift32, seeded: same seed, same bytes). */
export function randomBytes(length, seed = 0x9e3779b9) {
  const words = new Uint32Array(Math.ceil(length / 4))
  let x = seed >>> 0 || 1
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    words[i] = x >>> 0
  }
  return Buffer.from(words.buffer, 0, length)
}

/** Printable ASCII filler (no NUL, no control characters). */
function printable(length, seed) {
  const bytes = randomBytes(length, seed)
  for (let i = 0; i < bytes.length; i++) bytes[i] = 0x20 + (bytes[i] % 0x5f)
  return bytes
}

// ------------------------------------------------------------------ PNG

const CRC_TABLE = new Int32Array(256).map((_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c
})

function crc32(bytes) {
  if (typeof zlib.crc32 === 'function') return zlib.crc32(bytes) // Node >= 20.15
  let crc = -1
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}

function pngChunk(type, body) {
  const chunk = Buffer.alloc(12 + body.length)
  chunk.writeUInt32BE(body.length, 0)
  chunk.write(type, 4, 'latin1')
  body.copy(chunk, 8)
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + body.length)), 8 + body.length)
  return chunk
}

/**
 * An RGB PNG of exactly `size` bytes (from about 300 bytes up) with noisy
 * pixels, so no compression level could shrink it: the pixel rows
 * are stored (deflate level 0) and split over 64 KiB IDAT chunks like a real
 * encoder's output. Width 1024 px, height as needed (5 MB: 1627 px).
 */
export function png(size, seed = 1) {
  const width = Math.min(1024, Math.max(1, Math.floor((size - 200) / 3 / 4)))
  const row = 1 + width * 3 // filter byte + RGB
  // Stored deflate costs 5 bytes per 64 KiB block plus 6 for zlib; the PNG
  // signature and the IHDR, IDAT and IEND framing about 60 more.
  const budget = size - 80
  let height = Math.max(1, Math.floor(budget / row))
  const framing = (h) => h * row + 6 + 5 * Math.ceil((h * row) / 65535) + 12 * Math.ceil((h * row) / 65536)
  while (height > 1 && framing(height) > budget) height--
  const raw = randomBytes(height * row, seed)
  for (let y = 0; y < height; y++) raw[y * row] = 0 // filter type None
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // truecolor
  const compressed = zlib.deflateSync(raw, { level: 0 })
  const idat = []
  for (let at = 0; at < compressed.length; at += 65536) {
    idat.push(pngChunk('IDAT', compressed.subarray(at, at + 65536)))
  }
  const chunks = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), ...idat]
  // A tEXt comment makes up the last partial row, so the size is exact.
  const missing = size - chunks.reduce((n, c) => n + c.length, 0) - 12 - 12
  if (missing >= 8) {
    chunks.push(pngChunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), printable(missing - 8, seed)])))
  }
  chunks.push(pngChunk('IEND', Buffer.alloc(0)))
  return Buffer.concat(chunks)
}

// ------------------------------------------------------------------ JPEG

/**
 * A tiny baseline JPEG: one 8x8 mid-gray block, one-code Huffman tables
 * (DC category 0 and AC end-of-block are both the code `0`). Decodes fine.
 */
function tinyJpeg() {
  const segment = (marker, body) => {
    const head = Buffer.from([0xff, marker, 0, 0])
    head.writeUInt16BE(body.length + 2, 2)
    return Buffer.concat([head, Buffer.from(body)])
  }
  const oneCodeTable = (tableClass) => [tableClass << 4, 1, ...new Array(15).fill(0), 0]
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, [...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    segment(0xdb, [0, ...new Array(64).fill(1)]),
    segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]), // 8x8, 1 component
    segment(0xc4, oneCodeTable(0)),
    segment(0xc4, oneCodeTable(1)),
    segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    Buffer.from([0x3f]), // bits 00 (DC 0, EOB) padded with ones
    Buffer.from([0xff, 0xd9]),
  ])
}

/** Offset of the SOS marker: padding goes right before it, after the frame header. */
function sosOffset(jpeg) {
  let at = 2
  while (at < jpeg.length && !(jpeg[at] === 0xff && jpeg[at + 1] === 0xda)) {
    at += 2 + jpeg.readUInt16BE(at + 2)
  }
  return at
}

/**
 * A JPEG of exactly `size` bytes: the corpus photo (59 KB) or, below that, a
 * tiny synthetic one, padded with COM segments (at most 65533 bytes of noise
 * each) inserted before SOS, so SOF stays in the first kilobytes as in a
 * real photo and the scan and EOI are untouched.
 */
export function jpeg(size, seed = 2) {
  const fixture = readFileSync(path.join(CORPUS, 'fixture.jpg'))
  const base = fixture.length <= size ? fixture : tinyJpeg()
  let missing = size - base.length
  if (missing < 0) throw new Error(`no JPEG base smaller than ${size} bytes`)
  const segments = []
  const noise = printable(missing, seed)
  let used = 0
  while (missing > 0) {
    if (missing < 4) throw new Error('cannot pad a JPEG by fewer than 4 bytes')
    // Leave at least 4 bytes for the next segment.
    let body = Math.min(65533, missing - 4)
    if (missing - 4 - body > 0 && missing - 4 - body < 4) body -= 4
    const seg = Buffer.alloc(4 + body)
    seg[0] = 0xff
    seg[1] = 0xfe
    seg.writeUInt16BE(body + 2, 2)
    noise.copy(seg, 4, used, used + body)
    used += body
    segments.push(seg)
    missing -= seg.length
  }
  const at = sosOffset(base)
  return Buffer.concat([base.subarray(0, at), ...segments, base.subarray(at)])
}

// ------------------------------------------------------------------ PDF

/**
 * A PDF of exactly `size` bytes: a corpus PDF followed by comment lines and
 * a re-stated `startxref` (same offset, as an incremental update would) and
 * `%%EOF`, so the header, the cross-reference pointer and the end marker all
 * stay valid.
 */
export function pdf(size, name = 'fixture.pdf', seed = 3) {
  const base = readFileSync(path.join(CORPUS, name))
  const text = base.toString('latin1')
  const offset = /startxref\s+(\d+)/g
  let match
  let xref = null
  while ((match = offset.exec(text))) xref = match[1]
  const trailer = Buffer.from(`\nstartxref\n${xref}\n%%EOF\n`, 'latin1')
  let missing = size - base.length - trailer.length
  if (missing < 0) return base
  const filler = printable(missing, seed)
  for (let i = 0; i < filler.length; i += 80) {
    filler[i] = 0x25 // '%' starts a comment line
    if (i + 79 < filler.length) filler[i + 79] = 0x0a
  }
  filler[0] = 0x0a
  return Buffer.concat([base, filler, trailer])
}

export function smallPdf() {
  return readFileSync(path.join(CORPUS, 'fixture.pdf'))
}

// ------------------------------------------------------------------ text

/** UTF-8 markdown of exactly `size` bytes (ASCII with a few headings and lists). */
export function markdown(size, seed = 4) {
  const words = ['tool', 'result', 'content', 'model', 'provider', 'base64', 'native', 'image', 'part', 'token']
  const noise = randomBytes(size, seed)
  let out = ''
  let i = 0
  let line = 0
  while (out.length < size) {
    if (line % 40 === 0) out += `\n## Section ${line / 40 + 1}\n\n`
    else if (line % 7 === 0) out += '- '
    for (let w = 0; w < 12; w++) out += words[noise[i++ % noise.length] % words.length] + ' '
    out += '\n'
    line++
  }
  return Buffer.from(out.slice(0, size), 'utf8')
}

/** ASCII text of exactly `size` characters. */
export function plainText(size) {
  const sentence = 'The quick brown fox jumps over the lazy dog. '
  return sentence.repeat(Math.ceil(size / sentence.length)).slice(0, size)
}
