// repairHistory on Gemini `contents`, through @google/genai (3, Node 22+)
// against the strict local endpoint (Gemini 3): each broken shape in a
// functionResponse's parts is refused, then accepted repaired.
import { loadBinding } from './fixtures/index.mjs'
import { startGeminiMock } from './endpoints/gemini.mjs'
import { repairMatrix } from './fixtures/repair-matrix.mjs'
import { modernSkip } from './fixtures/wire.mjs'

loadBinding()
if (modernSkip) console.log(`# repair-history-gemini: skipped: ${modernSkip}`)

async function start() {
  const { GoogleGenAI, ApiError } = await import('@google/genai')
  const endpoint = await startGeminiMock()
  const genai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: endpoint.url } })
  return {
    send: (contents) => genai.models.generateContent({ model: 'gemini-3-pro', contents }),
    refusal: (e) => (e instanceof ApiError && e.status === 400 ? e.message : null),
    close: () => endpoint.close(),
  }
}

// Gemini has one kind of part for every type, no per-image size or pixel limit (REFERENCE.md
// section 2: 100 MB inline per request), and reads these declared types as they are.
const SKIP = {
  'PDF in an image block': 'one kind of part: a PDF declared application/pdf is what Gemini takes',
  'image over the size limit': 'no per-image size limit at Gemini',
  'image 9000 px wide': 'no pixel limit at Gemini (images are scaled)',
  'animated GIF': 'same refusal as GIF declared image/png: Gemini takes no GIF at all',
  'HEIC declared image/png': 'HEIC only in a user turn: repairHistory does not move media out of a function response',
  'WAV in an image block': 'audio only in a user turn: repairHistory does not move media out of a function response',
  'MP3 declared image/png': 'audio only in a user turn: repairHistory does not move media out of a function response',
}

repairMatrix({
  name: 'Gemini (@google/genai): broken media in functionResponse.parts',
  format: 'gemini',
  suiteSkip: modernSkip,
  start,
  place: (shape, data) => [
    { role: 'user', parts: [{ text: 'Read the attachment' }] },
    { role: 'model', parts: [{ functionCall: { id: 'fc_01', name: 'read', args: {} } }] },
    {
      role: 'user',
      parts: [{ functionResponse: { id: 'fc_01', name: 'read', response: { output: 'done' }, parts: [{ inlineData: { mimeType: shape.declared, data } }] } }],
    },
  ],
  skip: SKIP,
})

repairMatrix({
  name: 'Gemini (@google/genai): broken media as parts of a user turn',
  format: 'gemini',
  suiteSkip: modernSkip,
  start,
  place: (shape, data) => [{ role: 'user', parts: [{ text: 'Look at this' }, { inlineData: { mimeType: shape.declared, data } }] }],
  skip: { ...SKIP, 'HEIC declared image/png': undefined, 'MP3 declared image/png': undefined, 'WAV in an image block': 'a user turn takes audio/wav' },
})
