// toContent / toContentAsync: every routing rule of the contract, base64
// forms, byte inputs, limits, notes, errors, no mutation, worker threads.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import {
  loadBinding,
  bindingPath,
  bindingEntry,
  testDir,
  corpus,
  tempDir,
  b64,
  b64url,
  makePng,
  makeWav,
  randomBytes,
  crc32,
  listFiles,
  checkSavedNote,
  checkFilePart,
  parseSavedNote,
  snapshot,
  assertSameResult,
  MAX_IMAGE_BASE64,
  MAX_IMAGE_DECODED,
  wasmCannot,
} from './fixtures/index.mjs'

const binding = loadBinding()
const { toContent, toContentAsync, ToolOutputStore } = binding

/** Run sync and async (each into its own temp dir), check they agree, return the sync result. */
async function both(t, part, options = {}) {
  const dirA = options.outputDir ?? tempDir(t)
  const dirB = options.outputDir ?? tempDir(t)
  const before = snapshot(part)
  const a = toContent(part, { fitImages: false, ...options, outputDir: dirA })
  const b = await toContentAsync(part, { fitImages: false, ...options, outputDir: dirB })
  assert.deepEqual(snapshot(part), before, 'input part was mutated')
  assertSameResult(assert, a, b)
  return { result: a, asyncResult: b, dir: dirA, asyncDir: dirB }
}

const png = corpus('fixture.png')
const jpeg = corpus('fixture.jpg')
const gif = corpus('fixture.gif')
const webp = corpus('fixture.webp')
const pdf = corpus('fixture.pdf')
const bmp = corpus('fixture.bmp')
const parquet = corpus('fixture.parquet')

const TXT = (text) => ({ type: 'text', text })

describe('text, audience, embedded text, resource_link', () => {
  test('text part is returned unchanged', async (t) => {
    for (const text of ['hello', '', 'ünïcödé ✓ 🚀', 'a\u0000b', '[Resource x (y)]\nz']) {
      const { result } = await both(t, { type: 'text', text })
      assert.deepEqual(result, TXT(text))
    }
  })

  test('audience without "assistant" drops the part (null) for every part type', async (t) => {
    const ann = { audience: ['user'] }
    const parts = [
      { type: 'text', text: 'x', annotations: ann },
      { type: 'image', data: b64(png), mimeType: 'image/png', annotations: ann },
      { type: 'audio', data: b64(makeWav()), mimeType: 'audio/wav', annotations: ann },
      { type: 'resource', resource: { uri: 'file:///a.md', mimeType: 'text/markdown', text: '# a' }, annotations: ann },
      { type: 'resource', resource: { uri: 'file:///a.bin', blob: b64(parquet) }, annotations: ann },
      { type: 'resource_link', uri: 'file:///a', name: 'a', annotations: ann },
    ]
    for (const p of parts) {
      const { result, dir, asyncDir } = await both(t, p)
      assert.equal(result, null, `${p.type} for the user only was not dropped`)
      assert.deepEqual(listFiles(dir), [], 'a dropped part was saved')
      assert.deepEqual(listFiles(asyncDir), [])
    }
  })

  test('audience containing "assistant", or no audience, keeps the part', async (t) => {
    for (const annotations of [{ audience: ['assistant'] }, { audience: ['user', 'assistant'] }, { priority: 1 }, {}]) {
      const { result } = await both(t, { type: 'text', text: 'kept', annotations })
      assert.deepEqual(result, TXT('kept'), JSON.stringify(annotations))
    }
  })

  test('audience [] does not contain "assistant": dropped', async (t) => {
    const { result } = await both(t, { type: 'text', text: 'x', annotations: { audience: [] } })
    assert.equal(result, null)
  })

  test('embedded text resource', async (t) => {
    let r = await both(t, { type: 'resource', resource: { uri: 'file:///README.md', mimeType: 'text/markdown', text: '# Hi\nthere' } })
    assert.deepEqual(r.result, TXT('[Resource file:///README.md (text/markdown)]\n# Hi\nthere'))
    r = await both(t, { type: 'resource', resource: { uri: 'file:///n.txt', text: 'no mime' } })
    assert.deepEqual(r.result, TXT('[Resource file:///n.txt (text/plain)]\nno mime'))
    r = await both(t, { type: 'resource', resource: { uri: 'file:///e.txt', mimeType: 'text/plain', text: '' } })
    assert.equal(r.result.type, 'text')
    assert.ok(r.result.text.startsWith('[Resource file:///e.txt (text/plain)]'), r.result.text)
  })

  test('resource_link becomes a note, never dropped', async (t) => {
    const cases = [
      [
        { type: 'resource_link', uri: 'file:///a.pdf', name: 'a.pdf', mimeType: 'application/pdf', size: 1234, description: 'The report' },
        '[Resource link file:///a.pdf (a.pdf, application/pdf, 1234 bytes)]\nThe report',
      ],
      [
        { type: 'resource_link', uri: 'file:///a.pdf', name: 'a.pdf', mimeType: 'application/pdf', size: 1234 },
        '[Resource link file:///a.pdf (a.pdf, application/pdf, 1234 bytes)]',
      ],
      [{ type: 'resource_link', uri: 'file:///b', name: 'b', size: 0 }, '[Resource link file:///b (b, 0 bytes)]'],
      [{ type: 'resource_link', uri: 'file:///c', name: 'c', mimeType: 'text/csv' }, '[Resource link file:///c (c, text/csv)]'],
      // The description is a server's string: escaped onto one line, so it cannot start a note.
      [{ type: 'resource_link', uri: 'https://x.example/d', name: 'd', description: 'multi\nline' }, '[Resource link https://x.example/d (d)]\nmulti%0Aline'],
    ]
    for (const [part, expected] of cases) {
      const { result, dir } = await both(t, part)
      assert.deepEqual(result, TXT(expected))
      assert.deepEqual(listFiles(dir), [])
    }
  })
})

