// The core's order of a whole result's answer, called as the entry calls it: resultDecide given
// the converted entries' shapes answers with the order, or, when it held attachments back, tells
// it through resultLayout once each is spilled. A shape no converted entry can have, or file
// entries that do not pair with the attachments recorded, is refused with INVALID_ARGUMENT.
// Handles are made ready for another result by resultReuse.
import test from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { createRequire } from 'node:module'
import { bindingPath, makePng, b64, tempDir } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const native = require(path.join(bindingPath, 'lib', 'native.js'))
const { nativeData, nativeWord } = require(path.join(bindingPath, 'lib', 'data.js'))
const S = native.layoutShapeBits()
const NAMES = native.layoutSlotNames()
const PNG = b64(makePng(40, 30))

/** The entries' shapes as resultDecide reads them: one character each, its code the shape. */
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

/** A result handle for `provider`, its store in a temp folder. */
function resultFor(t, provider, deferMedia = 'auto') {
  const settings = native.settingsNew(provider, tempDir(t), undefined, undefined, undefined, undefined)
  return { settings, handle: native.resultNew(settings, deferMedia) }
}

/** Convert the test PNG as the result's part at `position`, as the entry does. */
function recordPng(handle, position) {
  const answer = native.resultMediaSync(handle, position, 'image', nativeData(PNG, true), 'image/png', undefined, nativeWord(true))
  assert.equal(answer.kind, 'file')
  return answer
}

function refused(run, message) {
  assert.throws(run, (error) => error.code === 'INVALID_ARGUMENT' && message.test(error.message))
}

test('the shape bits are distinct single bits; the slot names are distinct', () => {
  const bits = Object.values(S)
  assert.equal(bits.length, 4)
  assert.equal(new Set(bits).size, bits.length)
  for (const bit of bits) assert.equal(bit & (bit - 1), 0, `${bit} is one bit`)
  assert.equal(NAMES.length, 14)
  assert.equal(new Set(NAMES).size, NAMES.length)
  assert.equal(NAMES.at(-1), 'entry')
})

test('a shape no entry has is refused', (t) => {
  const { handle } = resultFor(t, 'anthropic')
  const bad = [
    S.text | S.file, // both a text and a file
    S.text | S.note, // a text has no note of its own
    S.note, // neither text nor file
    S.saved,
    S.file | (S.saved << 1), // a bit the core does not know
  ]
  for (const shape of bad) {
    refused(() => native.resultDecide(handle, false, true, shapes(S.text, shape), false), new RegExp(`shape no entry has: ${shape}$`))
  }
  // A character past the shapes' bits, beyond the Basic Multilingual Plane too.
  refused(() => native.resultDecide(handle, false, true, '\u{1F600}', false), /shape no entry has: 128512$/)
})

test('file entries must pair with the attachments recorded; arguments of the wrong type are refused', (t) => {
  const { handle } = resultFor(t, 'anthropic')
  refused(() => native.resultDecide(handle, false, false, shapes(S.file), false), /1 file entries for 0 attachments/)
  recordPng(handle, 0)
  refused(() => native.resultDecide(handle, false, false, shapes(S.file, S.file), false), /2 file entries for 1 attachments/)
  refused(() => native.resultDecide(handle, false, false, shapes(S.text), false), /0 file entries for 1 attachments/)
  refused(() => native.resultDecide(handle, false, false, [S.file], false), /`entries` must be a string/)
  refused(() => native.resultDecide(handle, false, false, undefined, false), /`entries` is required/)
  refused(() => native.resultDecide(handle, false, false, Uint8Array.of(S.file), false), /`entries` must be a string/)
  refused(() => native.resultDecide(handle, 'yes', false, shapes(S.file), false), /`isError`/)
  refused(() => native.resultDecide(handle, false, false, shapes(S.file), 1), /`structured`/)
  refused(() => native.resultLayout({}), /result handle/)
  // Refused calls changed nothing: the pairing one is decided as ever.
  assert.deepEqual(slots(native.resultDecide(handle, false, false, shapes(S.file), false).layout), [[0, 'part']])
})

test('every slot of a result whose attachments stay or are deferred, in the order the answer is built', (t) => {
  // The Chat Completions API takes no image in a tool message: deferred, a placeholder stays.
  const { handle } = resultFor(t, 'openai-chat', true)
  recordPng(handle, 2)
  const decision = native.resultDecide(
    handle,
    true,
    false,
    shapes(
      S.text | S.saved, // a long text, saved
      0, // a part that gave nothing
      S.file | S.note | S.saved, // an image made to fit (its note, its original saved), deferred
      S.text,
    ),
    true,
  )
  assert.equal(typeof decision.verdicts[0], 'string', 'the image is deferred')
  assert.equal(typeof decision.errorText, 'string')
  assert.deepEqual(slots(decision.layout), [
    [-1, 'errorNote'],
    [0, 'part'],
    [0, 'saved'],
    [2, 'note'],
    [2, 'saved'],
    [2, 'placeholder'],
    [2, 'deferred'],
    [3, 'part'],
    [3, 'structured'],
    [3, 'structuredSaved'],
  ])
  assert.equal(native.resultLayout(handle), decision.layout)
})

test('an attachment held back: the order once its spill answered, refused before', (t) => {
  // The request carries the most images a request may: this one is saved instead.
  const { handle } = resultFor(t, 'anthropic')
  native.resultCarries(handle, 1000, 0, 0, 0, 0)
  recordPng(handle, 1)
  const decision = native.resultDecide(handle, false, true, shapes(S.text, S.file, S.text), false)
  assert.deepEqual(decision.verdicts, [false])
  assert.equal(decision.layout, null)
  refused(() => native.resultLayout(handle), /spilled first/)
  const spill = native.resultSpillSync(handle, 0, nativeData(PNG, true), nativeWord(true))
  assert.equal(spill.kind, 'text')
  assert.notEqual(spill.saved, null)
  assert.deepEqual(slots(native.resultLayout(handle)), [
    [0, 'part'],
    [1, 'spillSaved'],
    [1, 'spillPart'],
    [2, 'part'],
  ])
  // Nothing for an empty result; the error note alone for an empty error result.
  const empty = resultFor(t, 'anthropic')
  assert.equal(native.resultDecide(empty.handle, false, false, shapes(), false).layout, '')
  assert.deepEqual(slots(native.resultDecide(empty.handle, true, false, shapes(0, 0), false).layout), [[-1, 'errorNote']])
})

test('resultReuse makes a finished result handle new: what the last result recorded is gone', (t) => {
  const { settings, handle } = resultFor(t, 'anthropic')
  native.resultCarries(handle, 1000, 0, 0, 0, 0)
  recordPng(handle, 0)
  assert.deepEqual(native.resultDecide(handle, false, false, shapes(S.file), false).verdicts, [false])
  native.resultReuse(handle, settings, 'auto')
  refused(() => native.resultLayout(handle), /spilled first/)
  refused(() => native.resultSpillSync(handle, 0, nativeData(PNG, true), nativeWord(true)), /held back/)
  recordPng(handle, 0)
  // Neither the carried images nor the first part remain: the image stays.
  assert.deepEqual(native.resultDecide(handle, false, false, shapes(S.file), false).verdicts, [true])
  refused(() => native.resultReuse(handle, settings, 'sometimes'), /deferMedia/)
  refused(() => native.resultReuse({}, settings, 'auto'), /result handle/)
})
