// Anthropic Messages through @anthropic-ai/sdk against the strict local
// endpoint: the source change's reproduction (a markdown blob and a PNG from
// a real MCP server over stdio, then a second turn). Passed through as
// declared, the first turn and every later one are refused; converted with
// convertToolResult and written by toAnthropicToolResult, both succeed;
// repairHistory turns the broken history into one that succeeds.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import Anthropic from '@anthropic-ai/sdk'
import { loadBinding, tempDir, snapshot } from './fixtures/index.mjs'
import { bytes } from './fixtures/mcp-cases.mjs'
import { startAnthropicMock } from './endpoints/anthropic.mjs'
import { connectTestServer, naiveAnthropic } from './fixtures/wire.mjs'

const { convertToolResult, toAnthropicToolResult, toAnthropicContent, repairHistory, ToolOutputStore } = loadBinding()

const turn1 = (toolResult) => ({
  model: 'claude-test',
  max_tokens: 16,
  messages: [
    { role: 'user', content: 'Read the attachments of JIRA-1' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'jira_attachments', input: {} }] },
    { role: 'user', content: [toolResult] },
  ],
})
const turn2 = (toolResult) => {
  const body = turn1(toolResult)
  body.messages.push({ role: 'assistant', content: 'The README says to open and click.' }, { role: 'user', content: 'And what is in the screenshot?' })
  return body
}