describe('routing of media parts (default provider)', () => {
  test('rule 2: png/jpeg/gif/webp images and pdf are attached with their sniffed type', async (t) => {
    for (const [bytes, mt] of [
      [png, 'image/png'],
      [jpeg, 'image/jpeg'],
      [gif, 'image/gif'],
      [webp, 'image/webp'],
    ]) {
      const { result, dir } = await both(t, { type: 'image', data: b64(bytes), mimeType: mt })
      checkFilePart(assert, result, { mediaType: mt, bytes })
      assert.deepEqual(listFiles(dir), [], 'an attached image was also saved')
    }
    const r = await both(t, { type: 'resource', resource: { uri: 'file:///doc.pdf', mimeType: 'application/pdf', blob: b64(pdf) } })
    checkFilePart(assert, r.result, { mediaType: 'application/pdf', bytes: pdf, uri: 'file:///doc.pdf' })
    for (const name of ['fixture-minimal.pdf', 'fixture-smallest.pdf', 'fixture-printed.pdf']) {
      const b = corpus(name)
      const x = await both(t, { type: 'resource', resource: { uri: `file:///${name}`, mimeType: 'application/pdf', blob: b64(b) } })
      checkFilePart(assert, x.result, { mediaType: 'application/pdf', bytes: b })
    }
  })

  test('file part mediaType is the sniffed type, not the declared one', async (t) => {
    // a JPEG declared image/png is still an allowed format: attached as image/jpeg
    let r = await both(t, { type: 'image', data: b64(jpeg), mimeType: 'image/png' })
    checkFilePart(assert, r.result, { mediaType: 'image/jpeg', bytes: jpeg })
    // a PNG declared application/octet-stream, or with no mimeType at all
    r = await both(t, { type: 'resource', resource: { uri: 'file:///x', mimeType: 'application/octet-stream', blob: b64(png) } })
    checkFilePart(assert, r.result, { mediaType: 'image/png', bytes: png })
    r = await both(t, { type: 'resource', resource: { uri: 'file:///y', blob: b64(gif) } })
    checkFilePart(assert, r.result, { mediaType: 'image/gif', bytes: gif })
    // a webp declared as a pdf
    r = await both(t, { type: 'resource', resource: { uri: 'file:///z.pdf', mimeType: 'application/pdf', blob: b64(webp) } })
    checkFilePart(assert, r.result, { mediaType: 'image/webp', bytes: webp })
  })

  test('resource blob file part keeps its uri when it reports one', async (t) => {
    const { result } = await both(t, { type: 'resource', resource: { uri: 'file:///shot.png', mimeType: 'image/png', blob: b64(png) } })
    checkFilePart(assert, result, { mediaType: 'image/png', bytes: png, uri: 'file:///shot.png' })
    if (result.uri !== undefined) assert.equal(result.uri, 'file:///shot.png')
  })

  test('rule 3: textual declared types are decoded to text', async (t) => {
    const cases = [
      ['text/markdown', 'file:///README.md', '# Title\n\nSome *markdown* ✓\n'],
      ['text/x-patch', 'file:///fix.patch', '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n'],
      ['text/x-diff', 'file:///fix.diff', '--- a\n+++ b\n'],
      ['application/json', 'file:///d.json', '{"a":[1,2,{"b":"ç"}]}'],
      ['application/ld+json', 'file:///d.jsonld', '{"@id":"x"}'],
      ['application/xml', 'file:///d.xml', '<a>b</a>'],
      ['text/csv', 'file:///d.csv', 'a,b\n1,2\n'],
      ['application/yaml', 'file:///d.yaml', 'a: 1\n'],
      ['application/javascript', 'file:///d.js', 'console.log(1)\n'],
      ['text/plain', 'file:///d.txt', 'plain 日本語\n'],
    ]
    for (const [mt, uri, text] of cases) {
      const { result, dir } = await both(t, { type: 'resource', resource: { uri, mimeType: mt, blob: b64(Buffer.from(text)) } })
      assert.deepEqual(result, TXT(`[Resource ${uri} (${mt})]\n${text}`), mt)
      assert.deepEqual(listFiles(dir), [], `${mt} text was saved`)
    }
  })

  test('rule 3: svg image part without uri becomes text labelled Image', async (t) => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
    const { result } = await both(t, { type: 'image', data: b64(Buffer.from(svg)), mimeType: 'image/svg+xml' })
    assert.deepEqual(result, TXT(`[Image (image/svg+xml)]\n${svg}`))
  })

  test('rule 3: media part: labelled Media without uri, Resource <uri> with one', async (t) => {
    const md = '# media md'
    let r = await both(t, { type: 'media', data: b64(Buffer.from(md)), mimeType: 'text/markdown' })
    assert.deepEqual(r.result, TXT(`[Media (text/markdown)]\n${md}`))
    r = await both(t, { type: 'media', data: b64(Buffer.from(md)), mimeType: 'text/markdown', uri: 'file:///m.md' })
    assert.deepEqual(r.result, TXT(`[Resource file:///m.md (text/markdown)]\n${md}`))
    r = await both(t, { type: 'media', data: b64(png), mimeType: 'image/png' })
    checkFilePart(assert, r.result, { mediaType: 'image/png', bytes: png })
  })

  test('rule 3: unknown / octet-stream declared type but clearly text bytes', async (t) => {
    const text = 'line one\nline two\tTabbed\n'
    for (const resource of [
      { uri: 'file:///notes', mimeType: 'application/octet-stream', blob: b64(Buffer.from(text)) },
      { uri: 'file:///notes', blob: b64(Buffer.from(text)) },
    ]) {
      const { result, dir } = await both(t, { type: 'resource', resource })
      assert.equal(result?.type, 'text', JSON.stringify(result))
      assert.match(result.text, /^\[Resource file:\/\/\/notes \([a-z]+\/[a-z0-9.+-]+\)\]\n/)
      assert.equal(result.text.slice(result.text.indexOf('\n') + 1), text)
      assert.deepEqual(listFiles(dir), [])
    }
  })

  test('rule 3: UTF-16 text with a BOM is decoded', async (t) => {
    const s = 'Grüße, 世界 ✓\n'
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')])
    const be = Buffer.from(le)
    be.swap16()
    for (const bytes of [le, be]) {
      const { result } = await both(t, { type: 'resource', resource: { uri: 'file:///u16.txt', mimeType: 'text/plain', blob: b64(bytes) } })
      assert.equal(result?.type, 'text')
      const head = `[Resource file:///u16.txt (text/plain, ${bytes === le ? 'utf-16le' : 'utf-16be'})]\n`
      assert.equal(result.text, head + s)
    }
    // the corpus' real UTF-16 xml files
    for (const name of ['fixture-utf16-le-bom.xml', 'fixture-utf16-be-bom.xml', 'fixture-utf8-bom.xml']) {
      const bytes = corpus(name)
      const expected = name.includes('utf16-le')
        ? bytes.subarray(2).toString('utf16le')
        : name.includes('utf16-be')
          ? Buffer.from(bytes.subarray(2)).swap16().toString('utf16le')
          : bytes.subarray(3).toString('utf8')
      const { result } = await both(t, { type: 'resource', resource: { uri: `file:///${name}`, mimeType: 'application/xml', blob: b64(bytes) } })
      assert.equal(result?.type, 'text', name)
      const encoding = name.includes('utf16-le') ? ', utf-16le' : name.includes('utf16-be') ? ', utf-16be' : ''
      const head = `[Resource file:///${name} (application/xml${encoding})]\n`
      assert.ok(result.text.startsWith(head), result.text.slice(0, 100))
      assert.equal(result.text.slice(head.length).replace(/^\uFEFF/, ''), expected, name)
    }
  })

  test('rule 3: UTF-16 without a BOM is decoded (LE and BE, declared or not)', async (t) => {
    const s = 'Hello, wörld: 5 € ✓\r\n'.repeat(3)
    const le = Buffer.from(s, 'utf16le')
    const be = Buffer.from(le).swap16()
    for (const [bytes, encoding] of [
      [le, 'utf-16le'],
      [be, 'utf-16be'],
    ]) {
      for (const mimeType of [undefined, 'application/octet-stream', 'text/plain']) {
        const { result, dir } = await both(t, { type: 'resource', resource: { uri: 'file:///out.log', mimeType, blob: b64(bytes) } })
        assert.deepEqual(result, TXT(`[Resource file:///out.log (text/plain, ${encoding})]\n${s}`), `${encoding} ${mimeType}`)
        assert.deepEqual(listFiles(dir), [])
      }
    }
    // raw bytes too, as a media part
    const { result } = await both(t, { type: 'media', mimeType: 'text/plain', data: new Uint8Array(le) })
    assert.deepEqual(result, TXT(`[Media (text/plain, utf-16le)]\n${s}`))
  })

  test('rule 3: a declared charset is honoured', async (t) => {
    // Hand-made bytes: Node's TextEncoder writes UTF-8 only.
    const cases = [
      ['text/plain; charset=iso-8859-1', Buffer.from('Grüße aus Köln\n', 'latin1'), 'windows-1252', 'Grüße aus Köln\n'],
      ['text/plain; charset="windows-1252"', Buffer.from([0x93, 0x51, 0x94, 0x20, 0x80, 0x35, 0x0a]), 'windows-1252', '\u201cQ\u201d \u20ac5\n'],
      [
        'text/plain; charset=Shift_JIS',
        Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x83, 0x65, 0x83, 0x4c, 0x83, 0x58, 0x83, 0x67]),
        'shift_jis',
        '日本語テキスト',
      ],
      ['text/csv; charset=GBK', Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0x2c, 0x31]), 'gbk', '中文,1'],
      ['text/plain; charset=euc-kr', Buffer.from([0xc7, 0xd1, 0xb1, 0xb9, 0xbe, 0xee]), 'euc-kr', '한국어'],
      ['text/plain; charset=Big5', Buffer.from([0xa4, 0xa4, 0xa4, 0xe5]), 'big5', '中文'],
      ['text/plain; charset=koi8-r', Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]), 'koi8-r', 'Привет'],
      ['text/plain; charset=utf-16le', Buffer.from('日本語のテキスト', 'utf16le'), 'utf-16le', '日本語のテキスト'],
      // ASCII reads the same in every ASCII-compatible charset: no encoding named
      ['text/plain; charset=shift_jis', Buffer.from('plain words'), null, 'plain words'],
      // a charset the bytes are malformed in: detected as usual
      ['text/plain; charset=shift_jis', Buffer.from('café ✓'), null, 'café ✓'],
      ['text/plain; charset=utf-8', Buffer.from('naïve café', 'latin1'), 'windows-1252', 'naïve café'],
      ['text/plain; charset=klingon', Buffer.from('naïve café', 'latin1'), 'windows-1252', 'naïve café'],
    ]
    for (const [mimeType, bytes, encoding, text] of cases) {
      const { result, dir } = await both(t, { type: 'resource', resource: { uri: 'file:///a.txt', mimeType, blob: b64(bytes) } })
      const mt = mimeType.split(';')[0]
      // A named encoding replaces the declared charset; text read as UTF-8 or ASCII keeps it.
      const head = encoding ? `[Resource file:///a.txt (${mt}, ${encoding})]` : `[Resource file:///a.txt (${mimeType})]`
      assert.deepEqual(result, TXT(`${head}\n${text}`), mimeType)
      assert.deepEqual(listFiles(dir), [])
      assert.equal(binding.classify(bytes, mimeType).textEncoding, encoding ?? (bytes.every((b) => b < 0x80) ? 'ascii' : 'utf-8'))
    }
  })

  test('rule 3: a windows-1252 file declared text/markdown is decoded; undeclared and short it is not', async (t) => {
    const bytes = Buffer.from('# Café menu\n\n- crème brûlée \x80 5\n', 'latin1')
    const { result } = await both(t, { type: 'resource', resource: { uri: 'file:///menu.md', mimeType: 'text/markdown', blob: b64(bytes) } })
    assert.deepEqual(result, TXT('[Resource file:///menu.md (text/markdown, windows-1252)]\n# Café menu\n\n- crème brûlée € 5\n'))
    // Undeclared, windows-1252 is guessed from 64 bytes on (legacy-text.test.mjs): these 35 are too few
    const undeclared = await both(t, { type: 'resource', resource: { uri: 'file:///menu.md', blob: b64(bytes) } })
    checkSavedNote(assert, undeclared.result, {
      mediaType: 'application/octet-stream',
      reason: 'application/octet-stream is not accepted',
      bytes,
      dir: undeclared.dir,
    })
  })

  test('rule 3: a large Latin-1 text (past the 64 KiB head) is decoded from base64 and from bytes', async (t) => {
    const line = 'Ça coûte 5 \x80, naïve.\n'
    const bytes = Buffer.from(line.repeat(5000), 'latin1')
    assert.ok(bytes.length > 100_000)
    const expected = TXT(`[Resource file:///big.txt (text/plain, windows-1252)]\n${'Ça coûte 5 €, naïve.\n'.repeat(5000)}`)
    for (const blob of [b64(bytes), new Uint8Array(bytes)]) {
      // Over the default text cap (tested in text-cap.test.mjs): turned off here to see it all.
      const { result } = await both(
        t,
        { type: 'resource', resource: { uri: 'file:///big.txt', mimeType: 'text/plain; charset=latin1', blob } },
        { maxTextTokens: Infinity },
      )
      assert.deepEqual(result, expected)
    }
  })

  test('rule 4: random binary declared text/plain; charset=shift_jis is saved, not sent as garbage text', async (t) => {
    const noisy = randomBytes(4096, 3)
    // no NUL or control byte, all beyond ASCII: malformed Shift_JIS, not Western text
    const high = randomBytes(300, 4).map((b) => b | 0x80)
    for (const bytes of [noisy, high]) {
      const { result, dir } = await both(t, {
        type: 'resource',
        resource: { uri: 'file:///x.txt', mimeType: 'text/plain; charset=shift_jis', blob: b64(bytes) },
      })
      checkSavedNote(assert, result, {
        head: 'Binary resource file:///x.txt',
        mediaType: 'text/plain',
        reason: 'declared text/plain but the bytes are not text (neither UTF-8 nor UTF-16)',
        bytes,
        dir,
      })
    }
  })

  test('rule 4: declared textual type whose bytes do not decode is saved, not sent as text', async (t) => {
    const bytes = Buffer.concat([Buffer.from('# almost markdown'), Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80, 0x00])])
    const { result, dir } = await both(t, { type: 'resource', resource: { uri: 'file:///bad.md', mimeType: 'text/markdown', blob: b64(bytes) } })
    checkSavedNote(assert, result, {
      head: 'Binary resource file:///bad.md',
      mediaType: 'text/markdown',
      reason: 'declared text/markdown but the bytes are not text (neither UTF-8 nor UTF-16)',
      bytes,
      dir,
    })
  })

  test('rule 4: parquet (the source example) is saved with the exact note', async (t) => {
    const four = Buffer.from('PAR1')
    const { result, dir } = await both(t, {
      type: 'resource',
      resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(four) },
    })
    const note = checkSavedNote(assert, result, { head: 'Binary resource file:///data.parquet', mediaType: 'application/vnd.apache.parquet', bytes: four, dir })
    assert.equal(
      result.text,
      `[Binary resource file:///data.parquet (application/vnd.apache.parquet, 4 bytes): application/vnd.apache.parquet is not accepted; saved to ${note.path}]`,
    )
    const r2 = await both(t, { type: 'resource', resource: { uri: 'file:///real.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } })
    checkSavedNote(assert, r2.result, {
      head: 'Binary resource file:///real.parquet',
      mediaType: 'application/vnd.apache.parquet',
      reason: 'application/vnd.apache.parquet is not accepted',
      bytes: parquet,
      dir: r2.dir,
    })
  })

  test('rule 4: bmp, audio, truncated and corrupt png are saved, never attached', async (t) => {
    let r = await both(t, { type: 'image', data: b64(bmp), mimeType: 'image/bmp' })
    checkSavedNote(assert, r.result, { head: 'Binary image', mediaType: 'image/bmp', reason: 'image/bmp is not accepted', bytes: bmp, dir: r.dir, ext: 'bmp' })
    const wav = makeWav(1000)
    r = await both(t, { type: 'audio', data: b64(wav), mimeType: 'audio/wav' })
    const note = checkSavedNote(assert, r.result, { head: 'Binary audio', mediaType: 'audio/wav', bytes: wav, dir: r.dir, ext: 'wav' })
    assert.equal(r.result.text, `[Binary audio (audio/wav, ${wav.length} bytes): audio/wav is not accepted; saved to ${note.path}]`)
    const mp3 = corpus('fixture.mp3')
    r = await both(t, { type: 'audio', data: b64(mp3), mimeType: 'audio/mpeg' })
    checkSavedNote(assert, r.result, { head: 'Binary audio', mediaType: 'audio/mpeg', reason: 'audio/mpeg is not accepted', bytes: mp3, dir: r.dir })
    const truncated = png.subarray(0, 2000)
    r = await both(t, { type: 'image', data: b64(truncated), mimeType: 'image/png' })
    checkSavedNote(assert, r.result, {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: 'truncated PNG: IDAT chunk runs past the end of the data',
      bytes: truncated,
      dir: r.dir,
    })
    // Its pHYs chunk has a bad CRC (ancillary: alone, it would be dropped),
    // and the next chunk header is garbage.
    const corrupt = corpus('fixture-corrupt.png')
    r = await both(t, { type: 'image', data: b64(corrupt), mimeType: 'image/png' })
    checkSavedNote(assert, r.result, {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: 'corrupt PNG: invalid chunk type at byte 83',
      bytes: corrupt,
      dir: r.dir,
    })
    // a media part without uri
    r = await both(t, { type: 'media', data: b64(bmp), mimeType: 'image/bmp' })
    checkSavedNote(assert, r.result, { head: 'Binary media', mediaType: 'image/bmp', reason: 'image/bmp is not accepted', bytes: bmp, dir: r.dir })
    // bmp declared as png: both types are named
    r = await both(t, { type: 'image', data: b64(bmp), mimeType: 'image/png' })
    checkSavedNote(assert, r.result, {
      head: 'Binary image',
      mediaType: 'image/bmp',
      reason: 'declared image/png but the bytes are image/bmp, which is not accepted',
      bytes: bmp,
      dir: r.dir,
    })
  })

  test('rule 4: a PNG whose last bytes are cut (IEND missing) is not attached', async (t) => {
    const cut = png.subarray(0, png.length - 12)
    const { result } = await both(t, { type: 'image', data: b64(cut), mimeType: 'image/png' })
    assert.notEqual(result?.type, 'file', 'PNG without IEND was attached')
  })

  test('rule 4: a JPEG cut in the middle is not attached', async (t) => {
    const cut = jpeg.subarray(0, Math.floor(jpeg.length / 2))
    const { result } = await both(t, { type: 'image', data: b64(cut), mimeType: 'image/jpeg' })
    assert.notEqual(result?.type, 'file', 'JPEG without EOI was attached')
  })

  test('text bytes declared image/png are not attached', async (t) => {
    const bytes = Buffer.from('not an image at all')
    const { result, dir } = await both(t, { type: 'image', data: b64(bytes), mimeType: 'image/png' })
    checkSavedNote(assert, result, { head: 'Binary image', mediaType: 'text/plain', reason: 'declared image/png but the bytes are text', bytes, dir })
  })

  test('binary bytes declared image/png that are no known format are saved as unknown bytes, with the mismatch', async (t) => {
    const bytes = randomBytes(500, 11)
    const { result, dir } = await both(t, { type: 'image', data: b64(bytes), mimeType: 'image/png' })
    // Neither labelled nor saved as a PNG: the reason names the declared type.
    checkSavedNote(assert, result, {
      head: 'Binary image',
      mediaType: 'application/octet-stream',
      reason: 'declared image/png but the bytes do not match that format',
      bytes,
      dir,
      ext: 'bin',
    })
  })

  test('random binary declared octet-stream is saved', async (t) => {
    const bytes = randomBytes(3000, 7)
    const { result, dir } = await both(t, { type: 'resource', resource: { uri: 'file:///r.bin', mimeType: 'application/octet-stream', blob: b64(bytes) } })
    checkSavedNote(assert, result, { head: 'Binary resource file:///r.bin', reason: 'application/octet-stream is not accepted', bytes, dir })
  })
})

