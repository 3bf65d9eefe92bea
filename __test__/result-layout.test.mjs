// The core's order of a whole result's answer (resultLayout), called as the
// entry calls it: a shape no converted entry can have, or sources that do not
// match the entries, is refused with INVALID_ARGUMENT rather than laid out.
import test from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { createRequire } from 'node:module'
import { bindingPath } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const native = require(path.join(bindingPath, 'lib', 'native.js'))
const S = native.layoutShapeBits()

function refused(args, message) {
  assert.throws(
    () => native.resultLayout(...args),
    (error) => error.code === 'INVALID_ARGUMENT' && message.test(error.message),
  )
}

test('the shape bits are distinct single bits', () => {
  const bits = Object.values(S)
  assert.equal(bits.length, 10)
  assert.equal(new Set(bits).size, bits.length)
  for (const bit of bits) assert.equal(bit & (bit - 1), 0, `${bit} is one bit`)
})

test('a shape no entry has is refused', () => {
  const shapes = [
    S.text | S.file, // both a text and a file
    S.text | S.note, // a text has no note of its own
    S.note, // neither text nor file
    S.file | S.deferred | S.held, // deferred and held
    S.file | S.spillNote, // a spill's answer without a spill
    S.file | S.deferred | S.spillPlaceholder,
    S.file | (S.spillPlaceholder << 1), // a bit the core does not know
  ]
  for (const shape of shapes) refused([[shape], null, 1, false, false], new RegExp(`shape no entry has: ${shape}$`))
})

test('entries and sources that are not arrays of whole numbers are refused, naming the item', () => {
  refused(['x', null, 1, false, false], /`entries` must be an array/)
  refused([{ length: 1, 0: S.text }, null, 1, false, false], /`entries` must be an array/)
  refused([[S.text, 1.5], null, 2, false, false], /`entries\[1\]` must be a whole number/)
  refused([[S.text, -1], null, 2, false, false], /`entries\[1\]`/)
  refused([[S.text, undefined], null, 2, false, false], /`entries\[1\]` must be a whole number/)
  refused([[S.text], ['0'], 1, false, false], /`sources\[0\]`/)
  refused([[S.text], [0, 1], 1, false, false], /`sources` must have one index per entry/)
  refused([[S.text], [], 1, false, false], /`sources` must have one index per entry/)
  refused([[S.text], null, undefined, false, false], /`partCount` is required/)
  refused([[S.text], null, 1, 'yes', false], /`errorNote`/)
})

test('every slot of a result in the order the answer is built', () => {
  const layout = native.resultLayout(
    [
      S.text | S.saved, // a long text, saved
      0, // a part that gave nothing
      S.file | S.deferred, // an image moved to the next user message
      S.file | S.note | S.saved | S.fitted | S.held | S.spillNote | S.spillSaved | S.spillPlaceholder,
      S.file | S.note, // an image made to fit, in the result
    ],
    [0, 1, 1, 3, 3],
    4,
    true,
    true,
  )
  assert.deepEqual(layout, {
    slots: [
      'errorNote',
      'part',
      'saved',
      'placeholder',
      'deferred',
      // Held back after a fit: the spill has the one note and file.
      'spillNote',
      'spillSaved',
      'spillPlaceholder',
      'spillDeferred',
      'note',
      'part',
      'structured',
      'structuredSaved',
    ],
    entries: [null, 0, 0, 2, 2, 3, 3, 3, 3, 4, 4, null, null],
    sources: [-1, 0, null, 1, null, 3, null, 3, null, 3, 3, 4, null],
  })
})

test('without sources each entry is its own source; an empty result lays out nothing', () => {
  const layout = native.resultLayout([S.file | S.held | S.spillSaved, S.text], undefined, 2, false, false)
  assert.deepEqual(layout.slots, ['spillSaved', 'spillPart', 'part'])
  assert.deepEqual(layout.sources, [null, 0, 1])
  assert.deepEqual(native.resultLayout([], null, 0, false, false), { slots: [], entries: [], sources: [] })
})
