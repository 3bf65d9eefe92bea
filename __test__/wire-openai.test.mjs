// OpenAI Responses and Chat Completions through the `openai` SDK (7, which
// needs Node 22) against strict local endpoints, with a real MCP server over
// stdio. Chat: the source change's reproduction (a markdown blob and a PNG,
// then a second turn) passed through inside the tool message is refused on
// every turn; toOpenAIChatMessages (tool text + a user message with the
// media) succeeds on both. Responses reads a .md input_file as text, so the
// markdown blob alone does not break it: there the session is broken by an
// SVG declared as an image (input_image takes png, jpeg, webp and still
// gif), and repairHistory mends it.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, tempDir } from './fixtures/index.mjs'
import { bytes } from './fixtures/mcp-cases.mjs'
import { startOpenAIResponsesMock } from './endpoints/openai-responses.mjs'
import { startOpenAIChatMock } from './endpoints/openai-chat.mjs'
import { connectTestServer, naiveResponses, naiveChat, modernSkip } from './fixtures/wire.mjs'

const { convertToolResult, toOpenAIResponsesOutput, toOpenAIChatMessages, toOpenAIChatUserMessage, repairHistory, AttachmentQueue } = loadBinding()
if (modernSkip) console.log(`# wire-openai: skipped: ${modernSkip}`)

