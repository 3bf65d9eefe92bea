// Whole tool results from real MCP servers, as users get them: server-filesystem (read_media_file
// on a 4.5 MB PNG (sharp's noise), a JPEG, a PDF, audio and a zip; read_text_file on a 20 MB markdown file), which
// sends each file twice (a content part and again inside structuredContent), server-everything,
// and a browser server (@playwright/mcp with Debian's chromium) taking a 20,000 px full-page
// screenshot. Each result goes through convertToolResult for every profile and through that
// profile's adapter into a request the strict local endpoints check (they refuse what the real
// APIs refuse); every text part must stay within the text cap. Through the proxy, the SDK 1.x
// client (10 MiB stdio buffer) must keep its connection and accept each result against the tool's
// output schema.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import sharp from 'sharp'
import { loadBinding, repoRoot, corpus, tempDir, cliPath as cli } from './fixtures/index.mjs'
import { validateMessagesRequest } from './endpoints/anthropic.mjs'
import { validateResponsesRequest } from './endpoints/openai-responses.mjs'
import { validateChatRequest } from './endpoints/openai-chat.mjs'
import { validateGenerateContent } from './endpoints/gemini.mjs'
import { validateConverse } from './endpoints/bedrock.mjs'

const mcp = loadBinding()
const { convertToolResult, estimateTokens } = mcp
const TIMEOUT = { timeout: 180_000 }
const CAP = 12_500
const CHROMIUM = '/usr/bin/chromium'

function serverBin(name, ...args) {
  const dir = path.join(repoRoot, 'node_modules', name)
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  return [path.join(dir, typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]), ...args]
}

async function connect(args, maxBufferSize) {
  const client = new Client({ name: 'mcp-content-real-server-test', version: '0.0.0' })
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', cwd: repoRoot, maxBufferSize })
  let closed = false
  transport.onclose = () => (closed = true)
  await client.connect(transport)
  client.isClosed = () => closed
  return client
}

// Each profile's request, built by its adapter, for the strict endpoint of that API.
const anthropic = (maxImageBase64) => (converted) => {
  const deferred = mcp.toAnthropicContent(converted.deferred)
  const body = {
    model: 'claude-test',
    max_tokens: 1,
    messages: [
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
      { role: 'user', content: [mcp.toAnthropicToolResult(converted, 'toolu_1'), ...deferred] },
    ],
  }
  validateMessagesRequest(body, { maxImageBase64 })
}
const openaiChat = (converted) =>
  validateChatRequest({
    model: 'gpt-test',
    messages: [
      { role: 'user', content: 'read it' },
      { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
      ...mcp.toOpenAIChatMessages(converted, 'call_1'),
    ],
  })
const REQUESTS = {
  default: anthropic(5_242_880),
  anthropic: anthropic(10_485_760),
  'anthropic-bedrock': anthropic(5_242_880),
  'anthropic-vertex': anthropic(5_242_880),
  openai: (converted) => {
    const input = [{ type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{}' }, mcp.toOpenAIResponsesOutput(converted, 'call_1')]
    if (converted.deferred.length > 0) input.push(mcp.toOpenAIResponsesMessage(converted.deferred))
    validateResponsesRequest({ model: 'gpt-test', input })
  },
  'openai-chat': openaiChat,
  openrouter: openaiChat,
  google: (converted) => {
    const parts = [mcp.toGeminiFunctionResponse(converted, 'read')].flat()
    const call = { functionCall: { name: 'read', args: {}, id: parts[0].functionResponse.id } }
    validateGenerateContent('gemini-3-pro', {
      contents: [
        { role: 'user', parts: [{ text: 'read it' }] },
        { role: 'model', parts: [call] },
        { role: 'user', parts },
      ],
    })
  },
  // The AWS SDK sends bytes as base64 on the wire.
  bedrock: (converted) =>
    validateConverse(
      onTheWire({
        modelId: 'anthropic.claude-test',
        toolConfig: { tools: [{ toolSpec: { name: 'read', inputSchema: { json: { type: 'object' } } } }] },
        messages: [
          { role: 'user', content: [{ text: 'read it' }] },
          { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'read', input: {} } }] },
          { role: 'user', content: [mcp.toBedrockToolResult(converted, 'tooluse_1')] },
        ],
      }),
    ),
}