describe('provider limits', () => {
  test('image sides: 8000 px is attached, 8001 px is not (both axes, png)', async (t) => {
    const ok = makePng(8000, 1)
    let r = await both(t, { type: 'image', data: b64(ok), mimeType: 'image/png' })
    checkFilePart(assert, r.result, { mediaType: 'image/png', bytes: ok })
    const ok2 = makePng(1, 8000)
    r = await both(t, { type: 'image', data: b64(ok2), mimeType: 'image/png' })
    checkFilePart(assert, r.result, { mediaType: 'image/png', bytes: ok2 })
    for (const [w, h] of [
      [8001, 1],
      [1, 8001],
      [9000, 10],
    ]) {
      const big = makePng(w, h)
      r = await both(t, { type: 'image', data: b64(big), mimeType: 'image/png' })
      checkSavedNote(assert, r.result, { head: 'Binary image', mediaType: 'image/png', reason: `${w}x${h} px, over the 8000 px limit`, bytes: big, dir: r.dir })
    }
  })

  test('image sides are checked for jpeg, gif and webp too', async (t) => {
    // patch the declared dimensions in the headers to 9001 px wide
    const j = Buffer.from(jpeg)
    let p = 2
    for (;;) {
      const m = j[p + 1]
      if (m >= 0xc0 && m <= 0xc3) break
      p += 2 + j.readUInt16BE(p + 2)
    }
    j.writeUInt16BE(9001, p + 7)
    const g = Buffer.from(gif)
    g.writeUInt16LE(9001, 6)
    const w = Buffer.from(webp)
    assert.equal(w.toString('latin1', 12, 16), 'VP8 ')
    w.writeUInt16LE(9001, 26)
    for (const [bytes, mt] of [
      [j, 'image/jpeg'],
      [g, 'image/gif'],
      [w, 'image/webp'],
    ]) {
      const { result } = await both(t, { type: 'image', data: b64(bytes), mimeType: mt })
      assert.notEqual(result?.type, 'file', `${mt} of 9001 px was attached`)
      assert.equal(result?.type, 'text')
    }
  })

  test('image size: 5,242,880 characters of base64 (3,932,160 bytes) is attached, one byte more is not', async (t) => {
    // __test__/limits.test.mjs covers every input form; this is the plain one.
    const atLimit = makePng(64, 64, { padTo: MAX_IMAGE_DECODED })
    assert.equal(b64(atLimit).length, MAX_IMAGE_BASE64)
    let r = await both(t, { type: 'image', data: b64(atLimit), mimeType: 'image/png' })
    checkFilePart(assert, r.result, { mediaType: 'image/png', bytes: atLimit })
    const over = makePng(64, 64, { padTo: MAX_IMAGE_DECODED + 1 })
    r = await both(t, { type: 'image', data: b64(over), mimeType: 'image/png' })
    checkSavedNote(assert, r.result, {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: '5.3 MB as base64, over the 5.2 MB limit',
      bytes: over,
      dir: r.dir,
    })
    // 5 MiB decoded, the limit before it was counted on base64: 6,990,508 characters
    const old = makePng(64, 64, { padTo: 5 * 1024 * 1024 })
    r = await both(t, { type: 'image', data: b64(old), mimeType: 'image/png' })
    checkSavedNote(assert, r.result, {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: '7.0 MB as base64, over the 5.2 MB limit',
      bytes: old,
      dir: r.dir,
    })
    // a 6 MB stored (uncompressed) png within 8000 px
    const stored = makePng(2000, 3000, { level: 0 })
    r = await both(t, { type: 'image', data: b64(stored), mimeType: 'image/png' })
    checkSavedNote(assert, r.result, {
      head: 'Binary image',
      mediaType: 'image/png',
      reason: /^\d+\.\d MB as base64, over the 5\.2 MB limit$/,
      bytes: stored,
      dir: r.dir,
    })
  })

  test('absurd header dimensions (2^31-1, 0) do not crash and are not attached', async (t) => {
    for (const [w, h] of [
      [0x7fffffff, 0x7fffffff],
      [0, 0],
      [0, 10],
      [0xffffffff, 1],
    ]) {
      const b = makePng(1, 1)
      b.writeUInt32BE(w, 16)
      b.writeUInt32BE(h, 20)
      b.writeUInt32BE(crc32(b.subarray(12, 29)), 29)
      const { result } = await both(t, { type: 'image', data: b64(b), mimeType: 'image/png' })
      assert.equal(result?.type, 'text', `${w}x${h}`)
    }
  })

  test('a PDF over 32 MB (Anthropic request max) is not attached', async (t) => {
    const head = Buffer.from('%PDF-1.4\n%')
    const big = Buffer.concat([head, Buffer.alloc(33 * 1024 * 1024, 0x61), Buffer.from('\n'), corpus('fixture-minimal.pdf').subarray(9)])
    const { result } = await both(t, { type: 'resource', resource: { uri: 'file:///big.pdf', mimeType: 'application/pdf', blob: big } })
    assert.equal(result?.type, 'text')
    assert.notEqual(result.type, 'file')
  })
})

