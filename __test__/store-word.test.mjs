// The store keeps its word (issue 25, item 6): the size cap held across
// processes, no note naming a file its own conversion deleted, cleanup
// touching only its own names, and repairHistory never throwing an uncoded
// TypeError on a malformed history.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { setImmediate as tick } from 'node:timers/promises'
import { loadBinding, bindingPath, tempDir, b64, randomBytes, parseSavedNote, wasmCannot } from './fixtures/index.mjs'

const { ToolOutputStore, convertToolResult, convertToolResultSync, repairHistory } = loadBinding()
const KiB = 1024
const DAY = 24 * 3600 * 1000
const OWN_ID = '1764481234567_000001_0000000001'

/** Bytes of the regular files in `dir`, each file once (a file published by hard link has two names for an instant). */
function folderBytes(dir) {
  const seen = new Set()
  let total = 0
  for (const name of fs.readdirSync(dir)) {
    try {
      const st = fs.lstatSync(path.join(dir, name), { bigint: true })
      if (!st.isFile() || seen.has(st.ino)) continue
      seen.add(st.ino)
      total += Number(st.size)
    } catch {
      // removed between the listing and the stat
    }
  }
  return total
}

function exited(child) {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
}

describe('the size cap across processes', () => {
  test('six processes saving into one folder never take it past maxBytes plus one file', { skip: wasmCannot('lock a file (WASI has no flock)') }, async (t) => {
    const dir = tempDir(t)
    const SIZE = 128 * KiB
    const MAX = 16 * SIZE
    const script = `const { ToolOutputStore } = require(${JSON.stringify(bindingPath)});
      const s = new ToolOutputStore(process.argv[1], { maxBytes: ${MAX} });
      for (let i = 0; i < 40; i++) s.save(Buffer.alloc(${SIZE}, i));`
    const children = Array.from({ length: 6 }, () => spawn(process.execPath, ['-e', script, dir], { stdio: ['ignore', 'ignore', 'inherit'] }))
    let running = children.length
    const done = Promise.all(
      children.map((c) =>
        exited(c).then((r) => {
          running--
          return r
        }),
      ),
    )
    let peak = 0
    let samples = 0
    while (running > 0) {
      if (fs.existsSync(dir)) peak = Math.max(peak, folderBytes(dir))
      samples++
      await tick()
    }
    for (const r of await done) assert.deepEqual(r, { code: 0, signal: null })
    peak = Math.max(peak, folderBytes(dir))
    // Everything is counted, the store's 16-byte lock file (.tool_lock: the running total) too.
    const LOCK = 16
    assert.equal(fs.statSync(path.join(dir, '.tool_lock')).size, LOCK)
    console.log(`# ${samples} samples, peak ${peak} bytes, cap ${MAX} + one file ${SIZE} + lock file ${LOCK}`)
    assert.ok(peak <= MAX + SIZE + LOCK, `the folder held ${peak} bytes, over ${MAX} + ${SIZE} + ${LOCK}`)
    assert.ok(folderBytes(dir) <= MAX + LOCK, 'after the saves: within the cap')
  })
})

