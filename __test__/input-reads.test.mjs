// The binding reads each field of a part once: what it validates is what it
// sends on. A getter that answers differently on a second read must not get
// its second answer into the result.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, corpus } from './fixtures/index.mjs'

const { toContent, toContentAsync } = loadBinding()
const png = corpus('fixture.png').toString('base64')

function countingPart() {
  const reads = { data: 0 }
  const part = {
    type: 'image',
    mimeType: 'image/png',
    get data() {
      reads.data += 1
      return reads.data === 1 ? png : 'AAAA'
    },
  }
  return { part, reads }
}

test('sync: data is read once and the same canonical string is sent on', () => {
  const { part, reads } = countingPart()
  const out = toContent(part)
  assert.equal(out.type, 'file')
  assert.equal(out.data, png)
  assert.equal(reads.data, 1)
})

test('async: data is read once, on the calling thread', async () => {
  const { part, reads } = countingPart()
  const pending = toContentAsync(part)
  assert.equal(reads.data, 1)
  const out = await pending
  assert.equal(out.data, png)
  assert.equal(reads.data, 1)
})
