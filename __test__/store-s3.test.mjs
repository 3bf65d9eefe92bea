// ToolOutputStore on an S3-compatible bucket (issue 20), against a real server: Garage started
// here on 127.0.0.1 (fixtures/garage.mjs). Spills, reads back, the size cap, retention, a
// server killed mid-upload, wrong credentials, a session token, presigned URLs in notes, the
// lifecycle rule docs/hosted.md documents, two processes saving at once, and what a read
// refuses. Without a garage binary these tests skip with the reason printed.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import crypto from 'node:crypto'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { loadBinding, bindingPath, cliPath, corpus, b64, makePng, randomBytes, parseSavedNote, testDir, wasmCannot } from './fixtures/index.mjs'
import { findGarage, startGarage } from './fixtures/garage.mjs'

const { ToolOutputStore, toContentAsync, convertToolResult, readSavedOutputTool } = loadBinding()
const MiB = 1024 * 1024
const onWasm = wasmCannot('save to an S3 bucket')

/** The environment without any AWS_* variable. */
function envWithoutAws(extra = {}) {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_')) env[k] = v
  return { ...env, ...extra }
}

const runNode = (script, args, env) => promisify(execFile)(process.execPath, ['-e', script, ...args], { env, maxBuffer: 64 * MiB })

describe('a URL given as the store folder', () => {
  test('is never taken for a relative folder', async (t) => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-s3-url-'))
    t.after(() => fs.rmSync(cwd, { recursive: true, force: true }))
    // In a child process without AWS_* variables, in an empty working folder.
    const script = `const { ToolOutputStore } = require(${JSON.stringify(bindingPath)});
      const out = {};
      for (const dir of ['s3://spills/agent-1', 'https://example.com/spills', 'gs://spills/agent-1']) {
        try { new ToolOutputStore(dir).save(Buffer.from('x')); out[dir] = 'saved' } catch (e) { out[dir] = e.code + ': ' + e.message }
      }
      process.stdout.write(JSON.stringify(out));`
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd, env: envWithoutAws() })
    const out = JSON.parse(stdout)
    if (onWasm) {
      assert.match(out['s3://spills/agent-1'], /^STORE_S3_UNAVAILABLE: /)
    } else {
      assert.match(out['s3://spills/agent-1'], /^INVALID_ARGUMENT: invalid option: no credentials for s3:\/\/spills\/agent-1\/: .*AWS_ACCESS_KEY_ID/)
    }
    assert.match(out['https://example.com/spills'], /^INVALID_ARGUMENT: .*is a URL, not a folder/)
    assert.match(out['gs://spills/agent-1'], /^INVALID_ARGUMENT: .*is a URL, not a folder/)
    assert.deepEqual(fs.readdirSync(cwd), [], 'nothing was made in the working folder')
  })

  test('bad s3:// locations and options are refused', () => {
    const s3 = { endpoint: 'http://127.0.0.1:9', accessKeyId: 'k', secretAccessKey: 's' }
    for (const dir of ['s3://Spills/x', 's3://spills/../x', 's3://spills/a//b', 's3://ab']) {
      assert.throws(
        () => new ToolOutputStore(dir, { s3 }),
        (e) => e.code === (onWasm ? 'STORE_S3_UNAVAILABLE' : 'INVALID_ARGUMENT'),
        dir,
      )
    }
    assert.throws(
      () => new ToolOutputStore('s3://spills/x', { s3: 'nope' }),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
    assert.throws(
      () => new ToolOutputStore('s3://spills/x', { s3: { ...s3, forcePathStyle: 'yes' } }),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
    assert.throws(
      () => new ToolOutputStore('s3://spills/x', { s3: { ...s3, endpoint: 42 } }),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
  })

  test('s3.sessionToken: a string, and only beside both keys given in s3', () => {
    const s3 = { endpoint: 'http://127.0.0.1:9', accessKeyId: 'k', secretAccessKey: 's' }
    for (const sessionToken of [42, true, {}, [], () => 't', Symbol('t'), 1n]) {
      assert.throws(
        () => new ToolOutputStore('s3://spills/x', { s3: { ...s3, sessionToken } }),
        (e) => e.code === 'INVALID_ARGUMENT' && e.message === '`s3.sessionToken` must be a string',
        String(typeof sessionToken),
      )
    }
    // Without the pair beside it (whatever the environment holds): refused, as the half pair it is.
    for (const half of [{}, { accessKeyId: 'k' }, { secretAccessKey: 's' }]) {
      assert.throws(
        () => new ToolOutputStore('s3://spills/x', { s3: { endpoint: s3.endpoint, ...half, sessionToken: 't' } }),
        (e) => e.code === 'INVALID_ARGUMENT' && /^`s3\.sessionToken` is given without `s3\.accessKeyId` and `s3\.secretAccessKey`/.test(e.message),
        JSON.stringify(half),
      )
    }
    // Absent (undefined or null) is no token; with the pair it makes a store (nothing is sent yet).
    for (const sessionToken of [undefined, null, 't']) {
      const make = () => new ToolOutputStore('s3://spills/x', { s3: { ...s3, sessionToken } })
      if (onWasm) assert.throws(make, (e) => e.code === 'STORE_S3_UNAVAILABLE')
      else assert.equal(make().dir, 's3://spills/x/')
    }
  })
})

describe('a session token given as s3.sessionToken', { skip: onWasm }, () => {
  test("is signed into every request, and a server's refusal of it is the note's clear reason", async (t) => {
    // Garage has no temporary credentials and ignores the token (below), so this stand-in answers
    // what AWS S3 answers for a token it does not know (its error table: 400 InvalidToken).
    const queries = []
    const server = http.createServer((request, response) => {
      queries.push(new URL(request.url, 'http://x').searchParams)
      request.resume()
      response.writeHead(400, { 'content-type': 'application/xml' })
      response.end(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidToken</Code><Message>The provided token is malformed or otherwise invalid.</Message></Error>',
      )
    })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    t.after(() => server.close())
    const sessionToken = 'FwoGZXIvYXdzE/unknown+token=='
    const s3 = { endpoint: `http://127.0.0.1:${server.address().port}`, accessKeyId: 'ASIATESTKEY', secretAccessKey: 's', sessionToken }
    const store = new ToolOutputStore('s3://spills/agent-1', { s3 })
    const parquet = corpus('fixture.parquet')
    const part = { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } }
    const converted = await toContentAsync(part, { store, fitImages: false })
    assert.equal(
      converted.text,
      `[Binary resource file:///data.parquet (application/vnd.apache.parquet, ${parquet.length} bytes): application/vnd.apache.parquet is not accepted; could not be saved: cannot list s3://spills/agent-1/: the server answered 400 InvalidToken (The provided token is malformed or otherwise invalid.)]`,
    )
    // A token refused is refused credentials, as a 403 is (new credentials cure both).
    await assert.rejects(
      store.saveAsync(Buffer.from('x')),
      (e) => e.code === 'STORE_PERMISSION_DENIED' && /^cannot list s3:\/\/spills\/agent-1\/: the server answered 400 InvalidToken /.test(e.message),
    )
    assert.ok(queries.length >= 2)
    for (const query of queries) {
      assert.equal(query.get('X-Amz-Security-Token'), sessionToken)
      assert.match(query.get('X-Amz-Credential'), /^ASIATESTKEY\//)
    }
  })
})

describe('s3.presignSeconds', () => {
  test('is a whole number of seconds from 0 (no URL) to 604800 (7 days)', () => {
    const s3 = { endpoint: 'http://127.0.0.1:9', accessKeyId: 'k', secretAccessKey: 's' }
    for (const presignSeconds of [-1, 0.5, 1.5, 604_801, 1e21, NaN, Infinity, -Infinity, -0.1, '60', true, {}, [60], 60n]) {
      assert.throws(
        () => new ToolOutputStore('s3://spills/x', { s3: { ...s3, presignSeconds } }),
        (e) => e.code === 'INVALID_ARGUMENT' && e.message === '`s3.presignSeconds` must be a whole number of seconds from 0 (no URL) to 604800 (7 days)',
        String(presignSeconds),
      )
    }
    for (const presignSeconds of [undefined, null, 0, 1, 3600, 604_800]) {
      const make = () => new ToolOutputStore('s3://spills/x', { s3: { ...s3, presignSeconds } })
      if (onWasm) assert.throws(make, (e) => e.code === 'STORE_S3_UNAVAILABLE')
      else assert.equal(make().dir, 's3://spills/x/')
    }
  })
})

/** A note's `saved to <s3 location> (presigned URL, valid until <time>: <url>)`, or null. */
function presignedIn(text) {
  const m = /saved to (s3:\/\/\S+) \(presigned URL, valid until (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ): (\S+)\)[\];]/.exec(text)
  return m && { location: m[1], until: Date.parse(m[2]), url: m[3] }
}

