// repairHistory on AI SDK model messages (AI SDK 7 with @ai-sdk/anthropic,
// Node 22+; AI SDK 6 with ai-sdk-anthropic-v3 everywhere) against the
// strict local Anthropic endpoint: each broken shape in a tool output
// (`file` parts in 7, `image-data`/`file-data` in 6) is refused, then
// accepted repaired (format 'ai-sdk', provider 'anthropic').
import { loadBinding } from './fixtures/index.mjs'
import { startAnthropicMock } from './endpoints/anthropic.mjs'
import { repairMatrix } from './fixtures/repair-matrix.mjs'
import { modernSkip } from './fixtures/wire.mjs'

loadBinding()
if (modernSkip) console.log(`# repair-history-ai-sdk: AI SDK 7 skipped: ${modernSkip}; AI SDK 6 runs`)

// What the SDK sends fine, or never sends, so the endpoint cannot refuse it (REFERENCE.md section 6).
const DROPPED = '@ai-sdk/anthropic drops inline types other than images and PDFs (the model never sees it)'
const ANIMATED = 'Anthropic takes animated GIFs (reads the first frame)'
const DETECTED = 'accepted as sent through AI SDK 7 (seen in this test: the SDK relabels or re-routes it before sending)'
const SDKS = [
  {
    version: 7,
    ai: 'ai',
    anthropic: '@ai-sdk/anthropic',
    skip: modernSkip,
    takes: {
      'PDF in an image block': 'an AI SDK 7 file part has no image kind: a PDF goes as a document',
      'PNG declared image/jpeg': DETECTED,
      'GIF declared image/png': DETECTED,
      'WebP declared image/jpeg': DETECTED,
      'JPEG declared image/webp': DETECTED,
      'JPEG in a PDF document block': DETECTED,
      'data URL typed image/jpeg holding a PNG': DETECTED,
      'markdown in a document block': DROPPED,
      'ZIP in a document block': DROPPED,
      'WAV in an image block': DROPPED,
      'animated GIF': ANIMATED,
    },
  },
  {
    version: 6,
    ai: 'ai-v6',
    anthropic: 'ai-sdk-anthropic-v3',
    skip: false,
    takes: { 'markdown in a document block': DROPPED, 'ZIP in a document block': DROPPED, 'animated GIF': ANIMATED },
  },
]

function starter(sdk) {
  return async () => {
    const ai = await import(sdk.ai)
    const { z } = await import('zod')
    const { createAnthropic } = await import(sdk.anthropic)
    const endpoint = await startAnthropicMock({ maxImageBase64: 10_485_760 })
    const model = createAnthropic({ apiKey: 'test-key', baseURL: `${endpoint.url}/v1` })('claude-test')
    globalThis.AI_SDK_LOG_WARNINGS = false
    const tools = { read: ai.tool({ inputSchema: z.object({}) }) }
    return {
      send: (messages) => ai.generateText({ model, messages, tools, maxRetries: 2, maxOutputTokens: 16 }),
      refusal: (e) => (ai.APICallError.isInstance(e) && e.statusCode === 400 ? e.message : null),
      close: () => endpoint.close(),
    }
  }
}

/** A naive wrapper's tool output part, with the declared type. */
function outputPart(shape, data, version) {
  if (version === 7) return { type: 'file', mediaType: shape.declared, data: { type: 'data', data } }
  if (shape.block === 'image') return { type: 'image-data', mediaType: shape.declared, data }
  return { type: 'file-data', mediaType: shape.declared, data, filename: 'attachment' }
}

for (const sdk of SDKS) {
  repairMatrix({
    name: `AI SDK ${sdk.version} (${sdk.ai}, ${sdk.anthropic}): broken media in a tool output`,
    format: 'ai-sdk',
    options: { provider: 'anthropic' },
    suiteSkip: sdk.skip,
    start: starter(sdk),
    place: (shape, data) => [
      { role: 'user', content: 'Read the attachment' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_01', toolName: 'read', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_01',
            toolName: 'read',
            output: { type: 'content', value: [{ type: 'text', text: 'done' }, outputPart(shape, data, sdk.version)] },
          },
        ],
      },
    ],
    skip: sdk.takes,
  })
}
