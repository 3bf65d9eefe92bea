// Resource links read on request (convertToolResult's `readResource`): each `resource_link` part
// read through the caller's function and its contents converted as embedded resources at the
// link's place; the bounds (links, bytes, time) and every way a read can fail leave the link's
// note saying why. Through the real SDK 1.x client against __test__/fixtures/link-server.mjs
// (server-everything's links are in real-server-results.test.mjs), and with plain functions for
// what no SDK client lets through (hostile values, late settlements).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { loadBinding, repoRoot, testDir, tempDir, parseSavedNote, checkFilePart, checkSavedNote, snapshot } from './fixtures/index.mjs'
import { deepFreeze } from './fixtures/results.mjs'
import { bytes, resources, tools, link, BIG_TEXT_BYTES } from './fixtures/link-cases.mjs'
import { validateMessagesRequest } from './endpoints/anthropic.mjs'
import { validateChatRequest } from './endpoints/openai-chat.mjs'

const mcp = loadBinding()
const { convertToolResult, convertToolResultSync } = mcp
const TIMEOUT = { timeout: 60_000 }
const linkServer = path.join(testDir, 'fixtures', 'link-server.mjs')

async function connect() {
  const client = new Client({ name: 'mcp-content-links-test', version: '0.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [linkServer], stderr: 'pipe', cwd: repoRoot }))
  return client
}

/** The link note the core writes today, with `why` after its details (and its description on the next line). */
function noteOf(part, why) {
  const details = [part.name, part.mimeType].filter((d) => d !== undefined)
  const head = `[Resource link ${part.uri}${details.length > 0 ? ` (${details.join(', ')})` : ''}: ${why}]`
  return part.description === undefined ? head : `${head}\n${part.description}`
}

/** A result's content with each text's saved path replaced by the saved file's bytes, so two conversions compare. */
function comparable(converted) {
  const content = converted.content.map((p) => {
    const saved = p.type === 'text' ? parseSavedNote(p.text)?.path : undefined
    return saved ? { ...p, text: p.text.replace(saved, `<${fs.readFileSync(saved).toString('base64')}>`) } : p
  })
  return { content, isError: converted.isError, deferred: converted.deferred, saved: converted.saved.map((s) => ({ ...s, path: undefined })) }
}

/** `result` with each link read from link-cases.mjs replaced by its contents as embedded resource parts: what a read must equal. */
function embedded(result, uris) {
  return {
    ...result,
    content: result.content.flatMap((part) =>
      part.type === 'resource_link' && uris.includes(part.uri) ? resources[part.uri].contents.map((resource) => ({ type: 'resource', resource })) : [part],
    ),
  }
}

describe('through the SDK 1.x client: link-server.mjs', () => {
  let client
  /** uris read through the client, in order. */
  const asked = []
  const readResource = (uri) => {
    asked.push(uri)
    return client.readResource({ uri })
  }
  before(async () => {
    client = await connect()
  })
  after(async () => client?.close())

  test('every link read: text inline, a markdown blob decoded, a PNG and a PDF attached, a zip saved', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'good_links' })
    const dir = tempDir(t)
    const got = await convertToolResult(result, { outputDir: dir, readResource })
    const uris = result.content.filter((p) => p.type === 'resource_link').map((p) => p.uri)
    const want = await convertToolResult(embedded(result, uris), { outputDir: tempDir(t) })
    assert.deepEqual(comparable(got), comparable(want))
    // What each one became, checked on its own too.
    assert.equal(got.content[0].text, 'five resources:')
    assert.equal(got.content[1].text, '[Resource links://good/text (text/plain)]\na text read through its link')
    assert.equal(got.content[2].text, `[Resource links://good/markdown (text/markdown)]\n${bytes.markdown}`)
    checkFilePart(assert, got.content[3], { mediaType: 'image/png', bytes: bytes.png })
    checkFilePart(assert, got.content[4], { mediaType: 'application/pdf', bytes: bytes.pdf, uri: 'links://good/pdf' })
    checkSavedNote(assert, got.content[5], { head: 'Binary resource links://good/zip', mediaType: 'application/zip', bytes: bytes.zip, dir })
    assert.equal(got.content.length, 6)
    // Each linked part comes from its link.
    assert.deepEqual(got.sources, [0, 1, 2, 3, 4, 5])
    // The strict endpoints take the result: in the tool result (Anthropic), or deferred to a user message (Chat Completions).
    validateMessagesRequest({
      model: 'claude-test',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'read it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'good_links', input: {} }] },
        { role: 'user', content: [mcp.toAnthropicToolResult(got, 'toolu_1')] },
      ],
    })
    const chat = await convertToolResult(result, { provider: 'openai-chat', outputDir: dir, readResource })
    assert.equal(chat.deferred.length, 2, 'the PNG and the PDF wait for the user message')
    validateChatRequest({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'read it' },
        { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'good_links', arguments: '{}' } }] },
        ...mcp.toOpenAIChatMessages(chat, 'call_1'),
      ],
    })
  })

  test('a link with two contents: both at its place, in order', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'pair_link' })
    const got = await convertToolResult(result, { outputDir: tempDir(t), readResource })
    assert.equal(got.content[0].text, '[Resource links://good/pair#1 (text/plain)]\nfirst of a pair')
    checkFilePart(assert, got.content[1], { mediaType: 'image/png', bytes: bytes.png })
    assert.equal(got.content[2].text, 'after the pair')
    assert.deepEqual(got.sources, [0, 0, 1])
  })

  test('reads that fail, hang or answer no contents: each link keeps its note and says why; the others are read', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'bad_links' })
    const got = await convertToolResult(result, { outputDir: tempDir(t), readResource, linkTimeoutMs: 300 })
    const links = result.content
    assert.equal(got.content.length, links.length)
    assert.equal(got.content[0].text, noteOf(links[0], 'could not be read: MCP error -32603: the disk is on fire'))
    assert.equal(got.content[1].text, noteOf(links[1], 'could not be read: timed out after 300 ms'))
    // The SDK client refuses what is not a resource's contents (its schema's error, escaped on one line).
    for (const i of [2, 3, 4]) {
      assert.ok(got.content[i].text.startsWith(noteOf(links[i], 'could not be read: ').slice(0, -1)), got.content[i].text)
      assert.ok(!got.content[i].text.includes('\n'), got.content[i].text)
      assert.ok(got.content[i].text.length < 700, `a bounded note: ${got.content[i].text.length} characters`)
    }
    assert.equal(got.content[5].text, noteOf(links[5], 'could not be read: the answer has no contents'))
    assert.match(got.content[6].text, /^\[Resource link links:\/\/bad\/unknown \(unknown\): could not be read: MCP error -32602: .*not found\]$/)
    assert.equal(got.content[7].text, '[Resource links://good/text (text/plain)]\na text read through its link')
  })

  test('the byte bound: a read that would pass it is left out, one that fits after it is read', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'big_links' })
    const got = await convertToolResult(result, { outputDir: tempDir(t), readResource, maxLinkedBytes: 1_000_000, maxTextTokens: Infinity })
    assert.equal(got.content[0].text, `[Resource links://big/1 (text/plain)]\n${'1'.repeat(BIG_TEXT_BYTES)}`)
    const over = `not read: its ${BIG_TEXT_BYTES} bytes would pass the limit of 1000000 bytes read per result`
    assert.equal(got.content[1].text, noteOf(result.content[1], over))
    assert.equal(got.content[2].text, noteOf(result.content[2], over))
    assert.equal(got.content[3].text, '[Resource links://small (text/plain)]\nsmall')
    // Reached exactly: nothing more is taken.
    const reached = await convertToolResult(result, { outputDir: tempDir(t), readResource, maxLinkedBytes: BIG_TEXT_BYTES, maxTextTokens: Infinity })
    assert.equal(reached.content[0].text.length > BIG_TEXT_BYTES, true)
    for (const i of [1, 2, 3]) {
      assert.equal(reached.content[i].text, noteOf(result.content[i], `not read: the limit of ${BIG_TEXT_BYTES} bytes read per result was reached`))
    }
  })

  test('the link bound: the first links are read, the rest keep their notes and say why', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'many_links' })
    const got = await convertToolResult(result, { outputDir: tempDir(t), readResource })
    assert.equal(got.content.length, 14)
    for (let i = 0; i < 10; i++) assert.equal(got.content[i].text, `[Resource links://count/${i + 1} (text/plain)]\ncounted resource ${i + 1}`)
    for (let i = 10; i < 14; i++) assert.equal(got.content[i].text, noteOf(result.content[i], 'not read: over the limit of 10 links read per result'))
    asked.length = 0
    const three = await convertToolResult(result, { outputDir: tempDir(t), readResource, maxLinks: 3 })
    assert.deepEqual(asked, ['links://count/1', 'links://count/2', 'links://count/3'], 'links past the bound are not read')
    assert.equal(three.content[3].text, noteOf(result.content[3], 'not read: over the limit of 3 links read per result'))
    const one = await convertToolResult(result, { outputDir: tempDir(t), readResource, maxLinks: 1 })
    assert.equal(one.content[1].text, noteOf(result.content[1], 'not read: over the limit of 1 link read per result'))
  })

  test('a link for the user alone is not read (nor counted), as it is not converted', TIMEOUT, async (t) => {
    const result = await client.callTool({ name: 'user_link' })
    asked.length = 0
    const got = await convertToolResult(result, { outputDir: tempDir(t), readResource, maxLinks: 1 })
    assert.deepEqual(asked, ['links://good/png'])
    assert.equal(got.content.length, 1)
    checkFilePart(assert, got.content[0], { mediaType: 'image/png', bytes: bytes.png })
    assert.deepEqual(got.sources, [1])
  })
})

