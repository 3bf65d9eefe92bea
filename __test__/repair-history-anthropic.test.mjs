// repairHistory on Anthropic Messages histories, through @anthropic-ai/sdk
// against the strict local endpoint (the direct API's 10 MB image rule):
// each broken shape in a tool_result is refused, then accepted repaired.
// Also: media at the top level of a user message, and the first finding of
// issue 23 item 3 (a PDF in an image block was left as it was).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import Anthropic from '@anthropic-ai/sdk'
import { loadBinding, tempDir, corpus } from './fixtures/index.mjs'
import { startAnthropicMock } from './endpoints/anthropic.mjs'
import { repairMatrix } from './fixtures/repair-matrix.mjs'

const { repairHistory } = loadBinding()
const DIRECT_API_IMAGE_BASE64 = 10_485_760

async function start() {
  const endpoint = await startAnthropicMock({ maxImageBase64: DIRECT_API_IMAGE_BASE64 })
  const client = new Anthropic({ apiKey: 'test-key', baseURL: endpoint.url, maxRetries: 2 })
  return {
    send: (messages) => client.messages.create({ model: 'claude-test', max_tokens: 16, messages }),
    refusal: (e) => (e instanceof Anthropic.BadRequestError ? e.message : null),
    close: () => endpoint.close(),
  }
}

/** A naive wrapper's block: image/* (and anything it calls an image) as an image block, else a document. */
const block = (shape, data) => ({ type: shape.block === 'image' ? 'image' : 'document', source: { type: 'base64', media_type: shape.declared, data } })

const history = (blocks) => [
  { role: 'user', content: 'Read the attachment' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'read', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'done' }, ...blocks] }] },
]

repairMatrix({
  name: 'Anthropic Messages (@anthropic-ai/sdk): broken media in a tool_result',
  format: 'anthropic',
  start,
  place: (shape, data) => history([block(shape, data)]),
  skip: {
    'animated GIF': 'Anthropic takes animated GIFs (reads the first frame)',
    'data URL typed image/jpeg holding a PNG': 'no data URLs in this format (see PNG declared image/jpeg)',
  },
})

test('the finding: a PDF in an image block (media_type application/pdf) was left as it was, 0 repairs, and refused', async (t) => {
  const endpoint = await startAnthropicMock({ maxImageBase64: DIRECT_API_IMAGE_BASE64 })
  t.after(() => endpoint.close())
  const client = new Anthropic({ apiKey: 'test-key', baseURL: endpoint.url, maxRetries: 2 })
  const pdf = corpus('fixture.pdf').toString('base64')
  const broken = history([{ type: 'image', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }])
  const send = (messages) => client.messages.create({ model: 'claude-test', max_tokens: 16, messages })
  await assert.rejects(send(broken), /media_type: Input should be 'image\/jpeg', 'image\/png', 'image\/gif' or 'image\/webp'/)
  const { messages, repaired } = repairHistory(broken, { format: 'anthropic', outputDir: tempDir(t) })
  assert.equal(repaired, 1)
  assert.deepEqual(messages[2].content[0].content[1], { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } })
  assert.equal((await send(messages)).content[0].text, 'ok')
})