describe('base64 forms', () => {
  // 1000 and 1001 bytes: base64 needs "==" and "=" padding respectively
  const p2 = makePng(20, 20, { fill: 'random', padTo: 1000 })
  const p1 = makePng(20, 20, { fill: 'random', padTo: 1001 })
  const std2 = b64(p2)
  const std1 = b64(p1)

  test('the payloads exercise padding and both alphabet-specific symbols', () => {
    assert.ok(std2.endsWith('==') && std1.endsWith('=') && !std1.endsWith('=='))
    const all = std2 + std1
    assert.ok(all.includes('+') && all.includes('/'), 'payload has no + or /: url-safe tests would prove nothing')
  })

  const accepted = (bytes, std) => {
    const url = std.replace(/\+/g, '-').replace(/\//g, '_')
    const breakEvery = (s, n, nl) => s.match(new RegExp(`.{1,${n}}`, 'g')).join(nl)
    return [
      ['standard padded', std],
      ['standard unpadded', std.replace(/=+$/, '')],
      ['url-safe unpadded', url.replace(/=+$/, '')],
      ['url-safe padded', url],
      ['node base64url', b64url(bytes)],
      ['CRLF every 76', breakEvery(std, 76, '\r\n')],
      ['LF every 64', breakEvery(std, 64, '\n')],
      ['CR only', breakEvery(std, 50, '\r')],
      ['trailing newline', std + '\n'],
      ['trailing CRLF', std + '\r\n'],
      ['leading newline', '\n' + std],
      ['break inside padding', std.endsWith('==') ? std.slice(0, -1) + '\r\n=' : std.slice(0, -1) + '\n='],
      ['break after first char', std[0] + '\r\n' + std.slice(1)],
      ['url-safe with CRLF', breakEvery(url, 76, '\r\n')],
    ]
  }

  test('accepted forms attach and output canonical base64 of the same bytes', async (t) => {
    for (const [bytes, std] of [
      [p2, std2],
      [p1, std1],
    ]) {
      for (const [name, data] of accepted(bytes, std)) {
        const { result, dir } = await both(t, { type: 'image', data, mimeType: 'image/png' })
        assert.equal(result?.type, 'file', `${name}: ${JSON.stringify(result)?.slice(0, 200)}`)
        assert.equal(result.data, std, `${name}: output is not the canonical base64`)
        checkFilePart(assert, result, { mediaType: 'image/png', bytes })
        assert.deepEqual(listFiles(dir), [])
      }
    }
  })

  test('accepted forms in a resource blob decode to the same text', async (t) => {
    const text = 'ä?>~ text with bytes that encode to + and / : \u00ff\u00fe\u00fb\u00ef ?>?'
    const std = b64(Buffer.from(text))
    assert.ok(/[+/]/.test(std))
    for (const [name, blob] of accepted(Buffer.from(text), std)) {
      const { result } = await both(t, { type: 'resource', resource: { uri: 'file:///t.txt', mimeType: 'text/plain', blob } })
      assert.deepEqual(result, TXT(`[Resource file:///t.txt (text/plain)]\n${text}`), name)
    }
  })

  const rejected = () => {
    const url = std2.replace(/\+/g, '-').replace(/\//g, '_')
    const i = std2.indexOf('+') >= 0 ? std2.indexOf('+') : std2.indexOf('/')
    const firstA = std2.indexOf('A')
    const oneModFour = std2.replace(/=+$/, '').slice(0, -1)
    // url-safe up to the first url-specific symbol, standard after it
    const cut = url.search(/[-_]/) + 1
    const mixed = url.slice(0, cut) + std2.slice(cut)
    assert.ok(/[-_]/.test(mixed) && /[+/]/.test(mixed), 'mixed case does not mix')
    assert.equal(oneModFour.length % 4, 1)
    return [
      ['mixed alphabets', mixed],
      ['mixed alphabets (one symbol)', std2.slice(0, i) + (std2[i] === '+' ? '-' : '_') + std2.slice(i + 1) + ''],
      ['inner space', std2.slice(0, 40) + ' ' + std2.slice(40)],
      ['leading space', ' ' + std2],
      ['trailing space', std2 + ' '],
      ['tab', std2.slice(0, 40) + '\t' + std2.slice(40)],
      ['other char *', std2.slice(0, 40) + '*' + std2.slice(41)],
      ['other char .', std2.slice(0, 40) + '.' + std2.slice(41)],
      ['NUL char', std2.slice(0, 40) + '\u0000' + std2.slice(41)],
      ['length 1 mod 4', oneModFour],
      ['length 1 mod 4 (5 chars)', 'QUJDR'],
      ['data: URL prefix', `data:image/png;base64,${std2}`],
      ['padding in the middle', std2.slice(0, 40) + '=' + std2.slice(41)],
      ['too much padding', std2 + '='],
      ['padding where none is needed', b64(png) + '=='],
      ['wrong padding count', std1 + '='],
      ['single pad on a 2-pad length', std2.slice(0, -1)],
      ['non-ASCII letter', std2.slice(0, 40) + 'é' + std2.slice(41)],
      // chars whose low byte is a base64 symbol: a latin1 read would truncate them into valid input
      ['U+0141 (low byte A)', std2.slice(0, firstA) + '\u0141' + std2.slice(firstA + 1)],
      ['U+012B (low byte +)', std2.slice(0, i) + '\u012b' + std2.slice(i + 1)],
      ['emoji', std2.slice(0, 40) + '🚀' + std2.slice(42)],
    ]
  }

  test('rejected forms give the invalid-base64 note and save nothing', async (t) => {
    for (const [name, data] of rejected()) {
      const { result, dir, asyncDir } = await both(t, { type: 'image', data, mimeType: 'image/png' })
      assert.equal(result?.type, 'text', `${name}: ${JSON.stringify(result)?.slice(0, 200)}`)
      assert.match(result.text, /^\[Image \(image\/png\): invalid base64 data \(.+\); nothing was saved\]$/s, name)
      assert.deepEqual(listFiles(dir), [], `${name}: something was saved`)
      assert.deepEqual(listFiles(asyncDir), [], `${name}: something was saved (async)`)
    }
  })

  test('invalid base64 in a resource blob: note names the resource and declared type', async (t) => {
    const { result, dir } = await both(t, { type: 'resource', resource: { uri: 'file:///x.png', mimeType: 'image/png', blob: 'iVBORw0K GgoAAAANSUhEUg' } })
    assert.match(result.text, /^\[Resource file:\/\/\/x\.png \(image\/png\): invalid base64 data \(.+\); nothing was saved\]$/s)
    assert.deepEqual(listFiles(dir), [])
    const r2 = await both(t, { type: 'audio', data: '!!!!', mimeType: 'audio/wav' })
    assert.match(r2.result.text, /^\[Audio \(audio\/wav\): invalid base64 data \(.+\); nothing was saved\]$/s)
  })

  test('empty data: note, nothing saved', async (t) => {
    const cases = [
      [{ type: 'image', data: '', mimeType: 'image/png' }, '[Image (image/png): empty data; nothing was saved]'],
      [{ type: 'image', data: new Uint8Array(0), mimeType: 'image/png' }, '[Image (image/png): empty data; nothing was saved]'],
      [{ type: 'audio', data: '', mimeType: 'audio/wav' }, '[Audio (audio/wav): empty data; nothing was saved]'],
      [
        { type: 'resource', resource: { uri: 'file:///e.png', mimeType: 'image/png', blob: '' } },
        '[Resource file:///e.png (image/png): empty data; nothing was saved]',
      ],
      [
        { type: 'resource', resource: { uri: 'file:///e.md', mimeType: 'text/markdown', blob: Buffer.alloc(0) } },
        '[Resource file:///e.md (text/markdown): empty data; nothing was saved]',
      ],
      [{ type: 'media', data: '', mimeType: 'application/pdf' }, '[Media (application/pdf): empty data; nothing was saved]'],
    ]
    for (const [part, expected] of cases) {
      const { result, dir } = await both(t, part)
      assert.deepEqual(result, TXT(expected))
      assert.deepEqual(listFiles(dir), [])
    }
  })

  test('only line breaks is empty or invalid, never a file or a save', async (t) => {
    const { result, dir } = await both(t, { type: 'image', data: '\r\n\r\n', mimeType: 'image/png' })
    assert.equal(result?.type, 'text')
    assert.match(result.text, /^\[Image \(image\/png\): (empty data|invalid base64 data \(.+\)); nothing was saved\]$/s)
    assert.deepEqual(listFiles(dir), [])
  })
})

describe('byte inputs', () => {
  test('Uint8Array, Buffer, pooled Buffer and offset views give the same result as base64', async (t) => {
    for (const [bytes, mt] of [
      [png, 'image/png'],
      [Buffer.from('# md ✓'), 'text/markdown'],
      [parquet, 'application/vnd.apache.parquet'],
      [makePng(3, 3), 'image/png'],
    ]) {
      const ref = toContent({ type: 'image', data: b64(bytes), mimeType: mt }, { fitImages: false, outputDir: tempDir(t) })
      const ab = new ArrayBuffer(bytes.length + 7)
      const view = new Uint8Array(ab, 5, bytes.length)
      view.set(bytes)
      const inputs = {
        uint8array: new Uint8Array(bytes),
        buffer: Buffer.from(bytes),
        pooled: Buffer.from(bytes), // < 4 KiB buffers share the pool, byteOffset != 0
        offsetView: view,
        subarray: Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]).subarray(2, 2 + bytes.length),
      }
      for (const [kind, data] of Object.entries(inputs)) {
        const { result } = await both(t, { type: 'image', data, mimeType: mt })
        assertSameResult(assert, ref, result)
        if (ref?.type === 'file') checkFilePart(assert, result, { mediaType: ref.mediaType, bytes })
        if (ref?.type === 'text' && parseSavedNote(ref.text)) checkSavedNote(assert, result, { bytes })
        assert.equal(typeof result === 'object', true, kind)
      }
    }
  })

  test('resource blob as bytes', async (t) => {
    const { result } = await both(t, { type: 'resource', resource: { uri: 'file:///b.png', mimeType: 'image/png', blob: new Uint8Array(png) } })
    checkFilePart(assert, result, { mediaType: 'image/png', bytes: png })
  })

  test('a Buffer input is not mutated or detached, even when sent on', async (t) => {
    const data = Buffer.from(png)
    const copy = Buffer.from(png)
    const r1 = toContent({ type: 'image', data, mimeType: 'image/png' }, { fitImages: false, outputDir: tempDir(t) })
    const r2 = await toContentAsync({ type: 'image', data, mimeType: 'image/png' }, { fitImages: false, outputDir: tempDir(t) })
    assert.ok(data.equals(copy))
    assert.equal(data.byteLength, png.length, 'buffer was detached')
    data.fill(0) // mutating the input afterwards must not change the results
    checkFilePart(assert, r1, { mediaType: 'image/png', bytes: png })
    checkFilePart(assert, r2, { mediaType: 'image/png', bytes: png })
  })

  test('frozen parts are accepted (nothing writes to the input)', async (t) => {
    const freeze = (o) => {
      if (o && typeof o === 'object' && !(o instanceof Uint8Array)) {
        Object.values(o).forEach(freeze)
        Object.freeze(o)
      }
      return o
    }
    const parts = [
      { type: 'image', data: b64(png), mimeType: 'image/png', annotations: { audience: ['assistant'] } },
      { type: 'resource', resource: { uri: 'file:///a.parquet', mimeType: 'application/vnd.apache.parquet', blob: new Uint8Array(parquet) } },
      { type: 'resource_link', uri: 'file:///x', name: 'x', size: 3 },
    ].map(freeze)
    for (const p of parts) await both(t, p)
  })

  test('toContentAsync returns a Promise', async (t) => {
    const p = toContentAsync({ type: 'text', text: 'x' }, { fitImages: false, outputDir: tempDir(t) })
    assert.ok(p instanceof Promise)
    assert.deepEqual(await p, TXT('x'))
  })

  test('async: the input buffer may be changed right after the call', async (t) => {
    const data = Buffer.from(png)
    const pending = toContentAsync({ type: 'image', data, mimeType: 'image/png' }, { fitImages: false, outputDir: tempDir(t) })
    data.fill(0x41)
    // The bytes as they were at the call are what is checked and sent.
    checkFilePart(assert, await pending, { mediaType: 'image/png', bytes: png })
  })
})

