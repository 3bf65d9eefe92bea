// The AI SDK (ai 7 with @ai-sdk/* 4 on Node 22 and later; ai 6 with
// @ai-sdk/* 3, installed under npm aliases, everywhere) against the strict
// local endpoints, with a real MCP server over stdio. A tool result reaches
// the SDK as `toModelOutput` gives it: passed through with the declared types
// (opencode's shape before the source change) or written by
// toAiSdkToolOutput from convertToolResult.
// - Gemini 3: the markdown blob and PNG reproduction fails on every turn
//   passed through and succeeds converted; repairHistory mends the history.
// - Anthropic: @ai-sdk/anthropic drops the markdown file silently (the model
//   never sees it); converted, it arrives as text. An SVG declared as an image
//   breaks every turn; repairHistory mends it.
// - OpenAI Responses: the markdown goes as an input_file OpenAI reads; an
//   SVG declared as an image breaks every turn; repairHistory mends it.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, tempDir } from './fixtures/index.mjs'
import { bytes } from './fixtures/mcp-cases.mjs'
import { startAnthropicMock } from './endpoints/anthropic.mjs'
import { startOpenAIResponsesMock } from './endpoints/openai-responses.mjs'
import { startGeminiMock } from './endpoints/gemini.mjs'
import { connectTestServer, naiveMedia, modernSkip } from './fixtures/wire.mjs'

const { convertToolResult, toAiSdkToolOutput, repairHistory } = loadBinding()
if (modernSkip) console.log(`# wire-ai-sdk: AI SDK 7 skipped: ${modernSkip}; AI SDK 6 runs`)

const SDKS = [
  { version: 7, ai: 'ai', anthropic: '@ai-sdk/anthropic', openai: '@ai-sdk/openai', google: '@ai-sdk/google', skip: modernSkip },
  { version: 6, ai: 'ai-v6', anthropic: 'ai-sdk-anthropic-v3', openai: 'ai-sdk-openai-v3', google: 'ai-sdk-google-v3', skip: false },
]

/** opencode's tool output before the change: every media part as a file with the declared type. */
function naiveOutput(content, version) {
  const value = content.flatMap((part) => {
    const media = naiveMedia(part)
    if (media === undefined) return []
    if (media === null) return [{ type: 'text', text: part.type === 'text' ? part.text : part.resource.text }]
    if (version === 7) return [{ type: 'file', mediaType: media.mediaType, data: { type: 'data', data: media.data } }]
    return [{ type: 'media', mediaType: media.mediaType, data: media.data }]
  })
  return { type: 'content', value }
}

