// The reference's structural checks (reference.mjs): whether a PNG, JPEG,
// GIF, WebP or PDF is sound enough to attach, looked at as the native
// checks look at it, with the native defect texts; and an image's size
// from its header (image-size).
import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import zlib from 'node:zlib'
import { colorTable } from './reference-decode.mjs'
import { server } from './reference-escape.mjs'

const require = createRequire(import.meta.url)
const { imageSize } = require('image-size')

export const startsWith = (buf, magic, at = 0) => buf.length >= at + magic.length && magic.every((b, i) => buf[at + i] === b)
export const ascii = (s) => [...s].map((c) => c.charCodeAt(0))
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

const crc32 =
  zlib.crc32 ??
  (() => {
    const table = new Int32Array(256).map((_, n) => {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      return c
    })
    return (data) => {
      let crc = -1
      for (const b of data) crc = table[(crc ^ b) & 0xff] ^ (crc >>> 8)
      return (crc ^ -1) >>> 0
    }
  })()

const be16 = (b, at) => (at + 2 <= b.length ? b.readUInt16BE(at) : null)
const be32 = (b, at) => (at + 4 <= b.length ? b.readUInt32BE(at) : null)
const le16 = (b, at) => (at + 2 <= b.length ? b.readUInt16LE(at) : null)
const le32 = (b, at) => (at + 4 <= b.length ? b.readUInt32LE(at) : null)
const PNG_IEND = Buffer.from('0000000049454e44ae426082', 'hex')

/** What checkPng returns for a PNG whose only bad CRCs are on ancillary chunks. */
export const REPAIRABLE = Symbol('repairable')
/** The chunks of an animated PNG: one cannot go without the others. */
const ANIMATION = new Set(['acTL', 'fcTL', 'fdAT'])

/** PNG: signature, a 13-byte IHDR with a sane size, an IDAT, IEND, and the
 * CRC of every chunk in view (like the native check, which reads all of a
 * PNG); bad ones on ancillary chunks make it repairable. */
function checkPng(window) {
  const walked = walkPng(window, Infinity)
  if (typeof walked === 'string') return walked
  return walked.length ? REPAIRABLE : null
}

/** The chunk walk: a defect, or the ancillary chunks whose CRC is bad
 * (CRCs summed for chunks ending within `crcUntil`). */
function walkPng({ head, tail, len, whole }, crcUntil) {
  if (!startsWith(head, PNG_SIGNATURE)) return 'corrupt PNG: bad signature'
  if (head.length < 33) return 'truncated PNG: header incomplete'
  if (be32(head, 8) !== 13 || head.toString('latin1', 12, 16) !== 'IHDR') {
    return 'corrupt PNG: first chunk is not a 13-byte IHDR'
  }
  const width = be32(head, 16)
  const height = be32(head, 20)
  if (!width || !height || width > 0x7fffffff || height > 0x7fffffff) {
    return `corrupt PNG: invalid image size ${width}x${height}`
  }
  // Deflate shrinks at most 1032 times: too few bytes for the pixels claimed.
  const channels = { 0: 1, 3: 1, 4: 2, 2: 3, 6: 4 }[head[25]]
  if (channels !== undefined) {
    const raw = (1 + Math.ceil((width * channels * head[24]) / 8)) * height
    if (len * 1032 < raw) return `corrupt PNG: ${len} bytes cannot hold ${width}x${height} pixels`
  }
  const damaged = []
  let pos = 8
  let seenIdat = false
  while (pos + 8 <= head.length) {
    const length = be32(head, pos)
    const name = head.toString('latin1', pos + 4, pos + 8)
    if (!/^[A-Za-z]{4}$/.test(name)) return `corrupt PNG: invalid chunk type at byte ${pos}`
    if (length > 0x7fffffff) return `corrupt PNG: ${name} chunk length out of range`
    const end = pos + 12 + length
    if (end > len) return `truncated PNG: ${name} chunk runs past the end of the data`
    if (end - 4 > head.length) break // the chunk goes on past the bytes in view
    if (end <= crcUntil && (end > head.length || head.readUInt32BE(end - 4) !== crc32(head.subarray(pos + 4, end - 4)))) {
      // Lower case first letter: ancillary, a decoder may skip it.
      if (!(head[pos + 4] & 0x20)) return `corrupt PNG: CRC mismatch in ${name} chunk`
      damaged.push({ name, start: pos, end })
    }
    if (name === 'IDAT') seenIdat = true
    if (name === 'IEND') return whole && !seenIdat ? 'corrupt PNG: no IDAT chunk' : damaged
    pos = end
  }
  if (whole || tail.indexOf(PNG_IEND) < 0) return 'truncated PNG: IEND chunk missing'
  return damaged
}

