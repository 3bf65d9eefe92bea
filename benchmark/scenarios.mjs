// The benchmark scenarios: MCP tool-result parts of the sizes and kinds an
// agent meets, with the targets each one is read against.
//
// A scenario builds its parts lazily (`build()`), so a 32 MiB input exists
// only while its scenario runs.

import * as fx from './fixtures.mjs'

const { KB, MB, MiB } = fx

/** Decoded bytes whose base64 is exactly 5,242,880 characters. */
const MAX_ATTACHED = 3_932_160

const b64 = (bytes) => bytes.toString('base64')

const image = (data, mimeType) => ({ type: 'image', data, mimeType })
const blob = (uri, mimeType, data) => ({ type: 'resource', resource: { uri, mimeType, blob: data } })
const text = (size) => ({ type: 'text', text: fx.plainText(size) })

/** Image, PDF and spill inputs come as a base64 string (MCP's wire form) and as a Buffer. */
function forms(id, title, bytes, makePart) {
  return [
    { id: `${id}-b64`, title: `${title}, base64`, build: () => [makePart(b64(bytes()))] },
    { id: `${id}-buf`, title: `${title}, Buffer`, build: () => [makePart(bytes())] },
  ]
}

const SMALL = { small: true } // target: native not slower than JS
const ATTACH = { attach: true } // target: native >= 5x faster than JS

/**
 * Scenario fields:
 *   id, title     names in the table and the JSON
 *   build()       the parts of one tool result
 *   sequential    convert the parts one after the other (else Promise.all, as in the README)
 *   blocked       measure how long the JS thread is blocked (inputs of 100 KB and more)
 *   memory        measure memory in fresh child processes (list of implementations)
 *   quick         part of the quick run
 *   targets       small | attach | oneCopy (max ratio) | spill
 *   careful       also time carefulImageJs (a regex, Buffer.from, file-type, image-size)
 *                 and require native to be this many times faster
 *   wholeResult   the parts are one CallToolResult, converted by convertToolResult
 *                 (native) and convertToolResultJs (reference), default profile
 */
