// Differential test: the pure-JS reference of benchmark/reference.mjs must
// give the same model parts as the native toContentAsync, on every corpus
// file and on generated cases, so that the benchmark races like for like.
// Notes of saved files are compared with the path replaced by a placeholder
// (the saved file's extension kept), and the saved files' bytes are compared.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import sharp from 'sharp'
import { toContentJs, passThrough, FORMATS, extension, MAX_PIXELS } from '../benchmark/reference.mjs'
import { ADAM7 } from '../benchmark/reference-decode.mjs'
import { corpusDir, corpusFiles as listCorpus, makePng as makeGrayPng } from './fixtures/index.mjs'
import { prng, damage } from './fixtures/damage.mjs'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const { toContentAsync, ToolOutputStore } = require(process.env.MCP_CONTENT_MODULE ? path.resolve(process.env.MCP_CONTENT_MODULE) : repoRoot)

// Formats only one of the two sniffers knows. Both save the file (same
// decision, same bytes); only the media type the note names differs, and so
// the saved file's extension and the reason (which names the type, or says
// the bytes do not match the declared one). Everything else in the note is
// compared.
const NAMING_EXCEPTIONS = {
  // file-type knows these formats; the native sniffer does not and names the
  // declared type (or application/octet-stream).
  'fixture-big-endian.mie': 'file-type: application/x-mie',
  'fixture-little-endian.mie': 'file-type: application/x-mie',
  'fixture-cube_pc.drc': 'file-type: application/vnd.google.draco',
  'fixture-line-weights.dwg': 'file-type: image/vnd.dwg',
  'fixture-unicode-tests.dat': 'file-type: application/x-ft-windows-registry-hive',
  'fixture.alias': 'file-type: application/x.apple.alias',
  'fixture.asar': 'file-type: application/x-asar',
  'fixture2.asar': 'file-type: application/x-asar',
  'fixture.dmg': 'file-type: application/x-apple-diskimage',
  'fixture.fbx': 'file-type: application/x.autodesk.fbx',
  'fixture.indd': 'file-type: application/x-indesign',
  'fixture.jmp': 'file-type: application/x-jmp-data',
  'fixture.shp': 'file-type: application/x-esri-shape',
  'fixture.skp': 'file-type: application/vnd.sketchup.skp',
  // The native sniffer finds MPEG frames after leading junk and a Matroska
  // file with a damaged header; file-type finds nothing.
  'fixture-bad-offset.mp3': 'native: audio/mpeg',
  'fixture-bad-offset-10.mp3': 'native: audio/mpeg',
  'fixture-corrupt.mkv': 'native: video/x-matroska',
}

/** The declared type a server would send for a file with this extension. */
const TYPE_BY_EXTENSION = {
  png: 'image/png',
  apng: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  ico: 'image/x-icon',
  avif: 'image/avif',
  heic: 'image/heic',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  zip: 'application/zip',
  gz: 'application/gzip',
  bz2: 'application/x-bzip2',
  xz: 'application/x-xz',
  zst: 'application/zstd',
  '7z': 'application/x-7z-compressed',
  tar: 'application/x-tar',
  rar: 'application/vnd.rar',
  sqlite: 'application/vnd.sqlite3',
  parquet: 'application/vnd.apache.parquet',
  wasm: 'application/wasm',
  xml: 'application/xml',
  rtf: 'application/rtf',
  ps: 'application/postscript',
  vtt: 'text/vtt',
  ics: 'text/calendar',
  vcf: 'text/vcard',
  epub: 'application/epub+zip',
  jar: 'application/java-archive',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
}

const b64 = (bytes) => Buffer.from(bytes).toString('base64')
const SAVED = /^(\[.*? \()([^()]*)(, \d+ bytes\): )(.+?)(; saved to )(.+)\]$/s
// A text over the cap: the preview, then the note naming the whole text's copy.
const TRUNCATED = /^(.*\n\[Text truncated: [^\n]*; the whole text \(\d+ bytes\) is saved to )([^\n]+)\]$/s

let root
const dirs = { native: '', js: '' }
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-reference-'))
  dirs.native = path.join(root, 'native')
  dirs.js = path.join(root, 'js')
})
after(() => fs.rmSync(root, { recursive: true, force: true }))

/** A part with the saved file's path replaced and its bytes read. */
function normalise(result, { ignoreMediaType = false } = {}) {
  if (result?.type !== 'text') return result
  const truncated = TRUNCATED.exec(result.text)
  if (truncated) {
    const [, lead, file] = truncated
    return { type: 'text', text: `${lead}<path>${path.extname(file)}]`, saved: fs.readFileSync(file) }
  }
  const saved = SAVED.exec(result.text)
  if (!saved) return result
  const [, head, mediaType, bytes, reason, savedTo, file] = saved
  const text = ignoreMediaType ? `${head}<media type>${bytes}<reason>` : `${head}${mediaType}${bytes}${reason}`
  // The folder and the name's id differ; the extension must not.
  const ext = ignoreMediaType ? '' : path.extname(file)
  return { type: 'text', text: `${text}${savedTo}<path>${ext}]`, saved: fs.readFileSync(file) }
}

/** Native and reference results for one part, or a description of how they differ. */
async function differ(part, options = {}) {
  const native = await toContentAsync(part, { fitImages: false, outputDir: dirs.native })
  const js = await toContentJs(part, { fitImages: false, outputDir: dirs.js })
  const a = normalise(native, options)
  const b = normalise(js, options)
  try {
    assert.deepEqual(b, a)
    return null
  } catch {
    const cut = (s) => (s?.length > 200 ? `${s.slice(0, 160)}... (${s.length} chars)` : s)
    const show = (r) => JSON.stringify(r && { ...r, text: cut(r.text), data: cut(r.data), saved: r.saved && `${r.saved.length} bytes` })
    return `native: ${show(a)}\n  js:     ${show(b)}`
  }
}

