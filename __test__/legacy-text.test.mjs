// Legible 8-bit text with no declared type (or application/octet-stream, what
// server-filesystem's read_media_file declares for a .txt) is read in the legacy
// encoding it is in, and named in the header; binaries of every size are not.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { spawnSync } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { loadBinding, repoRoot, corpus, corpusFiles, tempDir, b64, bindingPath, listFiles, wasmCannot } from './fixtures/index.mjs'

const mcp = loadBinding()
const { classify, toContent, convertToolResult } = mcp
const TXT = (text) => ({ type: 'text', text })

// windows-1252 beyond Latin-1, which Node 20's TextDecoder reads as Latin-1.
const WINDOWS_1252_EXTRA = { '€': 0x80, '‚': 0x82, '„': 0x84, '…': 0x85, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '–': 0x96, '—': 0x97 }

/** `text` in a legacy encoding, by inverting TextDecoder (one or two bytes a character). */
function encodeLegacy(text, label) {
  const decoder = new TextDecoder(label, { fatal: true })
  const table = new Map()
  if (label === 'windows-1252') for (const [ch, byte] of Object.entries(WINDOWS_1252_EXTRA)) table.set(ch, [byte])
  const add = (bytes) => {
    let ch
    try {
      ch = decoder.decode(new Uint8Array(bytes))
    } catch {
      return
    }
    if ([...ch].length === 1 && !table.has(ch)) table.set(ch, bytes)
  }
  for (let b = 0; b < 256; b++) add([b])
  for (let lead = 0x81; lead <= 0xfe; lead++) for (let trail = 0x40; trail <= 0xfe; trail++) add([lead, trail])
  const out = []
  for (const ch of text) {
    const bytes = table.get(ch)
    assert.ok(bytes, `${label} has no ${ch}`)
    out.push(...bytes)
  }
  return Buffer.from(out)
}

const WESTERN = 'Grüße aus Köln! Der Kaffee kostet 5 €, die Crème brûlée ist „naïve“.\r\n'.repeat(3)
const SAMPLES = [
  [WESTERN, 'windows-1252'],
  ['これは古いファイルの例で、文字コードの宣言がありません。\n'.repeat(3), 'shift_jis'],
  ['这是一个没有声明编码的中文文本文件，用来测试编码检测。\n'.repeat(3), 'gbk'],
  ['이것은 인코딩 선언이 없는 한국어 텍스트 파일입니다.\n'.repeat(3), 'euc-kr'],
  ['這是一個沒有宣告編碼的繁體中文文字檔，用來測試。\n'.repeat(3), 'big5'],
  ['Это русский текст без объявления кодировки, чтобы проверить.\n'.repeat(3), 'windows-1251'],
]

describe('legacy text without a declaration', () => {
  test('each encoding is found and decoded, undeclared or application/octet-stream, from bytes and base64', (t) => {
    for (const [text, encoding] of SAMPLES) {
      const bytes = encodeLegacy(text, encoding)
      for (const mimeType of [undefined, 'application/octet-stream']) {
        const c = classify(bytes, mimeType)
        assert.equal(c.kind, 'text', `${encoding}, ${mimeType}`)
        assert.equal(c.textEncoding, encoding, `${encoding}, ${mimeType}`)
        assert.equal(c.mediaType, 'text/plain')
        assert.equal(c.problem, undefined)
        for (const blob of [b64(bytes), new Uint8Array(bytes)]) {
          const dir = tempDir(t)
          const result = toContent({ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType, blob } }, { outputDir: dir })
          assert.deepEqual(result, TXT(`[Resource file:///notes.txt (text/plain, ${encoding})]\n${text}`))
          assert.deepEqual(listFiles(dir), [], 'nothing saved')
        }
      }
    }
  })

  test('a control byte anywhere (but tab, LF, CR, FF, ESC) keeps the bytes binary', (t) => {
    const bytes = encodeLegacy(WESTERN, 'windows-1252')
    for (const [byte, text] of [
      [0x0c, true],
      [0x1b, true],
      [0x00, false],
      [0x07, false],
      [0x08, false],
      [0x0b, false],
      [0x7f, false],
    ]) {
      for (const at of [10, bytes.length]) {
        const withByte = Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at)])
        const c = classify(withByte)
        assert.equal(c.kind, text ? 'text' : 'binary', `0x${byte.toString(16)} at ${at}`)
        if (text) assert.equal(c.textEncoding, 'windows-1252')
      }
    }
    // A byte windows-1252 leaves undefined rules it out (it would be a C1 control).
    const undefinedByte = Buffer.concat([bytes, Buffer.from([0x81])])
    assert.notEqual(classify(undefinedByte).textEncoding, 'windows-1252')
  })

  test('a large undeclared Latin-1 text is capped like any text: a preview and the whole saved in UTF-8', (t) => {
    const line = 'Ça coûte 5 €, naïve.\n'
    const bytes = encodeLegacy(line, 'windows-1252')
    const big = Buffer.concat(Array(200_000).fill(bytes))
    for (const blob of [b64(big), new Uint8Array(big)]) {
      const dir = tempDir(t)
      const result = toContent({ type: 'resource', resource: { uri: 'file:///big.txt', mimeType: 'application/octet-stream', blob } }, { outputDir: dir })
      assert.equal(result.type, 'text')
      assert.ok(result.text.startsWith(`[Resource file:///big.txt (text/plain, windows-1252)]\n${line}${line}`), result.text.slice(0, 200))
      assert.ok(mcp.estimateTokens(result.text) <= 12_500, 'within the default cap')
      const saved = result.text.match(/saved to (\S+\.txt)/)
      assert.ok(saved, result.text.slice(-300))
      assert.equal(fs.readFileSync(saved[1], 'utf8'), line.repeat(200_000), 'the whole text, decoded')
    }
  })
})