export const scenarios = [
  { id: 'text-100b', title: 'text 100 B', build: () => [text(100)], quick: true, targets: SMALL },
  { id: 'text-100kb', title: 'text 100 KB', build: () => [text(100 * KB)], quick: true },

  ...forms(
    'png-4kb',
    'PNG 4 KB',
    () => fx.png(4 * KB),
    (d) => image(d, 'image/png'),
  ).map((s) => ({
    ...s,
    quick: s.id.endsWith('b64'),
    targets: SMALL,
  })),
  ...forms(
    'jpeg-4kb',
    'JPEG 4 KB',
    () => fx.jpeg(4 * KB),
    (d) => image(d, 'image/jpeg'),
  ).map((s) => ({
    ...s,
    targets: SMALL,
  })),
  ...forms(
    'png-100kb',
    'PNG 100 KB',
    () => fx.png(100 * KB),
    (d) => image(d, 'image/png'),
  ).map((s) => ({
    ...s,
    quick: s.id.endsWith('b64'),
    blocked: true,
    // Also against the careful pure-JS way (carefulImageJs): at least 10x.
    careful: s.id.endsWith('b64') ? 10 : undefined,
    targets: ATTACH,
  })),
  ...forms(
    'jpeg-100kb',
    'JPEG 100 KB',
    () => fx.jpeg(100 * KB),
    (d) => image(d, 'image/jpeg'),
  ).map((s) => ({
    ...s,
    quick: s.id.endsWith('b64'),
    blocked: true,
    targets: ATTACH,
  })),
  // The largest image the default profile attaches: 3,932,160 bytes, base64 of 5,242,880
  // characters (Anthropic's 5 MB limit on Bedrock and Google Cloud, measured on the string).
  ...forms(
    'png-max',
    'PNG 3.9 MB (largest attached)',
    () => fx.png(MAX_ATTACHED),
    (d) => image(d, 'image/png'),
  ).map((s) => ({
    ...s,
    quick: s.id.endsWith('b64'),
    blocked: true,
    memory: s.id.endsWith('b64') ? ['nativeSync', 'nativeAsync', 'js', 'oneCopy'] : undefined,
    targets: s.id.endsWith('b64') ? { ...ATTACH, oneCopy: 1.5 } : ATTACH,
  })),
  // A GIF and a lossless WebP of noise just under the same limit: both are checked whole
  // before they are attached (src/decode_check.rs), their codes walked, no pixel made.
  ...[
    ['gif-max', 'GIF 1600x1700 noise, 3.7 MB (LZW codes walked to check)', () => noiseImage(1600, 1700, 'gif'), 'image/gif'],
    ['webp-max', 'WebP lossless 1100x1150 noise, 3.8 MB (VP8L codes walked to check)', () => noiseImage(1100, 1150, 'webp'), 'image/webp'],
  ].map(([id, title, bytes, mimeType]) => ({
    id: `${id}-b64`,
    title: `${title}, base64`,
    build: async () => [image(b64(await bytes()), mimeType)],
    blocked: true,
    // Memory is what these measure (the cost of decoding to check); no time target.
    memory: ['nativeSync', 'nativeAsync', 'js', 'oneCopy'],
  })),
  ...forms(
    'jpeg-max',
    'JPEG 3.9 MB (largest attached)',
    () => fx.jpeg(MAX_ATTACHED),
    (d) => image(d, 'image/jpeg'),
  ).map((s) => ({
    ...s,
    blocked: true,
    targets: ATTACH,
  })),
  {
    id: 'pdf-2mb-b64',
    title: 'PDF 2 MB, base64 blob',
    build: () => [blob('file:///report.pdf', 'application/pdf', b64(fx.pdf(2 * MB)))],
    quick: true,
    blocked: true,
  },
  {
    id: 'markdown-1mb-b64',
    title: 'markdown 1 MB, base64 blob',
    build: () => [blob('file:///notes.md', 'text/markdown', b64(fx.markdown(1 * MB)))],
    quick: true,
    blocked: true,
    memory: ['nativeAsync', 'js', 'oneCopy'],
  },
  {
    id: 'spill-1mib-b64',
    title: 'binary spill 1 MiB, base64 blob',
    build: () => [blob('file:///data.bin', 'application/octet-stream', b64(fx.randomBytes(1 * MiB, 5)))],
    quick: true,
    blocked: true,
  },
  {
    id: 'spill-32mib-b64',
    title: 'binary spill 32 MiB, base64 blob',
    build: () => [blob('file:///data.bin', 'application/octet-stream', b64(fx.randomBytes(32 * MiB, 6)))],
    quick: true,
    blocked: true,
    memory: ['nativeSync', 'nativeAsync', 'js', 'oneCopy'],
    targets: { spill: true },
  },
  {
    // The same with MIME line breaks (76 symbols a line): within 1.5x of one line.
    id: 'spill-32mib-b64-mime',
    title: 'binary spill 32 MiB, base64 blob in 76-symbol lines',
    build: () => [blob('file:///data.bin', 'application/octet-stream', b64(fx.randomBytes(32 * MiB, 6)).replace(/.{76}/g, '$&\r\n'))],
    blocked: true,
  },
  {
    id: 'spill-32mib-buf',
    title: 'binary spill 32 MiB, Buffer blob',
    build: () => [blob('file:///data.bin', 'application/octet-stream', fx.randomBytes(32 * MiB, 6))],
    blocked: true,
    memory: ['nativeAsync', 'js'],
  },
  {
    id: 'mixed',
    title: 'mixed tool result (5 parts)',
    build: () => [
      { type: 'text', text: 'Screenshot taken; page report and notes attached.' },
      image(b64(fx.png(300 * KB, 7)), 'image/png'),
      blob('file:///notes.md', 'text/markdown', b64(fx.markdown(20 * KB, 8))),
      { type: 'resource_link', uri: 'file:///logs/app.log', name: 'app.log', mimeType: 'text/plain', size: 1234567 },
      blob('file:///report.pdf', 'application/pdf', b64(fx.smallPdf())),
    ],
    quick: true,
    blocked: true,
  },
  // Whole results (convertToolResult): a typical one and a heavy one. The
  // whole-result call must keep the per-part speedups.
  {
    id: 'result-typical',
    title: 'whole result: text + 100 KB screenshot',
    build: () => [{ type: 'text', text: 'Clicked "Save"; the dialog closed. Screenshot of the page below.' }, image(b64(fx.png(100 * KB, 11)), 'image/png')],
    wholeResult: true,
    quick: true,
    blocked: true,
    targets: ATTACH,
  },
  {
    id: 'result-20-images',
    title: 'whole result: 20 screenshots of 100 KB',
    build: () => Array.from({ length: 20 }, (_, i) => image(b64(fx.png(100 * KB, 20 + i)), 'image/png')),
    wholeResult: true,
    quick: true,
    blocked: true,
    targets: ATTACH,
  },
  {
    id: 'small-x1000',
    title: '1,000 small parts in a row',
    build: () => {
      const png = b64(fx.png(4 * KB, 9))
      const cycle = [
        text(100),
        image(png, 'image/png'),
        { type: 'resource_link', uri: 'file:///src/main.rs', name: 'main.rs', mimeType: 'text/x-rust' },
        { type: 'resource', resource: { uri: 'file:///a.json', mimeType: 'application/json', text: '{"ok":true}' } },
      ]
      return Array.from({ length: 1000 }, (_, i) => cycle[i % cycle.length])
    },
    sequential: true,
    quick: true,
    targets: SMALL,
  },
]

