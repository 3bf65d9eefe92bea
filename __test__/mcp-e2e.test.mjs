// End to end: real MCP servers over stdio, real SDK client, every content part
// through toContent and toContentAsync.
//  (a) __test__/mcp-test-server.mjs: the cases of the source change
//  (b) @modelcontextprotocol/server-everything: the reference server
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  loadBinding,
  repoRoot,
  testDir,
  tempDir,
  listFiles,
  checkSavedNote,
  checkFilePart,
  snapshot,
  assertSameResult,
  referenceImageInfo,
} from './fixtures/index.mjs'
import { bytes } from './fixtures/mcp-cases.mjs'

const { toContent, toContentAsync } = loadBinding()

function nodeBin() {
  // Under Bun, process.execPath is bun; it runs both servers too.
  return process.execPath
}

async function connect(args) {
  const client = new Client({ name: 'mcp-content-e2e', version: '0.0.0' })
  const transport = new StdioClientTransport({ command: nodeBin(), args, stderr: 'pipe', cwd: repoRoot })
  await client.connect(transport)
  return client
}

/**
 * Convert every part with toContent (into dirSync) and toContentAsync (into
 * dirAsync), check the inputs were not mutated, and that both modes agree
 * (saved notes: same text up to the path, same saved bytes).
 */
async function convertAll(t, content) {
  const dirSync = tempDir(t)
  const dirAsync = tempDir(t)
  const before = snapshot(content)
  const sync = content.map((p) => toContent(p, { fitImages: false, outputDir: dirSync }))
  const async_ = await Promise.all(content.map((p) => toContentAsync(p, { fitImages: false, outputDir: dirAsync })))
  assert.deepEqual(snapshot(content), before, 'toContent mutated its input')
  assert.equal(sync.length, async_.length)
  for (let i = 0; i < sync.length; i++) assertSameResult(assert, sync[i], async_[i])
  return { sync, async: async_, dirSync, dirAsync }
}

// Expectations per tool of the test server, for each converted part.
// Written from CONTRACT.md + the source change, not from the library's output.
const text = (t) => ({ type: 'text', text: t })
const expectations = {
  markdown_blob: [(r) => assert.deepEqual(r, text(`[Resource file:///README.md (text/markdown)]\n${bytes.markdown.toString('utf8')}`))],
  patch_blob: [(r) => assert.deepEqual(r, text(`[Resource file:///fix.patch (text/x-patch)]\n${bytes.patch.toString('utf8')}`))],
  json_blob: [(r) => assert.deepEqual(r, text(`[Resource file:///data.json (application/json)]\n${bytes.json.toString('utf8')}`))],
  png_image: [(r) => assert.deepEqual(r, text('Here is the screenshot:')), (r) => checkFilePart(assert, r, { mediaType: 'image/png', bytes: bytes.png })],
  png_resource: [(r) => checkFilePart(assert, r, { mediaType: 'image/png', bytes: bytes.png, uri: 'file:///shot.png' })],
  gif_webp_images: [
    (r) => checkFilePart(assert, r, { mediaType: 'image/gif', bytes: bytes.gif }),
    (r) => checkFilePart(assert, r, { mediaType: 'image/webp', bytes: bytes.webp }),
  ],
  parquet_blob: [
    (r, dir) =>
      checkSavedNote(assert, r, {
        head: 'Binary resource file:///data.parquet',
        mediaType: 'application/vnd.apache.parquet',
        reason: 'application/vnd.apache.parquet is not accepted',
        bytes: bytes.parquet,
        dir,
      }),
  ],
  jira_attachments: [
    (r) => assert.deepEqual(r, text('Attachments of JIRA-1:')),
    (r) => assert.deepEqual(r, text(`[Resource file:///README.md (text/markdown)]\n${bytes.markdown.toString('utf8')}`)),
    (r) => checkFilePart(assert, r, { mediaType: 'image/png', bytes: bytes.png }),
  ],
  svg_image: [(r) => assert.deepEqual(r, text(`[Image (image/svg+xml)]\n${bytes.svg.toString('utf8')}`))],
  pdf_resource: [(r) => checkFilePart(assert, r, { mediaType: 'application/pdf', bytes: bytes.pdf, uri: 'file:///doc.pdf' })],
  // declared image/png, bytes are a JPEG: attached with the sniffed type
  mislabelled_jpeg: [(r) => checkFilePart(assert, r, { mediaType: 'image/jpeg', bytes: bytes.jpeg })],
  truncated_png: [
    (r, dir) =>
      checkSavedNote(assert, r, {
        head: 'Binary image',
        mediaType: 'image/png',
        reason: 'truncated PNG: IDAT chunk runs past the end of the data',
        bytes: bytes.truncatedPng,
        dir,
      }),
  ],
  corrupt_png: [
    (r, dir) =>
      checkSavedNote(assert, r, {
        head: 'Binary resource file:///corrupt.png',
        mediaType: 'image/png',
        // pHYs has a bad CRC (alone, dropped), and the next chunk is garbage.
        reason: 'corrupt PNG: invalid chunk type at byte 83',
        bytes: bytes.corruptPng,
        dir,
      }),
  ],
  bmp_image: [
    (r, dir) =>
      checkSavedNote(assert, r, { head: 'Binary image', mediaType: 'image/bmp', reason: 'image/bmp is not accepted', bytes: bytes.bmp, dir, ext: 'bmp' }),
  ],
  empty_blob: [(r) => assert.deepEqual(r, text('[Resource file:///empty.png (image/png): empty data; nothing was saved]'))],
  empty_image: [(r) => assert.deepEqual(r, text('[Image (image/png): empty data; nothing was saved]'))],
  invalid_base64: [
    (r) => {
      assert.equal(r.type, 'text')
      assert.match(r.text, /^\[Image \(image\/png\): invalid base64 data \(.+\); nothing was saved\]$/s)
    },
  ],
  resource_link: [
    (r) => assert.deepEqual(r, text('[Resource link file:///reports/q3.pdf (q3.pdf, application/pdf, 123456 bytes)]\nQuarterly report')),
    (r) => assert.deepEqual(r, text('[Resource link https://example.com/x (x)]')),
  ],
  audience_user: [(r) => assert.equal(r, null), (r) => assert.equal(r, null), (r) => assert.deepEqual(r, text('for both'))],
  audio_wav: [
    (r, dir) =>
      checkSavedNote(assert, r, { head: 'Binary audio', mediaType: 'audio/wav', reason: 'audio/wav is not accepted', bytes: bytes.wav, dir, ext: 'wav' }),
  ],
  text_resource: [
    (r) => assert.deepEqual(r, text('[Resource file:///notes.txt (text/plain)]\nplain notes\nline 2')),
    (r) => assert.deepEqual(r, text('[Resource file:///page.html (text/html)]\n<p>hi</p>')),
  ],
  error_result: [(r) => assert.deepEqual(r, text('Error: file not found'))],
}
// Tools whose parts must never write anything to the store.
const savesNothing = new Set(Object.keys(expectations).filter((k) => !['parquet_blob', 'truncated_png', 'corrupt_png', 'bmp_image', 'audio_wav'].includes(k)))