for (const sdk of SDKS) {
  describe(`AI SDK ${sdk.version} (${sdk.ai})`, { skip: sdk.skip }, () => {
    let ai, z, models, endpoints, mcp
    before(async () => {
      ai = await import(sdk.ai)
      ;({ z } = await import('zod'))
      endpoints = { anthropic: await startAnthropicMock(), openai: await startOpenAIResponsesMock(), google: await startGeminiMock() }
      const { createAnthropic } = await import(sdk.anthropic)
      const { createOpenAI } = await import(sdk.openai)
      const { createGoogleGenerativeAI } = await import(sdk.google)
      models = {
        anthropic: createAnthropic({ apiKey: 'test-key', baseURL: `${endpoints.anthropic.url}/v1` })('claude-test'),
        openai: createOpenAI({ apiKey: 'test-key', baseURL: `${endpoints.openai.url}/v1` }).responses('gpt-test'),
        google: createGoogleGenerativeAI({ apiKey: 'test-key', baseURL: `${endpoints.google.url}/v1beta` })('gemini-3-pro'),
      }
      globalThis.AI_SDK_LOG_WARNINGS = false
      mcp = await connectTestServer()
    })
    after(async () => {
      await mcp?.close()
      for (const e of Object.values(endpoints ?? {})) await e.close()
    })

    const history = (name, output, more = []) => [
      { role: 'user', content: `Call ${name}` },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_01', toolName: name, input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_01', toolName: name, output }] },
      ...more,
    ]
    const turn2 = [
      { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
      { role: 'user', content: 'And now?' },
    ]
    const send = async (provider, messages) => {
      const tools = { [messages[1].content[0].toolName]: ai.tool({ inputSchema: z.object({}) }) }
      return (await ai.generateText({ model: models[provider], messages, tools, maxRetries: 0, maxOutputTokens: 16 })).text
    }
    const refused = async (promise, re) => {
      const error = await promise.catch((e) => e)
      assert.ok(ai.APICallError.isInstance(error), `not refused by the endpoint: ${error?.name} ${error?.message ?? ''}`)
      assert.equal(error.statusCode, 400)
      assert.match(error.message, re)
    }
    const options = { version: sdk.version }

    test('Gemini 3: the reproduction fails on every turn passed through, succeeds converted; repairHistory mends it', async (t) => {
      const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
      const naive = history('jira_attachments', naiveOutput(result.content, sdk.version), turn2)
      await refused(send('google', naive.slice(0, 3)), /Unsupported MIME type: text\/markdown/)
      await refused(send('google', naive), /Unsupported MIME type: text\/markdown/)
      const converted = await convertToolResult(result, { provider: 'google', deferMedia: false, outputDir: tempDir(t) })
      const output = toAiSdkToolOutput(converted, options)
      assert.equal(await send('google', history('jira_attachments', output)), 'ok')
      assert.equal(await send('google', history('jira_attachments', output, turn2)), 'ok')
      const response = endpoints.google.requests.at(-1).contents[2].parts[0].functionResponse
      assert.match(JSON.stringify(response.response), /\[Resource file:\/\/\/README\.md \(text\/markdown\)\]/)
      const { messages, repaired } = repairHistory(naive, { format: 'ai-sdk', provider: 'google', outputDir: tempDir(t) })
      assert.equal(repaired, 1)
      assert.deepEqual(messages[2].content[0].output.value[1], { type: 'text', text: `[Media (text/markdown)]\n${bytes.markdown.toString('utf8')}` })
      assert.equal(await send('google', messages), 'ok')
    })

    test('Anthropic: the markdown is dropped passed through, sent as text converted', async (t) => {
      const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
      assert.equal(await send('anthropic', history('jira_attachments', naiveOutput(result.content, sdk.version), turn2)), 'ok')
      const dropped = endpoints.anthropic.requests.at(-1).messages[2].content[0].content
      assert.ok(!JSON.stringify(dropped).includes('Jira attachment'), 'the SDK sent the markdown after all')
      const converted = await convertToolResult(result, { provider: 'anthropic', outputDir: tempDir(t) })
      assert.equal(await send('anthropic', history('jira_attachments', toAiSdkToolOutput(converted, options), turn2)), 'ok')
      const sent = endpoints.anthropic.requests.at(-1).messages[2].content[0].content
      assert.deepEqual(
        sent.map((b) => b.type),
        ['text', 'text', 'image'],
      )
      assert.equal(sent[1].text, `[Resource file:///README.md (text/markdown)]\n${bytes.markdown.toString('utf8')}`)
    })

    for (const [provider, re] of [
      ['anthropic', /media_type: Input should be 'image\/jpeg', 'image\/png', 'image\/gif' or 'image\/webp'/],
      ['openai', /unsupported MIME type 'image\/svg\+xml'/],
    ]) {
      test(`${provider}: an SVG declared as an image breaks every turn passed through; converted and repaired, it does not`, async (t) => {
        const result = await mcp.callTool({ name: 'svg_image', arguments: {} })
        const naive = history('svg_image', naiveOutput(result.content, sdk.version), turn2)
        await refused(send(provider, naive.slice(0, 3)), re)
        await refused(send(provider, naive), re)
        const converted = await convertToolResult(result, { provider, outputDir: tempDir(t) })
        const output = toAiSdkToolOutput(converted, options)
        assert.equal(await send(provider, history('svg_image', output)), 'ok')
        assert.equal(await send(provider, history('svg_image', output, turn2)), 'ok')
        const { messages, repaired } = repairHistory(naive, { format: 'ai-sdk', provider, outputDir: tempDir(t) })
        assert.equal(repaired, 1)
        assert.equal(await send(provider, messages), 'ok')
      })
    }

    test('a PNG in a tool output reaches each provider as an image', async (t) => {
      const result = await mcp.callTool({ name: 'png_image', arguments: {} })
      for (const provider of ['anthropic', 'openai', 'google']) {
        const converted = await convertToolResult(result, { provider, deferMedia: false, outputDir: tempDir(t) })
        assert.equal(await send(provider, history('png_image', toAiSdkToolOutput(converted, options))), 'ok')
        const body = JSON.stringify(endpoints[provider].requests.at(-1))
        assert.ok(body.includes(bytes.png.toString('base64')), `${provider}: the PNG was not sent`)
      }
    })
  })
}