/** Base64 strings for `classify`, of three sizes: the sniff reads a fixed window. */
export const classifySizes = [
  // The sniff window itself (64 KiB head + 1 KiB tail, decoded whole).
  { id: 'classify-65kib', title: 'classify PNG 65 KiB b64', size: 65 * 1024 },
  { id: 'classify-100kb', title: 'classify PNG 100 KB b64', size: 100 * KB },
  { id: 'classify-5mb', title: 'classify PNG 5 MB b64', size: 5 * MB },
  { id: 'classify-32mib', title: 'classify PNG 32 MiB b64', size: 32 * MiB },
]

export function classifyInput(size) {
  const valid = b64(fx.png(size, 10))
  // Same length, one bad symbol near the end: `classify` reads and validates
  // all of it and answers `invalid` without sniffing (a figure of its own).
  const at = valid.length - 8
  const invalidAtEnd = valid.slice(0, at) + '!' + valid.slice(at + 1)
  return { valid, invalidAtEnd }
}

export function findScenario(id) {
  const scenario = scenarios.find((s) => s.id === id)
  if (!scenario) throw new Error(`unknown scenario ${id}`)
  return scenario
}

/** The bytes the caller handed over: string lengths and byte lengths of all data. */
export function inputSize(parts) {
  let given = 0
  for (const part of parts) {
    const data = dataOf(part)
    if (typeof data === 'string') given += data.length
    else if (data) given += data.byteLength
  }
  return given
}

/** A part's payload: text, base64 string or bytes (undefined for a resource link). */
export function dataOf(part) {
  if (part.type === 'text') return part.text
  if (part.type === 'resource') return part.resource.blob ?? part.resource.text
  return part.data
}

// ------------------------------------------------------------------ images made to fit

/** Noise as a GIF or a lossless WebP (sharp), no larger than the largest attached image. */
async function noiseImage(width, height, format) {
  const { createRequire } = await import('node:module')
  const sharp = createRequire(import.meta.url)('sharp')
  const raw = sharp(fx.randomBytes(width * height * 3, 5), { raw: { width, height, channels: 3 } })
  const bytes = await (format === 'gif' ? raw.gif() : raw.webp({ lossless: true })).toBuffer()
  if (bytes.length > MAX_ATTACHED) throw new Error(`${format} noise of ${bytes.length} bytes is over ${MAX_ATTACHED}`)
  return bytes
}

/**
 * A screenshot-like RGB image: a light page with dark text-like lines,
 * coloured blocks and a gradient header, as PNG.
 */
