// Bounded text: a text over `maxTextTokens` reaches the model as a preview cut
// at a line boundary and a note naming the whole text, saved by the store.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { loadBinding, tempDir } from './fixtures/index.mjs'

const { toContent, toContentAsync, estimateTokens, ToolOutputStore } = loadBinding()

const NOTE = /^\[Text truncated: the first (\d+) of (\d+) lines are shown above; the whole text \((\d+) bytes\) is saved to (.+)\]$/
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The preview and the parsed note of a truncated text part. */
function truncated(part, header = '') {
  assert.equal(part.type, 'text')
  assert.ok(part.text.startsWith(header), part.text.slice(0, 200))
  const body = part.text.slice(header.length)
  const cut = body.lastIndexOf('\n[Text truncated: ')
  assert.ok(cut >= 0, `no truncation note: ${body.slice(-300)}`)
  const match = NOTE.exec(body.slice(cut + 1))
  assert.ok(match, body.slice(cut + 1))
  return { preview: body.slice(0, cut + 1), shown: Number(match[1]), lines: Number(match[2]), bytes: Number(match[3]), path: match[4] }
}

const lines = (n, make = (i) => `line ${i}: the quick brown fox`) => Array.from({ length: n }, (_, i) => `${make(i)}\n`).join('')

describe('text cap', () => {
  test('a text part over the default cap: whole lines, then the note; the whole text saved as is', async (t) => {
    const dir = tempDir(t)
    const text = lines(20_000)
    for (const convert of [toContent, toContentAsync]) {
      const out = truncated(await convert({ type: 'text', text }, { outputDir: dir }))
      assert.equal(out.lines, 20_000)
      assert.equal(out.bytes, Buffer.byteLength(text))
      assert.ok(text.startsWith(out.preview), 'the preview is the start of the text')
      assert.equal(out.preview.split('\n').length - 1, out.shown, 'whole lines only')
      assert.ok(out.shown > 100, `a useful preview: ${out.shown} lines`)
      assert.ok(estimateTokens(out.preview) <= 12_500 / 5, 'the preview keeps to its share of the cap')
      assert.equal(fs.readFileSync(out.path, 'utf8'), text)
      assert.ok(out.path.endsWith('.txt'), out.path)
    }
  })

  test('the cap is measured in estimated tokens, on both sides of it', (t) => {
    const dir = tempDir(t)
    const at = (chars) => toContent({ type: 'text', text: 'a'.repeat(chars) }, { outputDir: dir, maxTextTokens: 1000 })
    assert.equal(at(4000).text.length, 4000) // 1,000 tokens: kept whole
    assert.match(at(4001).text, /\[Text truncated: the first \d+ characters of line 1 \(of 1 lines\) are shown above;/)
    // CJK characters count 1.5 tokens each: 666 fit, 667 do not.
    const cjk = (n) => toContent({ type: 'text', text: '字'.repeat(n) }, { outputDir: dir, maxTextTokens: 1000 })
    assert.equal(cjk(666).text.length, 666)
    assert.match(cjk(667).text, /^字+\n\[Text truncated: /)
    assert.equal(estimateTokens('字'.repeat(667)), 1001)
  })

  test('an embedded text resource keeps its header; the copy takes its type extension', (t) => {
    const dir = tempDir(t)
    const text = lines(30_000)
    const part = { type: 'resource', resource: { uri: 'file:///logs/app.md', mimeType: 'text/markdown', text } }
    const out = truncated(toContent(part, { outputDir: dir }), '[Resource file:///logs/app.md (text/markdown)]\n')
    assert.ok(out.path.endsWith('.md'), out.path)
    assert.equal(fs.readFileSync(out.path, 'utf8'), text)
  })

  test('text blobs, as base64 and as bytes, are previewed and saved whole', async (t) => {
    const dir = tempDir(t)
    const text = lines(50_000, (i) => `${i} é 字 😀`)
    const bytes = Buffer.from(text)
    for (const blob of [bytes.toString('base64'), new Uint8Array(bytes)]) {
      for (const convert of [toContent, toContentAsync]) {
        const part = { type: 'resource', resource: { uri: 'file:///big.md', mimeType: 'text/markdown', blob } }
        const out = truncated(await convert(part, { outputDir: dir }), '[Resource file:///big.md (text/markdown)]\n')
        assert.equal(out.lines, 50_000)
        assert.equal(out.bytes, bytes.length)
        assert.ok(text.startsWith(out.preview))
        assert.ok(fs.readFileSync(out.path).equals(bytes))
      }
    }
  })

  test('a preview never splits a character, even inside one long line', (t) => {
    const dir = tempDir(t)
    for (const unit of ['😀', 'é', '字', 'a😀']) {
      const text = unit.repeat(30_000)
      for (const part of [
        { type: 'text', text },
        { type: 'media', data: Buffer.from(text), mimeType: 'text/plain' },
      ]) {
        const out = toContent(part, { outputDir: dir, maxTextTokens: 999 })
        const preview = out.text.slice(0, out.text.indexOf('\n[Text truncated: '))
        assert.doesNotMatch(preview, LONE_SURROGATE, `a lone surrogate in the preview of ${unit}`)
        assert.ok(!preview.includes('\uFFFD'), `a replacement character in the preview of ${unit}`)
        assert.ok(preview.length > 0)
      }
    }
  })

  test('maxTextTokens: Infinity turns the cap off; bad values are INVALID_ARGUMENT', (t) => {
    const dir = tempDir(t)
    const text = lines(20_000)
    assert.equal(toContent({ type: 'text', text }, { outputDir: dir, maxTextTokens: Infinity }).text, text)
    for (const maxTextTokens of [0, -1, 1.5, NaN, '100', -Infinity]) {
      assert.throws(
        () => toContent({ type: 'text', text: 'x' }, { maxTextTokens }),
        (e) => e.code === 'INVALID_ARGUMENT',
        String(maxTextTokens),
      )
    }
  })

  test('a text that cannot be saved still gets its preview, and the note says why', (t) => {
    const file = `${tempDir(t)}/plain-file`
    fs.writeFileSync(file, 'x')
    const out = toContent({ type: 'text', text: lines(20_000) }, { outputDir: `${file}/sub` })
    assert.match(out.text, /\n\[Text truncated: the first \d+ of 20000 lines are shown above; the whole text \(\d+ bytes\) could not be saved: .+\]$/)
  })

  test('memory stays bounded: a 600 MiB text Buffer becomes a short preview', async (t) => {
    // Over V8's longest string: decoding it whole used to fail after GBs of RSS.
    // A store cap of 1 MiB refuses the copy before a byte is written.
    const store = new ToolOutputStore(tempDir(t), { maxBytes: 1024 * 1024 })
    const size = 600 * 1024 * 1024
    const blob = Buffer.alloc(size, 'a')
    const out = await toContentAsync({ type: 'resource', resource: { uri: 'file:///huge.log', mimeType: 'text/plain', blob } }, { store })
    assert.match(
      out.text,
      new RegExp(
        `^\\[Resource file:///huge\\.log \\(text/plain\\)\\]\\na+\\n\\[Text truncated: the first \\d+ characters of line 1 \\(of 1 lines\\) are shown above; the whole text \\(${size} bytes\\) could not be saved: ${size} bytes is over the store's size cap of 1048576 bytes\\]$`,
      ),
    )
    assert.ok(out.text.length < 20_000)
  })
})

test("a text at the engine's longest string, cap off: a coded error, not a bare RangeError", () => {
  let text
  for (const length of [2 ** 29 - 24, 2 ** 30 - 25, 2 ** 28 - 16]) {
    try {
      text = 'x'.repeat(length)
      break
    } catch {
      // shorter limit on this engine
    }
  }
  const part = { type: 'resource', resource: { uri: 'file:///a', text } }
  let outcome
  try {
    outcome = toContent(part, { maxTextTokens: Infinity }).text.length
  } catch (error) {
    outcome = error.code
  }
  // Either the engine can hold the header too (then it is all there), or the error is coded.
  assert.ok(outcome === 'TEXT_TOO_LONG' || outcome === text.length + '[Resource file:///a (text/plain)]\n'.length, String(outcome))
})