/** A request as JSON carries it: bytes as base64 strings. */
function onTheWire(body) {
  return JSON.parse(
    JSON.stringify(body, (key, value) =>
      value instanceof Uint8Array
        ? Buffer.from(value).toString('base64')
        : value?.type === 'Buffer' && Array.isArray(value.data)
          ? Buffer.from(value.data).toString('base64')
          : value,
    ),
  )
}

/** Every text part within the cap, and the request of each profile accepted by its endpoint. */
async function checkEveryProfile(t, name, result, options = {}) {
  for (const [provider, request] of Object.entries(REQUESTS)) {
    const converted = await convertToolResult(result, { provider, outputDir: tempDir(t), toolCallId: 'call_1', ...options })
    for (const part of [...converted.content, ...converted.deferred]) {
      if (part.type === 'text')
        assert.ok(estimateTokens(part.text) <= CAP, `${name}, ${provider}: a text part of ${estimateTokens(part.text)} tokens: ${part.text.slice(0, 200)}`)
    }
    assert.doesNotThrow(() => request(converted), `${name}, ${provider}: refused`)
    // The AI SDK's tool output: the parts, or the error's text.
    const output = mcp.toAiSdkToolOutput(converted)
    assert.equal(output.type, converted.isError ? 'error-text' : 'content', `${name}, ${provider}: ${output.type}`)
  }
}

describe('server-filesystem: read_media_file and read_text_file', () => {
  let dir
  let direct
  let proxied
  const files = {}
  before(async () => {
    dir = tempDir(null, 'mcp-content-fs-')
    // A 4.5 MB PNG of noise (1300x1150, a real encoder's rows): 6 MB as base64, twice in the message.
    files['photo.png'] = await sharp({ create: { width: 1300, height: 1150, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 80 } } })
      .png({ compressionLevel: 1 })
      .toBuffer()
    assert.ok(files['photo.png'].length > 4_000_000, `a PNG of ${files['photo.png'].length} bytes`)
    files['shot.jpg'] = corpus('fixture.jpg')
    files['paper.pdf'] = corpus('fixture.pdf')
    files['sound.wav'] = corpus('fixture.wav')
    files['sound.mp3'] = corpus('fixture.mp3')
    files['bundle.zip'] = corpus('fixture.zip')
    for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes)
    // 20 MB of markdown: read_text_file sends it as a text part and again in structuredContent.
    const line = '- a line of a long markdown file, with some words in it to read\n'
    fs.writeFileSync(path.join(dir, 'notes.md'), line.repeat(Math.ceil(20_000_000 / line.length)))
    const server = serverBin('@modelcontextprotocol/server-filesystem', dir)
    direct = await connect(server, 256 * 1024 * 1024)
    proxied = await connect([cli, 'proxy', '--output-dir', tempDir(null, 'mcp-content-fs-proxy-'), '--', process.execPath, ...server])
    await Promise.all([direct.listTools(), proxied.listTools()])
  })
  after(async () => {
    await Promise.all([direct?.close(), proxied?.close()])
  })

  test('every result, every profile: text within the cap, every request accepted', TIMEOUT, async (t) => {
    for (const name of Object.keys(files)) {
      const result = await direct.callTool({ name: 'read_media_file', arguments: { path: path.join(dir, name) } })
      assert.ok(result.structuredContent, `${name}: the server repeats the file in structuredContent`)
      await checkEveryProfile(t, name, result)
    }
    const text = await direct.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'notes.md') } })
    await checkEveryProfile(t, 'notes.md', text)
  })

  test('the repeated file is left out of the structured JSON, and said so', TIMEOUT, async (t) => {
    const result = await direct.callTool({ name: 'read_media_file', arguments: { path: path.join(dir, 'photo.png') } })
    const converted = await convertToolResult(result, { outputDir: tempDir(t) })
    const json = converted.content.at(-1).text
    assert.match(
      json,
      /^\[Structured content: 1 string that repeats a content part left out\]\n\{"content":\[\{"type":"image","data":"<repeats content part 1>","mimeType":"image\/png"\}\]\}$/,
    )
    assert.equal(converted.structuredContent.content[0].data, '<repeats content part 1>')
    assert.equal(result.structuredContent.content[0].data, result.content[0].data, 'the input is left as it was')
  })

  test('through the proxy: the SDK client keeps its connection and accepts each result against the output schema', TIMEOUT, async () => {
    for (const name of ['photo.png', 'paper.pdf', 'bundle.zip']) {
      const result = await proxied.callTool({ name: 'read_media_file', arguments: { path: path.join(dir, name) } })
      assert.ok(result.structuredContent, name)
      assert.ok(Buffer.byteLength(JSON.stringify(result)) < 10 * 1024 * 1024, `${name}: the result is under 10 MiB`)
      for (const part of result.content) if (part.type === 'text') assert.ok(estimateTokens(part.text) <= CAP, `${name}: ${part.text.slice(0, 200)}`)
    }
    const text = await proxied.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'notes.md') } })
    assert.equal(typeof text.structuredContent.content, 'string')
    assert.ok(JSON.stringify(text).length < 1_000_000, `read_text_file of 20 MB gives ${JSON.stringify(text).length} characters`)
    assert.equal(proxied.isClosed(), false)
  })
})