describe('store, outputDir and save failures', () => {
  test('saves into a ToolOutputStore given as store', async (t) => {
    const dir = tempDir(t)
    const store = new ToolOutputStore(dir)
    const r = toContent({ type: 'image', data: b64(bmp), mimeType: 'image/bmp' }, { fitImages: false, store })
    checkSavedNote(assert, r, { head: 'Binary image', mediaType: 'image/bmp', bytes: bmp, dir: store.dir })
    const r2 = await toContentAsync({ type: 'image', data: b64(bmp), mimeType: 'image/bmp' }, { fitImages: false, store })
    const n2 = checkSavedNote(assert, r2, { head: 'Binary image', mediaType: 'image/bmp', bytes: bmp, dir: store.dir })
    assert.notEqual(parseSavedNote(r.text).path, n2.path, 'two saves wrote the same file')
  })

  test('outputDir that does not exist yet is created', async (t) => {
    const dir = path.join(tempDir(t), 'a', 'b')
    const r = toContent({ type: 'image', data: b64(bmp), mimeType: 'image/bmp' }, { fitImages: false, outputDir: dir })
    checkSavedNote(assert, r, { bytes: bmp, dir })
  })

  test(
    'default store: an absolute path in a per-user temp folder',
    { skip: wasmCannot('name the folder by uid or make it private (WASI has no owners or chmod)') },
    async (t) => {
      // In a child whose temp folder is ours: the real per-user store is never written.
      const tmp = tempDir(t)
      const child = spawnSync(process.execPath, [path.join(testDir, 'fixtures', 'default-store-child.cjs'), bindingPath], {
        env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
        encoding: 'utf8',
      })
      assert.equal(child.status, 0, child.stderr)
      const { note: text, bytes } = JSON.parse(child.stdout)
      const user = process.platform === 'win32' ? process.env.USERNAME : String(process.getuid())
      const dir = path.join(fs.realpathSync(tmp), `mcp-content-${user}`, 'tool-output')
      const note = checkSavedNote(assert, TXT(text), {
        head: 'Binary resource file:///d.parquet',
        mediaType: 'application/vnd.apache.parquet',
        bytes: Buffer.from(bytes, 'base64'),
        dir,
      })
      if (process.platform !== 'win32') {
        assert.equal(fs.statSync(note.path).mode & 0o777, 0o600)
        assert.equal(fs.statSync(path.dirname(note.path)).mode & 0o777, 0o700)
        assert.equal(fs.statSync(path.dirname(note.path)).uid, process.getuid())
      }
    },
  )

  test('save failure: outputDir under a regular file gives a note, no throw', async (t) => {
    const file = path.join(tempDir(t), 'plain-file')
    fs.writeFileSync(file, 'x')
    const outputDir = path.join(file, 'sub')
    const part = { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } }
    const re = new RegExp(
      `^\\[Binary resource file:///data\\.parquet \\(application/vnd\\.apache\\.parquet, ${parquet.length} bytes\\): application/vnd\\.apache\\.parquet is not accepted; could not be saved: .+\\]$`,
      's',
    )
    const a = toContent(part, { fitImages: false, outputDir })
    assert.match(a.text, re)
    const b = await toContentAsync(part, { fitImages: false, outputDir })
    assert.match(b.text, re)
    const c = toContent({ type: 'audio', data: b64(makeWav()), mimeType: 'audio/wav' }, { fitImages: false, outputDir })
    assert.match(c.text, /^\[Binary audio \(audio\/wav, \d+ bytes\): audio\/wav is not accepted; could not be saved: .+\]$/s)
  })

  test('parts that are attached or sent as text do not need a writable store', async (t) => {
    const file = path.join(tempDir(t), 'plain-file')
    fs.writeFileSync(file, 'x')
    const outputDir = path.join(file, 'sub')
    checkFilePart(assert, toContent({ type: 'image', data: b64(png), mimeType: 'image/png' }, { fitImages: false, outputDir }), {
      mediaType: 'image/png',
      bytes: png,
    })
    assert.deepEqual(
      toContent({ type: 'resource', resource: { uri: 'u', mimeType: 'text/plain', blob: b64(Buffer.from('hi')) } }, { fitImages: false, outputDir }),
      TXT('[Resource u (text/plain)]\nhi'),
    )
  })

  test("provider 'default' explicitly gives the same results", async (t) => {
    for (const part of [
      { type: 'image', data: b64(png), mimeType: 'image/png' },
      { type: 'image', data: b64(Buffer.from('<svg/>')), mimeType: 'image/svg+xml' },
    ]) {
      assert.deepEqual(toContent(part, { provider: 'default' }), toContent(part))
    }
  })
})

