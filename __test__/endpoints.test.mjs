// The strict local endpoints refuse what the real APIs refuse (the project
// notes' REFERENCE.md sections 2, 6 and 7): each rule checked on its own
// with real files (corpus files, PNGs written by zlib, an animated GIF made
// from the corpus GIF), and a request that keeps the rule accepted, so a
// rule cannot pass by refusing everything.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { corpus, b64, makePng, makeWav } from './fixtures/index.mjs'
import { animatedGif } from './fixtures/results.mjs'
import { Refusal } from './endpoints/common.mjs'
import { validateMessagesRequest } from './endpoints/anthropic.mjs'
import { validateResponsesRequest } from './endpoints/openai-responses.mjs'
import { validateChatRequest } from './endpoints/openai-chat.mjs'
import { validateGenerateContent } from './endpoints/gemini.mjs'
import { validateConverse } from './endpoints/bedrock.mjs'

const refuses = (check, re) => assert.throws(check, (e) => e instanceof Refusal && re.test(e.message), String(re))
const PNG = b64(corpus('fixture.png'))
const JPEG = b64(corpus('fixture.jpg'))
const PDF = b64(corpus('fixture.pdf'))
const SVG = b64(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))
const tinyPngs = (n) => Array.from({ length: n }, (_, i) => b64(makePng(1, 1, { padTo: 100 + i })))

describe('Anthropic Messages', () => {
  const user = (content) => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] })
  const image = (data, mt = 'image/png') => ({ type: 'image', source: { type: 'base64', media_type: mt, data } })
  test('user content is checked like tool results', () => {
    validateMessagesRequest(user([image(PNG)]))
    refuses(
      () => validateMessagesRequest(user([image(JPEG)])),
      /^messages\.0\.content\.0\.image\.source\.base64\.data: The image was specified using the image\/png media type, but the image appears to be a image\/jpeg image$/,
    )
  })
  test('100 images and documents per request', () => {
    validateMessagesRequest(user(tinyPngs(100).map((d) => image(d))))
    refuses(() => validateMessagesRequest(user(tinyPngs(101).map((d) => image(d)))), /^too many images and documents: 100 \+ 1 > 100$/)
  })
})

describe('OpenAI Responses', () => {
  const input = (content) => ({ model: 'm', input: [{ role: 'user', content }] })
  const image = (data, mt = 'image/png') => ({ type: 'input_image', image_url: `data:${mt};base64,${data}` })
  test('input_image: png, jpeg, webp and still gif whose bytes match', () => {
    validateResponsesRequest(input([image(PNG), image(JPEG, 'image/jpeg'), image(b64(corpus('fixture.gif')), 'image/gif')]))
    refuses(() => validateResponsesRequest(input([image(SVG, 'image/svg+xml')])), /unsupported MIME type 'image\/svg\+xml'/)
    refuses(() => validateResponsesRequest(input([image(b64(animatedGif()), 'image/gif')])), /Animated GIFs are not supported/)
    refuses(() => validateResponsesRequest(input([image('')])), /empty/)
    refuses(() => validateResponsesRequest(input([image(`${PNG.slice(0, 8)} ${PNG.slice(8)}`)])), /invalid base64/)
    refuses(() => validateResponsesRequest(input([image(JPEG)])), /not a valid image\/png image/)
  })
  test('input_file: a readable type, a name, real bytes; a function_call_output answers a call', () => {
    const file = (data, mt, filename) => ({ type: 'input_file', file_data: `data:${mt};base64,${data}`, filename })
    validateResponsesRequest(input([file(PDF, 'application/pdf', 'a.pdf'), file(b64(Buffer.from('# x')), 'text/markdown', 'data')]))
    refuses(() => validateResponsesRequest(input([file(PDF, 'application/pdf')])), /Missing required parameter: 'input\[0\]\.content\[0\]\.filename'/)
    refuses(() => validateResponsesRequest(input([file(b64(corpus('fixture.parquet')), 'application/vnd.apache.parquet', 'd.parquet')])), /is not supported/)
    refuses(() => validateResponsesRequest(input([file(PNG, 'application/pdf', 'a.pdf')])), /not a valid PDF/)
    refuses(() => validateResponsesRequest({ model: 'm', input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] }), /No tool call found/)
  })
  test('1500 images per request', () => {
    validateResponsesRequest(input(tinyPngs(1500).map((d) => image(d))))
    refuses(() => validateResponsesRequest(input(tinyPngs(1501).map((d) => image(d)))), /Too many images/)
  })
})

describe('OpenAI Chat Completions', () => {
  const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }
  const body = (...messages) => ({ model: 'm', messages: [{ role: 'user', content: 'go' }, ...messages] })
  test('a tool message takes text only, and answers a tool call', () => {
    validateChatRequest(body(call, { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'x' }] }))
    refuses(
      () =>
        validateChatRequest(
          body(call, { role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] }),
        ),
      /Supported values are: 'text'/,
    )
    refuses(() => validateChatRequest(body({ role: 'tool', tool_call_id: 'c1', content: 'x' })), /must be a response to a preceeding message with 'tool_calls'/)
    refuses(() => validateChatRequest(body(call, { role: 'user', content: 'x' })), /must be followed by tool messages/)
  })
  test('user media: images, wav or mp3 audio, PDF files', () => {
    const user = (part) => body({ role: 'user', content: [part] })
    validateChatRequest(user({ type: 'input_audio', input_audio: { data: b64(makeWav(10)), format: 'wav' } }))
    validateChatRequest(user({ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'a.pdf' } }))
    refuses(
      () => validateChatRequest(user({ type: 'input_audio', input_audio: { data: b64(makeWav(10)), format: 'flac' } })),
      /Supported values are: 'wav' and 'mp3'/,
    )
    refuses(() => validateChatRequest(user({ type: 'input_audio', input_audio: { data: PNG, format: 'wav' } })), /not valid wav data/)
    refuses(() => validateChatRequest(user({ type: 'file', file: { file_data: `data:text/markdown;base64,${SVG}`, filename: 'a.md' } })), /Only PDF files/)
    refuses(
      () => validateChatRequest(user({ type: 'image_url', image_url: { url: `data:image/bmp;base64,${b64(corpus('fixture.bmp'))}` } })),
      /unsupported MIME type 'image\/bmp'/,
    )
  })
})