async function screenshotPng(width, height) {
  const { createRequire } = await import('node:module')
  const sharp = createRequire(import.meta.url)('sharp')
  const raw = Buffer.alloc(width * height * 3, 245)
  for (let y = 0; y < height; y++) {
    const row = y * width * 3
    if (y < Math.min(80, height / 8)) {
      for (let x = 0; x < width; x++) raw.set([30 + (x % 200), 60, 120], row + x * 3)
    } else if (y % 24 < 12) {
      // A "text" line: runs of dark pixels of varying length.
      for (let x = 16; x < width - 16; x++) if ((x * 7 + y * 13) % 11 < 6) raw.set([33, 33, 33], row + x * 3)
    } else if (y % 480 < 60) {
      for (let x = 0; x < width / 3; x++) raw.set([200, 220, 255], row + x * 3)
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer()
}

/**
 * A photo-like RGB image: smooth colour fields with fine grain (many
 * distinct colours, as a camera's), as a baseline JPEG of quality 90.
 */
async function photoJpeg(width, height) {
  const { createRequire } = await import('node:module')
  const sharp = createRequire(import.meta.url)('sharp')
  const raw = Buffer.alloc(width * height * 3)
  let s = 11
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0
      const grain = (s >>> 27) - 16
      const at = (y * width + x) * 3
      const u = x / width
      const v = y / height
      raw[at] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(6 * u + 2 * v) + grain))
      raw[at + 1] = Math.max(0, Math.min(255, 120 + 90 * Math.cos(4 * v - 3 * u * u) + grain))
      raw[at + 2] = Math.max(0, Math.min(255, 110 + 80 * Math.sin(9 * u * v + 1) + grain))
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer()
}

/** The default profile's byte limit (decoded bytes), which both sides keep to. */
const DEFAULT_MAX_BYTES = MAX_ATTACHED

/**
 * Downscaling scenarios for benchmark/image-fit.mjs (part of `npm run
 * bench`): `build(scale?)` gives the MCP image parts (base64, the wire
 * form), the sides times `scale` (a small warm-up copy); `options` are
 * mcp-content's, `maxSide` and `maxBytes` the box and byte limit the sharp
 * way keeps to; `runs` timed runs (the first run before them warms up).
 */
export const imageFitScenarios = [
  {
    id: 'fit-12mp-photo',
    title: '12 MP JPEG photo 4000x3000 -> 1568 (maxLongSide)',
    build: async (scale = 1) => [image(b64(await photoJpeg(Math.round(4000 * scale), Math.round(3000 * scale))), 'image/jpeg')],
    options: { maxLongSide: 1568 },
    maxSide: 1568,
    maxBytes: DEFAULT_MAX_BYTES,
    runs: 5,
  },
  {
    id: 'fit-12mp-screenshot',
    title: '12 MP PNG screenshot 4000x3000 -> 1568 (maxLongSide)',
    build: async (scale = 1) => [image(b64(await screenshotPng(Math.round(4000 * scale), Math.round(3000 * scale))), 'image/png')],
    options: { maxLongSide: 1568 },
    maxSide: 1568,
    maxBytes: DEFAULT_MAX_BYTES,
    runs: 5,
  },
  {
    id: 'fit-1280x20000-page',
    title: 'PNG page 1280x20000 -> 512x8000 (default profile)',
    build: async (scale = 1) => [image(b64(await screenshotPng(Math.round(1280 * scale), Math.round(20000 * scale))), 'image/png')],
    options: {},
    maxSide: 8000,
    maxBytes: DEFAULT_MAX_BYTES,
    runs: 5,
  },
  {
    id: 'fit-10000x10000-page',
    title: 'PNG 10000x10000 (default profile: 8000 px, 3.9 MB)',
    build: async (scale = 1) => [image(b64(await screenshotPng(Math.round(10000 * scale), Math.round(10000 * scale))), 'image/png')],
    options: {},
    maxSide: 8000,
    maxBytes: DEFAULT_MAX_BYTES,
    runs: 3,
  },
  {
    id: 'fit-20-screenshots',
    title: '20 PNG screenshots 2560x1440 -> 1568 at once (maxLongSide)',
    build: async (scale = 1) => {
      const width = Math.round(2560 * scale)
      const height = Math.round(1440 * scale)
      // Twenty different screenshots: each shifted by a few rows.
      const base = await screenshotPng(width, height + 40)
      const { createRequire } = await import('node:module')
      const sharp = createRequire(import.meta.url)('sharp')
      return Promise.all(
        Array.from({ length: 20 }, async (_, i) =>
          image(
            b64(
              await sharp(base)
                .extract({ left: 0, top: i * 2, width, height })
                .png()
                .toBuffer(),
            ),
            'image/png',
          ),
        ),
      )
    },
    options: { maxLongSide: 1568 },
    maxSide: 1568,
    maxBytes: DEFAULT_MAX_BYTES,
    runs: 5,
  },
]