describe(
  'a large legacy text keeps memory bounded',
  {
    skip:
      (process.platform !== 'linux' && 'peak memory is read from /proc (Linux only)') ||
      wasmCannot('read a Buffer without copying it into its linear memory (docs/platforms.md, "WebAssembly fallback")'),
  },
  () => {
    // Over 16 bytes a token of the cap, it is streamed to the store decoded
    // piece by piece: raw bytes, sync, add at most SLACK (README, Limits).
    const SLACK = 32 * 1024 * 1024
    for (const how of ['undeclared', 'declared']) {
      test(`128 MiB of Latin-1, ${how}, as a Buffer`, (t) => {
        const spillRoot = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir()
        const dir = fs.mkdtempSync(path.join(spillRoot, 'mcp-content-legacy-'))
        t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
        const child = path.join(repoRoot, '__test__', 'fixtures', 'legacy-text-child.mjs')
        const flags = process.versions.bun ? [] : ['--expose-gc']
        const r = spawnSync(process.execPath, [...flags, child, how, dir], {
          encoding: 'utf8',
          env: { ...process.env, MCP_CONTENT_MODULE: path.resolve(bindingPath) },
        })
        assert.equal(r.status, 0, r.stderr)
        const { inputBytes, peakGrowth, saved, text } = JSON.parse(r.stdout.trim().split('\n').at(-1))
        t.diagnostic(`${how}: peak growth ${(peakGrowth / 1048576).toFixed(1)} MiB for ${inputBytes} bytes`)
        assert.ok(peakGrowth <= SLACK, `peak growth ${peakGrowth}`)
        assert.ok(text.startsWith('[Resource file:///big.txt (text/plain, windows-1252)]\nÇa coûte 5 €, naïve.\n'), text.slice(0, 100))
        // The whole text, in UTF-8: each line of 21 bytes is 26 there (Ç, û, ï
        // take 2 bytes, the euro sign 3); the last line is cut.
        const line = 'Ça coûte 5 €, naïve.\n'
        const utf8 = Math.floor(inputBytes / 21) * 26 + Buffer.byteLength(line.slice(0, inputBytes % 21))
        assert.deepEqual(saved, [utf8])
      })
    }
  },
)

