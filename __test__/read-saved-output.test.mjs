// Reading back what the store saved: ToolOutputStore.read (bytes, ranges,
// refused locations) and readSavedOutputTool (text pages, an image fitted
// for the provider, other files described, refusals as isError answers),
// on files a real conversion spilled.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { loadBinding, tempDir } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const sharp = require('sharp')
const { ToolOutputStore, convertToolResult, readSavedOutputTool, estimateTokens } = loadBinding()

const MAX_READ = 8 * 1024 * 1024
const ANTHROPIC_IMAGE_BYTES = 7_864_320
const PAGE_LINE = /\n\[Lines (\d+)-(\d+) of (\d+) of (.+) \(([^,]+), (\d+) bytes\)\.( Next page: offset (\d+)\.| End of the file\.)\]$/

/** The path a note names: `... saved to <path>]`. */
function savedPath(text) {
  const m = /saved to (.+?)\]/.exec(text)
  assert.ok(m, `no saved path in: ${text.slice(-300)}`)
  return m[1]
}

/** A long text of numbered lines, spilled by a real conversion. */
async function spilledText(t, lines = 6000) {
  const store = new ToolOutputStore(tempDir(t))
  const text = Array.from({ length: lines }, (_, i) => `line ${i + 1}: ${'lorem ipsum '.repeat(4)}end`).join('\n')
  const converted = await convertToolResult({ content: [{ type: 'text', text }] }, { store })
  const note = converted.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
  return { store, text, location: savedPath(note) }
}

/** Deterministic noise: incompressible, so the PNG is large. */
function noise(size, seed = 11) {
  const out = Buffer.alloc(size)
  let x = seed
  for (let i = 0; i < size; i += 1) {
    // xorshift32
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/** One page of the tool's answer: its lines and the line saying which. */
function page(result) {
  assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 300))
  assert.equal(result.content.length, 1)
  const text = result.content[0].text
  const m = PAGE_LINE.exec(text)
  assert.ok(m, `no page line in: ${text.slice(-300)}`)
  const body = text.slice(0, m.index)
  return { lines: body.split('\n'), first: Number(m[1]), last: Number(m[2]), total: Number(m[3]), next: m[8] === undefined ? null : Number(m[8]), body }
}

function refusal(result) {
  assert.equal(result.isError, true, JSON.stringify(result).slice(0, 300))
  assert.equal(result.content.length, 1)
  assert.equal(result.content[0].type, 'text')
  return result.content[0].text
}

