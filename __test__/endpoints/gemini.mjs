// A strict local stand-in for Gemini's generateContent endpoint (POST
// /v1beta/models/<model>:generateContent), per the project notes'
// REFERENCE.md sections 2 and 6: inline data of the types Gemini reads,
// checked against the bytes; media inside a functionResponse (`parts`) only
// on Gemini 3 and later (a 2.x model refuses them), and there only png,
// jpeg, webp, pdf and text/plain; every functionResponse answers a
// functionCall of the model turn before it, by name, in the same number,
// and on Gemini 3 with its call's id; at most 100 MB of inline data and
// 3600 images. The error texts are the endpoint's own, in the API's error
// shape.
import { startEndpoint, Refusal, strictBase64, imageProblem, sniff } from './common.mjs'

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif']
const AUDIO_TYPES = ['audio/wav', 'audio/mp3', 'audio/mpeg', 'audio/aiff', 'audio/aac', 'audio/ogg', 'audio/flac']
const USER_TYPES = [...IMAGE_TYPES, ...AUDIO_TYPES, 'application/pdf', 'text/plain']
const RESPONSE_PART_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/pdf', 'text/plain']
const MAX_INLINE_BYTES = 100 * 1024 * 1024
const MAX_IMAGES = 3600

const isGemini3 = (model) => !/^gemini-(1|2)(\.|-)/.test(model)

function checkInline(inline, where, allowed, totals) {
  const { mimeType, data } = inline ?? {}
  if (!allowed.includes(mimeType)) throw new Refusal(`${where}.mime_type: Unsupported MIME type: ${mimeType}`)
  const bytes = strictBase64(data)
  if (bytes === null) throw new Refusal(`${where}.data: Invalid value (bytes): the value is not valid base64.`)
  if (bytes.length === 0) throw new Refusal(`${where}.data: The inline data is empty.`)
  if (mimeType.startsWith('image/') && ['image/png', 'image/jpeg', 'image/webp'].includes(mimeType)) {
    if (imageProblem(bytes, mimeType, IMAGE_TYPES) !== null)
      throw new Refusal(`${where}: Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting`)
    totals.images++
  }
  if (mimeType === 'application/pdf' && sniff(bytes) !== 'application/pdf') throw new Refusal(`${where}: The document has no pages.`)
  totals.bytes += bytes.length
}

/** Throws a Refusal for what generateContent refuses in `body` for `model`. */
export function validateGenerateContent(model, body) {
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw new Refusal('* GenerateContentRequest.contents: contents is not specified')
  const totals = { images: 0, bytes: 0 }
  let calls = []
  body.contents.forEach((content, i) => {
    const where = `contents[${i}]`
    const parts = content.parts ?? []
    if (content.role === 'model') {
      calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall)
      return
    }
    const responses = parts.filter((p) => p.functionResponse).map((p) => p.functionResponse)
    if (responses.length > 0) {
      if (responses.length !== calls.length) {
        throw new Refusal('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.')
      }
      responses.forEach((r, k) => {
        const call = calls.find((c) => (isGemini3(model) ? c.id === r.id : c.name === r.name))
        if (!call || call.name !== r.name) {
          throw new Refusal(
            isGemini3(model)
              ? `${where}.parts: function response ${r.name} does not carry the id of a function call of the previous turn.`
              : `${where}.parts: function response ${r.name} does not answer a function call of the previous turn.`,
          )
        }
        if (r.parts !== undefined) {
          if (!isGemini3(model))
            throw new Refusal(`Invalid JSON payload received. Unknown name "parts" at '${where}.parts[${k}].function_response': Cannot find field.`)
          r.parts.forEach((p, n) => checkInline(p.inlineData, `${where}.parts[${k}].function_response.parts[${n}].inline_data`, RESPONSE_PART_TYPES, totals))
        }
      })
    }
    calls = []
    parts.forEach((p, k) => {
      if (p.inlineData) checkInline(p.inlineData, `${where}.parts[${k}].inline_data`, USER_TYPES, totals)
    })
  })
  if (totals.bytes > MAX_INLINE_BYTES) throw new Refusal('Request payload size exceeds the limit: 104857600 bytes.')
  if (totals.images > MAX_IMAGES) throw new Refusal(`Too many images: ${totals.images} > ${MAX_IMAGES}.`)
}

export async function startGeminiMock() {
  const endpoint = await startEndpoint({
    route(req, body) {
      const m = /^\/v1(?:beta)?\/models\/([^:/]+):generateContent/.exec(req.url)
      if (req.method !== 'POST' || !m) return { status: 404, json: { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } } }
      if (!req.headers['x-goog-api-key'] && !/[?&]key=/.test(req.url)) {
        return { status: 403, json: { error: { code: 403, message: "Method doesn't allow unregistered callers.", status: 'PERMISSION_DENIED' } } }
      }
      validateGenerateContent(decodeURIComponent(m[1]), body)
      return {
        status: 200,
        json: {
          candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
          modelVersion: m[1],
          responseId: `resp_${endpoint.requests.length}`,
        },
      }
    },
    refuse: (e) => ({ status: e.status, json: { error: { code: e.status, message: e.message, status: 'INVALID_ARGUMENT' } } }),
  })
  return endpoint
}
