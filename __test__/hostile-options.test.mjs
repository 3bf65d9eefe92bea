// Hostile arguments to the public API: options and parts that are not plain
// objects, stores that are not this module's, polluted prototypes, and
// ToolOutputStore called without `new`. Each case runs in a child process
// (fixtures/safety-child.mjs): a polluted prototype or a type confusion must
// not leak into the test runner, and a crash fails one test only.
//
// What must hold: an Error with code INVALID_ARGUMENT (a rejection for
// toContentAsync), or the correct answer. Never `{ type: 'file', data: undefined }`.
import { describe, test } from 'node:test'
import { assertCleanExit, assertOneOf, expectChild, runChild, runtime, skipped } from './fixtures/safety-harness.mjs'

const INVALID_ARGUMENT = { outcome: 'error', isError: true, code: 'INVALID_ARGUMENT' }
const PNG_ORIGINAL = { outcome: 'file', mediaType: 'image/png', dataType: 'string', dataIsOriginal: true }
const TIMEOUT = { timeout: 60_000 }
const fns = { sync: 'toContent', async: 'toContentAsync' }

describe('options that are not an object', () => {
  const cases = { string: "'x'", number: '7', function: '() => {}', true: 'true' }
  for (const [name, shown] of Object.entries(cases)) {
    for (const [fn, call] of Object.entries(fns)) {
      for (const data of ['bytes', 'base64']) {
        const how = fn === 'sync' ? 'throws' : 'rejects with'
        test(`${call}(png part with ${data}, ${shown}) ${how} INVALID_ARGUMENT`, TIMEOUT, (t) => {
          // async: a rejection, not a synchronous throw
          const expected = fn === 'sync' ? INVALID_ARGUMENT : { ...INVALID_ARGUMENT, threwSync: false }
          expectChild(t, 'options', { options: name, fn, data }, [expected])
        })
      }
    }
  }
})

describe('options objects that are hostile or foreign', () => {
  const cases = {
    'provider-getter-x-then-default': "{ provider: <getter answering 'x', then 'default'> }",
    'provider-getter-default-then-x': "{ provider: <getter answering 'default', then 'x'> }",
    'store-plain-object': '{ store: {} }',
    'store-prototype': '{ store: Object.create(ToolOutputStore.prototype) }',
    'store-second-copy': '{ store: <a ToolOutputStore of a second loaded copy of the addon> }',
  }
  for (const [name, shown] of Object.entries(cases)) {
    for (const [fn, call] of Object.entries(fns)) {
      for (const data of ['bytes', 'base64']) {
        test(`${call}(png part with ${data}, ${shown}): INVALID_ARGUMENT or the PNG, never data undefined`, TIMEOUT, (t) => {
          const async_ = fn === 'async' ? { threwSync: false } : {}
          const r = runChild(t, 'options', { options: name, fn, data })
          assertCleanExit(r)
          if (skipped(t, r)) return
          if (name === 'store-second-copy') {
            const { distinct, instanceOfFirst } = r.result.detail
            t.diagnostic(
              `${runtime}: second copy loaded as a distinct module: ${distinct}; its store instanceof the first copy's ToolOutputStore: ${instanceOfFirst}`,
            )
          }
          assertOneOf(
            r.result.summary,
            [
              { ...INVALID_ARGUMENT, ...async_ },
              { ...PNG_ORIGINAL, ...async_ },
            ],
            r.result.detail,
          )
        })
      }
    }
  }
})

describe('parts that are not an object', () => {
  for (const name of ['null', 'string', 'number']) {
    for (const [fn, call] of Object.entries(fns)) {
      const how = fn === 'sync' ? 'throws' : 'rejects with'
      test(`${call}(${name === 'null' ? 'null' : name === 'string' ? "'x'" : '7'}) ${how} INVALID_ARGUMENT`, TIMEOUT, (t) => {
        const expected = fn === 'sync' ? INVALID_ARGUMENT : { ...INVALID_ARGUMENT, threwSync: false }
        expectChild(t, 'part', { part: name, fn }, [expected])
      })
    }
  }
})

describe('polluted prototypes change no answer', () => {
  // Each child converts the same parts (text, audience, images as base64
  // and bytes, over 256 KiB, embedded text and blobs, spills to outputDir A,
  // to store A, to the default store, a resource_link, `{}`) with toContent
  // and toContentAsync before and after the pollution: the answers must be
  // the same, spills must land in A or the default store (under the child's
  // TMPDIR), nothing may be written to folder B, and a base64 string with
  // U+0141 must stay an "invalid base64" note.
  const cases = {
    outputDir: 'Object.prototype.outputDir = <folder B>',
    annotations: "Object.prototype.annotations = { audience: ['user'] }",
    'type-text': "Object.prototype.type = 'text', Object.prototype.text = 'x'",
    regexp: 'RegExp.prototype.test and .exec answer false / null',
    'array-includes': 'Array.prototype.includes answers false',
    'call-apply': 'Function.prototype.call and .apply answer undefined',
    'buffer-toString': "Buffer.prototype.toString answers 'AAAA'",
    'uint8array-getters': 'Uint8Array.prototype buffer/byteOffset/byteLength getters lie',
  }
  for (const [what, shown] of Object.entries(cases)) {
    test(shown, TIMEOUT, (t) => {
      expectChild(t, 'pollute', { what }, [
        {
          changed: [],
          filesInB: [],
          spilledIn: {
            'blob spilled to outputDir A': ['A', 'A'],
            'blob spilled to store A': ['A', 'A'],
            'media spilled without options': ['default', 'default'],
            'media spilled with {} options': ['default', 'default'],
          },
          latin1InvalidBefore: [true, true],
          latin1InvalidAfter: [true, true],
        },
      ])
    })
  }
})

describe('ToolOutputStore without new', () => {
  const cases = {
    bare: 'ToolOutputStore()',
    'bare-with-dir': 'ToolOutputStore(dir)',
    call: 'ToolOutputStore.call({})',
    'call-with-dir': 'ToolOutputStore.call({}, dir)',
    'method-of-exports': 'require(...).ToolOutputStore(dir)',
  }
  for (const [how, shown] of Object.entries(cases)) {
    test(`${shown} throws (TypeError or INVALID_ARGUMENT), creates no folder, wraps nothing`, TIMEOUT, (t) => {
      const r = runChild(t, 'storeWithoutNew', { how })
      assertCleanExit(r)
      if (skipped(t, r)) return
      assertOneOf(r.result.summary, [{ threw: true, acceptedError: true, createdFolders: [], thisWrapped: false, targetKeys: [] }], r.result.detail)
    })
  }
})