describe('binaries of every size are never taken for legacy text', () => {
  // Sizes from 1 byte to 4 MB. Below 64 bytes, bytes that happen to be
  // ASCII, UTF-8 or UTF-16 are text by the older rules (one random byte is
  // ASCII half the time); nothing may be taken for text in a legacy
  // encoding, and from 64 bytes on nothing may be text at all.
  const SIZES = [
    1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 31, 32, 48, 63, 64, 65, 100, 127, 128, 129, 200, 256, 512, 1000, 4096, 8191, 8192, 8193, 65_536, 100_000, 1_000_000,
    4_000_000,
  ]
  // `anyText`: whether UTF-8 or UTF-16 text found by the older rules may be
  // there at 64 bytes or more (a fill of FF FE is a UTF-16 BOM and U+FEFF).
  const check = (bytes, what, anyText = false) => {
    const c = classify(bytes)
    if (c.kind !== 'text') return
    assert.ok(
      ['ascii', 'utf-8', 'utf-16le', 'utf-16be'].includes(c.textEncoding),
      `${what} (${bytes.length} bytes) read as ${c.textEncoding}: ${bytes.subarray(0, 64).toString('hex')}`,
    )
    assert.ok(anyText || bytes.length < 64, `${what} (${bytes.length} bytes) taken for ${c.textEncoding} text`)
  }

  test('random bytes (crypto.randomBytes), 20 draws a size', () => {
    for (const n of SIZES) for (let i = 0; i < (n > 100_000 ? 2 : 20); i++) check(crypto.randomBytes(n), 'random')
  })

  test('compressed: gzip, deflate, raw deflate and brotli of text and of random bytes', () => {
    const english = Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(100_000))
    const western = encodeLegacy(WESTERN, 'windows-1252')
    const latin = Buffer.concat(Array(20_000).fill(western))
    for (const n of SIZES) {
      for (const [name, source] of [
        ['english', english],
        ['latin-1', latin],
        ['random', crypto.randomBytes(n)],
      ]) {
        const input = source.subarray(0, n)
        check(zlib.gzipSync(input), `gzip of ${n} bytes of ${name}`)
        check(zlib.deflateSync(input), `deflate of ${n} bytes of ${name}`)
        check(zlib.deflateRawSync(input), `raw deflate of ${n} bytes of ${name}`)
        for (const quality of [0, 5, 11]) {
          if (quality === 11 && n > 100_000) continue // slow, and no different
          const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: n }
          check(zlib.brotliCompressSync(input, { params }), `brotli q${quality} of ${n} bytes of ${name}`)
        }
      }
    }
  })

  test('compressed: zstd', (t) => {
    const english = Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(100_000))
    let zstd = zlib.zstdCompressSync
    if (!zstd) {
      const cli = spawnSync('zstd', ['--version'])
      if (cli.status !== 0) return t.skip('no zstd here: node:zlib has none before Node 22.15, and there is no zstd command')
      zstd = (input) => spawnSync('zstd', ['-c', '-q'], { input, maxBuffer: 64 * 1024 * 1024 }).stdout
    }
    for (const n of SIZES.filter((n) => n <= 1_000_000)) {
      for (const input of [english.subarray(0, n), crypto.randomBytes(n)]) check(zstd(input), `zstd of ${n} bytes`)
    }
  })

  test('fill bytes and repeated patterns (erased flash, padding, flat image rows)', () => {
    for (const n of SIZES.filter((n) => n <= 100_000)) {
      for (let v = 0x80; v <= 0xff; v++) check(Buffer.alloc(n, v), `0x${v.toString(16)} repeated`)
      for (const pattern of [
        [0xff, 0xfe],
        [0xaa, 0x55],
        [0xef, 0xe2, 0xf5],
        [0x80, 0x7f],
      ])
        check(Buffer.alloc(n, Buffer.from(pattern)), `${pattern} repeated`, true)
    }
  })

  test('real binary files: the built addon and the fixture corpus, whole and cut to each size', () => {
    // The addon built in the checkout, if there is one (a WebAssembly-only checkout has none).
    const files = fs
      .readdirSync(bindingPath)
      .filter((f) => f.endsWith('.node') || f.endsWith('.wasm'))
      .map((f) => [f, fs.readFileSync(path.join(bindingPath, f))])
    for (const name of corpusFiles()) {
      const bytes = corpus(name)
      // Only what is not text to begin with: the corpus holds text files too.
      if (classify(bytes).kind !== 'text') files.push([name, bytes])
    }
    assert.ok(files.length > 50, `${files.length} files`)
    for (const [name, bytes] of files) {
      check(bytes, name)
      // Cut short, as a truncated download is (its start may be UTF-16 text).
      for (const n of SIZES) if (n < bytes.length) check(bytes.subarray(0, n), `the start of ${name}`, true)
    }
  })
})

describe('through the real server-filesystem', () => {
  let dir
  let client
  before(async () => {
    dir = tempDir(null, 'mcp-content-legacy-fs-')
    fs.writeFileSync(path.join(dir, 'menu.txt'), encodeLegacy(WESTERN, 'windows-1252'))
    const pkgDir = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-filesystem')
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
    const bin = path.join(pkgDir, typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0])
    client = new Client({ name: 'mcp-content-legacy-text-test', version: '0.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, dir], stderr: 'pipe', cwd: repoRoot }))
  })
  after(async () => {
    await client?.close()
  })

  test('read_media_file of a Latin-1 .txt (application/octet-stream) reaches the model as text', async (t) => {
    const result = await client.callTool({ name: 'read_media_file', arguments: { path: path.join(dir, 'menu.txt') } })
    const [part] = result.content
    assert.equal(part.resource?.mimeType, 'application/octet-stream', 'what the server declares')
    const outputDir = tempDir(t)
    const converted = await convertToolResult(result, { outputDir })
    const uri = part.resource.uri
    assert.deepEqual(converted.content[0], TXT(`[Resource ${uri} (text/plain, windows-1252)]\n${WESTERN}`))
    assert.deepEqual(listFiles(outputDir), [], 'nothing saved')
  })
})
