// repairHistory's readers of the Chat, Gemini and Bedrock histories (and
// the others) on hostile input: malformed blocks are left as they are or
// refused with a code, never an opaque error; getters run once; a polluted
// Object.prototype plays no part; a huge list is read without trouble; the
// input is never modified.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, tempDir, corpus } from './fixtures/index.mjs'

const { repairHistory } = loadBinding()
const PNG = corpus('fixture.png').toString('base64')
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')

const malformed = {
  'openai-chat': [
    [null],
    [7],
    [{ role: 'user', content: null }],
    [{ role: 'user', content: [null, 5, 'x', []] }],
    [{ role: 'user', content: [{ type: 'image_url' }, { type: 'image_url', image_url: null }, { type: 'image_url', image_url: { url: 5 } }] }],
    [
      {
        role: 'user',
        content: [
          { type: 'file', file: { file_data: null } },
          { type: 'input_audio', input_audio: { data: 5, format: 'wav' } },
        ],
      },
    ],
    [
      {
        role: 'user',
        content: [
          { type: 'input_audio', input_audio: { data: PNG, format: 'flac' } },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
    ],
    [{ role: 'tool', content: [{ type: 'image_url', image_url: { url: `data:image/svg+xml;base64,${SVG}` } }] }],
  ],
  gemini: [
    [null],
    [{ parts: null }],
    [{ role: 'user', parts: [null, 1, { inlineData: null }, { inlineData: { data: 5 } }] }],
    [{ role: 'user', parts: [{ inlineData: { data: PNG } }, { functionResponse: null }, { functionResponse: { parts: 'x' } }] }],
    [{ role: 'user', parts: [{ functionResponse: { name: 'f', parts: [null, { inlineData: { mimeType: 'image/png', data: SVG } }] } }] }],
    [{ role: 'user', parts: [{ fileData: { fileUri: 'gs://x' } }, { inlineData: { mimeType: 7, data: '' } }] }],
  ],
  bedrock: [
    [null],
    [{ role: 'user', content: 'x' }],
    [{ role: 'user', content: [null, { image: null }, { document: 5 }, { image: { source: null } }] }],
    [
      {
        role: 'user',
        content: [{ image: { format: 'png', source: { bytes: 5 } } }, { image: { format: 'png', source: { s3Location: { uri: 's3://b/k' } } } }],
      },
    ],
    [
      {
        role: 'user',
        content: [
          { toolResult: null },
          { toolResult: { content: null } },
          { toolResult: { content: [null, { document: { format: 'pdf', source: { bytes: new Uint8Array(0) } } }] } },
        ],
      },
    ],
    [
      {
        role: 'user',
        content: [{ document: { format: 'docx', name: 5, source: { bytes: SVG } } }, { image: { format: ['png'], source: { bytes: new ArrayBuffer(3) } } }],
      },
    ],
  ],
}

describe('repairHistory on malformed Chat, Gemini and Bedrock histories', () => {
  for (const [format, list] of Object.entries(malformed)) {
    test(`${format}: each malformed history is left as it is, repaired, or refused with a code`, (t) => {
      const dir = tempDir(t)
      for (const messages of list) {
        const before = JSON.stringify(messages, (k, v) =>
          v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? `bytes:${Buffer.from(v.buffer ?? v).toString('base64')}` : v,
        )
        let answer
        try {
          answer = repairHistory(messages, { format, outputDir: dir })
        } catch (error) {
          assert.ok(error instanceof TypeError && error.code === 'INVALID_ARGUMENT', `${format} ${before}: ${error?.stack}`)
          continue
        }
        assert.equal(
          JSON.stringify(messages, (k, v) =>
            v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? `bytes:${Buffer.from(v.buffer ?? v).toString('base64')}` : v,
          ),
          before,
          'the input is not modified',
        )
        assert.equal(answer.messages.length, messages.length)
      }
    })
  }
})

/** An object whose properties are getters that count their reads. */
function counted(reads, name, fields) {
  const object = {}
  for (const [key, value] of Object.entries(fields)) {
    Object.defineProperty(object, key, {
      get() {
        reads.set(`${name}.${key}`, (reads.get(`${name}.${key}`) ?? 0) + 1)
        return value
      },
      enumerable: true,
    })
  }
  return object
}

describe('each property of a history is read once (getters counted)', () => {
  const cases = {
    gemini: (reads) => {
      const inline = counted(reads, 'inline', { mimeType: 'image/png', data: SVG })
      const response = counted(reads, 'response', { name: 'f', id: 'x', response: { output: '' }, parts: [counted(reads, 'rpart', { inlineData: inline })] })
      return [counted(reads, 'content', { role: 'user', parts: [counted(reads, 'part', { functionResponse: response })] })]
    },
    bedrock: (reads) => {
      const source = counted(reads, 'source', { bytes: Buffer.from(SVG, 'base64') })
      const image = counted(reads, 'image', { format: 'png', source })
      const result = counted(reads, 'result', { toolUseId: 't', content: [counted(reads, 'block', { image })] })
      return [counted(reads, 'message', { role: 'user', content: [counted(reads, 'outer', { toolResult: result })] })]
    },
    'openai-chat': (reads) => {
      const url = counted(reads, 'url', { url: `data:image/png;base64,${SVG}` })
      return [counted(reads, 'message', { role: 'user', content: [counted(reads, 'part', { type: 'image_url', image_url: url })] })]
    },
  }
  for (const [format, make] of Object.entries(cases)) {
    test(format, (t) => {
      const reads = new Map()
      const { repaired } = repairHistory(make(reads), { format, outputDir: tempDir(t) })
      assert.equal(repaired, 1)
      for (const [name, count] of reads) assert.equal(count, 1, `${name} read ${count} times`)
    })
  }
})

test('a polluted Object.prototype plays no part in reading or writing a history', (t) => {
  const setter = []
  const pollute = {
    type: 'image_url',
    inlineData: { mimeType: 'image/png', data: SVG },
    image: { format: 'png', source: { bytes: SVG } },
    toolResult: { content: [] },
  }
  for (const [key, value] of Object.entries(pollute)) Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true })
  Object.defineProperty(Object.prototype, 'text', {
    set(v) {
      setter.push(v)
    },
    configurable: true,
  })
  try {
    for (const format of ['openai-chat', 'gemini', 'bedrock']) {
      const { repaired } = repairHistory([{ role: 'user', content: [{}], parts: [{}] }], { format, outputDir: tempDir(t) })
      assert.equal(repaired, 0, `${format}: an inherited property was read`)
    }
    const { messages, repaired } = repairHistory([{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: SVG } }] }], {
      format: 'gemini',
      outputDir: tempDir(t),
    })
    assert.equal(repaired, 1)
    assert.ok(Object.hasOwn(messages[0].parts[0], 'text'))
  } finally {
    for (const key of [...Object.keys(pollute), 'text']) delete Object.prototype[key]
  }
  assert.deepEqual(setter, [], 'a setter on Object.prototype ran')
})