async function assertSame(part) {
  const diff = await differ(part)
  assert.equal(diff, null, diff ?? '')
}

// ------------------------------------------------------------------ corpus

const corpusFiles = fs.existsSync(corpusDir) ? listCorpus() : []

describe('reference == native on the corpus', () => {
  test('the corpus is there', () => assert.ok(corpusFiles.length > 200, `only ${corpusFiles.length} corpus files in ${corpusDir}`))

  const shapes = {
    'image declared image/png': (data) => ({ type: 'image', mimeType: 'image/png', data }),
    'resource blob declared application/octet-stream': (data, name) => ({
      type: 'resource',
      resource: { uri: `file:///${name}`, mimeType: 'application/octet-stream', blob: data },
    }),
    'resource blob declared by extension': (data, name) => {
      const mimeType = TYPE_BY_EXTENSION[name.slice(name.lastIndexOf('.') + 1).toLowerCase()]
      return mimeType && { type: 'resource', resource: { uri: `file:///${name}`, mimeType, blob: data } }
    },
  }
  for (const [shape, build] of Object.entries(shapes)) {
    for (const [form, encode] of [
      ['base64', b64],
      ['Uint8Array', (bytes) => new Uint8Array(bytes)],
    ]) {
      test(`${shape}, data as ${form}`, async () => {
        const failures = []
        let compared = 0
        for (const name of corpusFiles) {
          const part = build(encode(fs.readFileSync(path.join(corpusDir, name))), name)
          if (!part) continue
          compared++
          const diff = await differ(part, { ignoreMediaType: name in NAMING_EXCEPTIONS })
          if (diff) failures.push(`${name}\n  ${diff}`)
        }
        assert.ok(compared > 0)
        assert.deepEqual(failures, [], failures.join('\n'))
      })
    }
  }

  test('the exceptions are still needed and still decide alike', async () => {
    // An exception that no longer differs should be removed from the list.
    for (const name of Object.keys(NAMING_EXCEPTIONS)) {
      assert.ok(corpusFiles.includes(name), `${name} is not in the corpus at ${corpusDir}`)
      const part = { type: 'image', mimeType: 'image/png', data: b64(fs.readFileSync(path.join(corpusDir, name))) }
      assert.notEqual(await differ(part), null, `${name} is no longer a naming difference`)
      assert.equal(await differ(part, { ignoreMediaType: true }), null, name)
    }
  })
})

// --------------------------------------------------------------- generated

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  Buffer.from(data).copy(out, 8)
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** A valid RGB PNG; `idat` is the zlib stream (default: zero rows). */
function makePng(width, height, idat) {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  idat ??= zlib.deflateSync(Buffer.alloc(height * (1 + 3 * width)))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** An Adam7-interlaced RGB PNG of zero pixels; `rowsMore` rows of image data added or left out. */
function interlacedPng(width, height, rowsMore = 0) {
  let raw = 0
  let lastRow = 0
  for (const [x, y, dx, dy] of ADAM7) {
    const w = Math.ceil((width - x) / dx)
    const h = Math.ceil((height - y) / dy)
    if (w > 0 && h > 0) {
      lastRow = 1 + 3 * w
      raw += h * lastRow
    }
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 1], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(raw + rowsMore * lastRow))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A PNG over 5 MiB: stored/** A PNG over 5 MiB: stored (level 0) deflate of random rows, fast to build. */
function bigPng() {
  const width = 1024
  const height = 1800
  const raw = Buffer.alloc(height * (1 + 3 * width))
  // Random-looking bytes quickly: repeat a random 64 KiB block at odd offsets.
  const block = Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 2654435761) >>> 24))
  for (let at = 0; at < raw.length; at += 65521) block.copy(raw, at)
  // Filter type None on every row: a decoder refuses any other byte there.
  for (let y = 0; y < height; y++) raw[y * (1 + 3 * width)] = 0
  return makePng(width, height, zlib.deflateSync(raw, { level: 0 }))
}

/** Deterministic bytes that do not compress. */
function randomBytes(n, seed = 7) {
  const out = Buffer.alloc(n)
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0
    out[i] = seed >>> 24
  }
  return out
}

/** A ~200 KB PNG whose last IDAT chunk (past the first 64 KiB) has a bad CRC. */
function pngWithLateBadCrc() {
  const width = 256
  const height = 256
  const idat = zlib.deflateSync(randomBytes(height * (1 + 3 * width)), { level: 0 })
  const png = makePng(width, height, idat)
  png[png.length - 12 - 5] ^= 1 // the CRC of IDAT, the chunk before IEND
  return png
}

/** A baseline JPEG over 64 KiB: the corpus JPEG with a large APP segment. */
function bigJpeg() {
  const jpeg = corpusFile('fixture.jpg')
  const app = Buffer.alloc(4 + 65000)
  app.set([0xff, 0xec], 0)
  app.writeUInt16BE(65002, 2)
  return Buffer.concat([jpeg.subarray(0, 2), app, jpeg.subarray(2)])
}

/** The corpus JPEG with a 60 KB comment after its frame header, so the
 * size is in the first 64 KiB and the end-of-image marker is not. */
function jpegWithLateEoi() {
  const jpeg = corpusFile('fixture.jpg')
  let sof = 2 // walk the segments to the frame header (SOF0)
  while (jpeg[sof + 1] !== 0xc0) sof += 2 + jpeg.readUInt16BE(sof + 2)
  const comment = Buffer.alloc(4 + 60000, 0x20)
  comment.set([0xff, 0xfe], 0)
  comment.writeUInt16BE(60002, 2)
  const afterSof = sof + 2 + jpeg.readUInt16BE(sof + 2)
  return Buffer.concat([jpeg.subarray(0, afterSof), comment, jpeg.subarray(afterSof)])
}

/** A grayscale PNG of exactly `len` bytes (a tEXt chunk makes up the size). */
const grayPng = (len) => makeGrayPng(256, 256, { fill: 'random', padTo: len })