describe('Anthropic Messages (@anthropic-ai/sdk)', () => {
  let endpoint, anthropic, mcp
  before(async () => {
    endpoint = await startAnthropicMock()
    anthropic = new Anthropic({ apiKey: 'test-key', baseURL: endpoint.url, maxRetries: 0, timeout: 30_000 })
    mcp = await connectTestServer()
  })
  after(async () => {
    await mcp?.close()
    await endpoint?.close()
  })
  const send = (body) => anthropic.messages.create(body)
  const refused = async (body, re) => {
    const error = await send(body).catch((e) => e)
    assert.ok(error instanceof Anthropic.BadRequestError, `not refused: ${error?.constructor?.name} ${error?.message ?? ''}`)
    assert.match(error.message, re)
    return error
  }

  test('the reproduction: pass-through fails on every turn; the adapter succeeds on both; repairHistory mends the broken history', async (t) => {
    const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
    const naive = { type: 'tool_result', tool_use_id: 'toolu_01', content: naiveAnthropic(result.content) }
    const markdownRefused = /messages\.2\.content\.0\.tool_result\.content\.1\.document\.source\.base64\.media_type: Input should be 'application\/pdf'/
    await refused(turn1(naive), markdownRefused)
    await refused(turn2(naive), markdownRefused)

    const before = snapshot(result)
    const converted = await convertToolResult(result, { provider: 'anthropic', outputDir: tempDir(t) })
    const block = toAnthropicToolResult(converted, 'toolu_01')
    assert.deepEqual(snapshot(result), before, 'the MCP result was modified')
    assert.equal((await send(turn1(block))).type, 'message')
    assert.equal((await send(turn2(block))).type, 'message')
    const sent = endpoint.requests.at(-1).messages[2].content[0]
    assert.deepEqual(
      sent.content.map((b) => b.type),
      ['text', 'text', 'image'],
    )
    assert.equal(sent.content[1].text, `[Resource file:///README.md (text/markdown)]\n${bytes.markdown.toString('utf8')}`)
    assert.ok(Buffer.from(sent.content[2].source.data, 'base64').equals(bytes.png))

    const broken = turn2(naive)
    const frozen = structuredClone(broken.messages)
    const { messages, repaired } = repairHistory(broken.messages, { format: 'anthropic', provider: 'anthropic', store: new ToolOutputStore(tempDir(t)) })
    assert.deepEqual(broken.messages, frozen, 'repairHistory modified its input')
    assert.equal(repaired, 1)
    const mended = messages[2].content[0].content
    assert.equal(mended[1].type, 'text')
    assert.equal(mended[1].text, `[Media (text/markdown)]\n${bytes.markdown.toString('utf8')}`)
    assert.equal(mended[2], broken.messages[2].content[0].content[2], 'the PNG block, sendable, is kept as it was')
    assert.equal((await send({ ...broken, messages })).type, 'message')
  })

  test('refused attachments of every kind in a history: each repaired, the history then accepted', async (t) => {
    const tools = ['svg_image', 'mislabelled_jpeg', 'truncated_png', 'corrupt_png', 'bmp_image', 'empty_image', 'invalid_base64', 'parquet_blob', 'png_image']
    const messages = [{ role: 'user', content: 'go' }]
    for (const [i, name] of tools.entries()) {
      const { content } = await mcp.callTool({ name, arguments: {} })
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name, input: {} }] })
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: naiveAnthropic(content) }] })
    }
    await refused({ model: 'claude-test', max_tokens: 16, messages }, /messages\.2\.content\.0\.tool_result\.content\.0\.image\.source\.base64\.media_type/)
    const dir = tempDir(t)
    const { messages: mended, repaired } = repairHistory(messages, { format: 'anthropic', provider: 'anthropic', outputDir: dir })
    assert.equal(repaired, tools.length - 1, 'every refused attachment repaired, the good PNG left alone')
    assert.equal((await send({ model: 'claude-test', max_tokens: 16, messages: mended })).type, 'message')
    const parts = mended.filter((m, i) => i % 2 === 0 && i > 0).map((m) => m.content[0].content)
    // mislabelled JPEG: relabelled, still an image
    assert.equal(parts[1][0].type, 'image')
    assert.equal(parts[1][0].source.media_type, 'image/jpeg')
    // parquet: saved, the note names the file
    assert.match(parts[7][0].text, /^\[Binary media \(application\/vnd\.apache\.parquet, \d+ bytes\): .+; saved to .+\]$/)
  })

  test('the many-image rule across a history: 22 images of 2500 px refused; repairHistory holds back the excess', async (t) => {
    const { makePng, b64 } = await import('./fixtures/index.mjs')
    const base = makePng(2500, 300).length + 64
    const images = Array.from({ length: 22 }, (_, i) => ({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: b64(makePng(2500, 300, { padTo: base + i })) },
    }))
    const messages = [
      { role: 'user', content: images.slice(0, 11) },
      { role: 'assistant', content: 'seen' },
      { role: 'user', content: images.slice(11) },
    ]
    await refused({ model: 'claude-test', max_tokens: 16, messages }, /exceed max allowed size for many-image requests: 2000 pixels/)
    // Without fitting, the excess is held back: 2 images saved and noted.
    const held = repairHistory(messages, { format: 'anthropic', provider: 'anthropic', outputDir: tempDir(t), fitImages: false })
    assert.equal(held.repaired, 2)
    assert.match(held.messages[2].content[10].text, /over the 2000 px limit for requests with more than 20 images; saved to /)
    assert.equal((await send({ model: 'claude-test', max_tokens: 16, messages: held.messages })).type, 'message')
    // By default every image over 2000 px is made to fit: all 22 stay, each at most 2000 px.
    const { messages: mended, repaired } = repairHistory(messages, { format: 'anthropic', provider: 'anthropic', outputDir: tempDir(t) })
    assert.equal(repaired, 22)
    const sent = mended.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'image')
    assert.equal(sent.length, 22)
    const { referenceImageInfo } = await import('./fixtures/index.mjs')
    for (const image of sent) {
      const { width, height } = referenceImageInfo(Buffer.from(image.source.data, 'base64'))
      assert.ok(Math.max(width, height) <= 2000, `${width}x${height}`)
    }
    assert.equal((await send({ model: 'claude-test', max_tokens: 16, messages: mended })).type, 'message')
  })

  test('deferred media written after the tool_result blocks are accepted', async (t) => {
    const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
    const converted = await convertToolResult(result, { provider: 'anthropic', deferMedia: true, outputDir: tempDir(t) })
    assert.equal(converted.deferred.length, 1)
    const body = turn1(toAnthropicToolResult(converted, 'toolu_01'))
    body.messages[2].content.push(...toAnthropicContent(converted.deferred))
    assert.equal((await send(body)).type, 'message')
    assert.equal(endpoint.requests.at(-1).messages[2].content[1].type, 'image')
  })
})
