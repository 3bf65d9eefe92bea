// The reference's decode check: every byte of a sound PNG, GIF or WebP read
// as a decoder reads it before the image is attached, as src/decode_check.rs
// does, so that the reference refuses the images native code refuses.
// - PNG: the image data inflated by node:zlib, each row's filter type read.
// - GIF: each frame's LZW codes walked with a table of string lengths, the
//   rules of src/decode_check/lzw.rs (no JS GIF decoder on npm refuses a code
//   past its table: omggif and gifuct-js decode one as a guess).
// - WebP: decoded by libwebp built to WebAssembly (@jsquash/webp), the
//   decoder libvips uses, which refuses what native code refuses on damaged
//   files (__test__/decoder-agreement.test.mjs). An animated WebP is left to
//   its walk: that build decodes still images only.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import zlib from 'node:zlib'
import decodeWebpPixels, { init as initWebp } from '@jsquash/webp/decode.js'

const require = createRequire(import.meta.url)
// Compiled once here, so that no race times it.
await initWebp(new WebAssembly.Module(fs.readFileSync(require.resolve('@jsquash/webp/codec/dec/webp_dec.wasm'))))

/** Adam7: where each pass starts and its steps (x, y, dx, dy). */
export const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
]

/** Decode all of a sound image: null, or why it does not decode (the native words). */
export function decodeAll(mediaType, bytes) {
  if (mediaType === 'image/png') return inflatePng(bytes)
  if (mediaType === 'image/gif') return gifWalks(bytes) ? null : 'corrupt GIF: its image data does not decode'
  if (mediaType === 'image/webp') return decodeWebp(bytes)
  return null
}

/** The length of every row of a PNG's filtered image data, filter byte included. */
function pngRowLengths(png) {
  const width = png.readUInt32BE(16)
  const height = png.readUInt32BE(20)
  const bits = png[24] * ({ 0: 1, 3: 1, 4: 2, 2: 3, 6: 4 }[png[25]] ?? 0)
  const passes = png[28] === 1 ? ADAM7.map(([x, y, dx, dy]) => [Math.ceil((width - x) / dx), Math.ceil((height - y) / dy)]) : [[width, height]]
  const rows = []
  for (const [w, h] of passes) if (w > 0) for (let y = 0; y < h; y++) rows.push(1 + Math.ceil((w * bits) / 8))
  return rows
}

/** A PNG's image data inflated with node:zlib, the output dropped as it
 * comes: null, or the defect when the deflate data is broken (Adler-32
 * included), ends before the last row, or a row has an unknown filter type. */
function inflatePng(png) {
  const rows = pngRowLengths(png)
  const defect = 'corrupt PNG: its image data does not decode'
  return new Promise((resolve) => {
    const inflate = zlib.createInflate({ chunkSize: 64 * 1024 })
    let row = 0
    let inRow = 0
    let done = false
    const finish = (result) => {
      if (done) return
      done = true
      inflate.destroy()
      resolve(result)
    }
    inflate.on('data', (out) => {
      for (let at = 0; at < out.length && row < rows.length;) {
        if (inRow === 0 && out[at] > 4) return finish(defect)
        const n = Math.min(rows[row] - inRow, out.length - at)
        at += n
        inRow += n
        if (inRow === rows[row]) {
          row++
          inRow = 0
        }
      }
    })
    inflate.on('error', () => finish(defect))
    inflate.on('end', () => finish(row < rows.length ? defect : null))
    for (let pos = 8; pos + 8 <= png.length;) {
      const end = pos + 12 + png.readUInt32BE(pos)
      const name = png.toString('latin1', pos + 4, pos + 8)
      if (name === 'IDAT') inflate.write(png.subarray(pos + 8, end - 4))
      if (name === 'IEND') break
      pos = end
    }
    inflate.end()
  })
}