/** A repairable PNG, walked whole with every CRC checked: a defect, or the
 * copy without the damaged ancillary chunks (and without the animation when
 * one of its chunks is damaged) and what it leaves out in words. */
export function repairPng(buf) {
  const damaged = walkPng({ head: buf, tail: buf, len: buf.length, whole: true }, Infinity)
  if (typeof damaged === 'string') return damaged
  const animation = damaged.some((d) => ANIMATION.has(d.name))
  const drop = new Set(damaged.map((d) => d.start))
  const kept = [buf.subarray(0, 8)]
  let pos = 8
  for (;;) {
    const end = pos + 12 + buf.readUInt32BE(pos)
    const name = buf.toString('latin1', pos + 4, pos + 8)
    if (!drop.has(pos) && !(animation && ANIMATION.has(name))) kept.push(buf.subarray(pos, end))
    pos = end
    if (name === 'IEND') break
  }
  kept.push(buf.subarray(pos))
  const kinds = [...new Set(damaged.map((d) => d.name))]
  const names = kinds.slice(0, 4)
  if (kinds.length > 4) names.push(`${kinds.length - 4} more kinds`)
  let words = damaged.length === 1 ? `dropped ancillary chunk ${names[0]} with a bad CRC` : `dropped ancillary chunks ${names.join(', ')} with bad CRCs`
  if (animation) words += ', and with it the animation (every acTL, fcTL and fdAT chunk)'
  return { copy: Buffer.concat(kept), words }
}

/**
 * Images of more pixels than the native fit decodes are left to it: `MAX_PIXELS` of
 * src/image_fit/decode.rs (16383x16383, libvips' default), which __test__/reference.test.mjs
 * reads to hold this to it.
 */
export const MAX_PIXELS = 16_383 * 16_383
const isSof = (m) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc

/** Walk the JPEG segments (and the entropy-coded data after SOS) to EOI. */
function jpegWalk(data) {
  let frame = null
  let pos = 2
  const result = (end) => ({ frame, end })
  for (;;) {
    if (pos >= data.length) return result('out')
    if (data[pos] !== 0xff) return result(`corrupt JPEG: expected a marker at byte ${pos}`)
    while (data[pos] === 0xff) pos++
    if (pos >= data.length) return result('out')
    const marker = data[pos++]
    if (marker === 0xd9) return result('eoi')
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue
    if (marker === 0x00 || marker === 0xd8) return result(`corrupt JPEG: unexpected marker at byte ${pos}`)
    const length = be16(data, pos)
    if (length === null) return result('out')
    if (length < 2) return result(`corrupt JPEG: bad segment length at byte ${pos}`)
    if (isSof(marker)) {
      const height = be16(data, pos + 3)
      const width = be16(data, pos + 5)
      if (height === null || width === null) return result('out')
      frame ??= { width, height }
    }
    pos += length
    if (marker === 0xda) {
      // Entropy-coded data ends at an 0xFF that is not stuffing, RST or fill.
      for (;;) {
        const ff = data.indexOf(0xff, pos)
        if (ff < 0 || ff + 1 >= data.length) return result('out')
        const next = data[ff + 1]
        if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) pos = ff + 1
        else {
          pos = ff
          break
        }
      }
    }
  }
}

