// Memory safety of the public API against ordinary JS: buffers freed,
// shrunk, detached or changed while the addon still reads them (async work
// on the thread pool, getters that run in the middle of a call), and the
// freed memory reused for secrets. Each scenario runs in a child process
// (fixtures/safety-child.mjs), so a SIGSEGV fails one test instead of the
// runner; the child prints a JSON result the test compares here.
//
// What must hold: no crash, and an answer that reflects the bytes as they
// were when the call was made (or, where a test says so, a note or an Error
// with a string `code`). Never a file part with `data: undefined`, never
// bytes that were not the caller's.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { assertCleanExit, assertOneOf, expectChild, runChild, skipped } from './fixtures/safety-harness.mjs'

const PNG_ORIGINAL = { outcome: 'file', mediaType: 'image/png', dataType: 'string', dataIsOriginal: true }
const CODED_REJECTION = { outcome: 'error', isError: true, codeType: 'string' }
const FILE_ORIGINAL = (byteLength) => ({ outcome: 'saved', inStore: true, byteLength, bytesOriginal: true })
const SPILL_BYTES = 400_000
const TIMEOUT = { timeout: 90_000 }

describe('async work on a Uint8Array changed or freed right after the call', () => {
  // A slow save is queued first (UV_THREADPOOL_SIZE=1 under Node; one per
  // core under Bun), so the work under test starts only after the change.
  const ops = {
    attach: 'toContentAsync of a ~420 KB PNG (attached)',
    spill: 'toContentAsync of 400 KB random bytes declared application/octet-stream (spilled)',
    save: 'store.saveAsync of 400 KB random bytes',
  }
  const mutations = [
    ['resize', 'resizable', 'resizable ArrayBuffer resized to 0'],
    ['transfer', 'arraybuffer', 'ArrayBuffer transferred away, clone dropped, gc'],
    ['fill', 'arraybuffer', 'u8.fill(0)'],
  ]
  for (const [op, what] of Object.entries(ops)) {
    for (const [mutation, holder, how] of mutations) {
      test(`${what}, then ${how}: no crash, the bytes as they were at the call`, TIMEOUT, (t) => {
        let choices
        if (op === 'attach') {
          // A detached buffer may also end in a rejection with a code.
          choices = mutation === 'transfer' ? [PNG_ORIGINAL, CODED_REJECTION] : [PNG_ORIGINAL]
        } else {
          choices = [FILE_ORIGINAL(SPILL_BYTES)]
        }
        expectChild(t, 'async', { op, mutation, holder, blocker: 32 }, choices, { threadPool1: true })
      })
    }
  }
})

describe('time of check to time of use: toContentAsync of a PNG over 256 KiB', () => {
  for (const holder of ['arraybuffer', 'buffer']) {
    const kind = holder === 'buffer' ? 'Buffer' : 'Uint8Array'
    test(`${kind} zeroed before awaiting: the result is the original PNG, not zeros`, TIMEOUT, (t) => {
      expectChild(t, 'async', { op: 'attach', mutation: 'fill', holder }, [PNG_ORIGINAL])
    })
    test(`${kind} detached right after the call: the original PNG or a rejection with a string code`, TIMEOUT, (t) => {
      expectChild(t, 'async', { op: 'attach', mutation: 'transfer', holder }, [PNG_ORIGINAL, CODED_REJECTION])
    })
  }
})

describe('freed buffer memory reused for secrets while a save is queued', () => {
  const ops = {
    save: 'store.saveAsync(u8)',
    spill: 'toContentAsync of u8 declared application/octet-stream',
  }
  for (const [op, what] of Object.entries(ops)) {
    test(`${what} queued behind a 64 MB base64 save, u8 freed, SECRET-API-KEY strings allocated: the file holds the pattern`, TIMEOUT, (t) => {
      expectChild(t, 'secret', { op }, [{ outcome: 'saved', byteLength: 1024 * 1024, bytesOriginal: true, containsSecret: false }], { threadPool1: true })
    })
  }
})

describe('getters that free the data while a part is read', () => {
  const emptyNote = (field) => `[${field === 'uri' ? 'Resource file:///shot.png' : 'Image'} (image/png): empty data; nothing was saved]`
  const routes = {
    entry: 'options { store }',
    // The current entry hands a function as options to the binding's own
    // part reader (convertContent); after the fix it is INVALID_ARGUMENT.
    'function-options': 'options that are a function',
  }
  for (const field of ['mimeType', 'type', 'uri', 'annotations']) {
    for (const action of ['transfer', 'resize']) {
      for (const fn of ['sync', 'async']) {
        for (const [route, routeLabel] of Object.entries(routes)) {
          const call = fn === 'sync' ? 'toContent' : 'toContentAsync'
          const how = action === 'transfer' ? 'transfers the buffer away' : 'resizes the buffer to 0'
          test(`${call}, ${routeLabel}: a \`${field}\` getter that ${how} and collects: read once, no crash, a note or the original PNG`, TIMEOUT, (t) => {
            const choices = [PNG_ORIGINAL, { outcome: 'text', text: emptyNote(field) }]
            if (route === 'function-options') choices.push({ outcome: 'error', isError: true, code: 'INVALID_ARGUMENT' })
            const result = expectChild(t, 'getter', { field, action, fn, route }, choices)
            if (result === undefined) return
            assert.ok(result.summary.calls <= 1, `the \`${field}\` getter was read ${result.summary.calls} times`)
          })
        }
      }
    }
  }
})

describe('a `type` getter is read at most once', () => {
  for (const fn of ['sync', 'async']) {
    const call = fn === 'sync' ? 'toContent' : 'toContentAsync'
    test(`${call}: 'image' then 'text': the image part, not a mix of both`, TIMEOUT, (t) => {
      const r = runChild(t, 'typeSequence', { sequence: ['image', 'text'], fn })
      assertCleanExit(r)
      assertOneOf(r.result.summary, [PNG_ORIGINAL])
      assert.ok(r.result.summary.typeCalls <= 1, `type read ${r.result.summary.typeCalls} times`)
    })
    test(`${call}: 'text' then 'image': a text answer, never a file part`, TIMEOUT, (t) => {
      const r = runChild(t, 'typeSequence', { sequence: ['text', 'image'], fn })
      assertCleanExit(r)
      assertOneOf(r.result.summary, [{ outcome: 'text' }])
      assert.ok(r.result.summary.typeCalls <= 1, `type read ${r.result.summary.typeCalls} times`)
    })
    test(`${call}: 'x' then 'image', with a mimeType getter that frees the data: the unsupported-type note, no crash`, TIMEOUT, (t) => {
      const r = runChild(t, 'typeSequence', { sequence: ['x', 'image'], fn, freeOnMimeType: true })
      assertCleanExit(r)
      if (skipped(t, r)) return
      assertOneOf(r.result.summary, [{ outcome: 'text', text: '[Unsupported content part of type "x"]' }])
      assert.ok(r.result.summary.typeCalls <= 1, `type read ${r.result.summary.typeCalls} times`)
    })
  }
})
