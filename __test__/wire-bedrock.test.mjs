// Bedrock Converse through @aws-sdk/client-bedrock-runtime against the
// strict local endpoint: the source change's reproduction (a markdown blob
// and a PNG from a real MCP server over stdio, then a second turn). Passed
// through as declared, the document named after its file ("README.md": a
// dot Bedrock does not allow) is refused on every turn; converted for
// 'bedrock' and written by toBedrockToolResult, both turns succeed.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { BedrockRuntimeClient, ConverseCommand, ValidationException } from '@aws-sdk/client-bedrock-runtime'
import { loadBinding, tempDir, corpus } from './fixtures/index.mjs'
import { bytes } from './fixtures/mcp-cases.mjs'
import { startBedrockMock } from './endpoints/bedrock.mjs'
import { connectTestServer, naiveBedrock } from './fixtures/wire.mjs'

const { convertToolResult, toBedrockToolResult } = loadBinding()

const toolConfig = { tools: [{ toolSpec: { name: 'jira_attachments', inputSchema: { json: { type: 'object' } } } }] }
const turn1 = (toolResult) => ({
  modelId: 'anthropic.claude-test',
  toolConfig,
  messages: [
    { role: 'user', content: [{ text: 'Read the attachments of JIRA-1' }] },
    { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_01', name: 'jira_attachments', input: {} } }] },
    { role: 'user', content: [toolResult] },
  ],
})
const turn2 = (toolResult) => {
  const input = turn1(toolResult)
  input.messages.push({ role: 'assistant', content: [{ text: 'Noted.' }] }, { role: 'user', content: [{ text: 'And the screenshot?' }] })
  return input
}

describe('Bedrock Converse (@aws-sdk/client-bedrock-runtime)', () => {
  let endpoint, bedrock, mcp
  before(async () => {
    endpoint = await startBedrockMock()
    bedrock = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: endpoint.url,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
      maxAttempts: 1,
    })
    mcp = await connectTestServer()
  })
  after(async () => {
    bedrock?.destroy()
    await mcp?.close()
    await endpoint?.close()
  })
  const send = (input) => bedrock.send(new ConverseCommand(input))
  const refused = async (input, re) => {
    const error = await send(input).catch((e) => e)
    assert.ok(error instanceof ValidationException, `not refused: ${error?.name} ${error?.message ?? ''}`)
    assert.match(error.message, re)
  }

  test('the reproduction: pass-through fails on every turn; the adapter succeeds on both', async (t) => {
    const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
    const naive = { toolResult: { toolUseId: 'tooluse_01', content: naiveBedrock(result.content) } }
    await refused(turn1(naive), /The document file name can only contain alphanumeric characters/)
    await refused(turn2(naive), /The document file name can only contain alphanumeric characters/)

    const converted = await convertToolResult(result, { provider: 'bedrock', outputDir: tempDir(t) })
    const block = toBedrockToolResult(converted, 'tooluse_01')
    assert.equal((await send(turn1(block))).output.message.content[0].text, 'ok')
    assert.equal((await send(turn2(block))).output.message.content[0].text, 'ok')
    const sent = endpoint.requests.at(-1).messages[2].content[0].toolResult
    assert.equal(sent.status, 'success')
    assert.deepEqual(
      sent.content.map((b) => Object.keys(b)[0]),
      ['text', 'text', 'image'],
    )
    assert.ok(Buffer.from(sent.content[2].image.source.bytes, 'base64').equals(bytes.png))
  })

  test('documents: names within the character rules, unique, with a text block beside them; errors flagged', async (t) => {
    const pdf = corpus('fixture.pdf').toString('base64')
    const result = {
      isError: true,
      content: [
        { type: 'resource', resource: { uri: 'file:///q3 report.v2 (final)!.pdf', mimeType: 'application/pdf', blob: pdf } },
        { type: 'resource', resource: { uri: 'file:///q3 report.v2 (final)!.pdf', mimeType: 'application/pdf', blob: pdf } },
      ],
    }
    const converted = await convertToolResult(result, { provider: 'bedrock', outputDir: tempDir(t) })
    const block = toBedrockToolResult(converted, 'tooluse_01')
    assert.equal(block.toolResult.status, 'error')
    const names = block.toolResult.content.filter((b) => b.document).map((b) => b.document.name)
    assert.deepEqual(names, ['q3 report-v2 (final)-', 'q3 report-v2 (final)- (2)'])
    assert.equal((await send(turn1(block))).output.message.content[0].text, 'ok')
    // The same documents without a text block are refused.
    const bare = { toolResult: { toolUseId: 'tooluse_01', content: block.toolResult.content.filter((b) => b.document) } }
    await refused(turn1(bare), /must include a text block along with a document/)
  })
})