/** JPEG: SOI, well-formed segments, a frame header with a size, EOI. */
function checkJpeg({ head, tail, whole }) {
  if (!startsWith(head, [0xff, 0xd8, 0xff])) return 'corrupt JPEG: start-of-image marker missing'
  const walk = jpegWalk(head)
  if (walk.end === 'out') {
    if (whole) return 'truncated JPEG: data ends before the end-of-image marker'
    if (tail.indexOf(Buffer.from([0xff, 0xd9])) < 0) return 'truncated JPEG: end-of-image marker missing'
  } else if (walk.end !== 'eoi') {
    return walk.end
  }
  if (walk.frame) {
    return walk.frame.width && walk.frame.height ? null : 'corrupt JPEG: frame header has a zero width or height'
  }
  return !whole && walk.end === 'out' ? null : 'JPEG has no frame header (SOF)'
}

/** GIF: header, screen size, well-formed blocks, an image, the trailer. */
function checkGif({ head, tail, whole }) {
  if (!startsWith(head, ascii('GIF87a')) && !startsWith(head, ascii('GIF89a'))) return 'corrupt GIF: bad header'
  const w = le16(head, 6)
  const h = le16(head, 8)
  if (w === null || h === null) return 'truncated GIF: header incomplete'
  if (!w || !h) return 'corrupt GIF: zero width or height'
  const skipSubBlocks = (pos) => {
    for (;;) {
      if (pos >= head.length) return null
      const n = head[pos]
      pos += 1 + n
      if (n === 0) return pos
    }
  }
  let end = 'out'
  let images = 0
  if (head.length > 10) {
    let pos = 13 + colorTable(head[10])
    for (;;) {
      if (pos >= head.length) break
      const block = head[pos]
      let next = null
      if (block === 0x3b) {
        end = 'trailer'
        break
      } else if (block === 0x21) {
        next = skipSubBlocks(pos + 2)
      } else if (block === 0x2c) {
        images++
        if (pos + 9 < head.length) next = skipSubBlocks(pos + 11 + colorTable(head[pos + 9]))
      } else {
        return `corrupt GIF: unknown block 0x${block.toString(16).toUpperCase().padStart(2, '0')} at byte ${pos}`
      }
      if (next === null) break
      pos = next
    }
  }
  if (end === 'trailer') return images ? null : 'corrupt GIF: no image in the file'
  if (whole) return 'truncated GIF: data ends before the trailer'
  return tail[tail.length - 1] === 0x3b ? null : 'truncated GIF: trailer byte missing at the end'
}

function webpDimensions(head) {
  const kind = head.toString('latin1', 12, 16)
  if (kind === 'VP8 ' && head.length >= 30) return [le16(head, 26) & 0x3fff, le16(head, 28) & 0x3fff]
  if (kind === 'VP8L' && head[20] === 0x2f && head.length >= 25) {
    const bits = le32(head, 21)
    return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1]
  }
  if (kind === 'VP8X' && head.length >= 30) return [head.readUIntLE(24, 3) + 1, head.readUIntLE(27, 3) + 1]
  return null
}