/**
 * The lifecycle rule docs/hosted.md gives (its `lifecycle.json` block), read from the doc itself
 * so the doc and this test cannot drift apart.
 */
function documentedLifecycle() {
  const doc = fs.readFileSync(new URL('../docs/hosted.md', import.meta.url), 'utf8')
  const block = /`lifecycle\.json`[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(doc)
  assert.ok(block, 'docs/hosted.md has a lifecycle.json block')
  return JSON.parse(block[1])
}

/**
 * A lifecycle configuration as JSON (the AWS CLI's form) in the XML of the S3 API, as the CLI
 * sends it: `Rules` are `<Rule>` elements, every other field an element of its own name.
 */
function lifecycleXml(configuration) {
  const element = (name, value) => {
    if (Array.isArray(value)) return value.map((v) => element(name === 'Rules' ? 'Rule' : name, v)).join('')
    if (value !== null && typeof value === 'object')
      return `<${name}>${Object.entries(value)
        .map(([k, v]) => element(k, v))
        .join('')}</${name}>`
    return `<${name}>${String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${name}>`
  }
  return `<?xml version="1.0" encoding="UTF-8"?><LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${element('Rules', configuration.Rules)}</LifecycleConfiguration>`
}

/** The AWS SDK's SigV4 signer (@smithy/signature-v4, installed with the Bedrock client), or why not. */
function awsSigner() {
  try {
    return { SignatureV4: createRequire(import.meta.url)('@smithy/signature-v4').SignatureV4 }
  } catch (e) {
    return { skip: `@smithy/signature-v4 is not installed (${e.code ?? e.message})` }
  }
}

/** SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the signer takes. */
class NodeSha256 {
  constructor(secret) {
    this.hash = secret === undefined ? crypto.createHash('sha256') : crypto.createHmac('sha256', secret)
  }
  update(data) {
    this.hash.update(data)
  }
  async digest() {
    return new Uint8Array(this.hash.digest())
  }
}

const garage = findGarage()
const skip = onWasm || garage.skip
if (skip) console.log(`# S3 store tests skipped: ${skip}`)

describe('ToolOutputStore on a Garage bucket', { skip }, () => {
  let g
  let root
  let prefixes = 0
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-garage-'))
    g = await startGarage(garage.bin, root)
  })
  after(async () => {
    await g?.stop()
    if (root) fs.rmSync(root, { recursive: true, force: true })
  })
  const s3 = (extra) => ({ endpoint: g.endpoint, region: g.region, accessKeyId: g.accessKeyId, secretAccessKey: g.secretAccessKey, ...extra })
  /** A child's environment naming the server under these variables (each has two the SDKs read). */
  const awsEnv = (endpointVariable, regionVariable) =>
    envWithoutAws({
      [endpointVariable]: g.endpoint,
      [regionVariable]: g.region,
      AWS_ACCESS_KEY_ID: g.accessKeyId,
      AWS_SECRET_ACCESS_KEY: g.secretAccessKey,
    })
  /** A prefix of its own for each test. */
  const fresh = () => `s3://spills/run-${process.pid}-${++prefixes}`

  /** A whole object read back, 8 MiB a call. */
  async function readAll(store, location) {
    const chunks = []
    let offset = 0
    for (;;) {
      const chunk = await store.read(location, { offset })
      if (chunk.length === 0) return Buffer.concat(chunks)
      chunks.push(chunk)
      offset += chunk.length
    }
  }

  test('a spilled part is an object; the note names its s3:// URL; it reads back', async () => {
    const url = fresh()
    const store = new ToolOutputStore(url, { s3: s3() })
    assert.equal(store.dir, `${url}/`)
    const parquet = corpus('fixture.parquet')
    const part = { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } }
    const converted = await toContentAsync(part, { store, fitImages: false })
    const note = parseSavedNote(converted.text)
    assert.ok(note, converted.text)
    assert.equal(note.byteLength, parquet.length)
    assert.match(note.path, new RegExp(`^${url}/tool_\\d{13}_\\d{6}_\\d{10}\\.parquet$`))
    assert.ok((await store.read(note.path)).equals(parquet))
    // A range, and past the end.
    assert.ok((await store.read(note.path, { offset: 4, length: 10 })).equals(parquet.subarray(4, 14)))
    assert.equal((await store.read(note.path, { offset: parquet.length + 5 })).length, 0)
    // save and saveAsync answer the URL too.
    const saved = store.save(Buffer.from('hello'), { extension: 'txt' })
    assert.match(saved.path, new RegExp(`^${url}/tool_[0-9_]+\\.txt$`))
    assert.equal((await store.read(saved.path)).toString(), 'hello')
    const asyncSaved = await store.saveAsync(b64(Buffer.from('base64 decoded first')), { mediaType: 'text/plain' })
    assert.equal((await store.read(asyncSaved.path)).toString(), 'base64 decoded first')
    assert.ok(note.path < saved.path && saved.path < asyncSaved.path, 'names sort in save order')
  })

  test('a 20 MiB blob goes up in parts (streamed from its base64) and reads back whole', async () => {
    const store = new ToolOutputStore(fresh(), { s3: s3() })
    const big = randomBytes(20 * MiB + 12345, 7)
    const part = { type: 'resource', resource: { uri: 'file:///big.bin', mimeType: 'application/octet-stream', blob: b64(big) } }
    const note = parseSavedNote((await toContentAsync(part, { store, fitImages: false })).text)
    assert.ok(note)
    assert.equal(note.byteLength, big.length)
    assert.ok((await readAll(store, note.path)).equals(big))
    // From bytes in memory (store.saveAsync) as well.
    const saved = await store.saveAsync(big, { extension: 'bin' })
    assert.equal(saved.byteLength, big.length)
    assert.ok((await readAll(store, saved.path)).equals(big))
  })

  test('the size cap: the oldest objects go first, a blob over the cap is not saved', async () => {
    const url = fresh()
    const store = new ToolOutputStore(url, { s3: s3(), maxBytes: 3_000_000 })
    const blobs = [1, 2, 3, 4].map((seed) => randomBytes(900_000, seed))
    const saved = []
    for (const blob of blobs) saved.push(await store.saveAsync(blob, { extension: 'bin' }))
    await assert.rejects(store.read(saved[0].path), (e) => e.code === 'STORE_NOT_FOUND')
    for (let i = 1; i < 4; i++) assert.ok((await store.read(saved[i].path)).equals(blobs[i]))
    await assert.rejects(store.saveAsync(randomBytes(3_000_001, 9)), (e) => e.code === 'STORE_OVER_CAP')
    // Nothing was removed for it, and nothing was written.
    for (let i = 1; i < 4; i++) assert.ok((await store.read(saved[i].path)).equals(blobs[i]))
    const all = new ToolOutputStore(url, { s3: s3(), retentionDays: 0 }).cleanupFiles()
    assert.deepEqual(
      all.map((f) => f.name),
      saved.slice(1).map((f) => path.posix.basename(f.path)),
    )
    // A streamed conversion over the cap gives the note, not an object.
    const capped = new ToolOutputStore(fresh(), { s3: s3(), maxBytes: 16 * MiB })
    const big = randomBytes(20 * MiB, 3)
    const part = { type: 'resource', resource: { uri: 'file:///big.bin', mimeType: 'application/octet-stream', blob: b64(big) } }
    const converted = await toContentAsync(part, { store: capped, fitImages: false })
    assert.match(converted.text, /could not be saved: \d+ bytes is over the store's size cap of 16777216 bytes\]$/)
  })

  test('retention: cleanup removes only own objects older than the retention, directly under the prefix', async () => {
    const url = fresh()
    const keep = new ToolOutputStore(url, { s3: s3() })
    const a = keep.save(Buffer.from('a'))
    const b = keep.save(Buffer.from('b'), { extension: 'txt' })
    const deeper = new ToolOutputStore(`${url}/sub`, { s3: s3(), retentionDays: 0 })
    const inSub = deeper.save(Buffer.from('sub'))
    const sibling = new ToolOutputStore(`${url}x`, { s3: s3(), retentionDays: 0 })
    const inSibling = sibling.save(Buffer.from('sibling'))
    assert.equal(keep.cleanup(), 0, 'nothing is 7 days old')
    await new Promise((resolve) => setTimeout(resolve, 5))
    const removed = new ToolOutputStore(url, { s3: s3(), retentionDays: 0 }).cleanupFiles()
    assert.deepEqual(removed, [
      { name: path.posix.basename(a.path), byteLength: 1 },
      { name: path.posix.basename(b.path), byteLength: 1 },
    ])
    await assert.rejects(keep.read(a.path), (e) => e.code === 'STORE_NOT_FOUND')
    assert.equal((await deeper.read(inSub.path)).toString(), 'sub')
    assert.equal((await sibling.read(inSibling.path)).toString(), 'sibling')
  })

  test('reads take only own objects of the store', async () => {
    const url = fresh()
    const store = new ToolOutputStore(url, { s3: s3() })
    const saved = store.save(Buffer.from('own'))
    const other = new ToolOutputStore(`${url}-other`, { s3: s3() })
    const elsewhere = other.save(Buffer.from('not yours'))
    const name = path.posix.basename(saved.path)
    for (const location of [
      elsewhere.path,
      `${url}/sub/../${name}`,
      `${url}/./${name}`,
      `s3://other-bucket/${url.slice('s3://spills/'.length)}/${name}`,
      `${url}/notes.txt`,
      path.join(os.tmpdir(), name),
    ]) {
      await assert.rejects(store.read(location), (e) => e.code === 'STORE_NOT_OWN_FILE', location)
    }
    await assert.rejects(store.read(`${url}/tool_0000000000001_000000_0000000001`), (e) => e.code === 'STORE_NOT_FOUND')
    assert.equal((await store.read(saved.path)).toString(), 'own')
  })

  test('read_saved_output pages a text and refuses what the store did not write', async () => {
    const url = fresh()
    const store = new ToolOutputStore(url, { s3: s3() })
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`)
    const saved = await store.saveAsync(Buffer.from(lines.join('\n')), { extension: 'txt' })
    const tool = readSavedOutputTool(store)
    const first = await tool.execute({ location: saved.path, offset: 2999 })
    assert.equal(first.isError, undefined)
    const text = first.content.map((c) => c.text).join('\n')
    assert.match(text, /^line 2999\nline 3000\n/)
    assert.ok(text.endsWith(`]`) && text.includes(`[Lines 2999-3000 of 3000 of ${saved.path} (text/plain`), text.slice(-300))
    assert.ok(text.includes('End of the file.'), text.slice(-300))
    const refused = await tool.execute({ location: `${url}/../${path.posix.basename(saved.path)}` })
    assert.equal(refused.isError, true)
  })

  test('wrong credentials: a clear error, and the note says the part could not be saved', async () => {
    const store = new ToolOutputStore(fresh(), { s3: s3({ secretAccessKey: '0'.repeat(64) }) })
    assert.throws(
      () => store.save(Buffer.from('x')),
      (e) => e.code === 'STORE_PERMISSION_DENIED' && /^cannot list s3:\/\/spills\/run-\d+-\d+\/: the server answered 403/.test(e.message),
    )
    await assert.rejects(store.saveAsync(Buffer.from('x')), (e) => e.code === 'STORE_PERMISSION_DENIED')
    const unknownKey = new ToolOutputStore(fresh(), { s3: s3({ accessKeyId: 'GK000000000000000000000000' }) })
    await assert.rejects(unknownKey.saveAsync(Buffer.from('x')), (e) => e.code === 'STORE_PERMISSION_DENIED' && / 403 /.test(e.message))
    const parquet = corpus('fixture.parquet')
    const part = { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } }
    const converted = await toContentAsync(part, { store, fitImages: false })
    assert.match(
      converted.text,
      new RegExp(
        `^\\[Binary resource file:///data\\.parquet \\(application/vnd\\.apache\\.parquet, ${parquet.length} bytes\\): application/vnd\\.apache\\.parquet is not accepted; could not be saved: cannot list s3://spills/run-\\d+-\\d+/: the server answered 403 .+\\]$`,
      ),
    )
  })

  test('presignSeconds: each note gives a presigned URL of its object, which a plain fetch() reads', async () => {
    const url = fresh()
    const store = new ToolOutputStore(url, { s3: s3({ presignSeconds: 600 }) })
    const parquet = corpus('fixture.parquet')
    const part = { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } }
    const before = Math.floor(Date.now() / 1000) * 1000
    const { text } = await toContentAsync(part, { store, fitImages: false })
    const after = Date.now()
    const shown = presignedIn(text)
    assert.ok(shown, text)
    assert.match(
      text,
      /^\[Binary resource file:\/\/\/data\.parquet \(application\/vnd\.apache\.parquet, \d+ bytes\): application\/vnd\.apache\.parquet is not accepted; saved to s3:/,
    )
    assert.ok(text.endsWith(`${shown.url})]`), text)
    assert.equal(text.split('\n').length, 1, 'one line')
    assert.ok(shown.url.startsWith(`${g.endpoint}/spills/${url.slice('s3://spills/'.length)}/tool_`), shown.url)
    assert.ok(shown.until >= before + 600_000 && shown.until <= after + 600_000, `${new Date(shown.until).toISOString()}`)
    // The location is still what store.read takes; the URL reads the same bytes with no credentials.
    assert.ok((await store.read(shown.location)).equals(parquet))
    const response = await fetch(shown.url)
    assert.equal(response.status, 200)
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(parquet))
    // The note of a text over the cap, and the line above structured content whose JSON was saved.
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')
    const long = await toContentAsync({ type: 'text', text: lines }, { store })
    const textShown = presignedIn(long.text)
    assert.ok(textShown, long.text.slice(-600))
    assert.equal(Buffer.from(await (await fetch(textShown.url)).arrayBuffer()).toString(), lines)
    const structured = { attachment: b64(randomBytes(64 * 1024, 99)) }
    const result = await convertToolResult({ content: [], structuredContent: structured }, { store })
    const header = result.content.map((c) => c.text ?? '').find((t) => t.startsWith('[Structured content:'))
    assert.ok(header, JSON.stringify(result.content).slice(0, 600))
    const jsonShown = /saved to (s3:\/\/\S+) \(presigned URL, valid until \S+: (\S+)\)\]/.exec(header)
    assert.ok(jsonShown, header.slice(0, 800))
    assert.deepEqual(JSON.parse(Buffer.from(await (await fetch(jsonShown[2])).arrayBuffer()).toString()), structured)
    // The original of an image made to fit (9000 px wide: over the 8000 px limit).
    const png = makePng(9000, 10)
    const fitted = await toContentAsync({ type: 'image', data: b64(png), mimeType: 'image/png' }, { store })
    const original = presignedIn(fitted.note)
    assert.ok(original, fitted.note)
    assert.match(fitted.note, /^\[Image resized to fit \(.*\): original image\/png 9000x10 px, .*; sent image\/png \d+x\d+ px, .*\]$/)
    assert.ok(Buffer.from(await (await fetch(original.url)).arrayBuffer()).equals(png))
    // save() answers the location only (the URL is for notes).
    assert.match(store.save(Buffer.from('x')).path, /^s3:\/\/\S+$/)
  })

  test('the CLI: convert --output-dir s3://... --presign-seconds gives URLs a plain fetch() reads; 0 gives none', async () => {
    const env = awsEnv('AWS_ENDPOINT_URL_S3', 'AWS_REGION')
    const parquet = corpus('fixture.parquet')
    const result = {
      content: [{ type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(parquet) } }],
    }
    const convert = (...args) =>
      new Promise((resolve, reject) => {
        const child = execFile(process.execPath, [cliPath, 'convert', ...args, '-'], { env, maxBuffer: 64 * MiB }, (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
        )
        child.stdin.end(JSON.stringify(result))
      })
    const url = fresh()
    const converted = await convert('--output-dir', url, '--presign-seconds', '600')
    const shown = presignedIn(converted.content[0].text)
    assert.ok(shown, converted.content[0].text)
    assert.ok(shown.location.startsWith(`${url}/tool_`), shown.location)
    assert.ok(shown.until > Date.now() + 590_000 && shown.until <= Date.now() + 600_000, new Date(shown.until).toISOString())
    const response = await fetch(shown.url)
    assert.equal(response.status, 200)
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(parquet))
    const without = await convert('--output-dir', url, '--presign-seconds', '0')
    assert.match(without.content[0].text, new RegExp(`saved to ${url}/tool_\\S+\\.parquet\\]$`))
    assert.equal(presignedIn(without.content[0].text), null)
  })

  test('the proxy: --output-dir s3://... --presign-seconds in front of a real MCP server; the URL in the note reads the bytes', async () => {
    const url = fresh()
    const server = [path.join(testDir, 'mcp-test-server.mjs')]
    const args = [cliPath, 'proxy', '--output-dir', url, '--presign-seconds', '600', '--', process.execPath, ...server]
    const transport = new StdioClientTransport({ command: process.execPath, args, env: awsEnv('AWS_ENDPOINT_URL_S3', 'AWS_REGION'), stderr: 'pipe' })
    const client = new Client({ name: 'mcp-content-s3-proxy-test', version: '0.0.0' })
    await client.connect(transport)
    try {
      const result = await client.callTool({ name: 'parquet_blob', arguments: {} })
      const text = result.content.map((c) => c.text ?? '').join('\n')
      const shown = presignedIn(text)
      assert.ok(shown, text)
      assert.ok(shown.location.startsWith(`${url}/tool_`), shown.location)
      const response = await fetch(shown.url)
      assert.equal(response.status, 200)
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(corpus('fixture.parquet')))
    } finally {
      await client.close()
    }
  })

  test('presignSeconds: the URL is refused once it expired', async () => {
    const store = new ToolOutputStore(fresh(), { s3: s3({ presignSeconds: 1 }) })
    const part = { type: 'resource', resource: { uri: 'file:///a.zip', mimeType: 'application/zip', blob: b64(Buffer.from('PK\x03\x04 zipped', 'latin1')) } }
    const shown = presignedIn((await toContentAsync(part, { store })).text)
    assert.ok(shown)
    // Signed on a whole second, valid 1 s: 2.2 s later it has expired whatever the clock's fraction.
    await new Promise((resolve) => setTimeout(resolve, 2200))
    const response = await fetch(shown.url)
    const body = await response.text()
    // Garage 2.5 answers 400 InvalidRequest "Bad request: Date is too old"; AWS S3 answers 403
    // AccessDenied "Request has expired". Either way a refusal, and not the object's bytes.
    assert.ok([400, 403].includes(response.status), `${response.status} ${body}`)
    assert.match(body, /<Error><Code>(InvalidRequest|AccessDenied)<\/Code>/)
    assert.equal((await store.read(shown.location)).toString('latin1'), 'PK\x03\x04 zipped', 'the object is still there')
  })

  test('the lifecycle rule of docs/hosted.md: Garage takes both its parts (Expiration, AbortIncompleteMultipartUpload)', async (t) => {
    // The rule is put and read back, not waited for: it acts after days (Expiration 7, the
    // abort after 1), and Garage runs lifecycle once a day, so what it removes is not tested here.
    const signer = awsSigner()
    if (signer.skip) return t.skip(signer.skip)
    const rule = documentedLifecycle()
    const endpoint = new URL(g.endpoint)
    const sigv4 = new signer.SignatureV4({
      service: 's3',
      region: g.region,
      credentials: { accessKeyId: g.accessKeyId, secretAccessKey: g.secretAccessKey },
      sha256: NodeSha256,
      uriEscapePath: false,
    })
    /** A signed request on the bucket's `?lifecycle` subresource. */
    const lifecycle = async (method, body) => {
      const headers = { host: endpoint.host }
      if (body !== undefined) {
        headers['content-type'] = 'application/xml'
        headers['content-md5'] = crypto.createHash('md5').update(body).digest('base64')
      }
      const request = {
        method,
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: Number(endpoint.port),
        path: `/${g.bucket}`,
        query: { lifecycle: '' },
        headers,
        body,
      }
      const signed = await sigv4.sign(request)
      const response = await fetch(`${g.endpoint}/${g.bucket}?lifecycle`, { method, headers: signed.headers, body })
      return { status: response.status, text: await response.text() }
    }
    const put = await lifecycle('PUT', lifecycleXml(rule))
    assert.equal(put.status, 200, put.text)
    const got = await lifecycle('GET')
    assert.equal(got.status, 200, got.text)
    const [documented] = rule.Rules
    const field = (xml, path) => path.reduce((inner, name) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(inner)?.[1], xml)
    const rules = got.text.match(/<Rule>[\s\S]*?<\/Rule>/g) ?? []
    assert.equal(rules.length, 1, got.text)
    assert.equal(field(rules[0], ['ID']), documented.ID)
    assert.equal(field(rules[0], ['Status']), documented.Status)
    assert.equal(field(rules[0], ['Filter', 'Prefix']), documented.Filter.Prefix)
    assert.equal(Number(field(rules[0], ['Expiration', 'Days'])), documented.Expiration.Days)
    assert.equal(
      Number(field(rules[0], ['AbortIncompleteMultipartUpload', 'DaysAfterInitiation'])),
      documented.AbortIncompleteMultipartUpload.DaysAfterInitiation,
    )
  })

  test('a session token: Garage checks the signature over it and ignores the token itself', async () => {
    // Garage 2.5 has no temporary credentials: its source never reads X-Amz-Security-Token, so any
    // token signed with a valid key pair is accepted. A wrong token is therefore tested against
    // a stand-in answering as AWS does (above); here, that a token does not spoil the signature.
    const store = new ToolOutputStore(fresh(), { s3: s3({ sessionToken: 'not-a-token-garage-knows' }) })
    const saved = await store.saveAsync(Buffer.from('signed with a token'))
    assert.equal((await store.read(saved.path)).toString(), 'signed with a token')
  })

  test('two processes saving at once (configured from the AWS environment) get distinct, complete objects', async () => {
    const url = fresh()
    const env = awsEnv('AWS_ENDPOINT_URL_S3', 'AWS_REGION')
    // Each saves 8 small blobs and one of 9 MiB (multipart), all at once, each holding its tag.
    const script = `const { ToolOutputStore } = require(${JSON.stringify(bindingPath)});
      const s = new ToolOutputStore(process.argv[1]);
      const tag = process.argv[2];
      const blobs = [];
      for (let i = 0; i < 8; i++) blobs.push(Buffer.from((tag + ':' + i + ';').repeat(5000)));
      blobs.push(Buffer.alloc(9 * 1024 * 1024, tag));
      Promise.all(blobs.map((b) => s.saveAsync(b))).then((saved) => process.stdout.write(JSON.stringify(saved.map((x) => x.path))));`
    const outs = await Promise.all(['a', 'b'].map((tag) => runNode(script, [url, tag], env)))
    const saved = outs.map((o) => JSON.parse(o.stdout))
    assert.equal(new Set(saved.flat()).size, 18)
    const reader = new ToolOutputStore(url, { s3: s3() })
    for (const [n, list] of saved.entries()) {
      const tag = 'ab'[n]
      for (const [i, location] of list.entries()) {
        const expected = i < 8 ? Buffer.from(`${tag}:${i};`.repeat(5000)) : Buffer.alloc(9 * MiB, tag)
        assert.ok((await readAll(reader, location)).equals(expected), location)
      }
    }
  })

  test('outputDir: an s3:// URL is a bucket store configured from the AWS environment', async () => {
    const url = fresh()
    const env = awsEnv('AWS_ENDPOINT_URL', 'AWS_DEFAULT_REGION')
    const script = `const { toContentAsync } = require(${JSON.stringify(bindingPath)});
      const part = { type: 'resource', resource: { uri: 'file:///data.bin', mimeType: 'application/zip', blob: Buffer.from('PK\\x03\\x04 zipped').toString('base64') } };
      toContentAsync(part, { outputDir: process.argv[1] }).then((c) => process.stdout.write(c.text));`
    const { stdout } = await runNode(script, [url], env)
    const note = parseSavedNote(stdout)
    assert.ok(note, stdout)
    assert.ok(note.path.startsWith(`${url}/tool_`), note.path)
    const reader = new ToolOutputStore(url, { s3: s3() })
    assert.equal((await reader.read(note.path)).toString('latin1'), 'PK\x03\x04 zipped')
  })

  // Last: it kills and restarts the server.
  test('a server killed mid-upload leaves no object', async (t) => {
    const url = fresh()
    // A relay in front of the server counts what the client sent; past 12 MiB of a 40 MiB
    // upload (the second part on the way), the server is killed.
    let sent = 0
    let killing
    const sockets = new Set()
    const relay = net.createServer((client) => {
      const upstream = net.connect(g.s3Port, '127.0.0.1')
      sockets.add(client).add(upstream)
      client.on('data', (chunk) => {
        sent += chunk.length
        if (sent > 12 * MiB && killing === undefined) killing = g.stop()
      })
      client.pipe(upstream).pipe(client)
      const close = () => {
        client.destroy()
        upstream.destroy()
      }
      client.on('error', close).on('close', close)
      upstream.on('error', close).on('close', close)
    })
    await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve))
    t.after(() => {
      for (const s of sockets) s.destroy()
      relay.close()
    })
    const store = new ToolOutputStore(url, { s3: s3({ endpoint: `http://127.0.0.1:${relay.address().port}` }) })
    await assert.rejects(
      store.saveAsync(randomBytes(40 * MiB, 5), { extension: 'bin' }),
      (e) => e.code === 'STORE_IO' && /^cannot upload s3:\/\/spills\//.test(e.message),
    )
    assert.ok(killing !== undefined, `the server was killed (${sent} bytes sent)`)
    await killing
    await g.restart()
    // Through the server itself: no own object under the prefix.
    const direct = new ToolOutputStore(url, { s3: s3(), retentionDays: 0 })
    await new Promise((resolve) => setTimeout(resolve, 5))
    assert.deepEqual(direct.cleanupFiles(), [])
    // And it saves again.
    const saved = await direct.saveAsync(Buffer.from('after the restart'))
    assert.equal((await direct.read(saved.path)).toString(), 'after the restart')
  })
})
