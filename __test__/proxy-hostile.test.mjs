// mcp-content proxy against a hostile server (__test__/fixtures/hostile-server.mjs), driven by the
// real SDK client (@modelcontextprotocol/sdk 1.x Client + StdioClientTransport): for each way a
// server can try to get a result past the proxy unconverted, or make it grow without bound, the
// client never gets the server's 9 MB image, keeps its connection, and gets the stated answer.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { repoRoot, testDir, tempDir, makePng, cliPath as cli } from './fixtures/index.mjs'
import { BIG_PNG_BYTES } from './fixtures/hostile-server.mjs'

const require = createRequire(import.meta.url)
const hostile = path.join(testDir, 'fixtures', 'hostile-server.mjs')
const TIMEOUT = { timeout: 60_000 }
/** What an SDK 1.x client reads in one message (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
const SDK_MAX_MESSAGE = 10 * 1024 * 1024
/** A call the proxy leaves unanswered fails the test in 20 s, not the SDK's 60. */
const CALL = { timeout: 20_000 }
const bigPngBase64 = makePng(64, 64, { padTo: BIG_PNG_BYTES }).toString('base64')

async function connect(args) {
  const client = new Client({ name: 'mcp-content-hostile-test', version: '0.0.0' })
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', cwd: repoRoot })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  let closed = false
  transport.onclose = () => (closed = true)
  await client.connect(transport)
  client.stderrText = () => stderr
  client.isClosed = () => closed
  client.pid = () => transport.pid
  return client
}

/** The proxy in front of the hostile server, saving into `dir`. */
const viaProxy = (dir, options = []) => connect([cli, 'proxy', '--output-dir', dir, ...options, '--', process.execPath, hostile])

/** The server's image never reaches the client, and every message fits what the client reads. */
function assertConverted(result) {
  assert.ok(JSON.stringify(result).length < SDK_MAX_MESSAGE, 'the result fits one SDK message')
  const parts = [...(Array.isArray(result.content) ? result.content : []), ...(Array.isArray(result.contents) ? result.contents : [])]
  for (const part of parts) {
    assert.notEqual(part.data, bigPngBase64, 'the 9 MB image reached the client unconverted')
    assert.notEqual(part.blob, bigPngBase64, 'the 9 MB image reached the client unconverted')
    const chars = (part.data ?? '').length
    assert.ok(chars <= 5_242_880, `an image of ${chars} characters of base64`)
  }
}

/** The connection still works: a plain call is answered. */
async function assertAlive(client) {
  assert.equal(client.isClosed(), false, `the client lost its connection; proxy stderr:\n${client.stderrText()}`)
  const r = await client.callTool({ name: 'echo', arguments: { text: 'still here' } }, undefined, CALL)
  assert.deepEqual(r.content, [{ type: 'text', text: 'still here' }])
}