describe('e2e: mcp-content test server', () => {
  let client
  before(async () => {
    client = await connect([path.join(testDir, 'mcp-test-server.mjs')])
  })
  after(async () => {
    await client?.close()
  })

  test('lists every case as a tool', async () => {
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(expectations).sort())
  })

  for (const [tool, checks] of Object.entries(expectations)) {
    test(`tool ${tool}`, async (t) => {
      const result = await client.callTool({ name: tool, arguments: {} })
      assert.equal(result.content.length, checks.length, 'server returned an unexpected number of parts')
      const { sync, async: async_, dirSync, dirAsync } = await convertAll(t, result.content)
      for (let i = 0; i < checks.length; i++) {
        checks[i](sync[i], dirSync)
        checks[i](async_[i], dirAsync)
      }
      if (savesNothing.has(tool)) {
        assert.deepEqual(listFiles(dirSync), [], 'a part that must not be saved was written to the store')
        assert.deepEqual(listFiles(dirAsync), [], 'a part that must not be saved was written to the store (async)')
      }
    })
  }
})

describe('e2e: @modelcontextprotocol/server-everything', () => {
  let client
  const pkgDir = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything')
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
  const bin = path.join(pkgDir, typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0])

  before(async () => {
    client = await connect([bin, 'stdio'])
  })
  after(async () => {
    await client?.close()
  })

  const call = (name, args = {}) => client.callTool({ name, arguments: args })

  test('lists the tools this suite calls', async () => {
    const names = new Set((await client.listTools()).tools.map((t) => t.name))
    for (const n of ['get-tiny-image', 'get-annotated-message', 'get-resource-links', 'get-resource-reference', 'gzip-file-as-resource', 'echo']) {
      assert.ok(names.has(n), `server-everything has no tool ${n}`)
    }
  })

  test('get-tiny-image: the logo is attached without its damaged iCCP chunk; texts kept', async (t) => {
    const r = await call('get-tiny-image')
    const img = r.content.find((p) => p.type === 'image')
    const original = Buffer.from(img.data, 'base64')
    // The logo's iCCP chunk has a wrong CRC: libpng and browsers skip it,
    // Pillow refuses the file. The independent walk sees it too.
    assert.equal(referenceImageInfo(original), null)
    const { sync, async: async_, dirSync, dirAsync } = await convertAll(t, r.content)
    for (const [out, dir] of [
      [sync, dirSync],
      [async_, dirAsync],
    ]) {
      assert.equal(out.length, r.content.length)
      r.content.forEach((p, i) => {
        if (p.type === 'text') return assert.deepEqual(out[i], { type: 'text', text: p.text })
        const copy = checkFilePart(assert, out[i], { mediaType: 'image/png' })
        // The same bytes less the iCCP chunk (33 to 2781): every CRC right.
        assert.ok(copy.equals(Buffer.concat([original.subarray(0, 33), original.subarray(2781)])))
        assert.ok(referenceImageInfo(copy))
      })
      assert.deepEqual(listFiles(dir), [], 'nothing is saved')
    }
  })

  test('a valid png through server-everything echo of a corpus file is attached', async (t) => {
    // server-everything has no tool returning arbitrary images; prove the attach
    // path on its wire format with the test server's png instead (same SDK types)
    const part = { type: 'image', data: bytes.png.toString('base64'), mimeType: 'image/png' }
    const { sync } = await convertAll(t, [part])
    checkFilePart(assert, sync[0], { mediaType: 'image/png', bytes: bytes.png })
  })

  test('get-annotated-message: audience user is dropped, assistant kept', async (t) => {
    const success = await call('get-annotated-message', { messageType: 'success', includeImage: true })
    assert.deepEqual(
      success.content.map((p) => p.annotations?.audience),
      [['user'], ['user']],
    )
    const a = await convertAll(t, success.content)
    assert.deepEqual(a.sync, [null, null])
    assert.deepEqual(a.async, [null, null])

    const error = await call('get-annotated-message', { messageType: 'error' })
    const b = await convertAll(t, error.content)
    assert.deepEqual(b.sync, [{ type: 'text', text: error.content[0].text }])

    const debug = await call('get-annotated-message', { messageType: 'debug' })
    const c = await convertAll(t, debug.content)
    assert.deepEqual(c.sync, [{ type: 'text', text: debug.content[0].text }])
  })

  test('get-resource-links: every link becomes a note, none dropped', async (t) => {
    const r = await call('get-resource-links', { count: 4 })
    const links = r.content.filter((p) => p.type === 'resource_link')
    assert.equal(links.length, 4)
    const { sync, async: async_ } = await convertAll(t, r.content)
    for (const out of [sync, async_]) {
      r.content.forEach((p, i) => {
        if (p.type === 'text') return assert.deepEqual(out[i], { type: 'text', text: p.text })
        const head = `[Resource link ${p.uri} (${[p.name, p.mimeType].filter(Boolean).join(', ')})]`
        assert.deepEqual(out[i], { type: 'text', text: p.description ? `${head}\n${p.description}` : head })
      })
    }
  })

  test('get-resource-reference: embedded text resource and text/plain blob become text', async (t) => {
    const tr = await call('get-resource-reference', { resourceType: 'Text', resourceId: 2 })
    const br = await call('get-resource-reference', { resourceType: 'Blob', resourceId: 3 })
    const textRes = tr.content.find((p) => p.type === 'resource').resource
    const blobRes = br.content.find((p) => p.type === 'resource').resource
    assert.ok('blob' in blobRes)
    const a = await convertAll(t, tr.content)
    const b = await convertAll(t, br.content)
    for (const out of [a.sync, a.async]) {
      assert.deepEqual(out[1], { type: 'text', text: `[Resource ${textRes.uri} (text/plain)]\n${textRes.text}` })
      assert.deepEqual(out[0], { type: 'text', text: tr.content[0].text })
    }
    const decoded = Buffer.from(blobRes.blob, 'base64').toString('utf8')
    for (const out of [b.sync, b.async]) {
      assert.deepEqual(out[1], { type: 'text', text: `[Resource ${blobRes.uri} (text/plain)]\n${decoded}` })
    }
    assert.deepEqual(listFiles(b.dirSync), [])
  })

  test('gzip-file-as-resource: gzip blob is saved, its link is described', async (t) => {
    const payload = 'hello from mcp-content\n'.repeat(50)
    const dataUrl = `data:text/plain;base64,${Buffer.from(payload).toString('base64')}`
    const r = await call('gzip-file-as-resource', { name: 'hello.txt.gz', data: dataUrl, outputType: 'resource' })
    assert.equal(r.isError ?? false, false, JSON.stringify(r.content))
    const res = r.content[0].resource
    const gz = Buffer.from(res.blob, 'base64')
    const { sync, async: async_, dirSync, dirAsync } = await convertAll(t, r.content)
    const reason = 'application/gzip is not accepted'
    checkSavedNote(assert, sync[0], { head: `Binary resource ${res.uri}`, mediaType: 'application/gzip', reason, bytes: gz, dir: dirSync })
    checkSavedNote(assert, async_[0], { head: `Binary resource ${res.uri}`, mediaType: 'application/gzip', reason, bytes: gz, dir: dirAsync })

    const l = await call('gzip-file-as-resource', { name: 'hello2.txt.gz', data: dataUrl, outputType: 'resourceLink' })
    const link = l.content[0]
    assert.equal(link.type, 'resource_link')
    const c = await convertAll(t, l.content)
    assert.deepEqual(c.sync[0], { type: 'text', text: `[Resource link ${link.uri} (${link.name}, application/gzip)]` })
  })

  test('echo: plain text passes through unchanged', async (t) => {
    const r = await call('echo', { message: 'héllo ✓ [Resource x]' })
    const { sync } = await convertAll(t, r.content)
    assert.deepEqual(sync, [{ type: 'text', text: 'Echo: héllo ✓ [Resource x]' }])
  })
})