describe('errors and garbage', () => {
  const isCodedError = (e) => e instanceof Error && typeof e.code === 'string' && e.code.length > 0

  test('non-object parts throw an Error with a string code', async () => {
    for (const bad of [null, undefined, 42, 'text', true]) {
      assert.throws(() => toContent(bad), isCodedError, `toContent(${String(bad)})`)
      await assert.rejects(async () => toContentAsync(bad), isCodedError, `toContentAsync(${String(bad)})`)
    }
  })

  test('structurally broken parts either throw a coded Error or give a text note', async (t) => {
    const bad = [
      {},
      { type: 'bogus' },
      { type: 'image' },
      { type: 'image', mimeType: 'image/png' },
      { type: 'image', data: 42, mimeType: 'image/png' },
      { type: 'image', data: {}, mimeType: 'image/png' },
      { type: 'image', data: b64(png) },
      { type: 'resource' },
      { type: 'resource', resource: null },
      { type: 'resource', resource: { uri: 'x' } },
      { type: 'resource_link' },
      { type: 'text' },
      { type: 'text', text: 5 },
    ]
    for (const part of bad) {
      const before = snapshot(part)
      let r
      try {
        r = toContent(part, { fitImages: false, outputDir: tempDir(t) })
      } catch (e) {
        assert.ok(isCodedError(e), `${JSON.stringify(part)} threw without a code: ${e}`)
        continue
      }
      const desc = `${JSON.stringify(part).slice(0, 80)} -> ${JSON.stringify(r)?.slice(0, 120)}`
      if (r?.type === 'file') {
        // only a real attachable image may come out, e.g. a PNG with no mimeType
        checkFilePart(assert, r, { mediaType: 'image/png', bytes: png })
      } else {
        assert.ok(r === null || (r.type === 'text' && typeof r.text === 'string'), desc)
      }
      assert.deepEqual(snapshot(part), before)
    }
  })

  test('bad options throw INVALID_ARGUMENT', () => {
    for (const options of [{ fitImages: false, outputDir: 42 }, { provider: 'no-such-provider' }, { store: {} }, 'x', 7, () => {}, true]) {
      assert.throws(
        () => toContent({ type: 'image', data: b64(bmp), mimeType: 'image/bmp' }, options),
        (e) => isCodedError(e) && e.code === 'INVALID_ARGUMENT',
        String(options),
      )
    }
  })

  test('random bytes with weird mime types never throw and never attach non-allowed bytes', async (t) => {
    const mimes = [
      '',
      ' ',
      'image/',
      '/',
      'image/png; charset=binary',
      'IMAGE/PNG',
      'x'.repeat(10000),
      'a\u0000b',
      'текст/plain',
      'text/plain\r\nX: y',
      '../../etc/passwd',
      'image/png/../../x',
    ]
    for (let i = 0; i < 60; i++) {
      const bytes = randomBytes(1 + ((i * 977) % 5000), i + 11)
      const mimeType = mimes[i % mimes.length]
      for (const type of ['image', 'audio', 'media']) {
        const part = { type, data: i % 2 ? bytes : b64(bytes), mimeType }
        const r = toContent(part, { fitImages: false, outputDir: tempDir(t) })
        assert.equal(r?.type, 'text', `random bytes as ${type} ${JSON.stringify(mimeType).slice(0, 40)} -> ${r?.type}`)
      }
    }
  })

  test('a weird mime type never leads to a path outside the store', async (t) => {
    const dir = tempDir(t)
    for (const mimeType of ['application/../../x', 'image/x/../../../y', 'a/b\\..\\..\\c', 'application/x\u0000y']) {
      const r = toContent({ type: 'audio', data: b64(randomBytes(100, 3)), mimeType }, { fitImages: false, outputDir: dir })
      const note = parseSavedNote(r.text)
      assert.ok(note, r.text)
      assert.equal(fs.realpathSync(path.dirname(note.path)), fs.realpathSync(dir), note.path)
    }
  })

  test('huge and odd resource_link sizes', async (t) => {
    // Only whole numbers a double holds exactly are byte counts; others are left out.
    for (const size of [2 ** 53, 1e300, -1, 0.5, NaN, Infinity, -Infinity, '12', null]) {
      assert.deepEqual(toContent({ type: 'resource_link', uri: 'file:///x', name: 'x', size }), TXT('[Resource link file:///x (x)]'), String(size))
    }
    const r = toContent({ type: 'resource_link', uri: 'file:///x', name: 'x', size: 9007199254740991 })
    assert.equal(r.text, '[Resource link file:///x (x, 9007199254740991 bytes)]')
  })

  test('extra fields (_meta, title, icons) are tolerated', async (t) => {
    const { result } = await both(t, {
      type: 'image',
      data: b64(png),
      mimeType: 'image/png',
      _meta: { a: 1 },
      annotations: { priority: 0.3, lastModified: '2025-01-01T00:00:00Z' },
    })
    checkFilePart(assert, result, { mediaType: 'image/png', bytes: png })
    const r2 = await both(t, { type: 'resource_link', uri: 'file:///a', name: 'a', title: 'A', icons: [{ src: 'x' }], _meta: {} })
    assert.deepEqual(r2.result, TXT('[Resource link file:///a (a)]'))
  })
})