describe('ToolOutputStore.read', () => {
  test('reads a spilled text back byte for byte, whole and in ranges', async (t) => {
    const { store, text, location } = await spilledText(t)
    const bytes = Buffer.from(text)
    const whole = await store.read(location)
    assert.ok(Buffer.isBuffer(whole))
    assert.ok(whole.equals(bytes))
    assert.ok((await store.read(location, { offset: 10, length: 100 })).equals(bytes.subarray(10, 110)))
    assert.ok((await store.read(location, { offset: bytes.length - 5 })).equals(bytes.subarray(-5)))
    assert.equal((await store.read(location, { offset: bytes.length })).length, 0)
    assert.equal((await store.read(location, { offset: bytes.length + 1000, length: 10 })).length, 0)
    assert.equal((await store.read(location, { length: 0 })).length, 0)
  })

  test('a range over 8 MiB is cut to 8 MiB; the rest is read from where it ended', async (t) => {
    const store = new ToolOutputStore(tempDir(t))
    const data = noise(MAX_READ + 1000)
    const { path: location } = store.save(data, { extension: 'bin' })
    const first = await store.read(location, { length: MAX_READ * 2 })
    assert.equal(first.length, MAX_READ)
    const rest = await store.read(location, { offset: first.length })
    assert.ok(Buffer.concat([first, rest]).equals(data))
  })

  test('refuses locations that are not its own files, with stable codes', async (t) => {
    const root = tempDir(t)
    const store = new ToolOutputStore(path.join(root, 'store'))
    const { path: location } = store.save(Buffer.from('mine'), { extension: 'txt' })
    const name = path.basename(location)
    const outside = path.join(root, name)
    fs.writeFileSync(outside, 'outside')
    const other = new ToolOutputStore(path.join(root, 'other'))
    const { path: theirs } = other.save(Buffer.from('theirs'), { extension: 'txt' })
    for (const refused of [
      path.join(store.dir, '..', name),
      `${store.dir}/../store/${name}`,
      outside,
      theirs,
      path.join(store.dir, '.tool_lock'),
      path.join(store.dir, '.tool_tmp_0000000001_00000000000000000001_000000001'),
      `${location}.bak`,
      store.dir,
      '',
    ]) {
      await assert.rejects(store.read(refused), (e) => e.code === 'STORE_NOT_OWN_FILE', refused)
    }
    fs.unlinkSync(location)
    await assert.rejects(store.read(location), (e) => e.code === 'STORE_NOT_FOUND' && e.message.includes(name))
    assert.equal((await other.read(theirs)).toString(), 'theirs')
  })

  test('refuses a symlink planted in its folder', { skip: process.platform === 'win32' && 'symlinks need privileges on Windows' }, async (t) => {
    const root = tempDir(t)
    const store = new ToolOutputStore(path.join(root, 'store'))
    store.save(Buffer.from('x'), { extension: 'txt' })
    const secret = path.join(root, 'secret.txt')
    fs.writeFileSync(secret, 'not for the model')
    const planted = path.join(store.dir, 'tool_1764481234567_000042_0000012345.txt')
    fs.symlinkSync(secret, planted)
    await assert.rejects(store.read(planted), (e) => e.code === 'STORE_NOT_OWN_FILE')
  })

  test('bad arguments reject with INVALID_ARGUMENT', async (t) => {
    const store = new ToolOutputStore(tempDir(t))
    for (const [location, range] of [
      [42, undefined],
      [undefined, undefined],
      ['x', 'range'],
      ['x', { offset: -1 }],
      ['x', { length: 1.5 }],
      ['x', { offset: 2 ** 53 }],
      ['x', { length: '10' }],
    ]) {
      await assert.rejects(store.read(location, range), (e) => e.code === 'INVALID_ARGUMENT', `${location} ${JSON.stringify(range)}`)
    }
    // Inherited range fields are not read.
    const { path: location } = store.save(Buffer.from('abcdef'), { extension: 'txt' })
    const range = Object.create({ offset: 3 })
    assert.equal((await store.read(location, range)).toString(), 'abcdef')
  })
})