describe('OpenAI (openai 7)', { skip: modernSkip }, () => {
  let OpenAI, responsesEndpoint, chatEndpoint, responses, chat, mcp
  before(async () => {
    OpenAI = (await import('openai')).default
    responsesEndpoint = await startOpenAIResponsesMock()
    chatEndpoint = await startOpenAIChatMock()
    responses = new OpenAI({ apiKey: 'test-key', baseURL: `${responsesEndpoint.url}/v1`, maxRetries: 0 })
    chat = new OpenAI({ apiKey: 'test-key', baseURL: `${chatEndpoint.url}/v1`, maxRetries: 0 })
    mcp = await connectTestServer()
  })
  after(async () => {
    await mcp?.close()
    await responsesEndpoint?.close()
    await chatEndpoint?.close()
  })
  const refused = async (promise, re) => {
    const error = await promise.catch((e) => e)
    assert.ok(error instanceof OpenAI.BadRequestError, `not refused: ${error?.constructor?.name} ${error?.message ?? ''}`)
    assert.match(error.message, re)
  }

  describe('Responses', () => {
    const input = (output, name, more = []) => [
      { role: 'user', content: `Call ${name}` },
      { type: 'function_call', call_id: 'call_01', name, arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_01', output },
      ...more,
    ]
    const turn2 = [
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'And now?' },
    ]
    const send = (items) => responses.responses.create({ model: 'gpt-test', input: items })

    test('the reproduction (markdown blob and PNG): the adapter sends the markdown as text and the PNG as input_image', async (t) => {
      const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
      // OpenAI reads a .md input_file as text: pass-through is not refused here.
      assert.equal((await send(input(naiveResponses(result.content), 'jira_attachments'))).output_text, 'ok')
      const converted = await convertToolResult(result, { provider: 'openai', outputDir: tempDir(t) })
      const item = toOpenAIResponsesOutput(converted, 'call_01')
      assert.equal((await send(input(item.output, 'jira_attachments'))).output_text, 'ok')
      assert.equal((await send(input(item.output, 'jira_attachments', turn2))).output_text, 'ok')
      const sent = responsesEndpoint.requests.at(-1).input[2].output
      assert.deepEqual(
        sent.map((p) => p.type),
        ['input_text', 'input_text', 'input_image'],
      )
      assert.equal(sent[1].text, `[Resource file:///README.md (text/markdown)]\n${bytes.markdown.toString('utf8')}`)
      assert.equal(sent[2].image_url, `data:image/png;base64,${bytes.png.toString('base64')}`)
    })

    test('an SVG declared as an image breaks every turn passed through; the adapter succeeds; repairHistory mends the history', async (t) => {
      const result = await mcp.callTool({ name: 'svg_image', arguments: {} })
      const naive = input(naiveResponses(result.content), 'svg_image', turn2)
      await refused(send(naive.slice(0, 3)), /unsupported MIME type 'image\/svg\+xml'/)
      await refused(send(naive), /unsupported MIME type 'image\/svg\+xml'/)
      const converted = await convertToolResult(result, { provider: 'openai', outputDir: tempDir(t) })
      const item = toOpenAIResponsesOutput(converted, 'call_01')
      assert.equal((await send(input(item.output, 'svg_image'))).output_text, 'ok')
      assert.equal((await send(input(item.output, 'svg_image', turn2))).output_text, 'ok')
      const { messages, repaired } = repairHistory(naive, { format: 'openai-responses', provider: 'openai', outputDir: tempDir(t) })
      assert.equal(repaired, 1)
      assert.deepEqual(messages[2].output, [{ type: 'input_text', text: `[Image (image/svg+xml)]\n${bytes.svg.toString('utf8')}` }])
      assert.equal((await send(messages)).output_text, 'ok')
    })
  })

  describe('Chat Completions', () => {
    const messages = (name, tail, more = []) => [
      { role: 'user', content: `Call ${name}` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_01', type: 'function', function: { name, arguments: '{}' } }] },
      ...tail,
      ...more,
    ]
    const turn2 = [
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'And now?' },
    ]
    const send = (list) => chat.chat.completions.create({ model: 'gpt-test', messages: list })

    test('the reproduction: media inside the tool message fail on every turn; the adapter succeeds on both', async (t) => {
      const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
      const naive = [{ role: 'tool', tool_call_id: 'call_01', content: naiveChat(result.content) }]
      await refused(send(messages('jira_attachments', naive)), /Supported values are: 'text'/)
      await refused(send(messages('jira_attachments', naive, turn2)), /Supported values are: 'text'/)
      const converted = await convertToolResult(result, { provider: 'openai-chat', outputDir: tempDir(t) })
      const tail = toOpenAIChatMessages(converted, 'call_01')
      assert.equal(tail.length, 2)
      assert.equal((await send(messages('jira_attachments', tail))).choices[0].message.content, 'ok')
      assert.equal((await send(messages('jira_attachments', tail, turn2))).choices[0].message.content, 'ok')
      const sent = chatEndpoint.requests.at(-1).messages
      assert.match(sent[2].content, /^Attachments of JIRA-1:\n\n\[Resource file:\/\/\/README\.md \(text\/markdown\)\]\n# Jira attachment/)
      assert.match(sent[2].content, /\[image\/png image, \d+ KB, attached below\]$/)
      assert.deepEqual(sent[3].content, [{ type: 'image_url', image_url: { url: `data:image/png;base64,${bytes.png.toString('base64')}` } }])
    })

    test('two tool calls in one turn: tool messages first, then one user message with the queued media', async (t) => {
      const queue = new AttachmentQueue()
      const tails = []
      for (const [id, name] of [
        ['call_01', 'png_image'],
        ['call_02', 'pdf_resource'],
      ]) {
        const result = await mcp.callTool({ name, arguments: {} })
        const converted = await convertToolResult(result, { provider: 'openai-chat', toolCallId: id, attachments: queue, outputDir: tempDir(t) })
        tails.push(toOpenAIChatMessages(converted, id)[0])
      }
      const list = [
        { role: 'user', content: 'Call both' },
        {
          role: 'assistant',
          content: null,
          tool_calls: ['call_01', 'call_02'].map((id) => ({ id, type: 'function', function: { name: 'x', arguments: '{}' } })),
        },
        ...tails,
        toOpenAIChatUserMessage(queue.drain()),
      ]
      assert.equal((await send(list)).choices[0].message.content, 'ok')
      assert.deepEqual(
        chatEndpoint.requests.at(-1).messages[4].content.map((p) => p.type),
        ['image_url', 'file'],
      )
    })
  })
})
