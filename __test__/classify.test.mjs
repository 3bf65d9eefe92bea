// classify, isUtf8, isTextualMediaType
import { describe, test } from 'node:test'
import { animatedGif } from './fixtures/results.mjs'
import assert from 'node:assert/strict'
import { isUtf8 as nodeIsUtf8 } from 'node:buffer'
import { loadBinding, corpus, corpusFiles, trueExtension, b64, makePng, makeWav, randomBytes, referenceImageInfo, snapshot } from './fixtures/index.mjs'

const { classify, isUtf8, isTextualMediaType } = loadBinding()

const KINDS = new Set(['image', 'pdf', 'audio', 'video', 'text', 'binary', 'empty', 'invalid'])
/** Classification.textEncoding as index.d.ts declares it. */
const TEXT_ENCODINGS = new Set(
  (
    'ascii utf-8 utf-16le utf-16be windows-1252 shift_jis euc-jp iso-2022-jp gbk gb18030 big5 euc-kr koi8-r koi8-u ' +
    'ibm866 macintosh x-mac-cyrillic windows-874 windows-1250 windows-1251 windows-1253 windows-1254 windows-1255 ' +
    'windows-1256 windows-1257 windows-1258 iso-8859-2 iso-8859-3 iso-8859-4 iso-8859-5 iso-8859-6 iso-8859-7 ' +
    'iso-8859-8 iso-8859-8-i iso-8859-10 iso-8859-13 iso-8859-14 iso-8859-15 iso-8859-16'
  ).split(' '),
)

function checkShape(c, byteLength) {
  assert.equal(typeof c, 'object')
  assert.ok(KINDS.has(c.kind), `unknown kind ${c.kind}`)
  assert.equal(typeof c.mediaType, 'string')
  assert.ok(c.mediaType.length > 0, 'mediaType is empty')
  assert.equal(typeof c.byteLength, 'number')
  if (byteLength !== undefined) assert.equal(c.byteLength, byteLength)
  for (const k of ['width', 'height']) if (c[k] !== undefined) assert.equal(typeof c[k], 'number')
  if (c.textEncoding !== undefined) assert.ok(TEXT_ENCODINGS.has(c.textEncoding), c.textEncoding)
  if (c.problem !== undefined) assert.equal(typeof c.problem, 'string')
  if (c.repair !== undefined) assert.equal(typeof c.repair, 'string')
}

