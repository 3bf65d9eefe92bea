// npm run demo: run as a user would (node demo/demo.mjs), with --json for the checks, and once
// for the terminal (piped: no colours). The saved files are checked against the bytes the demo
// server sends; the generated PNGs are decoded again with pngjs.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import pngjs from 'pngjs'
import { repoRoot, tempDir, corpus, parseSavedNote } from './fixtures/index.mjs'

const demo = path.join(repoRoot, 'demo', 'demo.mjs')
const TIMEOUT = { timeout: 120_000 }

function run(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [demo, ...args], { cwd: repoRoot, env: { ...process.env, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const REFUSED = ['markdown_blob', 'patch_blob', 'parquet_table', 'svg_logo', 'mislabelled_photo', 'corrupt_png', 'audio_clip', 'tall_screenshot', 'large_photo']
const ACCEPTED = ['png_chart', 'pdf_report']

describe('npm run demo', () => {
  let report
  let out
  before(async () => {
    out = tempDir(null, 'mcp-content-demo-test-')
    const r = await run(['--json', '--output-dir', out])
    assert.equal(r.code, 0, r.stderr)
    report = JSON.parse(r.stdout)
  }, TIMEOUT)
  after(() => fs.rmSync(out, { recursive: true, force: true }))

  const row = (tool, part = 1) => report.rows.find((r) => r.tool === tool && r.part === part)

  test('every case of the demo server and of server-everything has a row', () => {
    for (const tool of [...REFUSED, ...ACCEPTED]) assert.ok(row(tool), tool)
    for (const tool of ['get-tiny-image', 'get-resource-reference', 'gzip-file-as-resource']) assert.ok(row(tool), tool)
    assert.equal(report.rows.filter((r) => r.server === 'mcp-content-demo').length, REFUSED.length + ACCEPTED.length)
  })

  test('the naive pass-through: refused where Claude refuses, accepted for the sound PNG and PDF', () => {
    for (const tool of REFUSED) assert.equal(row(tool).naive.verdict, 'refused', `${tool}: ${JSON.stringify(row(tool).naive)}`)
    for (const tool of ACCEPTED) assert.equal(row(tool).naive.verdict, 'accepted', tool)
    assert.match(row('large_photo').naive.error, /^image exceeds 5 MB maximum: \d+ bytes > 5242880 bytes$/)
    assert.equal(row('tall_screenshot').naive.error, 'At least one of the image dimensions exceed max allowed size: 8000 pixels')
    assert.match(row('mislabelled_photo').naive.error, /specified using the image\/png media type, but the image appears to be a image\/jpeg image/)
    assert.equal(row('get-tiny-image', 2).naive.verdict, 'at-risk')
  })

  test('what mcp-content sends is never refused', () => {
    for (const r of report.rows) assert.equal(r.mcpContent.verdict, 'accepted', `${r.tool} part ${r.part}: ${JSON.stringify(r.mcpContent)}`)
    assert.equal(report.summary.mcpRefused, 0)
    assert.equal(report.summary.naiveRefused, report.rows.filter((r) => r.naive.verdict === 'refused').length)
  })

  test('the bytes column: real types and sizes', () => {
    assert.deepEqual([row('tall_screenshot').bytes.width, row('tall_screenshot').bytes.height], [720, 20_000])
    assert.equal(row('mislabelled_photo').bytes.mediaType, 'image/jpeg')
    assert.ok(row('large_photo').bytes.byteLength > 4_400_000 && row('large_photo').bytes.byteLength < 4_700_000)
    assert.ok(row('corrupt_png').bytes.problem)
  })

  test('what mcp-content sends, checked against the bytes', () => {
    assert.deepEqual(row('png_chart').mcpContent.sends, { type: 'image', mimeType: 'image/png', byteLength: corpus('fixture.png').length })
    assert.deepEqual(row('mislabelled_photo').mcpContent.sends, { type: 'image', mimeType: 'image/jpeg', byteLength: corpus('fixture.jpg').length })
    assert.deepEqual(row('pdf_report').mcpContent.sends, { type: 'resource', mimeType: 'application/pdf', byteLength: corpus('fixture.pdf').length })
    assert.match(row('markdown_blob').mcpContent.sends.text, /^\[Resource file:\/\/\/jira\/PROJ-42\/README\.md \(text\/markdown\)\]\n# Crash on save\n/)
    const saved = (tool) => {
      const note = parseSavedNote(row(tool).mcpContent.sends.text)
      assert.ok(note, `${tool}: ${row(tool).mcpContent.sends.text}`)
      assert.equal(path.dirname(note.path), out)
      return fs.readFileSync(note.path)
    }
    assert.ok(saved('parquet_table').equals(corpus('fixture.parquet')))
    assert.ok(saved('audio_clip').equals(corpus('fixture.wav')))
    assert.ok(saved('corrupt_png').equals(corpus('fixture-corrupt.png')))
    // Made to fit: the image sent, and the note naming the saved original.
    const fitted = (tool, reason, sent) => {
      const s = row(tool).mcpContent.sends
      assert.equal(s.type, 'image', `${tool}: ${JSON.stringify(s).slice(0, 300)}`)
      assert.equal(row(tool).mcpContent.verdict, 'accepted')
      const m = /^\[Image [^\n]* to fit \(([^\n]*)\): original [^\n]*, saved to ([^;\n]*); sent ([^\n]*)\]$/.exec(s.note)
      assert.ok(m, s.note)
      assert.match(m[1], reason)
      assert.match(m[3], sent)
      assert.equal(path.dirname(m[2]), out)
      return pngjs.PNG.sync.read(fs.readFileSync(m[2]))
    }
    const tall = fitted('tall_screenshot', /^720x20000 px, over the 8000 px limit$/, /^image\/png 288x8000 px, /)
    assert.deepEqual([tall.width, tall.height], [720, 20_000])
    const photo = fitted('large_photo', /MB as base64, over the 5\.2 MB limit$/, /^image\/(png|jpeg) \d+x\d+ px, /)
    assert.deepEqual([photo.width, photo.height], [1236, 1236])
    assert.equal(row('get-tiny-image', 2).mcpContent.sends.mimeType, 'image/png')
  })
})

test('npm run demo -- --provider anthropic: the 4.5 MB photo fits the direct API (10 MB) and is attached', TIMEOUT, async (t) => {
  const r = await run(['--json', '--provider', 'anthropic', '--output-dir', tempDir(t)])
  assert.equal(r.code, 0, r.stderr)
  const photo = JSON.parse(r.stdout).rows.find((x) => x.tool === 'large_photo')
  assert.equal(photo.naive.verdict, 'accepted')
  assert.equal(photo.mcpContent.sends.type, 'image')
  assert.equal(photo.mcpContent.sends.mimeType, 'image/png')
})

test('npm run demo in a terminal layout: every case, the verdicts, no colour codes when piped', TIMEOUT, async (t) => {
  const r = await run(['--output-dir', tempDir(t)], { NO_COLOR: '' })
  assert.equal(r.code, 0, r.stderr)
  assert.ok(!r.stdout.includes('\x1b['), 'no escape codes on a pipe')
  for (const tool of [...REFUSED, ...ACCEPTED]) assert.ok(r.stdout.includes(`${tool}:`), tool)
  assert.match(r.stdout, /naive pass-through: \d+ of \d+ parts refused/)
  assert.match(r.stdout, /mcp-content: none refused/)
  assert.equal(r.stderr, '', 'no progress lines on a pipe')
})

test('npm run demo with a bad option: one line, exit 2', TIMEOUT, async () => {
  const r = await run(['--provider', 'nope'])
  assert.equal(r.code, 2)
  assert.match(r.stderr, /^mcp-content demo: unknown provider "nope": one of default, /)
  assert.equal(r.stderr.trim().split('\n').length, 1)
})