describe('concurrency and threads', () => {
  test('many concurrent toContentAsync calls: each result matches its own input', async (t) => {
    const dir = tempDir(t)
    const inputs = []
    for (let i = 0; i < 64; i++) {
      const kind = i % 4
      if (kind === 0) inputs.push([{ type: 'image', data: b64(makePng(1 + i, 2)), mimeType: 'image/png' }, 'file'])
      if (kind === 1) inputs.push([{ type: 'audio', data: b64(makeWav(10 + i)), mimeType: 'audio/wav' }, 'saved'])
      if (kind === 2)
        inputs.push([{ type: 'resource', resource: { uri: `file:///${i}.md`, mimeType: 'text/markdown', blob: b64(Buffer.from(`# ${i}`)) } }, 'text'])
      if (kind === 3) inputs.push([{ type: 'image', data: randomBytes(100 + i, i + 1), mimeType: 'image/x-unknown' }, 'saved'])
    }
    const results = await Promise.all(inputs.map(([p]) => toContentAsync(p, { fitImages: false, outputDir: dir })))
    const paths = new Set()
    results.forEach((r, i) => {
      const [p, kind] = inputs[i]
      const bytes = p.type === 'resource' ? Buffer.from(p.resource.blob, 'base64') : typeof p.data === 'string' ? Buffer.from(p.data, 'base64') : p.data
      if (kind === 'file') checkFilePart(assert, r, { mediaType: 'image/png', bytes })
      if (kind === 'text') assert.deepEqual(r, TXT(`[Resource file:///${i}.md (text/markdown)]\n# ${i}`))
      if (kind === 'saved') paths.add(checkSavedNote(assert, r, { bytes, dir }).path)
    })
    assert.equal(paths.size, 32, 'concurrent saves reused a file name')
    assert.equal(listFiles(dir).length, 32)
  })

  test('works from worker_threads (several at once) and agrees with the main thread', async (t) => {
    const dir = tempDir(t)
    const parts = [
      { type: 'image', data: b64(png), mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///README.md', mimeType: 'text/markdown', blob: b64(Buffer.from('# hi')) } },
      { type: 'image', data: b64(bmp), mimeType: 'image/bmp' },
    ]
    const main = parts.map((p) => toContent(p, { fitImages: false, outputDir: dir }))
    const run = () =>
      new Promise((resolve, reject) => {
        const w = new Worker(path.join(testDir, 'fixtures', 'worker.mjs'), { workerData: { root: bindingPath, parts, dir } })
        w.once('message', resolve)
        w.once('error', reject)
        w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)))
      })
    const outs = await Promise.all([run(), run(), run()])
    for (const out of outs) {
      assert.equal(out.error, undefined, out.error)
      assert.equal(out.sync.length, parts.length)
      for (let i = 0; i < parts.length; i++) {
        assertSameResult(assert, main[i], out.sync[i])
        assertSameResult(assert, main[i], out.async[i])
      }
      assert.ok(out.classifyKind === 'image', `classify in a worker: ${out.classifyKind}`)
    }
  })
})