/** The converted form of the big image: the fit note, then a small image. */
function assertFittedBigImage(parts) {
  const image = parts.find((p) => p.type === 'image')
  assert.ok(image, JSON.stringify(parts).slice(0, 500))
  assert.ok(image.data.length < 10_000, `${image.data.length} characters of base64`)
  assert.ok(
    parts.some((p) => p.type === 'text' && /^\[Image re-encoded to fit \(9\.0 MB as base64/.test(p.text)),
    JSON.stringify(parts).slice(0, 500),
  )
}

describe('proxy, hostile server: ids, second answers, results it cannot convert', () => {
  let client
  before(async () => {
    client = await viaProxy(tempDir(null, 'mcp-content-hostile-'))
  })
  after(async () => {
    await client?.close()
  })

  for (const form of ['string', 'hex', 'exponent', 'padded', 'decimal']) {
    test(`an answer whose id is the request's in another form (${form}) is converted`, TIMEOUT, async () => {
      const r = await client.callTool({ name: 'string_id', arguments: { form } }, undefined, CALL)
      assertConverted(r)
      assertFittedBigImage(r.content)
      await assertAlive(client)
    })
  }

  test(
    'a base64 string in structuredContent under a schema pattern: replaced by its marker, the schema sent without the pattern, the client accepts it',
    TIMEOUT,
    async () => {
      const { tools } = await client.listTools()
      const strict = tools.find((tool) => tool.name === 'strict_schema')
      assert.deepEqual(strict.outputSchema, { type: 'object', properties: { data: { type: 'string' } }, required: ['data'] })
      const r = await client.callTool({ name: 'strict_schema' }, undefined, CALL)
      assert.deepEqual(r.structuredContent, { data: '<base64 of application/octet-stream, 3000 bytes: left out>' })
      await assertAlive(client)
    },
  )

  test('a second answer to one id is dropped (one line on stderr); the first arrives converted', TIMEOUT, async () => {
    const before = client.stderrText().length
    const r = await client.callTool({ name: 'twice' }, undefined, CALL)
    assertConverted(r)
    assert.deepEqual(r.content[0], { type: 'text', text: 'first' })
    assertFittedBigImage(r.content)
    await assertAlive(client)
    const lines = client.stderrText().slice(before).split('\n').filter(Boolean)
    assert.equal(lines.length, 1, lines.join('\n'))
    assert.match(lines[0], /^mcp-content proxy: dropped a response to id \d+, which no request awaits \(answered already, or never asked\)$/)
  })

  test('an answer inside a batch (which SDK 1.x refuses whole) is taken out and converted', TIMEOUT, async () => {
    const r = await client.callTool({ name: 'batch' }, undefined, CALL)
    assertConverted(r)
    assertFittedBigImage(r.content)
    await assertAlive(client)
  })

  test('a tools/call run as a task: the task passes alone, its tasks/result is converted', TIMEOUT, async () => {
    const created = await client.request(
      { method: 'tools/call', params: { name: 'as_task', arguments: {}, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
      CALL,
    )
    assert.equal(created.task.taskId, 'task-1')
    assert.equal(created.content, undefined, 'the content beside the task is not passed on')
    const r = await client.request({ method: 'tasks/result', params: { taskId: 'task-1' } }, CallToolResultSchema, CALL)
    assertConverted(r)
    assert.deepEqual(r.content[0], { type: 'text', text: 'the result of task-1' })
    assertFittedBigImage(r.content)
    await assertAlive(client)
  })

  const refusals = {
    deep_structured: /^`structuredContent` is nested too deeply, or refers to itself$/,
    content_not_array: /^`content` must be an array$/,
    part_not_object: /^a content part must be an object with a `type`$/,
    result_not_object: /^`result` must be an object \(an MCP CallToolResult\)$/,
  }
  for (const [name, reason] of Object.entries(refusals)) {
    test(`a result the package refuses (${name}) becomes a small error result that says why`, TIMEOUT, async () => {
      const r = await client.callTool({ name }, undefined, CALL)
      assertConverted(r)
      assert.equal(r.isError, true)
      assert.equal(r.content.length, 1)
      const m = /^\[mcp-content proxy: the tool result could not be converted, so it is not passed on: (.*)\]$/.exec(r.content[0].text)
      assert.ok(m, r.content[0].text)
      assert.match(m[1], reason)
      assert.ok(JSON.stringify(r).length < 1000)
      await assertAlive(client)
    })
  }

  test('resources/read items the package cannot convert become text items that say why', TIMEOUT, async () => {
    const bad = /^\[mcp-content proxy: the resource could not be converted, so it is not passed on: (.*)\]$/
    const [notString] = (await client.readResource({ uri: 'test://blob-not-string' }, CALL)).contents
    assertConverted({ contents: [notString] })
    assert.equal(notString.uri, 'test://blob-not-string')
    assert.equal(notString.mimeType, 'text/plain')
    assert.match(notString.text, bad)
    assert.match(bad.exec(notString.text)[1], /`blob` is not a string/)
    const [noUri] = (await client.readResource({ uri: 'test://uri-not-string' }, CALL)).contents
    assertConverted({ contents: [noUri] })
    assert.match(bad.exec(noUri.text)?.[1] ?? noUri.text, /`uri` is not a string/)
    const [fine] = (await client.readResource({ uri: 'test://fine' }, CALL)).contents
    assert.deepEqual(fine, { uri: 'test://fine', mimeType: 'text/plain', text: '[Resource test://fine (text/plain)]\nfine text' })
    await assertAlive(client)
  })
})

describe('proxy, hostile server: invalid base64 in one part', () => {
  test('the SDK client alone rejects the whole result; through the proxy the text arrives with a note for the bad part', TIMEOUT, async (t) => {
    const direct = await connect([hostile])
    t.after(() => direct.close())
    await assert.rejects(direct.callTool({ name: 'bad_base64' }, undefined, CALL), /Invalid Base64 string/)
    const proxied = await viaProxy(tempDir(t))
    t.after(() => proxied.close())
    const r = await proxied.callTool({ name: 'bad_base64' }, undefined, CALL)
    assert.equal(r.content.length, 2)
    assert.deepEqual(r.content[0], { type: 'text', text: 'the text of the result' })
    assert.match(r.content[1].text, /^\[Image \(image\/png\): invalid base64 data \(.*\); nothing was saved\]$/)
  })

  test('in a part for the user alone too: the client would refuse the whole result; the proxy sends the note, for the user', TIMEOUT, async (t) => {
    const direct = await connect([hostile])
    t.after(() => direct.close())
    await assert.rejects(direct.callTool({ name: 'bad_base64_for_user' }, undefined, CALL), /Invalid Base64 string/)
    const proxied = await viaProxy(tempDir(t))
    t.after(() => proxied.close())
    const r = await proxied.callTool({ name: 'bad_base64_for_user' }, undefined, CALL)
    assert.equal(r.content.length, 2)
    assert.deepEqual(r.content[1].annotations, { audience: ['user'] })
    assert.match(r.content[1].text, /^\[Image \(image\/png\): invalid base64 data \(.*\); nothing was saved\]$/)
  })
})

describe('proxy, hostile server: @ai-sdk/mcp as the client', () => {
  // @ai-sdk/mcp matches ids with Number(id) too, and refuses a whole result for one bad part.
  const load = async () => {
    try {
      const [{ createMCPClient }, { Experimental_StdioMCPTransport }] = await Promise.all([import('@ai-sdk/mcp'), import('@ai-sdk/mcp/mcp-stdio')])
      return (args) => createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: process.execPath, args, cwd: repoRoot, stderr: 'pipe' }) })
    } catch (error) {
      return error
    }
  }

  test('invalid base64 in one part: refused whole alone, text and a note through the proxy; an id in another form converted', TIMEOUT, async (t) => {
    const connectAi = await load()
    if (connectAi instanceof Error) {
      t.skip(`@ai-sdk/mcp cannot be loaded (${connectAi.code ?? connectAi.message}): it is not a devDependency yet`)
      return
    }
    const direct = await connectAi([hostile])
    t.after(() => direct.close())
    await assert.rejects(direct.callTool({ name: 'bad_base64', arguments: {} }), /Failed to parse server response/)
    assert.deepEqual((await direct.callTool({ name: 'echo', arguments: { text: 'fine' } })).content, [{ type: 'text', text: 'fine' }])
    const proxied = await connectAi([cli, 'proxy', '--output-dir', tempDir(t), '--', process.execPath, hostile])
    t.after(() => proxied.close())
    const r = await proxied.callTool({ name: 'bad_base64', arguments: {} })
    assert.deepEqual(r.content[0], { type: 'text', text: 'the text of the result' })
    assert.match(r.content[1].text, /^\[Image \(image\/png\): invalid base64 data \(.*\); nothing was saved\]$/)
    const hex = await proxied.callTool({ name: 'string_id', arguments: { form: 'hex' } })
    assertConverted(hex)
    assertFittedBigImage(hex.content)
  })
})