describe('classify', () => {
  test('images: kind, sniffed type and header dimensions', () => {
    for (const [name, mt] of [
      ['fixture.png', 'image/png'],
      ['fixture.jpg', 'image/jpeg'],
      ['fixture.gif', 'image/gif'],
      ['fixture.webp', 'image/webp'],
      ['fixture.apng', 'image/png'],
    ]) {
      const bytes = corpus(name)
      const ref = referenceImageInfo(bytes)
      for (const data of [new Uint8Array(bytes), b64(bytes)]) {
        const c = classify(data)
        checkShape(c, bytes.length)
        assert.equal(c.kind, 'image', name)
        assert.equal(c.mediaType, mt, name)
        assert.equal(c.sniffedMediaType, mt, name)
        assert.equal(c.width, ref.width, `${name} width`)
        assert.equal(c.height, ref.height, `${name} height`)
        assert.equal(c.problem, undefined, `${name}: ${c.problem}`)
      }
    }
  })

  test('generated png dimensions, including 9000 px', () => {
    for (const [w, h] of [
      [1, 1],
      [9000, 10],
      [10, 9000],
      [8000, 1],
    ]) {
      const c = classify(makePng(w, h))
      assert.equal(c.kind, 'image')
      assert.equal(c.width, w)
      assert.equal(c.height, h)
    }
  })

  test('animated: true for a GIF of two frames, false for still images, absent for others', () => {
    const animated = animatedGif()
    for (const data of [animated, b64(animated)]) assert.equal(classify(data).animated, true)
    for (const name of ['fixture.gif', 'fixture.png', 'fixture.jpg', 'fixture.webp']) {
      assert.equal(classify(corpus(name)).animated, false, name)
    }
    assert.equal('animated' in classify(corpus('fixture.pdf')), false)
  })

  test('pages: the page tree of a PDF made by pdf-lib, absent when it sits in object streams', async () => {
    const { PDFDocument } = await import('pdf-lib')
    const doc = await PDFDocument.create()
    for (let i = 0; i < 150; i++) doc.addPage([200, 200]).drawText(`page ${i + 1}`, { x: 20, y: 100 })
    const plain = await doc.save({ useObjectStreams: false })
    const packed = await doc.save({ useObjectStreams: true })
    for (const data of [plain, b64(plain)]) {
      const c = classify(data, 'application/pdf')
      assert.deepEqual([c.kind, c.pages, c.problem], ['pdf', 150, undefined])
    }
    const c = classify(packed, 'application/pdf')
    assert.deepEqual([c.kind, c.problem, 'pages' in c], ['pdf', undefined, false])
    assert.equal(classify(corpus('fixture.pdf')).pages, 1) // linearized: /N
    assert.equal('pages' in classify(corpus('fixture.png')), false)
  })

  test('pdf, audio, video', () => {
    for (const name of ['fixture.pdf', 'fixture-minimal.pdf', 'fixture-printed.pdf']) {
      const c = classify(corpus(name))
      assert.equal(c.kind, 'pdf', name)
      assert.equal(c.mediaType, 'application/pdf')
    }
    for (const name of ['fixture.wav', 'fixture.mp3', 'fixture.flac', 'fixture.ogg', 'fixture.m4a']) {
      const c = classify(corpus(name))
      assert.equal(c.kind, 'audio', `${name}: ${JSON.stringify(c)}`)
      assert.match(c.mediaType, /^audio\//, name)
    }
    assert.match(classify(makeWav()).mediaType, /^audio\/(x-)?wav|^audio\/vnd\.wave/)
    for (const name of ['fixture-isom.mp4', 'fixture.webm', 'fixture.mkv', 'fixture.mov']) {
      const c = classify(corpus(name))
      assert.equal(c.kind, 'video', `${name}: ${JSON.stringify(c)}`)
      assert.match(c.mediaType, /^video\//, name)
    }
  })

  test('empty and invalid', () => {
    for (const data of ['', new Uint8Array(0)]) {
      const c = classify(data)
      checkShape(c, 0)
      assert.equal(c.kind, 'empty')
    }
    for (const data of ['abc$', 'QUJDR', 'data:image/png;base64,iVBORw0KGgo=', 'iVBO Rw0K', 'ab+-', 'QQ=A']) {
      const c = classify(data, 'image/png')
      assert.equal(c.kind, 'invalid', data)
      assert.equal(typeof c.problem, 'string', `invalid base64 ${data} has no problem text`)
      assert.ok(c.problem.length > 0)
      assert.equal(c.declaredMediaType, 'image/png')
    }
  })

  test('text and encodings', () => {
    let c = classify(Buffer.from('hello world\n'))
    assert.equal(c.kind, 'text')
    assert.equal(c.textEncoding, 'ascii')
    c = classify(Buffer.from('héllo wörld ✓\n'))
    assert.equal(c.kind, 'text')
    assert.equal(c.textEncoding, 'utf-8')
    c = classify(corpus('fixture-utf16-le-bom.xml'))
    assert.equal(c.kind, 'text')
    assert.equal(c.textEncoding, 'utf-16le')
    c = classify(corpus('fixture-utf16-be-bom.xml'))
    assert.equal(c.kind, 'text')
    assert.equal(c.textEncoding, 'utf-16be')
    c = classify(corpus('fixture-json.webp'))
    assert.equal(c.kind, 'text', 'fixture-json.webp is JSON text, not a webp')
    assert.notEqual(c.sniffedMediaType, 'image/webp')
    c = classify(Buffer.from('# md'), 'text/markdown')
    assert.equal(c.kind, 'text')
    assert.equal(c.declaredMediaType, 'text/markdown')
  })

  test('text in other encodings', () => {
    const cases = [
      // [bytes, declared type, kind, textEncoding]
      [Buffer.from('café', 'latin1'), 'text/plain; charset=latin1', 'text', 'windows-1252'],
      [Buffer.from('café', 'latin1'), 'text/plain', 'text', 'windows-1252'],
      [Buffer.from('café', 'latin1'), undefined, 'binary', undefined],
      [Buffer.from([0x82, 0xa0, 0x82, 0xa2]), 'text/plain; charset=shift_jis', 'text', 'shift_jis'], // あい
      [Buffer.from([0xa4, 0xa2, 0xa4, 0xa4]), 'text/plain; charset=euc-jp', 'text', 'euc-jp'], // あい
      [Buffer.from([0xd6, 0xd0, 0xce, 0xc4]), 'text/plain; charset=gb18030', 'text', 'gb18030'],
      [Buffer.from([0xb3, 0xf5]), 'text/plain; charset=iso-8859-2', 'text', 'iso-8859-2'], // łő
      [Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), 'text/plain; charset=windows-1251', 'text', 'windows-1251'], // Привет
      [Buffer.from('hi there', 'utf16le'), undefined, 'text', 'utf-16le'],
      [Buffer.from('hi there', 'utf16le').swap16(), 'application/octet-stream', 'text', 'utf-16be'],
    ]
    for (const [bytes, declared, kind, encoding] of cases) {
      const c = classify(bytes, declared)
      checkShape(c, bytes.length)
      assert.equal(c.kind, kind, `${declared}: ${bytes.toString('hex')}`)
      assert.equal(c.textEncoding, encoding, `${declared}: ${bytes.toString('hex')}`)
    }
  })

  test('declared vs sniffed: a JPEG declared image/png', () => {
    const c = classify(corpus('fixture.jpg'), 'image/png')
    assert.equal(c.declaredMediaType, 'image/png')
    assert.equal(c.sniffedMediaType, 'image/jpeg')
    assert.equal(c.mediaType, 'image/jpeg')
    assert.equal(c.kind, 'image')
  })

  test('truncated and corrupt png report a problem', () => {
    const png = corpus('fixture.png')
    for (const [name, bytes] of [
      ['truncated', png.subarray(0, 3000)],
      ['corrupt', corpus('fixture-corrupt.png')],
      ['no IEND', png.subarray(0, png.length - 12)],
    ]) {
      const c = classify(bytes, 'image/png')
      assert.equal(typeof c.problem, 'string', `${name} png: no problem reported: ${JSON.stringify(c)}`)
      assert.ok(c.problem.length > 0)
    }
  })

  test('aliases of the sniffed format are not mismatches: ico declared image/x-icon or its IANA name', () => {
    for (const name of ['fixture.ico', 'fixture.cur']) {
      for (const declared of ['image/x-icon', 'image/vnd.microsoft.icon', 'IMAGE/X-ICON; a=b']) {
        const c = classify(corpus(name), declared)
        checkShape(c)
        assert.equal(c.sniffedMediaType, 'image/vnd.microsoft.icon')
        assert.equal(c.problem, undefined, `${name} declared ${declared}: ${c.problem}`)
      }
    }
    assert.equal(classify(corpus('fixture.jpg'), 'image/pjpeg').problem, undefined)
    assert.equal(classify(corpus('fixture.ico'), 'image/png').problem, 'declared image/png but the bytes are image/vnd.microsoft.icon')
  })

  test('text declared as an image reports the mismatch', () => {
    for (const declared of ['image/png', 'image/jpeg', 'image/x-icon']) {
      const c = classify(Buffer.from('404 Not Found\n'), declared)
      assert.equal(c.kind, 'text')
      assert.equal(c.mediaType, 'text/plain')
      assert.equal(c.problem, `declared ${declared} but the bytes are text`)
    }
    // svg is textual: declaring it on text is no mismatch.
    assert.equal(classify(Buffer.from('404 Not Found\n'), 'image/svg+xml').problem, undefined)
  })

  test('bytes of no known format declared image/png are application/octet-stream', () => {
    for (const data of [randomBytes(2000, 5), b64(randomBytes(2000, 5))]) {
      const c = classify(data, 'image/png')
      assert.equal(c.kind, 'binary')
      assert.equal(c.mediaType, 'application/octet-stream')
      assert.equal(c.declaredMediaType, 'image/png')
      assert.equal(c.problem, 'declared image/png but the bytes do not match that format')
    }
  })

  test('binary with nothing recognisable', () => {
    const c = classify(randomBytes(4096, 99))
    checkShape(c, 4096)
    assert.equal(c.kind, 'binary')
    assert.equal(c.sniffedMediaType, undefined)
    const p = classify(corpus('fixture.parquet'), 'application/vnd.apache.parquet')
    assert.equal(p.kind, 'binary')
    assert.equal(p.declaredMediaType, 'application/vnd.apache.parquet')
  })

  test('bytes and base64 give the same classification; input not mutated', () => {
    const differ = []
    for (const name of corpusFiles()) {
      const bytes = corpus(name)
      const u8 = new Uint8Array(bytes)
      const before = snapshot(u8)
      const a = classify(u8)
      const b = classify(b64(bytes))
      assert.deepEqual(snapshot(u8), before)
      checkShape(a, bytes.length)
      try {
        assert.deepEqual(a, b)
      } catch {
        differ.push(`${name}: bytes ${JSON.stringify(a)} vs base64 ${JSON.stringify(b)}`)
      }
    }
    assert.deepEqual(differ, [])
  })

  test('corpus sweep: kind image/pdf only for real png/jpeg/gif/webp/pdf-family files', () => {
    const imageExt = { png: 'image/png', apng: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }
    for (const name of corpusFiles()) {
      const ext = trueExtension(name)
      const c = classify(corpus(name))
      if (c.sniffedMediaType && imageExt[ext] === undefined) {
        assert.ok(!Object.values(imageExt).includes(c.sniffedMediaType) || ['ico', 'cur', 'icns'].includes(ext), `${name} sniffed as ${c.sniffedMediaType}`)
      }
      if (imageExt[ext] && name !== 'fixture-json.webp') assert.equal(c.sniffedMediaType, imageExt[ext], name)
      if (c.sniffedMediaType === 'application/pdf') assert.equal(ext, 'pdf', `${name} sniffed as a PDF`)
      if (ext === 'pdf') assert.equal(c.sniffedMediaType, 'application/pdf', name)
    }
  })

  test('garbage never throws', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(i * 37, i + 1)
      for (const d of [undefined, '', 'image/png', 'x'.repeat(5000), '\u0000', 'text/plain; charset=utf-16']) {
        checkShape(classify(bytes, d), bytes.length)
      }
    }
    // every corpus file prefix cut at odd lengths
    for (const name of ['fixture.png', 'fixture.jpg', 'fixture.gif', 'fixture.webp', 'fixture.pdf', 'fixture.wav', 'fixture-utf16-le-bom.xml']) {
      const bytes = corpus(name)
      for (const n of [1, 2, 3, 4, 7, 8, 11, 12, 15, 16, 23, 24, 25, 29, 30, 33]) checkShape(classify(bytes.subarray(0, n)), n)
    }
  })
})

