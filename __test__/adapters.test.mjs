// The wire adapters and repairHistory on their own: exact shapes for each
// format, inputs never modified (frozen inputs), own properties only (a
// polluted Object.prototype changes nothing), coded errors for bad
// arguments, and repairHistory's copies, counts, notes and saved files.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { loadBinding, tempDir, corpus, b64, makeWav, checkSavedNote, listFiles } from './fixtures/index.mjs'
import { deepFreeze } from './fixtures/results.mjs'

const m = loadBinding()
const png = corpus('fixture.png')
const pdf = corpus('fixture.pdf')
const PNG = b64(png)
const PDF = b64(pdf)

/** A ConvertedToolResult as convertToolResult writes one (frozen: the adapters must not touch it). */
const converted = (content, { deferred = [], isError = false } = {}) => deepFreeze({ content, deferred, isError, saved: [] })
const text = (t) => ({ type: 'text', text: t })
const file = (mediaType, data, extra = {}) => ({ type: 'file', mediaType, data, ...extra })

describe('adapters: shapes', () => {
  const result = converted([text('Here:'), file('image/png', PNG), file('application/pdf', PDF, { uri: 'file:///r/q3.pdf', filename: 'q3.pdf' })], {
    deferred: [file('image/png', PNG)],
  })

  test('toAnthropicToolResult', () => {
    assert.deepEqual(m.toAnthropicToolResult(result, 'toolu_1'), {
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: 'Here:' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
      ],
    })
    assert.equal(m.toAnthropicToolResult(converted([text('boom')], { isError: true }), 'x').is_error, true)
    assert.deepEqual(m.toAnthropicToolResult(converted([text('')]), 'x').content, [], 'empty text blocks are left out')
    assert.deepEqual(m.toAnthropicContent([file('text/plain', b64(Buffer.from('héllo')))]), [
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
    ])
  })

  test('toOpenAIResponsesOutput and toOpenAIResponsesMessage', () => {
    assert.deepEqual(m.toOpenAIResponsesOutput(result, 'call_1'), {
      type: 'function_call_output',
      call_id: 'call_1',
      output: [
        { type: 'input_text', text: 'Here:' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'q3.pdf' },
      ],
    })
    assert.equal(m.toOpenAIResponsesMessage([]), null)
    assert.deepEqual(m.toOpenAIResponsesMessage([file('application/pdf', PDF)]).content, [
      { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'file-1.pdf' },
    ])
  })

  test('toOpenAIChatMessages: text-only tool message, media in a user message', () => {
    const wav = b64(makeWav(100))
    const messages = m.toOpenAIChatMessages(
      converted([text('a'), text('[image/png image, 53 KB, attached below]')], {
        deferred: [file('image/png', PNG), file('audio/wav', wav), file('application/pdf', PDF)],
      }),
      'call_1',
    )
    assert.deepEqual(messages, [
      { role: 'tool', tool_call_id: 'call_1', content: 'a\n\n[image/png image, 53 KB, attached below]' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'input_audio', input_audio: { data: wav, format: 'wav' } },
          { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'file-3.pdf' } },
        ],
      },
    ])
    assert.deepEqual(m.toOpenAIChatMessages(converted([text('only text')]), 'c'), [{ role: 'tool', tool_call_id: 'c', content: 'only text' }])
    assert.equal(m.toOpenAIChatUserMessage([]), null)
    assert.equal(m.toOpenAIChatUserMessage([file('audio/mpeg', 'AAAA')]).content[0].input_audio.format, 'mp3')
    assert.throws(() => m.toOpenAIChatUserMessage([file('audio/flac', 'AAAA')]), {
      code: 'INVALID_ARGUMENT',
      message: /audio\/flac has no Chat Completions part/,
    })
  })

  test('toGeminiFunctionResponse: id, output or error, media inside and deferred beside', () => {
    const parts = m.toGeminiFunctionResponse(result, 'read', 'fc_1')
    assert.deepEqual(parts, [
      {
        functionResponse: {
          name: 'read',
          id: 'fc_1',
          response: { output: 'Here:' },
          parts: [
            { inlineData: { mimeType: 'image/png', data: PNG, displayName: 'file-1' } },
            { inlineData: { mimeType: 'application/pdf', data: PDF, displayName: 'q3.pdf' } },
          ],
        },
      },
      { inlineData: { mimeType: 'image/png', data: PNG, displayName: 'file-3' } },
    ])
    const error = m.toGeminiFunctionResponse(converted([text('no such file')], { isError: true }), 'read')
    assert.deepEqual(error, [{ functionResponse: { name: 'read', response: { error: 'no such file' } } }])
  })

  test('toBedrockToolResult: decoded bytes, formats, names, status', () => {
    const block = m.toBedrockToolResult(result, 'tooluse_1')
    assert.equal(block.toolResult.toolUseId, 'tooluse_1')
    assert.equal(block.toolResult.status, 'success')
    const [t, image, document] = block.toolResult.content
    assert.deepEqual(t, { text: 'Here:' })
    assert.equal(image.image.format, 'png')
    assert.ok(Buffer.from(image.image.source.bytes).equals(png))
    assert.equal(document.document.format, 'pdf')
    assert.equal(document.document.name, 'q3')
    assert.ok(Buffer.from(document.document.source.bytes).equals(pdf))
    const names = m.toBedrockContent([
      file('application/pdf', PDF, { filename: 'a..b  c.pdf' }),
      file('application/pdf', PDF, { filename: '!!!.pdf' }),
      file('application/pdf', PDF),
    ])
    assert.deepEqual(
      names.map((b) => b.document?.name ?? b.text),
      ['a-b c', 'document-2', 'document-3', '[3 documents attached]'],
    )
    assert.equal(m.toBedrockToolResult(converted([text('x')], { isError: true }), 't').toolResult.status, 'error')
    assert.throws(() => m.toBedrockToolResult(converted([file('audio/wav', 'AAAA')]), 't'), {
      code: 'INVALID_ARGUMENT',
      message: /audio\/wav has no Bedrock block/,
    })
  })

  test('toAiSdkToolOutput: AI SDK 7 and 6 shapes, error text', () => {
    assert.deepEqual(m.toAiSdkToolOutput(result), {
      type: 'content',
      value: [
        { type: 'text', text: 'Here:' },
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
        { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: PDF }, filename: 'q3.pdf' },
      ],
    })
    assert.deepEqual(m.toAiSdkToolOutput(result, { version: 6 }), {
      type: 'content',
      value: [
        { type: 'text', text: 'Here:' },
        { type: 'image-data', data: PNG, mediaType: 'image/png' },
        { type: 'file-data', data: PDF, mediaType: 'application/pdf', filename: 'q3.pdf' },
      ],
    })
    assert.deepEqual(m.toAiSdkToolOutput(converted([text('a'), text('b')], { isError: true })), { type: 'error-text', value: 'a\n\nb' })
  })
})