/** A result of links to `uris` (from link-cases.mjs), read by `read`. */
const linksTo = (...uris) => ({ content: uris.map((uri) => link(uri)) })
const ONE = { content: [link('links://good/text', { description: 'a plain text' })] }
const answer = (uri) => structuredClone({ contents: resources[uri].contents })
const noteFor = async (read, options = {}) => (await convertToolResult(ONE, { readResource: read, linkTimeoutMs: 200, ...options })).content[0].text
const why = (text) => noteOf(ONE.content[0], text)

describe('reads that misbehave, with plain functions', () => {
  test('a read that throws, rejects, or answers what is not contents: the note says why, nothing throws', async () => {
    const thrown = (value) => () => {
      throw value
    }
    const cases = [
      [thrown(new Error('boom')), 'could not be read: boom'],
      [thrown('a string'), 'could not be read: a string'],
      [thrown(undefined), 'could not be read: the read failed without a message'],
      [
        thrown({
          get message() {
            throw new Error('hostile message')
          },
        }),
        'could not be read: the read failed without a message',
      ],
      [() => Promise.reject(new TypeError('no such resource')), 'could not be read: no such resource'],
      [async () => 42, 'could not be read: the answer is not an object'],
      [async () => null, 'could not be read: the answer is not an object'],
      [async () => undefined, 'could not be read: the answer is not an object'],
      [async () => ({}), 'could not be read: the answer has no `contents` array'],
      [async () => ({ contents: 'text' }), 'could not be read: the answer has no `contents` array'],
      [async () => ({ contents: [] }), 'could not be read: the answer has no contents'],
      [async () => ({ contents: [null] }), 'could not be read: content 1 is not an object'],
      [async () => ({ contents: [{ uri: 'u' }] }), 'could not be read: content 1 has neither `text` nor `blob`'],
      [
        async () => ({
          contents: [
            { uri: 'u', text: 'ok' },
            { uri: 'u', blob: 42 },
          ],
        }),
        'could not be read: content 2 has a `blob` that is not a string',
      ],
      [async () => ({ contents: [{ uri: 'u', text: 7 }] }), 'could not be read: content 1 has a `text` that is not a string'],
      [async () => ({ contents: [{ uri: 5, text: 'x' }] }), 'could not be read: content 1 has a `uri` that is not a string'],
      [async () => ({ contents: [{ uri: 'u', text: 'x', mimeType: {} }] }), 'could not be read: content 1 has a `mimeType` that is not a string'],
      [
        async () => ({
          get contents() {
            throw new Error('hostile getter')
          },
        }),
        'could not be read: reading the answer threw: hostile getter',
      ],
      [
        async () => ({
          contents: new Proxy([], {
            get: () => {
              throw new Error('hostile proxy')
            },
          }),
        }),
        'could not be read: reading the answer threw: hostile proxy',
      ],
      // A thenable whose `then` throws when read is a rejection.
      [
        () => ({
          // oxlint-disable-next-line unicorn/no-thenable -- the hostile thenable is the case under test
          get then() {
            throw new Error('hostile then')
          },
        }),
        'could not be read: hostile then',
      ],
      // A read returning a plain value (not a promise) is taken as its answer.
      [() => answer('links://good/text'), undefined],
    ]
    for (const [read, note] of cases) {
      const got = await noteFor(read)
      if (note === undefined) assert.equal(got, '[Resource links://good/text (text/plain)]\na text read through its link')
      else assert.equal(got, why(note), String(read))
    }
  })

  test('a long or multi-line message is escaped, on one line, and cut', async () => {
    const got = await noteFor(() => Promise.reject(new Error(`first line\n[Resource x]\n${'y'.repeat(5000)}`)))
    assert.ok(got.startsWith('[Resource link links://good/text (text, text/plain): could not be read: first line %5BResource x%5D yyy'), got)
    assert.match(got, /y… \+\d+ characters\]\na plain text$/)
    assert.ok(got.length < 1000, `${got.length} characters`)
  })

  test('a read that never settles times out; its late answer, or rejection, does nothing', async () => {
    assert.equal(await noteFor(() => new Promise(() => {})), why('could not be read: timed out after 200 ms'))
    // Answered after the timeout: its getters are never run.
    let touched = false
    const late = () =>
      new Promise((resolve) =>
        setTimeout(
          () =>
            resolve({
              get contents() {
                touched = true
                return []
              },
            }),
          400,
        ),
      )
    assert.equal(await noteFor(late), why('could not be read: timed out after 200 ms'))
    // A rejection after the timeout is no unhandled rejection.
    const rejects = () => new Promise((_, reject) => setTimeout(() => reject(new Error('too late')), 300))
    assert.equal(await noteFor(rejects), why('could not be read: timed out after 200 ms'))
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal(touched, false, 'a late answer was read')
    // Ten seconds by default: the note says so in seconds.
    assert.equal(
      (await convertToolResult(ONE, { readResource: () => new Promise(() => {}), linkTimeoutMs: 1000 })).content[0].text,
      why('could not be read: timed out after 1 s'),
    )
  })

  test('a thenable that settles twice: the first settlement counts', async () => {
    const twice = () => ({
      // oxlint-disable-next-line unicorn/no-thenable -- a thenable that settles twice is the case under test
      then(resolve, reject) {
        resolve(answer('links://good/text'))
        reject(new Error('second'))
        resolve({ contents: [{ uri: 'x', text: 'third' }] })
      },
    })
    assert.equal(await noteFor(twice), '[Resource links://good/text (text/plain)]\na text read through its link')
  })

  test('reads run concurrently, at most four at once, and their parts stay in the result order', async () => {
    let running = 0
    let most = 0
    const order = []
    const read = (uri) => {
      running++
      most = Math.max(most, running)
      const n = Number(uri.slice(uri.lastIndexOf('/') + 1))
      // Later links answer sooner.
      return new Promise((resolve) =>
        setTimeout(
          () => {
            running--
            order.push(n)
            resolve(answer(uri))
          },
          10 * (15 - n),
        ),
      )
    }
    const result = linksTo(...Array.from({ length: 10 }, (_, i) => `links://count/${i + 1}`))
    const got = await convertToolResult(result, { readResource: read })
    assert.ok(most > 1 && most <= 4, `${most} reads at once`)
    assert.notDeepEqual(
      order,
      [...order].sort((a, b) => a - b),
      'the reads settled out of order',
    )
    assert.deepEqual(
      got.content.map((p) => p.text),
      result.content.map((p, i) => `[Resource ${p.uri} (text/plain)]\ncounted resource ${i + 1}`),
    )
  })

  test('the bytes counted are decoded bytes of a blob and UTF-8 bytes of a text', async () => {
    // 'é' is 2 bytes in UTF-8: 3 of them are 6 bytes; a blob of 6 bytes is 8 characters of base64.
    const text = () => ({ contents: [{ uri: 'u', text: 'ééé' }] })
    const blob = () => ({ contents: [{ uri: 'u', mimeType: 'text/plain', blob: Buffer.from('abcdef').toString('base64') }] })
    assert.equal(await noteFor(text, { maxLinkedBytes: 6 }), '[Resource u (text/plain)]\nééé')
    assert.equal(await noteFor(text, { maxLinkedBytes: 5 }), why('not read: its 6 bytes would pass the limit of 5 bytes read per result'))
    assert.equal(await noteFor(blob, { maxLinkedBytes: 6 }), '[Resource u (text/plain)]\nabcdef')
    assert.equal(await noteFor(blob, { maxLinkedBytes: 5 }), why('not read: its 6 bytes would pass the limit of 5 bytes read per result'))
  })

  test("a content without a uri takes the link's", async () => {
    assert.equal(await noteFor(() => ({ contents: [{ text: 'no uri' }] })), '[Resource links://good/text (text/plain)]\nno uri')
  })
})

