// The failure the project exists to fix, reproduced against a strict local
// Anthropic-like endpoint driven by @anthropic-ai/sdk: passing MCP media parts
// through as attachments with their declared type is refused (400); the parts
// produced by toContent are accepted.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { loadBinding, repoRoot, testDir, tempDir, b64, makePng } from './fixtures/index.mjs'
import { startAnthropicMock } from './endpoints/anthropic.mjs'

const { toContent, toContentAsync } = loadBinding()

// What agents did before the change: every media part attached with the declared type.
function naiveBlock(part) {
  const media = (mt, data) =>
    mt.startsWith('image/')
      ? { type: 'image', source: { type: 'base64', media_type: mt, data } }
      : { type: 'document', source: { type: 'base64', media_type: mt, data } }
  if (part.type === 'text') return { type: 'text', text: part.text }
  if (part.type === 'image' || part.type === 'audio') return media(part.mimeType, part.data)
  if (part.type === 'resource') {
    if ('blob' in part.resource) return media(part.resource.mimeType ?? 'application/octet-stream', part.resource.blob)
    return { type: 'text', text: part.resource.text }
  }
  return null // resource_link: dropped
}

// What a client does with mcp-content's output.
function modelBlock(r) {
  if (r === null) return null
  if (r.type === 'text') return { type: 'text', text: r.text }
  if (r.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: r.mediaType, data: r.data } }
  return { type: 'image', source: { type: 'base64', media_type: r.mediaType, data: r.data } }
}

function request(tool, blocks) {
  return {
    model: 'claude-test',
    max_tokens: 16,
    messages: [
      { role: 'user', content: `call ${tool}` },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: tool, input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: blocks.filter(Boolean) }] },
    ],
  }
}

const NAIVELY_REFUSED = [
  'markdown_blob',
  'patch_blob',
  'json_blob',
  'parquet_blob',
  'svg_image',
  'mislabelled_jpeg',
  'truncated_png',
  'corrupt_png',
  'bmp_image',
  'empty_blob',
  'empty_image',
  'invalid_base64',
  'audio_wav',
]
const NAIVELY_ACCEPTED = ['png_image', 'png_resource', 'gif_webp_images', 'pdf_resource', 'text_resource', 'error_result']