describe('adapters: careful reading', () => {
  test('bad arguments are INVALID_ARGUMENT', () => {
    const ok = converted([text('x')])
    for (const call of [
      () => m.toAnthropicToolResult(null, 'x'),
      () => m.toAnthropicToolResult(ok, 1),
      () => m.toOpenAIResponsesOutput({ content: 'nope' }, 'x'),
      () => m.toOpenAIChatMessages({ content: [{ type: 'image' }] }, 'x'),
      () => m.toGeminiFunctionResponse(ok, 'n', 5),
      () => m.toBedrockToolResult({ content: [{ type: 'file', mediaType: 'image/png' }] }, 'x'),
      () => m.toAiSdkToolOutput(ok, { version: 5 }),
      () => m.toAnthropicContent('x'),
    ]) {
      assert.throws(call, { code: 'INVALID_ARGUMENT' })
    }
  })

  test('inherited properties are not read; a polluted Object.prototype changes nothing', () => {
    const inherited = Object.create({ content: [text('inherited')], isError: true })
    assert.deepEqual(m.toAnthropicToolResult(inherited, 'x'), { type: 'tool_result', tool_use_id: 'x', content: [] })
    const setter = []
    Object.defineProperty(Object.prototype, 'is_error', {
      set: (v) => {
        setter.push(v)
      },
      configurable: true,
    })
    Object.defineProperty(Object.prototype, 'filename', {
      set: (v) => {
        setter.push(v)
      },
      get: () => 'polluted.exe',
      configurable: true,
    })
    Object.defineProperty(Array.prototype, '0', {
      set: (v) => {
        setter.push(v)
      },
      configurable: true,
    })
    try {
      const block = m.toAnthropicToolResult(converted([text('x')], { isError: true }), 'x')
      assert.equal(Object.getOwnPropertyDescriptor(block, 'is_error').value, true)
      const out = m.toAiSdkToolOutput(converted([file('application/pdf', PDF)]))
      assert.ok(!Object.hasOwn(out.value[0], 'filename'), 'an inherited filename was read')
      assert.equal(Object.getOwnPropertyDescriptor(out.value, '0').value.type, 'file')
    } finally {
      delete Object.prototype.is_error
      delete Object.prototype.filename
      delete Array.prototype['0']
    }
    assert.deepEqual(setter, [], 'a setter on a prototype ran')
  })
})