describe('module loading', () => {
  test('ESM named imports work and are the CommonJS exports', async () => {
    const esm = await import(pathToFileURL(bindingEntry).href)
    for (const name of ['toContent', 'toContentAsync', 'classify', 'isUtf8', 'isTextualMediaType', 'ToolOutputStore']) {
      assert.equal(typeof esm[name], 'function', `ESM export ${name}`)
      assert.equal(esm[name], binding[name], `ESM and CJS ${name} differ`)
    }
  })

  test('index.d.ts declares the public API', () => {
    const dts = fs.readFileSync(path.join(bindingPath, 'index.d.ts'), 'utf8')
    for (const re of [
      /export declare function toContent\(/,
      /export declare function toContentAsync\(/,
      /export declare function classify\(/,
      /export declare function isUtf8\(/,
      /export declare function isTextualMediaType\(/,
      /export declare class ToolOutputStore/,
    ])
      assert.match(dts, re)
    assert.match(dts, /Promise</)
  })

  test('the binding answers in a child process started cold (require by path)', async () => {
    const { execFileSync } = await import('node:child_process')
    const out = execFileSync(
      process.execPath,
      ['-e', `const m=require(${JSON.stringify(bindingPath)});process.stdout.write(JSON.stringify(m.toContent({type:'text',text:'x'})))`],
      { encoding: 'utf8' },
    )
    assert.deepEqual(JSON.parse(out), TXT('x'))
  })
})

// keep os referenced for platforms without getuid
void os
