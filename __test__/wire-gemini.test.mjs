// Gemini generateContent through @google/genai (3, which needs Node 22)
// against the strict local endpoint, with a real MCP server over stdio: the
// source change's reproduction (a markdown blob and a PNG, then a second
// turn). Passed through as functionResponse parts with the declared types,
// the markdown is refused on Gemini 3 and any parts at all on Gemini 2.x,
// on every turn; toGeminiFunctionResponse succeeds on both, with media
// deferred (the 'auto' default: sibling inlineData parts) and, for Gemini
// 3, inside the response (deferMedia: false).
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, tempDir } from './fixtures/index.mjs'
import { bytes } from './fixtures/mcp-cases.mjs'
import { startGeminiMock } from './endpoints/gemini.mjs'
import { connectTestServer, naiveGemini, modernSkip } from './fixtures/wire.mjs'

const { convertToolResult, toGeminiFunctionResponse } = loadBinding()
if (modernSkip) console.log(`# wire-gemini: skipped: ${modernSkip}`)

describe('Gemini (@google/genai 3)', { skip: modernSkip }, () => {
  let genai, ApiError, endpoint, mcp
  before(async () => {
    const sdk = await import('@google/genai')
    ApiError = sdk.ApiError
    endpoint = await startGeminiMock()
    genai = new sdk.GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: endpoint.url } })
    mcp = await connectTestServer()
  })
  after(async () => {
    await mcp?.close()
    await endpoint?.close()
  })

  const contents = (responseParts, more = []) => [
    { role: 'user', parts: [{ text: 'Read the attachments of JIRA-1' }] },
    { role: 'model', parts: [{ functionCall: { id: 'fc_01', name: 'jira_attachments', args: {} } }] },
    { role: 'user', parts: responseParts },
    ...more,
  ]
  const turn2 = [
    { role: 'model', parts: [{ text: 'Noted.' }] },
    { role: 'user', parts: [{ text: 'And the screenshot?' }] },
  ]
  const send = (model, list) => genai.models.generateContent({ model, contents: list })
  const refused = async (promise, re) => {
    const error = await promise.catch((e) => e)
    assert.ok(error instanceof ApiError, `not refused: ${error?.constructor?.name} ${error?.message ?? ''}`)
    assert.equal(error.status, 400)
    assert.match(error.message, re)
  }

  test('the reproduction: pass-through fails on every turn (Gemini 3 and 2.5); the adapter succeeds on both', async (t) => {
    const result = await mcp.callTool({ name: 'jira_attachments', arguments: {} })
    const naive = [naiveGemini(result.content, 'jira_attachments', 'fc_01')]
    await refused(send('gemini-3-pro', contents(naive)), /Unsupported MIME type: text\/markdown/)
    await refused(send('gemini-3-pro', contents(naive, turn2)), /Unsupported MIME type: text\/markdown/)
    await refused(send('gemini-2.5-flash', contents(naive, turn2)), /Unknown name \\?"parts\\?"/)

    const deferred = toGeminiFunctionResponse(await convertToolResult(result, { provider: 'google', outputDir: tempDir(t) }), 'jira_attachments', 'fc_01')
    for (const model of ['gemini-3-pro', 'gemini-2.5-flash']) {
      assert.equal((await send(model, contents(deferred))).text, 'ok')
      assert.equal((await send(model, contents(deferred, turn2))).text, 'ok')
    }
    const sent = endpoint.requests.at(-1).contents[2].parts
    assert.equal(sent[0].functionResponse.id, 'fc_01')
    assert.match(sent[0].functionResponse.response.output, /\[image\/png image, \d+ KB, attached below\]$/)
    assert.equal(sent[1].inlineData.mimeType, 'image/png')
    assert.equal(sent[1].inlineData.data, bytes.png.toString('base64'))

    const inside = toGeminiFunctionResponse(
      await convertToolResult(result, { provider: 'google', deferMedia: false, outputDir: tempDir(t) }),
      'jira_attachments',
      'fc_01',
    )
    assert.equal(inside.length, 1)
    assert.equal(inside[0].functionResponse.parts[0].inlineData.mimeType, 'image/png')
    assert.equal((await send('gemini-3-pro', contents(inside, turn2))).text, 'ok')
    await refused(send('gemini-2.5-flash', contents(inside)), /Unknown name \\?"parts\\?"/)
  })

  test('a response without its call id is refused on Gemini 3; errors go in response.error', async (t) => {
    const result = await mcp.callTool({ name: 'error_result', arguments: {} })
    const parts = toGeminiFunctionResponse(await convertToolResult(result, { provider: 'google', outputDir: tempDir(t) }), 'jira_attachments')
    await refused(send('gemini-3-pro', contents(parts)), /does not carry the id/)
    const withId = toGeminiFunctionResponse(await convertToolResult(result, { provider: 'google', outputDir: tempDir(t) }), 'jira_attachments', 'fc_01')
    assert.deepEqual(withId[0].functionResponse.response, { error: 'Error: file not found' })
    assert.equal((await send('gemini-3-pro', contents(withId))).text, 'ok')
  })
})