describe('proxy, hostile server: lines over --max-line-bytes', () => {
  let client
  const limit = 1 << 20
  before(async () => {
    client = await viaProxy(tempDir(null, 'mcp-content-hostile-'), ['--max-line-bytes', String(limit)])
  })
  after(async () => {
    await client?.close()
  })

  for (const idAt of ['start', 'end']) {
    test(`an answer of 3 MiB on one line (id at the ${idAt}) gets a JSON-RPC error for its id`, TIMEOUT, async () => {
      const call = client.callTool({ name: 'long_line', arguments: { bytes: 3 << 20, idAt } }, undefined, CALL)
      await assert.rejects(call, (error) => {
        assert.ok(error instanceof McpError, String(error))
        assert.equal(error.code, -32603)
        assert.match(error.message, /the MCP server's answer is over the proxy's line limit \(1048576 bytes\); it was discarded/)
        return true
      })
      await assertAlive(client)
    })
  }

  test('a line over the limit with no id to answer: discarded, one line on stderr, the next answer arrives', TIMEOUT, async () => {
    const before = client.stderrText().length
    const r = await client.callTool({ name: 'garbage_line', arguments: { bytes: 3 << 20 } }, undefined, CALL)
    assert.deepEqual(r.content, [{ type: 'text', text: 'after the garbage' }])
    const lines = client.stderrText().slice(before).split('\n').filter(Boolean)
    assert.deepEqual(lines, [`mcp-content proxy: discarded a line of ${3 << 20} bytes from the MCP server, over the line limit (1048576 bytes)`])
    await assertAlive(client)
  })

  test('a request from the client over the limit is answered by the proxy, not sent to the server', TIMEOUT, async () => {
    const call = client.callTool({ name: 'echo', arguments: { text: 'x'.repeat(2 << 20) } }, undefined, CALL)
    await assert.rejects(call, (error) => {
      assert.ok(error instanceof McpError, String(error))
      assert.equal(error.code, -32600)
      assert.match(error.message, /the request is over the proxy's line limit \(1048576 bytes\)/)
      return true
    })
    await assertAlive(client)
  })
})

describe('proxy, hostile server: every message to the client stays under 10 MiB', () => {
  let client
  let dir
  before(async () => {
    dir = tempDir(null, 'mcp-content-hostile-')
    client = await viaProxy(dir)
  })
  after(async () => {
    await client?.close()
  })

  test('three 4 MB images (12 MB as one message): the largest saved with a note until it fits', TIMEOUT, async () => {
    const r = await client.callTool({ name: 'many_images', arguments: { count: 3, bytes: 3_000_000 } }, undefined, CALL)
    assertConverted(r)
    assert.ok(JSON.stringify(r).length < 9 * 1024 * 1024)
    assert.deepEqual(r.content[0], { type: 'text', text: '3 images' })
    const images = r.content.filter((p) => p.type === 'image')
    const notes = r.content.slice(1).filter((p) => p.type === 'text')
    assert.equal(images.length + notes.length, 3)
    assert.ok(images.length >= 1 && notes.length >= 1, JSON.stringify(r.content.map((p) => p.type)))
    for (const note of notes) {
      const m = /^\[Image \(image\/png, 3000000 bytes\): left out to keep the message under the proxy's limit of 9437184 bytes; saved to (.+)\]$/.exec(
        note.text,
      )
      assert.ok(m, note.text)
      const saved = fs.readFileSync(m[1])
      assert.equal(path.dirname(m[1]), dir)
      assert.equal(saved.length, 3_000_000)
      assert.ok(saved.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    }
    await assertAlive(client)
  })

  test('300 text parts of 40,000 characters: the whole converted result saved, a small result names the file', TIMEOUT, async () => {
    const r = await client.callTool({ name: 'many_texts', arguments: { count: 300, chars: 40_000 } }, undefined, CALL)
    assertConverted(r)
    assert.equal(r.content.length, 1)
    const m = /^\[The tool result \((\d+) bytes as JSON\) is over the proxy's message limit of 9437184 bytes; saved to (.+)\]$/.exec(r.content[0].text)
    assert.ok(m, r.content[0].text)
    const saved = JSON.parse(fs.readFileSync(m[2], 'utf8'))
    assert.equal(saved.content.length, 300)
    assert.equal(saved.content[299].text, '299 '.padEnd(40_000, 'text '))
    assert.equal(fs.statSync(m[2]).size, Number(m[1]))
    await assertAlive(client)
  })

  test('another answer over the limit (a 12 MB prompts/list) becomes a JSON-RPC error for its id', TIMEOUT, async () => {
    await assert.rejects(client.listPrompts(undefined, CALL), (error) => {
      assert.ok(error instanceof McpError, String(error))
      assert.equal(error.code, -32603)
      assert.match(error.message, /the MCP server's answer \(\d+ bytes\) is over the proxy's message limit of 9437184 bytes/)
      return true
    })
    await assertAlive(client)
  })
})

describe('proxy, hostile server: memory while a line has no newline', () => {
  const status = (pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    } catch {
      return undefined
    }
  }
  test('400 MiB without a newline: the proxy peaks far below the line, the call gets an error', TIMEOUT, async (t) => {
    const client = await viaProxy(tempDir(t))
    t.after(() => client.close())
    const pid = client.pid()
    if (status(pid) === undefined) {
      t.skip(`no /proc/${pid}/status on ${process.platform}: peak memory is measured on Linux only`)
      return
    }
    const bytes = 400 << 20
    await assert.rejects(
      client.callTool({ name: 'long_line', arguments: { bytes, idAt: 'end' } }, undefined, CALL),
      /over the proxy's line limit \(67108864 bytes\)/,
    )
    const peak = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status(pid))[1]) * 1024
    // The line limit (64 MiB) plus the runtime (Node 24's peaked at 193-196 MiB in all, with
    // the addon loaded): well under the 400 MiB the server wrote.
    assert.ok(peak < 64 * 1024 * 1024 + 160 * 1024 * 1024, `the proxy peaked at ${(peak / 1048576).toFixed(0)} MiB`)
    await assertAlive(client)
  })
})