describe('isUtf8', () => {
  test('agrees with node:buffer isUtf8 on corpus files, prefixes and random bytes', () => {
    for (const name of corpusFiles()) {
      const b = corpus(name)
      assert.equal(isUtf8(b), nodeIsUtf8(b), name)
      const head = b.subarray(0, 257)
      assert.equal(isUtf8(head), nodeIsUtf8(head), `${name} head`)
    }
    for (let i = 0; i < 500; i++) {
      const b = randomBytes(i % 40, i + 3)
      assert.equal(isUtf8(b), nodeIsUtf8(b), b.toString('hex'))
    }
  })

  test('edge cases', () => {
    const cases = [
      [[], true],
      [[0x41], true],
      [[0x00], true],
      [[0xc3, 0xa9], true],
      [[0xc3], false],
      [[0xc0, 0x80], false], // overlong
      [[0xed, 0xa0, 0x80], false], // surrogate
      [[0xf4, 0x90, 0x80, 0x80], false], // > U+10FFFF
      [[0xf0, 0x9f, 0x9a, 0x80], true],
      [[0xff], false],
      [[0xef, 0xbb, 0xbf, 0x41], true],
    ]
    for (const [bytes, expected] of cases) assert.equal(isUtf8(new Uint8Array(bytes)), expected, JSON.stringify(bytes))
    // a long ASCII run then one bad byte at every tail position (SIMD chunk edges)
    for (const len of [15, 16, 31, 32, 63, 64, 65, 127, 128, 4095, 4096]) {
      const b = Buffer.alloc(len + 1, 0x61)
      b[len] = 0x80
      assert.equal(isUtf8(b), false, `bad byte at ${len}`)
      assert.equal(isUtf8(b.subarray(0, len)), true)
    }
  })

  test('offset views', () => {
    const ab = new ArrayBuffer(10)
    const u = new Uint8Array(ab)
    u.set([0xff, 0x41, 0x42, 0xc3, 0xa9, 0xff])
    assert.equal(isUtf8(new Uint8Array(ab, 1, 4)), true)
    assert.equal(isUtf8(new Uint8Array(ab, 1, 5)), false)
    assert.equal(isUtf8(new Uint8Array(ab, 0, 3)), false)
  })
})