describe('strict Anthropic-like endpoint', () => {
  let mock, anthropic, mcp
  before(async () => {
    mock = await startAnthropicMock()
    anthropic = new Anthropic({ apiKey: 'test-key', baseURL: mock.url, maxRetries: 0, timeout: 30_000 })
    mcp = new Client({ name: 'mcp-content-anthropic-e2e', version: '0.0.0' })
    await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(testDir, 'mcp-test-server.mjs')], stderr: 'pipe', cwd: repoRoot }))
  })
  after(async () => {
    await mcp?.close()
    await mock?.close()
  })

  const send = (body) => anthropic.messages.create(body)

  test('the mock refuses what Anthropic refuses (self-check)', async () => {
    const err = await send(request('x', [{ type: 'image', source: { type: 'base64', media_type: 'text/markdown', data: 'aGk=' } }])).catch((e) => e)
    assert.ok(err instanceof Anthropic.BadRequestError, String(err))
    assert.match(err.message, /media_type: Input should be 'image\/jpeg', 'image\/png', 'image\/gif' or 'image\/webp'/)
    const ok = await send(request('x', [{ type: 'text', text: 'fine' }]))
    assert.equal(ok.content[0].text, 'ok')
  })

  for (const tool of NAIVELY_REFUSED) {
    test(`${tool}: pass-through is refused, toContent output is accepted`, async (t) => {
      const { content } = await mcp.callTool({ name: tool, arguments: {} })
      const naive = await send(request(tool, content.map(naiveBlock))).catch((e) => e)
      assert.ok(naive instanceof Anthropic.BadRequestError, `naive ${tool} was not refused: ${naive?.constructor?.name} ${naive?.message ?? ''}`)
      assert.match(naive.message, /messages\.2\.content\.0\.tool_result\.content\.\d+\./)

      const dir = tempDir(t)
      const sync = content.map((p) => modelBlock(toContent(p, { outputDir: dir })))
      const res = await send(request(tool, sync))
      assert.equal(res.type, 'message')
      const async_ = await Promise.all(content.map(async (p) => modelBlock(await toContentAsync(p, { outputDir: dir }))))
      assert.equal((await send(request(tool, async_))).type, 'message')
    })
  }

  for (const tool of NAIVELY_ACCEPTED) {
    test(`${tool}: accepted both ways, media still attached after toContent`, async (t) => {
      const { content } = await mcp.callTool({ name: tool, arguments: {} })
      await send(request(tool, content.map(naiveBlock)))
      const blocks = content.map((p) => modelBlock(toContent(p, { outputDir: tempDir(t) })))
      await send(request(tool, blocks))
      const sent = mock.requests.at(-1).messages[2].content[0].content
      const naiveMedia = content.map(naiveBlock).filter((b) => b && b.type !== 'text').length
      assert.equal(sent.filter((b) => b.type !== 'text').length, naiveMedia, 'an attachable part was not attached')
    })
  }

  test('over-limit images: refused as pass-through, accepted after toContent', async (t) => {
    const cases = [
      [makePng(9000, 10), /At least one of the image dimensions exceed max allowed size: 8000 pixels/],
      [makePng(2000, 3000, { level: 0 }), /image exceeds 5 MB maximum: \d+ bytes > 5242880 bytes/],
    ]
    for (const [bytes, re] of cases) {
      const part = { type: 'image', data: b64(bytes), mimeType: 'image/png' }
      const naive = await send(request('big', [naiveBlock(part)])).catch((e) => e)
      assert.ok(naive instanceof Anthropic.BadRequestError)
      assert.match(naive.message, re)
      const res = await send(request('big', [modelBlock(toContent(part, { outputDir: tempDir(t) }))]))
      assert.equal(res.type, 'message')
    }
  })

  test('a 4.5 MB PNG (6,012,056 characters of base64): refused as pass-through, saved with the reason and accepted after toContent', async (t) => {
    const png = makePng(2048, 2048, { fill: 'random', padTo: 4_509_042 })
    const part = { type: 'image', data: b64(png), mimeType: 'image/png' }
    assert.equal(part.data.length, 6_012_056)
    const naive = await send(request('screenshot', [naiveBlock(part)])).catch((e) => e)
    assert.ok(naive instanceof Anthropic.BadRequestError, `not refused: ${naive?.constructor?.name}`)
    assert.match(naive.message, /image exceeds 5 MB maximum: 6012056 bytes > 5242880 bytes/)
    const dir = tempDir(t)
    const spill = { fitImages: false, outputDir: dir }
    for (const out of [toContent(part, spill), await toContentAsync(part, spill)]) {
      assert.equal(out.type, 'text')
      assert.match(out.text, /^\[Binary image \(image\/png, 4509042 bytes\): 6\.1 MB as base64, over the 5\.2 MB limit; saved to .+\]$/)
      assert.equal((await send(request('screenshot', [modelBlock(out)]))).type, 'message')
    }
    // By default the image is made to fit: the endpoint takes it, within 5,242,880 characters.
    for (const out of [toContent(part, { outputDir: dir }), await toContentAsync(part, { outputDir: dir })]) {
      assert.equal(out.type, 'file')
      assert.ok(out.data.length <= 5_242_880, `${out.data.length}`)
      assert.match(out.note, /6\.1 MB as base64, over the 5\.2 MB limit\): original image\/png 2048x2048 px/)
      assert.equal((await send(request('screenshot', [modelBlock(out)]))).type, 'message')
    }
  })

  test('the endpoint and toContent draw the size line at the same place', async (t) => {
    // 3,932,160 bytes are 5,242,880 characters of base64: taken both ways.
    const atLimit = makePng(512, 512, { fill: 'random', padTo: 3_932_160 })
    const part = { type: 'image', data: b64(atLimit), mimeType: 'image/png' }
    await send(request('shot', [naiveBlock(part)]))
    const attached = toContent(part, { outputDir: tempDir(t) })
    assert.equal(attached.type, 'file')
    await send(request('shot', [modelBlock(attached)]))
    assert.equal(mock.requests.at(-1).messages[2].content[0].content[0].source.data.length, 5_242_880)
    // One byte more is 5,242,884 characters: refused as it is, saved by toContent.
    const over = { type: 'image', data: b64(makePng(512, 512, { fill: 'random', padTo: 3_932_161 })), mimeType: 'image/png' }
    const naive = await send(request('shot', [naiveBlock(over)])).catch((e) => e)
    assert.ok(naive instanceof Anthropic.BadRequestError, `not refused: ${naive?.constructor?.name}`)
    assert.match(naive.message, /image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes/)
    const saved = toContent(over, { fitImages: false, outputDir: tempDir(t) })
    assert.equal(saved.type, 'text')
    assert.equal((await send(request('shot', [modelBlock(saved)]))).type, 'message')
  })

  test('a refused attachment poisons every later turn; the converted one does not', async (t) => {
    const { content } = await mcp.callTool({ name: 'markdown_blob', arguments: {} })
    const history = (blocks) => {
      const r = request('markdown_blob', blocks)
      r.messages.push({ role: 'assistant', content: 'noted' }, { role: 'user', content: 'and now?' })
      return r
    }
    const naive = await send(history(content.map(naiveBlock))).catch((e) => e)
    assert.ok(naive instanceof Anthropic.BadRequestError)
    const ok = await send(history(content.map((p) => modelBlock(toContent(p, { outputDir: tempDir(t) })))))
    assert.equal(ok.type, 'message')
  })
})