/** A minimal PDF of exactly `len` bytes: header, a comment as filler, %%EOF. */
function pdfOfLength(len) {
  const head = Buffer.from('%PDF-1.4\n%')
  const tail = Buffer.from('\n%%EOF\n')
  return Buffer.concat([head, Buffer.alloc(len - head.length - tail.length, 0x61), tail])
}

/** A PNG chunk with its CRC flipped in one bit. */
function damagedChunk(type, data) {
  const c = chunk(type, data)
  c[c.length - 1] ^= 1
  return c
}

/** A valid RGB PNG with these chunks between IHDR and IDAT (`after`: between IDAT and IEND). */
function pngWith(before, after = [], { width = 4, height = 3, idat } = {}) {
  const plain = makePng(width, height, idat)
  const ihdrEnd = 33
  const iendStart = plain.length - 12
  return Buffer.concat([plain.subarray(0, ihdrEnd), ...before, plain.subarray(ihdrEnd, iendStart), ...after, plain.subarray(iendStart)])
}

/** A two-frame APNG of 4x3 px whose second fcTL has a bad CRC. */
function apngWithDamagedFctl() {
  const fctl = (seq) => {
    const b = Buffer.alloc(26)
    b.writeUInt32BE(seq, 0)
    b.writeUInt32BE(4, 4)
    b.writeUInt32BE(3, 8)
    b.writeUInt16BE(1, 20)
    b.writeUInt16BE(1, 22)
    return b
  }
  const frame = zlib.deflateSync(Buffer.alloc(3 * (1 + 3 * 4), 0x40))
  const actl = Buffer.alloc(8)
  actl.writeUInt32BE(2, 0)
  return pngWith(
    [chunk('acTL', actl), chunk('fcTL', fctl(0))],
    [chunk('tEXt', Buffer.from('k\0v')), damagedChunk('fcTL', fctl(1)), chunk('fdAT', Buffer.concat([Buffer.from([0, 0, 0, 2]), frame]))],
  )
}

/** The MCP logo of server-everything's get-tiny-image (its iCCP CRC is wrong). */
const { MCP_TINY_IMAGE } = await import(
  pathToFileURL(path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js')).href
)

const corpusFile = (name) => fs.readFileSync(path.join(corpusDir, name))
const text = (s) => Buffer.from(s, 'utf8')
const utf16le = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')])
const utf16be = (s) => utf16le(s).swap16()
const resource = (uri, mimeType, blob) => ({ type: 'resource', resource: { uri, mimeType, blob } })
const latin1 = (s) => Buffer.from(s, 'latin1')
/** Known encodings of 日本語テキスト (Shift_JIS), 中文 (GBK, Big5), 한국어 (EUC-KR), Привет (KOI8-R). */
const SHIFT_JIS = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x83, 0x65, 0x83, 0x4c, 0x83, 0x58, 0x83, 0x67]
const GBK = [0xd6, 0xd0, 0xce, 0xc4]
const BIG5 = [0xa4, 0xa4, 0xa4, 0xe5]
const EUC_KR = [0xc7, 0xd1, 0xb1, 0xb9, 0xbe, 0xee]
const KOI8_R = [0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]
const withNewline = (codes) => Buffer.from([...codes, 0x0a])