describe('repairHistory', () => {
  const markdown = b64(Buffer.from('# Notes\n\nhello\n'))
  const anthropicHistory = () => [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [
            { type: 'document', source: { type: 'base64', media_type: 'text/markdown', data: markdown } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'base64', media_type: 'application/vnd.apache.parquet', data: b64(corpus('fixture.parquet')) } },
          ],
        },
      ],
    },
  ]

  test('a copy: refused attachments replaced by notes (bytes saved), sendable ones and untouched messages kept, input frozen', (t) => {
    const dir = tempDir(t)
    const history = deepFreeze(anthropicHistory())
    const { messages, repaired } = m.repairHistory(history, { format: 'anthropic', provider: 'anthropic', outputDir: dir })
    assert.equal(repaired, 2)
    assert.notEqual(messages, history)
    assert.equal(messages[0], history[0])
    assert.equal(messages[1], history[1])
    const content = messages[2].content[0].content
    assert.deepEqual(content[0], { type: 'text', text: '[Media (text/markdown)]\n# Notes\n\nhello\n' })
    assert.equal(content[1], history[2].content[0].content[1])
    checkSavedNote(assert, content[2], { head: 'Binary image', mediaType: 'application/vnd.apache.parquet', bytes: corpus('fixture.parquet'), dir })
  })

  test('the notes are those convertToolResult writes for the same media', (t) => {
    const dir = tempDir(t)
    const part = { type: 'media', data: markdown, mimeType: 'text/markdown' }
    const expected = m.convertToolResultSync({ content: [part] }, { provider: 'anthropic', outputDir: dir }).content[0]
    const { messages } = m.repairHistory(anthropicHistory(), { format: 'anthropic', provider: 'anthropic', outputDir: dir })
    assert.deepEqual(messages[2].content[0].content[0], expected)
  })

  test('nothing to repair: repaired 0, every message the same object', () => {
    const history = [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }]
    const { messages, repaired } = m.repairHistory(history, { format: 'anthropic' })
    assert.equal(repaired, 0)
    assert.equal(messages[0].content[0], history[0].content[0])
  })

  test('AI SDK messages: bytes, tagged data, v6 parts; a mislabelled JPEG relabelled', (t) => {
    const jpeg = corpus('fixture.jpg')
    const history = [
      {
        role: 'user',
        content: [
          { type: 'image', image: new Uint8Array(jpeg), mediaType: 'image/png' },
          { type: 'text', text: 'hi' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'x',
            output: {
              type: 'content',
              value: [
                { type: 'image-data', data: '', mediaType: 'image/png' },
                { type: 'file', mediaType: 'image/png', data: { type: 'data', data: b64(jpeg) } },
                { type: 'file-data', data: PDF, mediaType: 'application/pdf', filename: 'a.pdf' },
              ],
            },
          },
        ],
      },
    ]
    const { messages, repaired } = m.repairHistory(history, { format: 'ai-sdk', provider: 'anthropic', outputDir: tempDir(t) })
    assert.equal(repaired, 3)
    assert.deepEqual(messages[0].content[0], { type: 'image', image: b64(jpeg), mediaType: 'image/jpeg' })
    const value = messages[1].content[0].output.value
    assert.equal(value[0].type, 'text')
    assert.match(value[0].text, /empty/)
    assert.deepEqual(value[1], { type: 'file', mediaType: 'image/jpeg', data: { type: 'data', data: b64(jpeg) } })
    assert.equal(value[2], history[1].content[0].output.value[2])
    assert.equal(history[0].content[0].mediaType, 'image/png', 'the input was modified')
  })

  test('OpenAI Responses items: data URLs in messages and function_call_output; URLs left alone', (t) => {
    const items = [
      {
        role: 'user',
        content: [
          { type: 'input_image', image_url: 'https://example.com/a.png' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,', filename: 'e.pdf' },
        ],
      },
      { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }] },
    ]
    const { messages, repaired } = m.repairHistory(items, { format: 'openai-responses', provider: 'openai', outputDir: tempDir(t) })
    assert.equal(repaired, 1)
    assert.equal(messages[0].content[0], items[0].content[0])
    assert.equal(messages[0].content[1].type, 'input_text')
    assert.equal(messages[1], items[1])
  })

  test('bad arguments are INVALID_ARGUMENT', () => {
    assert.throws(() => m.repairHistory('x', { format: 'anthropic' }), { code: 'INVALID_ARGUMENT' })
    assert.throws(() => m.repairHistory([], {}), { code: 'INVALID_ARGUMENT' })
    assert.throws(() => m.repairHistory([], { format: '__proto__' }), { code: 'INVALID_ARGUMENT' })
    assert.throws(() => m.repairHistory([], { format: 'anthropic', provider: 'nope' }), { code: 'INVALID_ARGUMENT' })
    assert.throws(() => m.repairHistory([], { format: 'anthropic', store: {} }), { code: 'INVALID_ARGUMENT' })
  })

  test('each property of the history is read once (getters counted)', (t) => {
    const reads = new Map()
    const counted = (name, value) => ({
      get() {
        reads.set(name, (reads.get(name) ?? 0) + 1)
        return value
      },
      enumerable: true,
    })
    const source = Object.defineProperties(
      {},
      { type: counted('source.type', 'base64'), media_type: counted('source.media_type', 'text/markdown'), data: counted('source.data', markdown) },
    )
    const block = Object.defineProperties({}, { type: counted('block.type', 'document'), source: counted('block.source', source) })
    const result = Object.defineProperties(
      {},
      { type: counted('result.type', 'tool_result'), tool_use_id: counted('result.tool_use_id', 't1'), content: counted('result.content', [block]) },
    )
    const message = Object.defineProperties({}, { role: counted('message.role', 'user'), content: counted('message.content', [result]) })
    const { messages, repaired } = m.repairHistory([message], { format: 'anthropic', outputDir: tempDir(t) })
    assert.equal(repaired, 1)
    assert.equal(messages[0].content[0].content[0].type, 'text')
    for (const [name, count] of reads) assert.equal(count, 1, `${name} read ${count} times`)
    assert.equal(reads.size, 10)
  })

  test('the store given is the one that saves', (t) => {
    const store = new m.ToolOutputStore(tempDir(t))
    const { messages } = m.repairHistory(anthropicHistory(), { format: 'anthropic', store })
    const note = messages[2].content[0].content[2].text
    assert.ok(note.includes(store.dir), note)
    assert.equal(listFiles(store.dir).length, 1)
  })
})