describe('Gemini generateContent', () => {
  const contents = (response, call = { id: 'fc1', name: 'f', args: {} }) => ({
    contents: [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: call }] },
      { role: 'user', parts: [{ functionResponse: response }] },
    ],
  })
  const inline = (mimeType, data) => ({ inlineData: { mimeType, data } })
  test('function responses: parts on Gemini 3 only, of five types; ids on Gemini 3; names and counts', () => {
    validateGenerateContent('gemini-3-pro', contents({ id: 'fc1', name: 'f', response: {}, parts: [inline('image/png', PNG), inline('application/pdf', PDF)] }))
    refuses(() => validateGenerateContent('gemini-2.5-flash', contents({ name: 'f', response: {}, parts: [inline('image/png', PNG)] })), /Unknown name "parts"/)
    refuses(
      () => validateGenerateContent('gemini-3-pro', contents({ id: 'fc1', name: 'f', response: {}, parts: [inline('image/heic', PNG)] })),
      /Unsupported MIME type: image\/heic/,
    )
    refuses(() => validateGenerateContent('gemini-3-pro', contents({ name: 'f', response: {} })), /does not carry the id/)
    validateGenerateContent('gemini-2.5-flash', contents({ name: 'f', response: {} }))
    refuses(() => validateGenerateContent('gemini-2.5-flash', contents({ name: 'g', response: {} })), /does not answer a function call/)
    const two = contents({ id: 'fc1', name: 'f', response: {} })
    two.contents[1].parts.push({ functionCall: { id: 'fc2', name: 'f', args: {} } })
    refuses(() => validateGenerateContent('gemini-3-pro', two), /number of function response parts is equal/)
  })
  test('user inline data: the types Gemini reads, bytes that match', () => {
    const user = (...parts) => ({ contents: [{ role: 'user', parts }] })
    validateGenerateContent('gemini-3-pro', user(inline('image/png', PNG), inline('audio/wav', b64(makeWav(10)))))
    refuses(() => validateGenerateContent('gemini-3-pro', user(inline('image/gif', b64(corpus('fixture.gif'))))), /Unsupported MIME type: image\/gif/)
    refuses(() => validateGenerateContent('gemini-3-pro', user(inline('image/png', JPEG))), /Unable to process input image/)
    refuses(() => validateGenerateContent('gemini-3-pro', user(inline('image/png', ''))), /empty/)
  })
})

describe('Bedrock Converse', () => {
  const image = (bytes, format = 'png') => ({ image: { format, source: { bytes: b64(bytes) } } })
  const document = (name, bytes = corpus('fixture.pdf')) => ({ document: { format: 'pdf', name, source: { bytes: b64(bytes) } } })
  const user = (...content) => ({ messages: [{ role: 'user', content }] })
  test('images: format, bytes, 3.75 MB, 8000 px, 20 per request', () => {
    validateConverse(user(image(corpus('fixture.png'))))
    refuses(() => validateConverse(user(image(corpus('fixture.jpg')))), /does not match the format png/)
    refuses(() => validateConverse(user(image(makePng(9000, 10)))), /exceed the maximum of 8000 pixels/)
    refuses(() => validateConverse(user(image(makePng(600, 600, { fill: 'random', padTo: 3_932_161 })))), /exceeds the maximum of 3\.75 MB/)
    validateConverse(user(image(makePng(600, 600, { fill: 'random', padTo: 3_932_160 }))))
    const images = (n) => Array.from({ length: n }, (_, i) => image(makePng(1, 1, { padTo: 100 + i })))
    validateConverse(user(...images(20)))
    refuses(() => validateConverse(user(...images(21))), /Too many images: 21 > 20/)
  })
  test('documents: names, a text block beside them, 5 per request, unique names', () => {
    validateConverse(user({ text: 'see' }, document('Q3 report (v2) [final]')))
    refuses(() => validateConverse(user({ text: 'see' }, document('README.md'))), /The document file name can only contain/)
    refuses(() => validateConverse(user({ text: 'see' }, document('two  spaces'))), /The document file name can only contain/)
    refuses(() => validateConverse(user(document('alone'))), /must include a text block along with a document/)
    refuses(() => validateConverse(user({ text: 'see' }, document('a'), document('a'))), /unique/)
    refuses(() => validateConverse(user({ text: 'see' }, ...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => document(n)))), /Too many documents: 6 > 5/)
  })
  test('tool results answer the previous turn and need a toolConfig', () => {
    const messages = [
      { role: 'user', content: [{ text: 'go' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'f', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'x' }] } }] },
    ]
    validateConverse({ messages, toolConfig: { tools: [] } })
    refuses(() => validateConverse({ messages }), /toolConfig field must be defined/)
    refuses(() => validateConverse({ messages: [messages[0], messages[2]], toolConfig: {} }), /must answer the toolUse blocks/)
  })
})