describe('reference == native on generated cases', () => {
  const png = () => corpusFile('fixture.png')
  const cases = {
    'markdown blob': () => resource('file:///README.md', 'text/markdown', b64(text('# Title\n\nBody text.\n'))),
    'markdown blob with charset': () => resource('file:///README.md', 'Text/Markdown; charset=utf-8', b64(text('# T\n'))),
    patch: () => resource('file:///fix.patch', 'text/x-patch', b64(text('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n'))),
    json: () => resource('file:///data.json', 'application/json', b64(text('{"a": [1, 2, "é"]}\n'))),
    'json as octet-stream': () => resource('file:///data.json', 'application/octet-stream', b64(text('{"a": 1}'))),
    'text of an unknown declared type': () => resource('file:///x.custom', 'application/x-custom', b64(text('a,b\n1,2\n'))),
    'text declared image/png': () => ({ type: 'image', mimeType: 'image/png', data: b64(text('Not Found\n')) }),
    svg: () => resource('file:///icon.svg', 'image/svg+xml', b64(text('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'))),
    'svg declared image/png': () => ({ type: 'image', mimeType: 'image/png', data: b64(text('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>')) }),
    'xml without declared type': () => resource('file:///a.xml', undefined, b64(text('<?xml version="1.0"?>\n<doc/>'))),
    'UTF-16LE text with BOM': () => resource('file:///notes.txt', 'application/octet-stream', b64(utf16le('Grüße, 世界 😀\r\n'.repeat(5)))),
    'UTF-16BE text with BOM': () => resource('file:///notes.txt', 'text/plain', b64(utf16be('plain words\n'))),
    'UTF-16LE with an unpaired surrogate': () => resource('file:///n.txt', 'text/plain', b64(Buffer.concat([utf16le('ab'), Buffer.from([0x00, 0xd8])]))),
    'UTF-8 with BOM': () => resource('file:///bom.txt', 'text/plain', b64(text('\ufeffhello\n'))),
    'Latin-1 declared charset=iso-8859-1': () => resource('file:///a.txt', 'text/plain; charset=iso-8859-1', b64(latin1('Grüße aus Köln\n'))),
    'windows-1252 quotes and euro declared charset="windows-1252"': () =>
      resource('file:///a.txt', 'text/plain; charset="windows-1252"', b64(Buffer.from([0x93, 0x51, 0x94, 0x20, 0x80, 0x35, 0x81, 0x0a]))),
    'windows-1252 declared text/markdown without charset': () => resource('file:///m.md', 'text/markdown', b64(latin1('# Café menu\n\n- crème brûlée\n'))),
    'windows-1252 mostly beyond ASCII declared text/plain': () => resource('file:///a.txt', 'text/plain', b64(latin1('éèêëàâäôöûü\n'))),
    'windows-1252 declared application/octet-stream': () => resource('file:///a.bin', 'application/octet-stream', b64(latin1('café\n'))),
    'Latin-1 declared charset=utf-8': () => resource('file:///a.txt', 'text/plain; charset=utf-8', b64(latin1('naïve café\n'))),
    'Shift_JIS declared': () => resource('file:///j.txt', 'text/plain; charset=Shift_JIS', b64(withNewline(SHIFT_JIS))),
    'Shift_JIS declared by the label sjis on an unknown type': () => resource('file:///j.x', 'application/x-notes; charset=sjis', b64(withNewline(SHIFT_JIS))),
    'GBK declared': () => resource('file:///c.txt', 'text/plain; charset=gbk', b64(withNewline(GBK))),
    'GBK declared by the label gb2312': () => resource('file:///c.txt', 'text/csv; charset=gb2312', b64(withNewline(GBK))),
    'Big5 declared': () => resource('file:///t.txt', 'text/plain; charset=big5', b64(withNewline(BIG5))),
    'EUC-KR declared': () => resource('file:///k.txt', 'text/plain; charset=euc-kr', b64(withNewline(EUC_KR))),
    'KOI8-R declared': () => resource('file:///r.txt', 'text/plain; charset=koi8-r', b64(withNewline(KOI8_R))),
    'ASCII declared charset=shift_jis': () => resource('file:///a.txt', 'text/plain; charset=shift_jis', b64(text('plain words\n'))),
    'UTF-8 declared charset=shift_jis': () => resource('file:///a.txt', 'text/plain; charset=shift_jis', b64(text('日本語 ✓\n'))),
    'unknown charset label': () => resource('file:///a.txt', 'text/plain; charset=klingon', b64(latin1('café\n'))),
    'random binary declared charset=shift_jis': () => resource('file:///x.txt', 'text/plain; charset=shift_jis', b64(randomBytes(4096, 11))),
    'high random bytes declared charset=shift_jis': () =>
      resource('file:///x.txt', 'text/plain; charset=shift_jis', b64(randomBytes(300, 12).map((b) => b | 0x80))),
    'UTF-16LE without BOM, no declared type': () => resource('file:///w.log', undefined, b64(Buffer.from('Hello, wörld\r\n'.repeat(3), 'utf16le'))),
    'UTF-16BE without BOM declared text/plain': () => resource('file:///w.txt', 'text/plain', b64(Buffer.from('Grüße 😀\n'.repeat(4), 'utf16le').swap16())),
    'UTF-16LE without BOM, mostly CJK, declared charset=utf-16le': () =>
      resource('file:///w.txt', 'text/plain; charset=utf-16le', b64(Buffer.from('日本語のテキスト\n', 'utf16le'))),
    'UTF-16LE without BOM with a NUL character': () => resource('file:///w.txt', 'text/plain', b64(Buffer.from('ab\0cd\n', 'utf16le'))),
    'large Latin-1 text declared charset=latin1 (past the 64 KiB head)': () =>
      resource('file:///big.txt', 'text/plain; charset=latin1', b64(latin1('Ça coûte 5 €uros, naïve.\n'.replace('€', '\x80').repeat(4000)))),
    'large UTF-16LE text without BOM (past the 64 KiB head)': () =>
      resource('file:///big.txt', undefined, b64(Buffer.from('words and more words\n'.repeat(2000), 'utf16le'))),
    'svg in windows-1252': () =>
      resource(
        'file:///a.svg',
        'image/svg+xml',
        b64(Buffer.concat([text('<svg xmlns="http://www.w3.org/2000/svg"><text>'), latin1('café'), text('</text></svg>')])),
      ),
    'svg that is text in no encoding': () =>
      resource(
        'file:///a.svg',
        'image/svg+xml',
        b64(Buffer.concat([text('<svg xmlns="http://www.w3.org/2000/svg"><text>'), Buffer.from([0x00, 0xc3, 0x28]), text('</text></svg>')])),
      ),
    'control-heavy bytes': () => resource('file:///c.bin', 'application/octet-stream', b64(Buffer.from([1, 2, 3, 4, 5, 6, 97]))),
    'binary declared text/markdown': () => resource('file:///x.md', 'text/markdown', b64(Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x01]))),
    'png (corpus)': () => ({ type: 'image', mimeType: 'image/png', data: b64(png()) }),
    'png as Uint8Array in a media part with uri': () => ({
      type: 'media',
      mimeType: 'image/png',
      uri: 'https://x.test/a.png?x=1',
      data: new Uint8Array(png()),
    }),
    'truncated png (corpus png cut in half)': () => ({ type: 'image', mimeType: 'image/png', data: b64(png().subarray(0, png().length >> 1)) }),
    'png with a bad CRC': () => {
      const bad = makePng(4, 3)
      bad[bad.length - 20] ^= 1 // inside IDAT
      return { type: 'image', mimeType: 'image/png', data: b64(bad) }
    },
    'png > 5 MiB': () => ({ type: 'image', mimeType: 'image/png', data: b64(bigPng()) }),
    'png > 5 MiB as Uint8Array': () => ({ type: 'image', mimeType: 'image/png', data: bigPng() }),
    'png 9000x10': () => ({ type: 'image', mimeType: 'image/png', data: b64(makePng(9000, 10)) }),
    'png 8000x10 (at the limit)': () => ({ type: 'image', mimeType: 'image/png', data: b64(makePng(8000, 10)) }),
    'png 1280x20000': () => ({ type: 'image', mimeType: 'image/png', data: b64(makePng(1280, 20000)) }),
    'png of 3,932,160 bytes (5,242,880 characters of base64)': () => ({ type: 'image', mimeType: 'image/png', data: b64(grayPng(3_932_160)) }),
    'png of 3,932,161 bytes': () => ({ type: 'image', mimeType: 'image/png', data: b64(grayPng(3_932_161)) }),
    'png of 3,932,160 bytes, line-broken unpadded base64': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: b64(grayPng(3_932_160)).replace(/.{76}/g, '$&\r\n'),
    }),
    'png of 3,932,161 bytes, line-broken unpadded base64': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: b64(grayPng(3_932_161)).replace(/=+$/, '').replace(/.{76}/g, '$&\r\n'),
    }),
    'png of 3,932,160 bytes as Uint8Array': () => ({ type: 'image', mimeType: 'image/png', data: grayPng(3_932_160) }),
    'png of 3,932,161 bytes as Uint8Array': () => ({ type: 'image', mimeType: 'image/png', data: grayPng(3_932_161) }),
    'png over both limits': () => ({ type: 'image', mimeType: 'image/png', data: b64(makeGrayPng(9000, 10, { padTo: 4_000_000 })) }),
    'pdf over 10 MiB': () => resource('file:///big.pdf', 'application/pdf', b64(pdfOfLength(10 * 1024 * 1024 + 1))),
    'bmp declared image/png': () => ({ type: 'image', mimeType: 'image/png', data: b64(corpusFile('fixture.bmp')) }),
    'bmp declared image/bmp': () => ({ type: 'image', mimeType: 'image/bmp', data: b64(corpusFile('fixture.bmp')) }),
    'wav declared audio/x-wav (an alias)': () => ({ type: 'audio', mimeType: 'audio/x-wav', data: b64(corpusFile('fixture.wav')) }),
    'random bytes declared image/jpeg': () => ({ type: 'image', mimeType: 'image/jpeg', data: b64(randomBytes(3000, 5)) }),
    'random bytes declared application/x-thing': () => ({ type: 'media', mimeType: 'application/x-thing', data: b64(randomBytes(3000, 6)) }),
    'svg that is not UTF-8': () =>
      resource(
        'file:///a.svg',
        'image/svg+xml',
        b64(Buffer.concat([text('<svg xmlns="http://www.w3.org/2000/svg"><text>'), Buffer.from([0xc3, 0x28]), text('</text></svg>')])),
      ),
    'mislabelled jpeg': () => ({ type: 'image', mimeType: 'image/png', data: b64(corpusFile('fixture.jpg')) }),
    'gif declared image/webp': () => resource('file:///a.webp', 'image/webp', b64(corpusFile('fixture.gif'))),
    'pdf resource': () => resource('file:///doc.pdf', 'application/pdf', b64(corpusFile('fixture.pdf'))),
    'truncated pdf': () => resource('file:///doc.pdf', 'application/pdf', b64(corpusFile('fixture.pdf').subarray(0, 300))),
    'audio wav': () => ({ type: 'audio', mimeType: 'audio/wav', data: b64(corpusFile('fixture.wav')) }),
    'empty base64': () => ({ type: 'image', mimeType: 'image/png', data: '' }),
    'empty bytes': () => resource('file:///e', undefined, new Uint8Array(0)),
    'no data at all': () => ({ type: 'audio', mimeType: 'audio/wav' }),
    'base64 with a space': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVs bG8=' }),
    "base64 with '*'": () => ({ type: 'image', mimeType: 'image/png', data: 'aGVs*bG8=' }),
    "base64 with '!' at symbol 12": () => ({ type: 'image', mimeType: 'image/png', data: 'QUJDREVGR0hJ!0tM' }),
    'base64 with a tab': () => resource('file:///x.png', 'image/png', 'aGVs\tbG8='),
    'base64 with a control byte': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVs\u0001bG8=' }),
    'base64 mixing both alphabets': () => ({ type: 'image', mimeType: 'image/png', data: 'ab+/cd-_' }),
    'base64 of 1 mod 4 length': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVsb' }),
    'base64 with non-ASCII': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVsbGé8' }),
    'base64 with an emoji': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVs😀bG8=' }),
    'base64 with too much padding': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVsbG8===' }),
    'base64 with padding in the middle': () => ({ type: 'image', mimeType: 'image/png', data: 'QQ==QUFB' }),
    'base64 with padding not completing a group': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVsbG8==' }),
    'data: URL': () => ({ type: 'image', mimeType: 'image/png', data: `data:image/png;base64,${b64(png())}` }),
    'unpadded base64 png': () => ({ type: 'image', mimeType: 'image/png', data: b64(png()).replace(/=+$/, '') }),
    'url-safe base64 png': () => ({ type: 'image', mimeType: 'image/png', data: b64(corpusFile('fixture.jpg')).replace(/\+/g, '-').replace(/\//g, '_') }),
    'line-broken base64 png': () => ({ type: 'image', mimeType: 'image/png', data: b64(png()).replace(/.{76}/g, '$&\r\n') }),
    'base64 with non-zero trailing bits': () => resource('file:///q.txt', 'text/plain', 'QR=='),
    'unknown binary (parquet)': () =>
      resource('file:///data.parquet', 'application/vnd.apache.parquet', b64(Buffer.from('PAR1\x00\x01\x02\xffPAR1', 'latin1'))),
    'unknown binary, no uri': () => ({ type: 'media', mimeType: 'application/x-thing', data: new Uint8Array([0, 1, 2, 3, 0xff]) }),
    'resource blob without uri': () => ({ type: 'resource', resource: { mimeType: 'image/png', blob: b64(png()) } }),
    resource_link: () => ({ type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain', size: 12, description: 'notes' }),
    'resource_link, bare': () => ({ type: 'resource_link', uri: 'https://x/y' }),
    'resource_link, fractional size': () => ({ type: 'resource_link', uri: 'https://x/y', name: 'y', size: 1.5 }),
    // A hostile server's strings: escaped and cut the same way by both.
    'resource_link, hostile strings': () => ({
      type: 'resource_link',
      uri: 'u\x1b[2J\u202e(',
      name: ']\n[',
      mimeType: '\x9b'.repeat(300),
      description: `a\n[b]${'d'.repeat(3000)}`,
    }),
    'unknown type, hostile and long': () => ({ type: `x\n]\x1b\u2066${'t'.repeat(1000)}` }),
    'random bytes declared a hostile text type': () => resource('file:///h', 'text/x\x1b]\u202e', b64(randomBytes(500, 15))),
    'random bytes declared a long type': () => resource('file:///h', `application/${'x'.repeat(600)}`, b64(randomBytes(500, 16))),
    'bmp declared a hostile image type': () => ({ type: 'image', mimeType: 'image/x\n(y)', data: b64(corpusFile('fixture.bmp')) }),
    'base64 with a bracket': () => ({ type: 'image', mimeType: 'image/png', data: 'aGVs]G8=' }),
    'audience user': () => ({ type: 'text', text: 'for the user', annotations: { audience: ['user'] } }),
    'audience user+assistant': () => ({ type: 'image', mimeType: 'image/png', data: b64(png()), annotations: { audience: ['user', 'assistant'] } }),
    'audience assistant': () => ({ type: 'text', text: 'hi', annotations: { audience: ['assistant'] } }),
    'embedded text resource': () => ({ type: 'resource', resource: { uri: 'file:///a.md', mimeType: 'text/markdown', text: '# Hi' } }),
    'embedded text resource, no type, no uri': () => ({ type: 'resource', resource: { text: 'plain' } }),
    'png > 64 KiB with a bad CRC past the first 64 KiB': () => ({ type: 'image', mimeType: 'image/png', data: b64(pngWithLateBadCrc()) }),
    'png > 64 KiB with a bad CRC past the first 64 KiB, as Uint8Array': () => ({ type: 'image', mimeType: 'image/png', data: pngWithLateBadCrc() }),
    // The native library decodes every row of a PNG before attaching it;
    // the reference inflates its image data (right CRCs over each).
    'png whose deflate data is broken under right CRCs': () => {
      const idat = zlib.deflateSync(randomBytes(40 * (1 + 3 * 40)).map((b, i) => (i % 121 === 0 ? 0 : b)))
      idat.fill(0x5a, 20, 30)
      return { type: 'image', mimeType: 'image/png', data: b64(makePng(40, 40, idat)) }
    },
    'png whose deflate data holds too few rows': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: b64(makePng(40, 40, zlib.deflateSync(Buffer.alloc(39 * (1 + 3 * 40))))),
    }),
    'png with an unknown row filter type': () => {
      const raw = Buffer.alloc(40 * (1 + 3 * 40))
      raw[7 * (1 + 3 * 40)] = 5
      return { type: 'image', mimeType: 'image/png', data: b64(makePng(40, 40, zlib.deflateSync(raw))) }
    },
    'interlaced png': () => ({ type: 'image', mimeType: 'image/png', data: b64(interlacedPng(13, 7)) }),
    'interlaced png one row short': () => ({ type: 'image', mimeType: 'image/png', data: b64(interlacedPng(13, 7, -1)) }),
    'jpeg with 2 KiB after EOI': () => ({ type: 'image', mimeType: 'image/jpeg', data: b64(Buffer.concat([bigJpeg(), Buffer.alloc(2048)])) }),
    'jpeg with 2 KiB after EOI, as Uint8Array': () => ({ type: 'image', mimeType: 'image/jpeg', data: Buffer.concat([bigJpeg(), Buffer.alloc(2048)]) }),
    'jpeg > 64 KiB, EOI past the head, 2 KiB after EOI': () => ({
      type: 'image',
      mimeType: 'image/jpeg',
      data: b64(Buffer.concat([jpegWithLateEoi(), Buffer.alloc(2048)])),
    }),
    'jpeg > 64 KiB, EOI past the head, 2 KiB after EOI, as Uint8Array': () => ({
      type: 'image',
      mimeType: 'image/jpeg',
      data: Buffer.concat([jpegWithLateEoi(), Buffer.alloc(2048)]),
    }),
    'large text blob (UTF-8 cut at 64 KiB)': () => resource('file:///big.txt', 'application/octet-stream', b64(text('é'.repeat(50000)))),
    'large random blob': () => resource('file:///r.bin', undefined, b64(randomBytes(200_000))),
    'large line-broken base64': () => resource('file:///r.bin', undefined, b64(randomBytes(200_000)).replace(/.{76}/g, '$&\r\n')),
    "base64 with '*' past the first 64 Ki symbols": () => ({ type: 'image', mimeType: 'image/png', data: `${'QUFB'.repeat(40000)}*QQ=` }),
    // Found by this test (native accepted it, as data 2 bytes shorter than
    // its byteLength; fixed in the native library): '=' only at the end.
    "line-broken base64 with '==' at symbol 65534": () => resource('file:///a.txt', 'text/plain', `${'QUFB'.repeat(16383)}QQ==QUFB`.replace(/.{76}/g, '$&\n')),
    'the MCP logo (a damaged iCCP chunk)': () => ({ type: 'image', mimeType: 'image/png', data: MCP_TINY_IMAGE }),
    'png with damaged tEXt and pHYs, as Uint8Array': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: pngWith([damagedChunk('tEXt', Buffer.from('a\0b')), chunk('gAMA', [0, 0, 0xb1, 0x8f]), damagedChunk('pHYs', Buffer.alloc(9))]),
    }),
    'png with six kinds of damaged ancillary chunks': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: b64(pngWith(['aaAa', 'bbBb', 'ccCc', 'ddDd', 'eeEe', 'ffFf', 'bbBb'].map((type) => damagedChunk(type, Buffer.from('x'))))),
    }),
    'apng with a damaged fcTL': () => ({ type: 'image', mimeType: 'image/png', data: b64(apngWithDamagedFctl()) }),
    'png with a damaged tEXt and a bad IDAT CRC': () => {
      const bad = pngWith([damagedChunk('tEXt', Buffer.from('a\0b'))])
      bad[bad.length - 13] ^= 1 // the CRC of IDAT
      return { type: 'image', mimeType: 'image/png', data: b64(bad) }
    },
    'png with a bad IHDR CRC': () => {
      const bad = makePng(4, 3)
      bad[32] ^= 1
      return { type: 'image', mimeType: 'image/png', data: b64(bad) }
    },
    'png > 64 KiB, a damaged tEXt in the first 64 KiB, base64': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: b64(pngWith([damagedChunk('tEXt', Buffer.from('a\0b')), chunk('tEXt', Buffer.alloc(90_000, 0x61))])),
    }),
    'png > 64 KiB, a damaged tEXt first, a bad IDAT CRC past 64 KiB': () => {
      const bad = pngWith([damagedChunk('tEXt', Buffer.from('a\0b')), chunk('tEXt', Buffer.alloc(90_000, 0x61))])
      bad[bad.length - 13] ^= 1
      return { type: 'image', mimeType: 'image/png', data: b64(bad) }
    },
    'png > 64 KiB, a damaged tEXt only past 64 KiB': () => ({
      type: 'image',
      mimeType: 'image/png',
      data: b64(pngWith([chunk('tEXt', Buffer.alloc(90_000, 0x61))], [damagedChunk('tEXt', Buffer.from('a\0b'))])),
    }),
    'ico declared image/x-icon': () => ({ type: 'image', mimeType: 'image/x-icon', data: b64(corpusFile('fixture.ico')) }),
    'ico declared image/vnd.microsoft.icon': () => ({ type: 'image', mimeType: 'image/vnd.microsoft.icon', data: b64(corpusFile('fixture.ico')) }),
    'cur declared image/png': () => ({ type: 'image', mimeType: 'image/png', data: b64(corpusFile('fixture.cur')) }),
    'woff2 declared font/woff2': () => resource('file:///f.woff2', 'font/woff2', b64(corpusFile('fixture.woff2'))),
    'midi as octet-stream': () => resource('file:///m', 'application/octet-stream', b64(corpusFile('fixture.mid'))),
    'random bytes declared image/x-png': () => ({ type: 'image', mimeType: 'image/x-png', data: b64(randomBytes(500, 12)) }),
    'random bytes declared application/pdf': () => resource('file:///d.pdf', 'application/pdf', b64(randomBytes(500, 13))),
    'random bytes declared font/ttf': () => resource('file:///f.ttf', 'font/ttf', b64(randomBytes(500, 14))),
    'text declared font/woff2': () => resource('file:///f.woff2', 'font/woff2', b64(text('Not Found\n'))),
    'png with a percent-encoded uri': () => resource('file:///tmp/My%20report%20%C3%A9.png', 'image/png', b64(png())),
    'png with %2F in its uri': () => resource('file:///tmp/..%2Fetc%2Fa.png', 'image/png', b64(png())),
    'png with a malformed escape in its uri': () => resource('file:///tmp/a%zz.png', 'image/png', b64(png())),
    'png with an escape that is not UTF-8 in its uri': () => resource('file:///tmp/a%FF.png', 'image/png', b64(png())),
    'png with a control character in its uri': () => resource('file:///tmp/a%0A.png', 'image/png', b64(png())),
    'png at a host without a path': () => ({ type: 'media', mimeType: 'image/png', uri: 'https://x.test', data: b64(png()) }),
    'text blob with charset': () => resource('file:///a.txt', 'text/plain; charset=utf-8', b64(text('héllo\n'))),
    'csv blob with header and name': () => resource('file:///a.csv', 'Text/CSV; Header=present; name="a.csv"; charset=UTF-8', b64(text('a,b\n1,2\n'))),
    'text blob with a bracket in a parameter': () => resource('file:///a.txt', 'text/plain; charset="x)]"', b64(text('x\n'))),
    'svg with charset': () => resource('file:///i.svg', 'image/svg+xml; charset=utf-8', b64(text('<svg xmlns="http://www.w3.org/2000/svg"/>'))),
    'embedded text resource with charset and format': () => ({
      type: 'resource',
      resource: { uri: 'file:///a.txt', mimeType: 'text/plain; format=flowed; charset=utf-8; x=y', text: 'hi' },
    }),
    'text part': () => ({ type: 'text', text: 'hello' }),
    'unknown part type': () => ({ type: 'widget' }),
  }
  for (const [name, build] of Object.entries(cases)) {
    test(name, async () => assertSame(build()))
  }
})

