// The core's order of a whole result's answer (resultLayout), called as the
// entry calls it: a shape no converted entry can have is refused with
// INVALID_ARGUMENT rather than laid out, and each slot comes in its place.
import test from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { createRequire } from 'node:module'
import { bindingPath } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const native = require(path.join(bindingPath, 'lib', 'native.js'))
const S = native.layoutShapeBits()
const NAMES = native.layoutSlotNames()

/** The entries' shapes as resultLayout reads them: one character each, its code the shape. */
function shapes(...bits) {
  return String.fromCharCode(...bits)
}

/** The layout as [entry, slot name] pairs (-1: before the first entry). */
function slots(answer) {
  const pairs = []
  let entry = -1
  for (const character of answer) {
    const name = NAMES[character.charCodeAt(0)]
    assert.ok(name !== undefined, `code ${character.charCodeAt(0)} names a slot`)
    if (name === 'entry') entry++
    else pairs.push([entry, name])
  }
  return pairs
}

function refused(args, message) {
  assert.throws(
    () => native.resultLayout(...args),
    (error) => error.code === 'INVALID_ARGUMENT' && message.test(error.message),
  )
}

test('the shape bits are distinct single bits; the slot names are distinct', () => {
  const bits = Object.values(S)
  assert.equal(bits.length, 10)
  assert.equal(new Set(bits).size, bits.length)
  for (const bit of bits) assert.equal(bit & (bit - 1), 0, `${bit} is one bit`)
  assert.equal(NAMES.length, 14)
  assert.equal(new Set(NAMES).size, NAMES.length)
  assert.equal(NAMES.at(-1), 'entry')
})

test('a shape no entry has is refused', () => {
  const bad = [
    S.text | S.file, // both a text and a file
    S.text | S.note, // a text has no note of its own
    S.note, // neither text nor file
    S.file | S.deferred | S.held, // deferred and held
    S.file | S.spillNote, // a spill's answer without a spill
    S.file | S.deferred | S.spillPlaceholder,
    S.file | (S.spillPlaceholder << 1), // a bit the core does not know
  ]
  for (const shape of bad) refused([shapes(S.text, shape), false, false], new RegExp(`shape no entry has: ${shape}$`))
})

test('entries that are not a string, or flags that are not booleans, are refused', () => {
  refused([[S.text], false, false], /`entries` must be a string/)
  refused([undefined, false, false], /`entries` is required/)
  refused([Uint8Array.of(S.text, 0), false, false], /`entries` must be a string/)
  refused([shapes(S.text), 'yes', false], /`errorNote`/)
  refused([shapes(S.text), false, 1], /`structured`/)
  // A character past the shapes' bits, beyond the Basic Multilingual Plane too.
  refused(['\u{1F600}', false, false], /shape no entry has: 128512$/)
})

test('every slot of a result in the order the answer is built', () => {
  const answer = native.resultLayout(
    shapes(
      S.text | S.saved, // a long text, saved
      0, // a part that gave nothing
      S.file | S.deferred, // an image moved to the next user message
      S.file | S.note | S.saved | S.fitted | S.held | S.spillNote | S.spillSaved | S.spillPlaceholder,
      S.file | S.note, // an image made to fit, in the result
    ),
    true,
    true,
  )
  assert.deepEqual(slots(answer), [
    [-1, 'errorNote'],
    [0, 'part'],
    [0, 'saved'],
    [2, 'placeholder'],
    [2, 'deferred'],
    // Held back after a fit: the spill has the one note and file.
    [3, 'spillNote'],
    [3, 'spillSaved'],
    [3, 'spillPlaceholder'],
    [3, 'spillDeferred'],
    [4, 'note'],
    [4, 'part'],
    [4, 'structured'],
    [4, 'structuredSaved'],
  ])
})

test('held without a placeholder, the spill gives the part; nothing for an empty result', () => {
  assert.deepEqual(slots(native.resultLayout(shapes(S.file | S.held | S.spillSaved, S.text), false, false)), [
    [0, 'spillSaved'],
    [0, 'spillPart'],
    [1, 'part'],
  ])
  assert.equal(native.resultLayout(shapes(), false, false), '')
  assert.deepEqual(slots(native.resultLayout(shapes(0, 0), true, false)), [[-1, 'errorNote']])
})
