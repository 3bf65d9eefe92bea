// Corpus sweep: every real file of the file-type samples (the vendored
// __test__/fixtures/file-type, or MCP_CONTENT_CORPUS) through toContent, as
// an image declared image/png and as a resource blob declared
// application/octet-stream. Only true png/jpeg/gif/webp/pdf may come back as
// file parts, with the media type of the real format; sync == async.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import {
  loadBinding,
  corpus,
  corpusFiles,
  trueExtension,
  tempDir,
  b64,
  checkFilePart,
  checkSavedNote,
  parseSavedNote,
  assertSameResult,
  referenceImageInfo,
  ATTACHABLE_BY_EXT,
  MAX_IMAGE_BASE64,
  canonicalBase64Length,
  MAX_IMAGE_SIDE,
  isPdf,
} from './fixtures/index.mjs'

const { toContent, toContentAsync } = loadBinding()

const files = corpusFiles()

/** Could the default provider attach these bytes? (independent reference) */
function referenceAttachable(name, bytes) {
  const expected = ATTACHABLE_BY_EXT[trueExtension(name)]
  if (!expected) return null
  if (expected === 'application/pdf') return isPdf(bytes) ? expected : null
  const info = referenceImageInfo(bytes)
  if (!info || info.mediaType !== expected) return null
  if (canonicalBase64Length(bytes.length) > MAX_IMAGE_BASE64 || info.width > MAX_IMAGE_SIDE || info.height > MAX_IMAGE_SIDE) return null
  return expected
}

describe('corpus sweep', () => {
  test('the corpus is there', () => {
    assert.ok(files.length > 200, `only ${files.length} corpus files`)
  })

  for (const [label, build] of [
    ['image declared image/png', (bytes) => ({ type: 'image', data: b64(bytes), mimeType: 'image/png' })],
    [
      'resource blob declared application/octet-stream',
      (bytes, name) => ({ type: 'resource', resource: { uri: `file:///${name}`, mimeType: 'application/octet-stream', blob: b64(bytes) } }),
    ],
    ['resource blob as bytes, no mimeType', (bytes, name) => ({ type: 'resource', resource: { uri: `file:///${name}`, blob: new Uint8Array(bytes) } })],
  ]) {
    test(`${label}: only true allowed formats are attached, with their real type; sync == async`, async (t) => {
      const dirSync = tempDir(t)
      const dirAsync = tempDir(t)
      const attached = []
      const failures = []
      for (const name of files) {
        const bytes = corpus(name)
        const part = build(bytes, name)
        let a, b
        try {
          a = toContent(part, { fitImages: false, outputDir: dirSync })
          b = await toContentAsync(part, { fitImages: false, outputDir: dirAsync })
        } catch (e) {
          failures.push(`${name}: threw ${e && e.message}`)
          continue
        }
        try {
          assertSameResult(assert, a, b)
          assert.ok(a && (a.type === 'text' || a.type === 'file'), `${name}: ${JSON.stringify(a)?.slice(0, 100)}`)
          const real = referenceAttachable(name, bytes)
          if (a.type === 'file') {
            attached.push(name)
            assert.ok(real, `${name} (not an attachable ${trueExtension(name)}) came back as a ${a.mediaType} file part`)
            checkFilePart(assert, a, { mediaType: real, bytes })
          } else {
            assert.equal(real, null, `${name} is a valid ${real} but was not attached: ${a.text.slice(0, 200)}`)
            assert.doesNotMatch(a.text, /invalid base64|empty data/, name)
            const note = parseSavedNote(a.text)
            if (note) checkSavedNote(assert, a, { bytes, dir: dirSync })
            else {
              // sent as text: the bytes must really be text, and the text must be them
              assert.match(a.text, /^\[(Image|Resource file:\/\/\/\S+) \([^)\n]+\)\]\n/, `${name}: unexpected note ${a.text.slice(0, 120)}`)
            }
          }
        } catch (e) {
          failures.push(`${name}: ${e.message.split('\n')[0]}`)
        }
      }
      assert.deepEqual(failures, [])
      // every attachable file of the corpus was attached (nothing lost on the way)
      const expected = files.filter((n) => referenceAttachable(n, corpus(n)))
      assert.deepEqual(attached.sort(), expected.sort())
      fs.rmSync(dirSync, { recursive: true, force: true })
    })
  }

  test('text corpus files declared octet-stream come back as their decoded text', (t) => {
    const dir = tempDir(t)
    for (const [name, decode] of [
      ['fixture-utf8-bom.xml', (b) => b.subarray(3).toString('utf8')],
      ['fixture-utf16-le-bom.xml', (b) => b.subarray(2).toString('utf16le')],
      ['fixture-utf16-be-bom.xml', (b) => Buffer.from(b.subarray(2)).swap16().toString('utf16le')],
      ['fixture-json.webp', (b) => b.toString('utf8')],
      ['fixture.vcf', (b) => b.toString('utf8')],
      ['fixture.ics', (b) => b.toString('utf8')],
      ['fixture-vtt-linebreak.vtt', (b) => b.toString('utf8')],
    ]) {
      const bytes = corpus(name)
      const r = toContent(
        { type: 'resource', resource: { uri: `file:///${name}`, mimeType: 'application/octet-stream', blob: b64(bytes) } },
        { outputDir: dir },
      )
      assert.equal(r?.type, 'text', name)
      const nl = r.text.indexOf('\n')
      assert.match(r.text.slice(0, nl), new RegExp(`^\\[Resource file:///${name.replace(/\./g, '\\.')} \\([^)]+\\)\\]$`), name)
      assert.equal(r.text.slice(nl + 1).replace(/^\uFEFF/, ''), decode(bytes), name)
    }
  })
})