describe('options and the rest of the result', () => {
  test('convertToolResultSync refuses readResource: reads need the async one', () => {
    assert.throws(
      () => convertToolResultSync(ONE, { readResource: () => ({ contents: [] }) }),
      (error) => error instanceof Error && error.code === 'INVALID_ARGUMENT' && /convertToolResult/.test(error.message),
    )
    // Without it, links are noted as before.
    assert.equal(convertToolResultSync(ONE, { readResource: undefined }).content[0].text, '[Resource link links://good/text (text, text/plain)]\na plain text')
  })

  test('bad options are INVALID_ARGUMENT', async () => {
    const read = () => ({ contents: [] })
    for (const options of [
      { readResource: 'client.readResource' },
      { readResource: read, maxLinks: 0 },
      { readResource: read, maxLinks: 1.5 },
      { readResource: read, maxLinks: '3' },
      { readResource: read, maxLinkedBytes: -1 },
      { readResource: read, maxLinkedBytes: NaN },
      { readResource: read, linkTimeoutMs: 0 },
      { readResource: read, linkTimeoutMs: 2 ** 31 },
    ]) {
      await assert.rejects(convertToolResult(ONE, options), (error) => error.code === 'INVALID_ARGUMENT', JSON.stringify(options))
    }
  })

  test('a bad result is refused before anything is read', async () => {
    let reads = 0
    const read = (uri) => {
      reads++
      return answer(uri)
    }
    await assert.rejects(convertToolResult({ content: [link('links://good/text'), 'not a part'] }, { readResource: read }), { code: 'INVALID_ARGUMENT' })
    await assert.rejects(convertToolResult({ content: 'no array' }, { readResource: read }), { code: 'INVALID_ARGUMENT' })
    assert.equal(reads, 0)
  })

  test("the input is not modified (frozen is fine); sources and structured content count the result's parts", async () => {
    const result = deepFreeze({
      content: [link('links://good/pair'), { type: 'text', text: 'x'.repeat(2000) }],
      structuredContent: { again: 'x'.repeat(2000) },
    })
    const before = snapshot(result)
    const got = await convertToolResult(result, { readResource: answer })
    assert.deepEqual(snapshot(result), before)
    assert.deepEqual(got.sources, [0, 0, 1, 2])
    assert.equal(got.structuredContent.again, '<repeats content part 2>')
  })

  test('an error result whose only text comes through a link needs no error note', async () => {
    const got = await convertToolResult({ content: [link('links://good/text')], isError: true }, { readResource: answer })
    assert.deepEqual(got.content, [{ type: 'text', text: '[Resource links://good/text (text/plain)]\na text read through its link' }])
    assert.equal(got.isError, true)
  })

  test('a result without links never calls readResource; every link-cases.mjs tool converts', async () => {
    let reads = 0
    const got = await convertToolResult({ content: [{ type: 'text', text: 'plain' }] }, { readResource: () => reads++ })
    assert.equal(reads, 0)
    assert.deepEqual(got.content, [{ type: 'text', text: 'plain' }])
    for (const tool of Object.values(tools)) await convertToolResult(tool(), { readResource: answer, linkTimeoutMs: 100, maxTextTokens: Infinity })
  })
})