describe('one result over the cap', () => {
  const SIZE = 64 * KiB
  const result = {
    content: Array.from({ length: 20 }, (_, i) => ({
      type: 'resource',
      resource: { uri: `file:///blob-${i}.bin`, mimeType: 'application/octet-stream', blob: b64(randomBytes(SIZE, i + 1)) },
    })),
  }

  for (const [name, convert] of [
    ['convertToolResultSync', convertToolResultSync],
    ['convertToolResult', convertToolResult],
  ]) {
    test(`${name}: no note names a file the same call deleted; parts past the cap say they could not be saved`, async (t) => {
      const dir = tempDir(t)
      const store = new ToolOutputStore(dir, { maxBytes: 10 * SIZE })
      // Files of an earlier call may make room; files of this call may not.
      const earlier = store.save(Buffer.alloc(SIZE, 1)).path
      for (const options of [{ store }, { store }]) {
        const r = await convert(result, options)
        const named = r.content.map((p) => parseSavedNote(p.text)).filter((n) => n !== null)
        const refused = r.content.filter((p) => /could not be saved: /.test(p.text))
        assert.equal(named.length, 10, 'ten fit under the cap')
        assert.equal(refused.length, 10, 'ten are past it')
        for (const p of refused)
          assert.match(p.text, /could not be saved: 65536 bytes would pass the store's size cap of 655360 bytes, which files this result saved already fill\]$/)
        for (const n of named) assert.ok(fs.existsSync(n.path), `${n.path} is named but was deleted`)
        assert.deepEqual(r.saved.map((f) => f.path).sort(), named.map((n) => n.path).sort())
      }
      assert.ok(!fs.existsSync(earlier), 'the earlier file made room')
    })
  }
})

describe('one result over the cap, with structured content', () => {
  for (const [name, convert] of [
    ['convertToolResultSync', convertToolResultSync],
    ['convertToolResult', convertToolResult],
  ]) {
    test(`${name}: the saved JSON and every file a note names still exist after the call`, async (t) => {
      const dir = tempDir(t)
      const SIZE = 64 * KiB
      const store = new ToolOutputStore(dir, { maxBytes: 6 * SIZE })
      const result = {
        content: Array.from({ length: 10 }, (_, i) => ({
          type: 'resource',
          resource: { uri: `file:///blob-${i}.bin`, mimeType: 'application/octet-stream', blob: b64(randomBytes(SIZE, i + 50)) },
        })),
        // base64 that repeats no part: the whole JSON is saved, a marker stands in the text.
        structuredContent: { attachment: b64(randomBytes(SIZE, 99)) },
      }
      const r = await convert(result, { store })
      assert.ok(r.saved.length > 0)
      for (const f of r.saved) assert.ok(fs.existsSync(f.path), `${f.path} is named but was deleted`)
      const named = r.content.flatMap((p) => (typeof p.text === 'string' ? (p.text.match(/\/\S*tool_\d{13}_\d{6}_\d{10}(\.[A-Za-z0-9_-]+)?/g) ?? []) : []))
      assert.ok(named.length > 0)
      for (const p of named) assert.ok(fs.existsSync(p), `${p} is named but was deleted`)
    })
  }
})

describe('cleanup touches only its own names', () => {
  test("a .bak copy of a saved file is not the store's; an old temp file is removed and counted", (t) => {
    const dir = tempDir(t)
    const s = new ToolOutputStore(dir, { retentionDays: 0 })
    const saved = s.save(Buffer.from('png bytes'), { extension: 'png' }).path
    const bak = `${saved}.bak`
    fs.copyFileSync(saved, bak)
    const temp = path.join(dir, `.tool_tmp_0000000001_${'0'.repeat(19)}1_000000001`)
    fs.writeFileSync(temp, 'left by a crash')
    const lookalikes = [`tool_${OWN_ID}.png.bak`, `tool_${OWN_ID}.tar.gz`, `tool_${OWN_ID}.png~`].map((n) => path.join(dir, n))
    for (const p of lookalikes) fs.writeFileSync(p, "not the store's")
    const past = new Date(Date.now() - 2 * DAY)
    for (const p of [saved, bak, temp, ...lookalikes]) fs.utimesSync(p, past, past)
    assert.equal(s.cleanup(), 2, 'the saved file and the temp file')
    assert.ok(!fs.existsSync(saved) && !fs.existsSync(temp))
    for (const p of [bak, ...lookalikes]) assert.ok(fs.existsSync(p), `${path.basename(p)} was removed`)
    assert.equal(s.cleanup(), 0)
  })

  test("an extension with a dot is refused: the name would not be the store's own", (t) => {
    const dir = tempDir(t)
    const s = new ToolOutputStore(dir)
    for (const extension of ['png.bak', 'tar.gz']) {
      assert.throws(
        () => s.save(Buffer.from('x'), { extension }),
        (e) => e.code === 'INVALID_ARGUMENT',
        extension,
      )
    }
    assert.deepEqual(fs.readdirSync(dir), [])
  })

  test("the store's cap never evicts a .bak copy either", (t) => {
    const dir = tempDir(t)
    const s = new ToolOutputStore(dir, { maxBytes: 100 })
    const first = s.save(Buffer.alloc(60, 1)).path
    const bak = `${first}.bak`
    fs.copyFileSync(first, bak)
    s.save(Buffer.alloc(60, 2))
    assert.ok(!fs.existsSync(first) && fs.existsSync(bak))
  })
})

describe('repairHistory on malformed histories', () => {
  const image = { type: 'base64', media_type: 'image/png', data: 'bm90IGEgcG5n' }
  const histories = {
    anthropic: [
      [null],
      [5],
      ['text'],
      [[]],
      [{ role: 'user', content: null }],
      [{ role: 'user', content: [null] }],
      [{ role: 'user', content: [5, 'x', [], {}, null] }],
      [{ role: 'user', content: [{ type: 'tool_result', content: [null, 7] }] }],
      [
        {
          role: 'user',
          content: [
            { type: 'tool_result', content: null },
            { type: 'image', source: null },
          ],
        },
      ],
      [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', data: null, media_type: 5 } }, null] }],
      [{ role: 'user', content: [null, { type: 'image', source: image }] }],
    ],
    'openai-responses': [
      [null],
      [5],
      [{ type: 'function_call_output', output: [null] }],
      [{ type: 'function_call_output', output: null }],
      [{ role: 'user', content: [null, 5, { type: 'input_image', image_url: null }] }],
      [{ role: 'user', content: [{ type: 'input_file', file_data: 5 }, null] }],
    ],
    'ai-sdk': [
      [null],
      [5],
      [{ role: 'user', content: [null, { type: 'image', image: null }, { type: 'file', data: { type: 'data', data: null } }] }],
      [{ role: 'tool', content: [null, { type: 'tool-result', output: null }] }],
      [{ role: 'tool', content: [{ type: 'tool-result', output: { type: 'content', value: [null, { type: 'media', data: null }] } }] }],
      [
        { role: 'tool', content: null },
        { role: 'user', content: 'text' },
      ],
    ],
  }
  for (const [format, list] of Object.entries(histories)) {
    test(`${format}: each malformed history is left as it is or refused with a code`, (t) => {
      const dir = tempDir(t)
      for (const messages of list) {
        const before = JSON.stringify(messages)
        let answer
        try {
          answer = repairHistory(messages, { format, provider: 'anthropic', outputDir: dir })
        } catch (error) {
          assert.ok(typeof error.code === 'string' && error.code.length > 0, `${format} ${before}: ${error}`)
          continue
        }
        assert.equal(JSON.stringify(messages), before, 'the input is not modified')
        answer.messages.forEach((m, i) => {
          if (m !== messages[i]) assert.ok(m !== null && typeof m === 'object', `${format} ${before}: message ${i} replaced by ${JSON.stringify(m)}`)
        })
      }
    })
  }
})