/** WebP: RIFF size matching the data, a known first chunk, chunks that fit. */
function checkWebp({ head, len, whole }) {
  if (!startsWith(head, ascii('RIFF')) || !startsWith(head, ascii('WEBP'), 8)) return 'corrupt WebP: bad RIFF header'
  const size = le32(head, 4)
  if (size === null) return 'truncated WebP: header incomplete'
  const riffEnd = size + 8
  if (riffEnd > len) return `truncated WebP: RIFF header says ${riffEnd} bytes, data has ${len}`
  if (len > riffEnd + 1) return 'corrupt WebP: data is longer than its RIFF size'
  if (head.length < 16) return 'truncated WebP: header incomplete'
  const kind = head.toString('latin1', 12, 16)
  let frameOk
  if (kind === 'VP8 ') frameOk = startsWith(head, [0x9d, 0x01, 0x2a], 23)
  else if (kind === 'VP8L') frameOk = head[20] === 0x2f
  else if (kind === 'VP8X') frameOk = true
  else return `corrupt WebP: unknown first chunk "${server(head.toString('utf8', 12, 16))}"`
  const dims = webpDimensions(head)
  if (!frameOk || !dims || !dims[0] || !dims[1]) return 'corrupt WebP: bad frame header'
  let pos = 12
  while (pos + 8 <= head.length) {
    const chunkSize = head.readUInt32LE(pos + 4)
    const end = pos + 8 + chunkSize + (chunkSize & 1)
    // The pad byte of the last chunk may be missing.
    if (end > riffEnd + 1) return `truncated WebP: ${head.toString('latin1', pos, pos + 4)} chunk runs past the end of the data`
    pos = end
  }
  if (whole && pos < riffEnd) return 'corrupt WebP: stray bytes after the last chunk'
  return null
}

/** PDF: %PDF- in the first 1 KiB, %%EOF in the last 1 KiB, and a startxref
 * that points at a cross-reference table when it can be checked. */
function checkPdf({ head, tail, len }) {
  const base = head.subarray(0, 1024).indexOf('%PDF-')
  if (base < 0) return 'corrupt PDF: %PDF- header missing'
  const end = tail.subarray(Math.max(0, tail.length - 1024))
  if (end.lastIndexOf('%%EOF') < 0) return 'truncated PDF: %%EOF marker missing at the end'
  // A linearized file cut after its first page section: /L is its length.
  const start = head.subarray(base, 1024)
  const lin = start.indexOf('/Linearized')
  if (lin >= 0) {
    const dict = start.toString('latin1', lin)
    const declared = /\/L[\t\n\f\r ]+(\d+)/.exec(dict.slice(0, dict.indexOf('>>') >= 0 ? dict.indexOf('>>') : dict.length))
    if (declared && len - base < Number(declared[1])) {
      return `truncated PDF: linearized for ${declared[1]} bytes, only ${len - base} here`
    }
  }
  const at = end.lastIndexOf('startxref')
  const match = at >= 0 && /^[\t\n\f\r ]*(\d+)/.exec(end.toString('latin1', at + 9))
  // Readers rebuild a missing table (or one whose offset does not parse).
  if (!match || BigInt(match[1]) > 0xffffffffffffffffn) return null
  const target = Number(match[1]) + base
  if (!(target < len)) return 'corrupt PDF: startxref points past the end of the data'
  const tailStart = len - tail.length
  const rest = target <= head.length ? head.subarray(target) : target >= tailStart ? tail.subarray(target - tailStart) : null
  if (rest && !pointsAtXref(rest)) {
    return 'corrupt PDF: startxref does not point at a cross-reference table'
  }
  return null
}

/** `xref` or `N G obj` after optional whitespace. */
function pointsAtXref(rest) {
  let i = 0
  while (i < rest.length && (rest[i] === 32 || (rest[i] >= 9 && rest[i] <= 13 && rest[i] !== 11))) i++
  return rest.toString('latin1', i, i + 4) === 'xref' || (rest[i] >= 48 && rest[i] <= 57)
}

export const CHECKS = {
  'image/png': checkPng,
  'image/jpeg': checkJpeg,
  'image/gif': checkGif,
  'image/webp': checkWebp,
  'application/pdf': checkPdf,
}

/** Width and height from the header (image-size), or null. */
export function dimensions(buf) {
  try {
    const { width, height } = imageSize(buf)
    return width > 0 && height > 0 ? { width, height } : null
  } catch {
    return null
  }
}
