// repairHistory on OpenAI histories, through the openai SDK (7, Node 22+)
// against the strict local endpoints: Responses `input` items (media in a
// function_call_output) and Chat Completions `messages` (media in a user
// message, as Chat requires); each broken shape is refused, then accepted
// repaired.
import { loadBinding } from './fixtures/index.mjs'
import { startOpenAIResponsesMock } from './endpoints/openai-responses.mjs'
import { startOpenAIChatMock } from './endpoints/openai-chat.mjs'
import { repairMatrix } from './fixtures/repair-matrix.mjs'
import { modernSkip } from './fixtures/wire.mjs'

loadBinding()
if (modernSkip) console.log(`# repair-history-openai: skipped: ${modernSkip}`)

async function client(startMock, call) {
  const { default: OpenAI } = await import('openai')
  const endpoint = await startMock()
  const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${endpoint.url}/v1`, maxRetries: 2 })
  return {
    send: (history) => call(openai, history),
    refusal: (e) => (e instanceof OpenAI.BadRequestError ? e.message : null),
    close: () => endpoint.close(),
  }
}

const dataUrl = (shape, data) => `data:${shape.declared};base64,${data}`

// No per-image size or pixel limit at OpenAI (REFERENCE.md section 2: 512 MB payload, 1500 images).
const NO_LIMIT = 'OpenAI documents no per-image size or pixel limit'
const SKIP = {
  'image over the size limit': NO_LIMIT,
  'image 9000 px wide': NO_LIMIT,
}

repairMatrix({
  name: 'OpenAI Responses (openai): broken media in a function_call_output',
  format: 'openai-responses',
  suiteSkip: modernSkip,
  start: () => client(startOpenAIResponsesMock, (openai, input) => openai.responses.create({ model: 'gpt-test', input })),
  place: (shape, data) => [
    { role: 'user', content: 'Read the attachment' },
    { type: 'function_call', call_id: 'call_01', name: 'read', arguments: '{}' },
    {
      type: 'function_call_output',
      call_id: 'call_01',
      output: [
        { type: 'input_text', text: 'done' },
        shape.block === 'image'
          ? { type: 'input_image', image_url: dataUrl(shape, data), detail: 'auto' }
          : { type: 'input_file', file_data: dataUrl(shape, data), filename: 'attachment' },
      ],
    },
  ],
  skip: { ...SKIP, 'markdown in a document block': 'input_file reads markdown (the file-inputs guide)' },
})

repairMatrix({
  name: 'OpenAI Chat Completions (openai): broken media in a user message',
  format: 'openai-chat',
  suiteSkip: modernSkip,
  start: () => client(startOpenAIChatMock, (openai, messages) => openai.chat.completions.create({ model: 'gpt-test', messages })),
  place: (shape, data) => [
    { role: 'user', content: 'Read the attachment' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_01', type: 'function', function: { name: 'read', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_01', content: 'done' },
    {
      role: 'user',
      content: [
        shape.block === 'image'
          ? { type: 'image_url', image_url: { url: dataUrl(shape, data) } }
          : { type: 'file', file: { file_data: dataUrl(shape, data), filename: 'attachment' } },
      ],
    },
  ],
  skip: SKIP,
})