describe('the line reader of the proxy (cli/lines.js)', () => {
  const { LineReader, peekMessage } = require('../cli/lines.js')
  const read = (chunks, maxBytes) => {
    const lines = []
    const overlong = []
    const reader = new LineReader((l) => lines.push(l.toString()), { maxBytes, onOverlong: (o) => overlong.push(o) })
    let most = 0
    for (const c of chunks) {
      reader.push(Buffer.from(c))
      most = Math.max(most, reader.pendingBytes)
    }
    reader.end()
    return { lines, overlong, most }
  }

  test('lines up to the limit are read whole, in any chunking; CRLF and a last line without newline too', () => {
    const { lines, overlong } = read(['ab', 'cd\r\n', '\n1234', '5678\nxy'], 8)
    assert.deepEqual(lines, ['abcd', '12345678', 'xy'])
    assert.deepEqual(overlong, [])
  })

  test('a longer line is never kept past the limit: its size, first and last bytes, then the next line', () => {
    const body = `{"jsonrpc":"2.0","id":"a\\"b","result":{"text":"${'z'.repeat(100_000)}"}}`
    const chunks = [...body.match(/[^]{1,1000}/g), '\nnext\n']
    const { lines, overlong, most } = read(chunks, 10_000)
    assert.ok(most <= 10_000, `${most} bytes kept`)
    assert.deepEqual(lines, ['next'])
    assert.equal(overlong.length, 1)
    assert.equal(overlong[0].bytes, Buffer.byteLength(body))
    assert.ok(overlong[0].head.length <= 4096 && overlong[0].tail.length <= 4096)
    assert.deepEqual(peekMessage(overlong[0].head, overlong[0].tail), { keys: new Set(['jsonrpc', 'id', 'result']), id: 'a"b' })
  })

  test('peekMessage: the id first or last; a nested id, a request, a batch and garbage', () => {
    const peek = (head, tail = head) => peekMessage(Buffer.from(head), Buffer.from(tail))
    assert.deepEqual(peek('{"result":{"content":[', 'aaa"}]},"jsonrpc":"2.0","id":7}\n'), { keys: new Set(['result']), id: 7 })
    assert.equal(peek('{"result":{"a":', 'aaa","id":7}}').id, undefined)
    assert.deepEqual(peek('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{'), {
      keys: new Set(['jsonrpc', 'id', 'method', 'params']),
      id: 3,
    })
    assert.equal(peek('[{"jsonrpc":"2.0","id":1,"result":{', '}}]').id, undefined)
    assert.equal(peek('xxxxxxxx').id, undefined)
    assert.equal(peek('{"id":{"x":1},"result":{').id, undefined)
  })
})

describe('mcp-content proxy --max-line-bytes', () => {
  for (const value of ['0', '', '1.5', 'lots', String(256 * 1024 * 1024 + 1)]) {
    test(`"${value}" is a usage error (exit 2, one line)`, TIMEOUT, () => {
      const r = spawnSync(process.execPath, [cli, 'proxy', '--max-line-bytes', value, '--', process.execPath, hostile], { encoding: 'utf8', cwd: repoRoot })
      assert.equal(r.status, 2, r.stderr)
      assert.equal(r.stderr, `mcp-content proxy: --max-line-bytes must be a positive integer up to 268435456, not "${value}" (see mcp-content proxy --help)\n`)
    })
  }

  test('--help states the line limit and the message limit', TIMEOUT, () => {
    const r = spawnSync(process.execPath, [cli, 'proxy', '--help'], { encoding: 'utf8', cwd: repoRoot })
    assert.equal(r.status, 0)
    assert.match(r.stdout, /--max-line-bytes <n> +the longest line read from the server or the client \(default\n +67108864, 64 MiB/)
    assert.match(r.stdout, /Every message written to the client is at most 9 MiB/)
  })
})
