// Budgets choose showing over saving: when a result's images would pass a request's size limit
// at full size, they share it (each made to fit its share) rather than the last ones being
// saved. 24 noisy 1700x1300 screenshots of 6.6 MB for Claude's direct API (32 MB of base64 a
// request) were 3 images and 21 paths; now all 24 are attached, each within 32 MB / 24, checked
// by decoding them (sharp) and by the strict endpoint.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import sharp from 'sharp'
import { loadBinding, tempDir, isBun } from './fixtures/index.mjs'
import { validateMessagesRequest } from './endpoints/anthropic.mjs'

const { convertToolResult, toAnthropicToolResult } = loadBinding()
const REQUEST_LIMIT = 32_000_000

const noisyShot = () =>
  sharp({ create: { width: 1700, height: 1300, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 90 } } })
    .png({ compressionLevel: 1 })
    .toBuffer()

// Fitting 24 screenshots takes seconds: once per run is enough (Node's run; Bun's is the same code).
const skip = isBun ? 'the same conversion runs under Node; 24 fits are slow under Bun in this suite' : false
if (skip) console.log(`# request-share: skipped: ${skip}`)

test('24 screenshots of 6.6 MB for anthropic: all attached, the request size shared', { skip, timeout: 120_000 }, async (t) => {
  const png = await noisyShot()
  assert.ok(png.length > 6_000_000, `a screenshot of ${png.length} bytes`)
  const data = png.toString('base64')
  const result = { content: Array.from({ length: 24 }, () => ({ type: 'image', data, mimeType: 'image/png' })) }
  for (const convert of [convertToolResult]) {
    const converted = await convert(result, { provider: 'anthropic', outputDir: tempDir(t) })
    const files = converted.content.filter((p) => p.type === 'file')
    const notes = converted.content.filter((p) => p.type === 'text')
    assert.equal(
      files.length,
      24,
      notes
        .map((n) => n.text)
        .join('\n')
        .slice(0, 600),
    )
    const share = Math.floor(REQUEST_LIMIT / 24)
    for (const file of files) {
      assert.ok(file.data.length <= share, `${file.data.length} characters, over the share of ${share}`)
      const meta = await sharp(Buffer.from(file.data, 'base64')).metadata()
      assert.equal(meta.format, file.mediaType.split('/')[1])
      assert.ok(meta.width >= 400 && meta.height >= 300, `${meta.width}x${meta.height}: still worth reading`)
    }
    assert.ok(files.reduce((n, f) => n + f.data.length, 0) <= REQUEST_LIMIT)
    assert.equal(notes.length, 24)
    for (const note of notes)
      assert.match(note.text, /the 24 images would pass the request limit of 32\.0 MB as base64 at full size, so each is sent within 1\.3 MB/)
    // Each original is saved once, beside its fitted copy.
    assert.equal(converted.saved.length, 24)
    validateMessagesRequest(
      {
        model: 'claude-test',
        max_tokens: 1,
        messages: [
          { role: 'user', content: 'shots' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'shots', input: {} }] },
          { role: 'user', content: [toAnthropicToolResult(converted, 'toolu_1')] },
        ],
      },
      { maxImageBase64: 10_485_760 },
    )
  }
})