describe('reference == native on damaged GIFs and WebPs', () => {
  // Native code decodes a sound GIF or WebP whole before attaching it; the
  // reference must refuse the same ones (benchmark/reference-decode.mjs).
  const image = (mimeType, bytes) => ({ type: 'image', mimeType, data: b64(bytes) })
  const refusals = { 'image/gif': /corrupt GIF: its image data does not decode/, 'image/webp': /corrupt WebP: its image data does not decode/ }

  test('images made by sharp, damaged at seeded offsets', { timeout: 120_000 }, async () => {
    const random = prng(22)
    const raw = (w, h, ch) => {
      const pixels = Buffer.alloc(w * h * ch)
      for (let i = 0; i < pixels.length; i++) pixels[i] = ((i % (w * ch)) + random() * 48) & 0xff
      return sharp(pixels, { raw: { width: w, height: h, channels: ch } })
    }
    const images = [
      ['image/gif', await raw(64, 48, 3).gif().toBuffer()],
      ['image/gif', await raw(300, 200, 3).gif({ colours: 16 }).toBuffer()],
      ['image/webp', await raw(64, 48, 3).webp({ lossless: true }).toBuffer()],
      ['image/webp', await raw(300, 200, 4).webp({ lossless: true }).toBuffer()],
      ['image/webp', await raw(300, 200, 3).webp({ quality: 80 }).toBuffer()],
    ]
    const failures = []
    const refused = { 'image/gif': 0, 'image/webp': 0 }
    for (const [mimeType, original] of images) {
      for (const [what, bytes] of [['undamaged', original], ...damage(original, 12, random)]) {
        const part = image(mimeType, bytes)
        const diff = await differ(part)
        if (diff) failures.push(`${mimeType} of ${original.length} bytes, ${what}\n  ${diff}`)
        const native = await toContentAsync(part, { fitImages: false, outputDir: dirs.native })
        if (refusals[mimeType].test(native.text ?? '')) refused[mimeType]++
      }
    }
    // An animated WebP is left to its walk (the reference's libwebp build
    // decodes still images only): the same verdict when it is sound.
    const frames = await raw(64, 96, 3).webp({ lossless: true, pageHeight: 48 }).toBuffer()
    assert.equal(frames[20] & 0x02, 2, 'sharp made an animated WebP')
    const diff = await differ(image('image/webp', frames))
    if (diff) failures.push(`animated WebP\n  ${diff}`)
    assert.deepEqual(failures, [], failures.join('\n'))
    // The damage reaches the decoders: some images pass their walk and fail to decode.
    assert.ok(refused['image/gif'] > 0 && refused['image/webp'] > 0, JSON.stringify(refused))
  })

  // One frame of `width` x 1 pixels, two colours, its codes `bits` wide each
  // (the width they would have) after a minimum code size `minSize`.
  const gif = (width, minSize, codes, bits = minSize + 1) => {
    const packed = []
    let acc = 0
    let held = 0
    for (const code of codes) {
      acc |= code << held
      held += bits
      while (held >= 8) {
        packed.push(acc & 0xff)
        acc >>>= 8
        held -= 8
      }
    }
    if (held > 0) packed.push(acc & 0xff)
    const screen = [width, 0, 1, 0, 0x80, 0, 0]
    const colors = [0, 0, 0, 255, 255, 255]
    const descriptor = [0x2c, 0, 0, 0, 0, width, 0, 1, 0, 0]
    return Buffer.from([...Buffer.from('GIF89a'), ...screen, ...colors, ...descriptor, minSize, packed.length, ...packed, 0, 0x3b])
  }
  const crafted = {
    // minimum code size 2: clear 4, end 5, new entries from 6
    'pixels then the end code': [gif(3, 2, [4, 0, 1, 0, 5]), true],
    'a code that is the next entry': [gif(3, 2, [4, 1, 6, 5]), true],
    'a code past the next entry': [gif(3, 2, [4, 1, 7, 5]), false],
    'an entry as the first code after a clear': [gif(2, 2, [4, 6, 5]), false],
    'the end code before the last pixel': [gif(3, 2, [4, 0, 5]), false],
    'clear codes in a row': [gif(1, 2, [4, 4, 4, 1, 5]), true],
    'a bad code after the last pixel': [gif(1, 2, [4, 0, 7, 5]), true],
    'data that stops before the last pixel': [gif(9, 2, [4, 0, 1]), false],
    'minimum code size 1': [gif(2, 1, [2, 1, 0, 3]), true],
    'minimum code size 12': [gif(1, 12, [4096, 0, 4097], 13), false],
  }
  for (const [name, [bytes, attached]] of Object.entries(crafted)) {
    test(`crafted GIF: ${name}`, async () => {
      await assertSame(image('image/gif', bytes))
      const native = await toContentAsync(image('image/gif', bytes), { fitImages: false, outputDir: dirs.native })
      assert.equal(native.type !== 'text', attached, native.text ?? 'attached')
    })
  }
})