describe('server-everything: every tool that returns content', () => {
  let client
  before(async () => {
    client = await connect(serverBin('@modelcontextprotocol/server-everything', 'stdio'))
  })
  after(async () => client?.close())

  const calls = [
    ['get-tiny-image', {}],
    ['get-resource-links', {}],
    ['get-resource-reference', {}],
    ['get-annotated-message', { messageType: 'error', includeImage: true }],
    ['get-structured-content', { location: 'New York' }],
    ['gzip-file-as-resource', {}],
    ['echo', { message: 'hello' }],
  ]
  test('each result, every profile', TIMEOUT, async (t) => {
    await client.listTools()
    for (const [name, args] of calls) await checkEveryProfile(t, name, await client.callTool({ name, arguments: args }))
  })

  test('get-resource-links with readResource: each link read through the client and converted, every profile', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'get-resource-links', arguments: { count: 4 } })
    const readResource = (uri) => client.readResource({ uri })
    const links = result.content.filter((p) => p.type === 'resource_link')
    assert.equal(links.length, 4)
    const converted = await convertToolResult(result, { outputDir: tempDir(t), readResource })
    assert.equal(converted.content.length, result.content.length)
    assert.equal(converted.content[0].text, result.content[0].text)
    for (const [i, link] of links.entries()) {
      // Odd ids are blobs (text/plain as base64: decoded), even ones text; each made with the time it was read.
      const made = link.uri.includes('/blob/') ? 'This is a base64 blob created at' : 'This is a plaintext resource created at'
      const text = converted.content[i + 1].text
      assert.ok(text.startsWith(`[Resource ${link.uri} (text/plain)]\nResource ${i + 1}: ${made} `), text)
      assert.equal(converted.sources[i + 1], i + 1)
    }
    await checkEveryProfile(t, 'get-resource-links, read', result, { readResource })
  })
})

describe('a browser server: @playwright/mcp with Debian chromium', () => {
  const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (.ci/run installs Debian's chromium)`
  let client
  let page
  before(async () => {
    if (skip) return
    // A page 20,000 px tall, served on loopback, for a full-page screenshot.
    page = http.createServer((req, res) => {
      res.setHeader('content-type', 'text/html')
      res.end('<!doctype html><body style="margin:0"><div style="height:20000px;background:linear-gradient(red,blue)">tall</div></body>')
    })
    await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve))
    const profile = tempDir(null, 'mcp-content-browser-')
    client = await connect(
      serverBin(
        '@playwright/mcp',
        '--headless',
        '--isolated',
        '--no-sandbox',
        '--browser',
        'chromium',
        '--executable-path',
        CHROMIUM,
        '--output-dir',
        profile,
        '--viewport-size',
        '1280x800',
      ),
      64 * 1024 * 1024,
    )
  })
  after(async () => {
    await client?.close()
    page?.close()
  })

  test('a full-page screenshot of 20,000 px, every profile', { ...TIMEOUT, skip }, async (t) => {
    await client.callTool({ name: 'browser_navigate', arguments: { url: `http://127.0.0.1:${page.address().port}/` } })
    const shot = await client.callTool({ name: 'browser_take_screenshot', arguments: { fullPage: true, type: 'png' } })
    const image = shot.content.find((p) => p.type === 'image')
    assert.ok(image, `a screenshot: ${JSON.stringify(shot).slice(0, 300)}`)
    assert.ok(mcp.classify(image.data).height > 8000, 'taller than any provider takes')
    await checkEveryProfile(t, 'screenshot', shot)
  })
})