describe('isTextualMediaType', () => {
  test('textual types', () => {
    for (const mt of [
      'text/plain',
      'text/markdown',
      'text/x-patch',
      'text/x-diff',
      'text/csv',
      'text/html',
      'text/css',
      'text/x-python',
      'application/json',
      'application/ld+json',
      'application/vnd.api+json',
      'application/xml',
      'application/atom+xml',
      'image/svg+xml',
      'application/javascript',
      'text/javascript',
      'application/x-yaml',
      'application/yaml',
      'application/toml',
      'application/x-sh',
      'application/x-patch',
      'application/x-diff',
      'application/sql',
      'application/graphql',
    ])
      assert.equal(isTextualMediaType(mt), true, mt)
  })

  test('binary types', () => {
    for (const mt of [
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
      'image/bmp',
      'application/pdf',
      'application/octet-stream',
      'audio/wav',
      'video/mp4',
      'application/vnd.apache.parquet',
      'application/zip',
      'application/gzip',
      '',
      'text',
      'json',
      'application/jsonx',
      'image/svg',
      'application/x-www-form-urlencodedx',
    ])
      assert.equal(isTextualMediaType(mt), false, mt)
  })

  test('case and parameters as servers send them', () => {
    assert.equal(isTextualMediaType('Text/Markdown'), true)
    assert.equal(isTextualMediaType('text/plain; charset=utf-8'), true)
    assert.equal(isTextualMediaType('application/json; charset=UTF-8'), true)
    assert.equal(isTextualMediaType('image/png; foo=text/plain'), false)
  })
})