describe('pixel cap', () => {
  test('the reference leaves to the fit the images src/image_fit/decode.rs does', () => {
    const rust = fs.readFileSync(path.join(repoRoot, 'src/image_fit/decode.rs'), 'utf8')
    const m = /pub const MAX_PIXELS: u64 = ([\d_]+) \* ([\d_]+);/.exec(rust)
    assert.ok(m, 'MAX_PIXELS read from src/image_fit/decode.rs')
    const side = (s) => Number(s.replaceAll('_', ''))
    assert.equal(MAX_PIXELS, side(m[1]) * side(m[2]))
  })
})

describe('format table', () => {
  test('the reference table has the rows of src/sniff/formats.rs', () => {
    const rust = fs.readFileSync(path.join(repoRoot, 'src/sniff/formats.rs'), 'utf8')
    const rows = [...rust.matchAll(/f\("([^"]+)", "([^"]+)", &\[([^\]]*)\]\)/g)].map(([, mediaType, ext, aliases]) => [
      mediaType,
      ext,
      [...aliases.matchAll(/"([^"]+)"/g)].map((m) => m[1]).join(' '),
    ])
    assert.ok(rows.length >= 140, `only ${rows.length} rows read`)
    assert.deepEqual(
      FORMATS.map(([mediaType, ext, aliases = '']) => [mediaType, ext, aliases]),
      rows,
    )
  })

  test('the native store names a saved file by the same table, aliases included', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-formats-'))
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
    const store = new ToolOutputStore(dir)
    const names = FORMATS.flatMap(([mediaType, , aliases = '']) => [mediaType, ...aliases.split(' ').filter(Boolean)])
    for (const name of [...names, 'application/x-thing', 'text/x-rust', 'Image/X-Icon; a=b']) {
      const saved = store.save(new Uint8Array([1]), { mediaType: name })
      assert.equal(path.extname(saved.path), `.${extension(name)}`, name)
    }
    assert.equal(extension('application/x-thing'), 'bin')
    assert.equal(extension('text/x-rust'), 'txt')
    assert.equal(extension('image/x-icon'), 'ico')
  })
})

describe('passThrough', () => {
  test('forwards what was declared, unchecked', () => {
    assert.deepEqual(passThrough({ type: 'image', mimeType: 'image/png', data: 'QUJD' }), { type: 'file', mediaType: 'image/png', data: 'QUJD' })
    assert.deepEqual(passThrough({ type: 'text', text: 'x' }), { type: 'text', text: 'x' })
    assert.deepEqual(passThrough(resource('file:///a.md', 'text/markdown', 'IyBU')), { type: 'file', mediaType: 'text/markdown', data: 'IyBU' })
  })
})