test('a huge list: 200,000 parts, one of them broken', (t) => {
  const parts = Array.from({ length: 200_000 }, () => ({ text: 'x' }))
  parts[123_456] = { inlineData: { mimeType: 'image/png', data: SVG } }
  const { messages, repaired } = repairHistory([{ role: 'user', parts }], { format: 'gemini', outputDir: tempDir(t) })
  assert.equal(repaired, 1)
  assert.equal(messages[0].parts.length, 200_000)
  assert.equal(messages[0].parts[0], parts[0])
  assert.equal(typeof messages[0].parts[123_456].text, 'string')
})

test('a Bedrock document moved out of an image block gets a valid, unique name and a text block beside it', (t) => {
  const pdf = corpus('fixture.pdf')
  const history = [
    {
      role: 'user',
      content: [
        { document: { format: 'pdf', name: 'document-1', source: { bytes: pdf } } },
        { text: 'see' },
        { toolResult: { toolUseId: 't', content: [{ image: { format: 'png', source: { bytes: pdf } } }] } },
      ],
    },
  ]
  const { messages, repaired } = repairHistory(history, { format: 'bedrock', outputDir: tempDir(t) })
  assert.equal(repaired, 1)
  const content = messages[0].content[2].toolResult.content
  assert.equal(content[0].document.format, 'pdf')
  assert.equal(content[0].document.name, 'document-1 (2)')
  assert.deepEqual(content[1], { text: '[1 document attached]' })
  assert.equal(messages[0].content[0], history[0].content[0])
})