/** A WebP decoded whole by libwebp, the pixels dropped. */
async function decodeWebp(webp) {
  // VP8X's animation flag: libwebp's still-image decoder refuses the file.
  if (webp.toString('latin1', 12, 16) === 'VP8X' && webp[20] & 0x02) return null
  try {
    await decodeWebpPixels(webp)
    return null
  } catch {
    return 'corrupt WebP: its image data does not decode'
  }
}

const EXTENSION = 0x21
const IMAGE = 0x2c
const TRAILER = 0x3b

/** Bytes of the colour table a GIF's flags byte announces (none when its top bit is clear). */
export const colorTable = (flags) => (flags & 0x80 ? 3 << ((flags & 7) + 1) : 0)

/** Whether every frame's LZW codes give all its pixels. The blocks passed
 * their walk, so a GIF that ends early or holds an unknown block fails. */
function gifWalks(gif) {
  const codes = new LzwCodes()
  let pos = 13 + colorTable(gif[10])
  while (pos < gif.length) {
    const block = gif[pos]
    if (block === TRAILER) return true
    if (block === EXTENSION) {
      pos += 2
      while (pos < gif.length && gif[pos] !== 0) pos += 1 + gif[pos]
      pos++
    } else if (block === IMAGE) {
      if (pos + 10 >= gif.length) return false
      const wanted = gif.readUInt16LE(pos + 5) * gif.readUInt16LE(pos + 7)
      pos += 10 + colorTable(gif[pos + 9])
      if (pos >= gif.length) return false
      let walked = codes.start(gif[pos++], wanted)
      // The frame's sub-blocks, up to the empty one; those after its last
      // pixel are not read.
      while (pos < gif.length && gif[pos] !== 0) {
        const end = pos + 1 + gif[pos]
        if (end > gif.length) return false
        if (walked === MORE) walked = codes.walk(gif, pos + 1, end)
        pos = end
      }
      pos++
      if (walked !== WHOLE) return false
    } else {
      return false
    }
  }
  return false
}

const MORE = 0
const WHOLE = 1
const REFUSED = 2
/** Entries in a full table: codes are at most 12 bits wide. */
const FULL = 4096

/** One frame's codes walked as they come: what each code adds to the
 * frame's pixels is the length of its string, the previous code's string
 * and one pixel for each new entry. */
class LzwCodes {
  lens = new Uint16Array(FULL)
  minSize = 2
  size = 3
  next = 6
  /** The previous code, -1 after a clear. */
  prev = -1
  bits = 0
  held = 0
  pixels = 0
  wanted = 0

  /** Start a frame of `wanted` pixels whose codes start `minSize + 1` bits wide. */
  start(minSize, wanted) {
    if (minSize < 1 || minSize > 11) return REFUSED
    this.minSize = minSize
    this.clear()
    this.lens.fill(1, 0, 1 << minSize)
    this.bits = 0
    this.held = 0
    this.pixels = 0
    this.wanted = wanted
    return wanted === 0 ? WHOLE : MORE
  }

  clear() {
    this.size = this.minSize + 1
    this.next = (1 << this.minSize) + 2
    this.prev = -1
  }

  /** Walk the codes in bytes `from` to `to` of `data`. */
  walk(data, from, to) {
    const clear = 1 << this.minSize
    const end = clear + 1
    const lens = this.lens
    for (let at = from; at < to; at++) {
      this.bits |= data[at] << this.held
      this.held += 8
      while (this.held >= this.size) {
        const code = this.bits & ((1 << this.size) - 1)
        this.bits >>>= this.size
        this.held -= this.size
        if (code === clear) {
          this.clear()
          continue
        }
        if (code === end) return REFUSED
        if (this.prev < 0) {
          // The first code after a clear: a pixel value.
          if (code > clear) return REFUSED
          this.pixels++
        } else {
          if (code > this.next) return REFUSED
          const added = lens[this.prev] + 1
          this.pixels += code === this.next ? added : lens[code]
          if (this.next < FULL) {
            lens[this.next++] = added
            if (this.next >= 1 << this.size && this.size < 12) this.size++
          }
        }
        this.prev = code
        if (this.pixels >= this.wanted) return WHOLE
      }
    }
    return MORE
  }
}