describe('readSavedOutputTool', () => {
  test('its definition: name, description, a plain JSON Schema; options checked', (t) => {
    const store = new ToolOutputStore(tempDir(t))
    const tool = readSavedOutputTool(store)
    assert.equal(tool.name, 'read_saved_output')
    assert.equal(typeof tool.description, 'string')
    assert.deepEqual(tool.inputSchema.required, ['location'])
    assert.deepEqual(Object.keys(tool.inputSchema.properties), ['location', 'offset', 'limit'])
    assert.equal(tool.inputSchema.properties.limit.maximum, 2000)
    // JSON all the way: what an SDK sends as the tool's parameters.
    assert.deepEqual(JSON.parse(JSON.stringify(tool.inputSchema)), tool.inputSchema)
    // Each definition has its own schema.
    tool.inputSchema.properties.location.description = 'changed'
    assert.notEqual(readSavedOutputTool(store).inputSchema.properties.location.description, 'changed')
    assert.throws(
      () => readSavedOutputTool({}),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
    assert.throws(
      () => readSavedOutputTool(store, { provider: 'nobody' }),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
    assert.throws(
      () => readSavedOutputTool(store, 'anthropic'),
      (e) => e.code === 'INVALID_ARGUMENT',
    )
  })

  test('pages through a spilled text: first page, each next page by the offset it names, last page', async (t) => {
    const { store, text, location } = await spilledText(t)
    const tool = readSavedOutputTool(store)
    const want = text.split('\n')
    const got = []
    let offset
    let pages = 0
    for (;;) {
      const args = offset === undefined ? { location } : { location, offset }
      const p = page(await tool.execute(args))
      pages += 1
      assert.equal(p.first, offset ?? 1)
      assert.equal(p.total, want.length)
      assert.equal(p.last - p.first + 1, p.lines.length)
      // Within the page bounds: 2000 lines, and the default text cap of 12,500 estimated tokens.
      assert.ok(p.lines.length <= 2000)
      assert.ok(estimateTokens(p.body) <= 12_500, `${estimateTokens(p.body)} tokens`)
      got.push(...p.lines)
      if (p.next === null) {
        assert.equal(p.last, want.length)
        break
      }
      assert.equal(p.next, p.last + 1)
      offset = p.next
    }
    assert.ok(pages >= 3, `${pages} pages`)
    assert.deepEqual(got, want)
    // A window by limit, and one ending at the last line.
    const ten = page(await tool.execute({ location, offset: 101, limit: 10 }))
    assert.deepEqual(ten.lines, want.slice(100, 110))
    assert.equal(ten.next, 111)
    const last = page(await tool.execute({ location, offset: want.length - 1, limit: 50 }))
    assert.deepEqual(last.lines, want.slice(-2))
    assert.equal(last.next, null)
    // Past the end: said, as an error the model can act on.
    assert.match(refusal(await tool.execute({ location, offset: want.length + 1 })), /has 6000 lines: offset 6001 is past its end/)
  })

  test('long lines are cut at 2000 characters and say so; a page is at most 2000 lines', async (t) => {
    const store = new ToolOutputStore(tempDir(t))
    const long = 'x'.repeat(5000)
    const lines = ['short', long, 'é'.repeat(2500), ...Array.from({ length: 3000 }, (_, i) => `${i}`)]
    const { path: location } = store.save(Buffer.from(`${lines.join('\r\n')}\r\n`), { extension: 'txt' })
    const tool = readSavedOutputTool(store)
    const p = page(await tool.execute({ location, limit: 5000 }))
    assert.equal(p.total, lines.length)
    assert.equal(p.lines.length, 2000)
    assert.equal(p.lines[0], 'short')
    assert.equal(p.lines[1], `${'x'.repeat(2000)} [line cut at 2000 characters]`)
    assert.equal(p.lines[2], `${'é'.repeat(2000)} [line cut at 2000 characters]`)
    assert.equal(p.lines[3], '0')
    assert.equal(p.next, 2001)
  })

  test('returns a spilled image as an image part that fits the provider', async (t) => {
    const store = new ToolOutputStore(tempDir(t))
    const width = 2000
    const height = 1500
    const png = await sharp(noise(width * height * 3), { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer()
    assert.ok(png.length > ANTHROPIC_IMAGE_BYTES && png.length > MAX_READ, `${png.length} bytes`)
    // Too large to attach: saved, and the note names the file.
    const converted = await convertToolResult(
      { content: [{ type: 'image', data: png.toString('base64'), mimeType: 'image/png' }] },
      { store, provider: 'anthropic', fitImages: false },
    )
    const location = savedPath(converted.content.find((p) => p.type === 'text').text)
    assert.ok((await store.read(location, { length: MAX_READ })).equals(png.subarray(0, MAX_READ)))
    const args = { location }
    const result = await readSavedOutputTool(store, { provider: 'anthropic' }).execute(args)
    assert.deepEqual(args, { location })
    assert.equal(result.isError, undefined)
    const image = result.content.find((p) => p.type === 'image')
    assert.ok(image, JSON.stringify(result).slice(0, 300))
    assert.match(result.content[0].text, new RegExp(`image/png image, ${png.length} bytes, attached below`))
    const bytes = Buffer.from(image.data, 'base64')
    assert.ok(bytes.length <= ANTHROPIC_IMAGE_BYTES, `${bytes.length} bytes`)
    const meta = await sharp(bytes).metadata()
    assert.equal(`image/${meta.format === 'jpeg' ? 'jpeg' : meta.format}`, image.mimeType)
    assert.ok(meta.width <= 8000 && meta.height <= 8000)
    // The aspect ratio is kept.
    assert.ok(Math.abs(meta.width / meta.height - width / height) < 0.01, `${meta.width}x${meta.height}`)
    // An agent converts the answer like any tool result: the image is attached.
    const again = await convertToolResult(result, { store, provider: 'anthropic' })
    assert.ok(again.content.some((p) => p.type === 'file' && p.mediaType === image.mimeType))
  })

  test('describes other binaries by type and size, without their bytes', async (t) => {
    const store = new ToolOutputStore(tempDir(t))
    const zip = Buffer.concat([Buffer.from('PK\x03\x04'), noise(5000)])
    const { path: location } = store.save(zip, { mediaType: 'application/zip' })
    const result = await readSavedOutputTool(store).execute({ location })
    assert.equal(result.isError, undefined)
    assert.equal(result.content.length, 1)
    assert.match(result.content[0].text, new RegExp(`\\(binary\\), ${zip.length} bytes; this tool shows text and images only`))
    assert.ok(result.content[0].text.length < 500)
  })

  test('refuses traversal, paths outside, a planted symlink, the lock file and another store, as isError answers', async (t) => {
    const root = tempDir(t)
    const { store, location } = await spilledText(t, 5000)
    const name = path.basename(location)
    const outside = path.join(root, name)
    fs.copyFileSync(location, outside)
    const other = new ToolOutputStore(path.join(root, 'other'))
    const { path: theirs } = other.save(Buffer.from('their text\n'), { extension: 'txt' })
    const cases = [
      [path.join(path.dirname(location), '..', path.basename(root), name), 'STORE_NOT_OWN_FILE'],
      [`${store.dir}/../${path.basename(store.dir)}/${name}`, 'STORE_NOT_OWN_FILE'],
      [outside, 'STORE_NOT_OWN_FILE'],
      [path.join(store.dir, '.tool_lock'), 'STORE_NOT_OWN_FILE'],
      [theirs, 'STORE_NOT_OWN_FILE'],
    ]
    if (process.platform !== 'win32') {
      const planted = path.join(store.dir, 'tool_1764481234567_000042_0000012345.txt')
      fs.symlinkSync(outside, planted)
      cases.push([planted, 'STORE_NOT_OWN_FILE'])
    }
    const tool = readSavedOutputTool(store)
    for (const [refused] of cases) {
      const args = Object.freeze({ location: refused })
      const text = refusal(await tool.execute(args))
      assert.match(text, /^\[Cannot read .+ is not a file this store wrote: /, refused)
      assert.ok(!text.includes('line 1:'), 'no byte of the file is shown')
    }
    fs.unlinkSync(location)
    assert.match(refusal(await tool.execute({ location })), /is not there any more/)
    // Arguments the model got wrong: told, not thrown.
    for (const args of [null, {}, { location: 7 }, { location, offset: 0 }, { location, limit: -1 }, { location, offset: 1.5 }]) {
      refusal(await tool.execute(args))
    }
  })

  test('an AI SDK agent calls it through tool() and jsonSchema(), and reads the page', async (t) => {
    const { store, location } = await spilledText(t)
    const ai = await import('ai-v6')
    const { MockLanguageModelV3 } = await import('ai-v6/test')
    const def = readSavedOutputTool(store)
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: def.name, input: JSON.stringify({ location, limit: 3 }) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage,
          warnings: [],
        },
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'end_turn' }, usage, warnings: [] },
      ],
    })
    const result = await ai.generateText({
      model,
      prompt: 'read it',
      tools: { [def.name]: ai.tool({ description: def.description, inputSchema: ai.jsonSchema(def.inputSchema), execute: (args) => def.execute(args) }) },
      stopWhen: ai.stepCountIs(2),
    })
    assert.equal(result.text, 'done')
    const output = result.steps[0].toolResults[0].output
    assert.deepEqual(page(output).lines.length, 3)
    // The second call carried the tool's answer to the model.
    const sent = JSON.stringify(model.doGenerateCalls[1].prompt)
    assert.ok(sent.includes('Lines 1-3 of 6000'), sent.slice(0, 300))
  })
})
