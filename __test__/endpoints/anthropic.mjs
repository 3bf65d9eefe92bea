// A strict local stand-in for the Anthropic Messages endpoint (POST
// /v1/messages): it checks the image and document blocks of every message,
// in tool results and in user content, as the real API does (the project
// notes' REFERENCE.md sections 2 and 7, which are not part of this
// repository) and answers 400 with Anthropic's error texts. The image limit
// is the 5,242,880-character base64 rule of Claude on Bedrock and Google
// Cloud unless `maxImageBase64` says otherwise (the direct API: 10,485,760).
import { startEndpoint, Refusal, strictBase64, imageProblem, referenceImageInfo, isPdf } from './common.mjs'
import { MAX_IMAGE_BASE64, MAX_IMAGE_SIDE } from '../fixtures/index.mjs'

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']
/** Past this many images in a request, no image may be over 2000 px a side. */
const MANY_IMAGES = 20
const MANY_IMAGES_SIDE = 2000
/** Images and documents per request (200k-context models). */
const MAX_MEDIA = 100

function checkImage(block, where, limits, images) {
  const src = block.source
  if (!src || src.type !== 'base64') throw new Refusal(`${where}.source: only base64 sources are accepted here`)
  if (!IMAGE_TYPES.includes(src.media_type)) {
    throw new Refusal(`${where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`)
  }
  if (src.data === '') throw new Refusal(`${where}.source.base64.data: image cannot be empty`)
  const bytes = strictBase64(src.data)
  if (bytes === null) throw new Refusal(`${where}.source.base64.data: invalid base64 data`)
  // Counted on the base64 string, as the real API does: a 3.95 MB file was
  // refused with "image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes".
  if (src.data.length > limits.maxImageBase64) {
    throw new Refusal(`${where}.source.base64: image exceeds 5 MB maximum: ${src.data.length} bytes > ${limits.maxImageBase64} bytes`)
  }
  const problem = imageProblem(bytes, src.media_type, IMAGE_TYPES, { maxSide: MAX_IMAGE_SIDE })
  if (problem?.kind === 'mismatch') {
    if (problem.actual) {
      throw new Refusal(
        `${where}.source.base64.data: The image was specified using the ${src.media_type} media type, but the image appears to be a ${problem.actual} image`,
      )
    }
    throw new Refusal(`${where}.source.base64.data: Image does not match the provided media type ${src.media_type}`)
  }
  if (problem?.kind === 'corrupt') throw new Refusal(`${where}.source.base64.data: Could not process image`)
  if (problem?.kind === 'pixels') {
    throw new Refusal(`${where}.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels`)
  }
  images.push({ where, info: referenceImageInfo(bytes) })
}

function checkDocument(block, where, documents) {
  const src = block.source
  if (src?.type === 'text') {
    if (src.media_type !== 'text/plain' || typeof src.data !== 'string') throw new Refusal(`${where}.source.text.media_type: Input should be 'text/plain'`)
    return
  }
  if (src?.type !== 'base64') throw new Refusal(`${where}.source: unsupported source`)
  if (src.media_type !== 'application/pdf') throw new Refusal(`${where}.source.base64.media_type: Input should be 'application/pdf'`)
  const bytes = strictBase64(src.data)
  if (bytes === null) throw new Refusal(`${where}.source.base64.data: invalid base64 data`)
  if (!isPdf(bytes)) throw new Refusal('The PDF specified was not valid.')
  documents.push(where)
}

function checkBlock(block, where, limits, media, allowed) {
  if (!allowed.includes(block.type)) {
    throw new Refusal(
      `${where}.type: Input tag '${block.type}' found using 'type' does not match any of the expected tags: ${allowed.map((t) => `'${t}'`).join(', ')}`,
    )
  }
  if (block.type === 'text') {
    if (typeof block.text !== 'string' || block.text.length === 0) throw new Refusal(`${where}.text: text content blocks must be non-empty`)
  } else if (block.type === 'image') {
    checkImage(block, `${where}.image`, limits, media.images)
  } else if (block.type === 'document') {
    checkDocument(block, `${where}.document`, media.documents)
  } else if (block.type === 'tool_result') {
    const content = typeof block.content === 'string' ? [] : (block.content ?? [])
    content.forEach((b, k) => checkBlock(b, `${where}.tool_result.content.${k}`, limits, media, ['text', 'image', 'search_result', 'document']))
  }
}

const MESSAGE_BLOCKS = ['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'search_result']

/** Throws a Refusal for what the Messages API refuses in `body`. */
export function validateMessagesRequest(body, limits = { maxImageBase64: MAX_IMAGE_BASE64 }) {
  if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
    throw new Refusal('model, max_tokens and messages are required')
  }
  const media = { images: [], documents: [] }
  body.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return
    m.content.forEach((c, j) => checkBlock(c, `messages.${i}.content.${j}`, limits, media, MESSAGE_BLOCKS))
  })
  const count = media.images.length + media.documents.length
  if (count > MAX_MEDIA) throw new Refusal(`too many images and documents: ${count - 1} + 1 > ${MAX_MEDIA}`)
  if (media.images.length > MANY_IMAGES) {
    const large = media.images.find(({ info }) => info.width > MANY_IMAGES_SIDE || info.height > MANY_IMAGES_SIDE)
    if (large) {
      throw new Refusal(
        `${large.where}.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: ${MANY_IMAGES_SIDE} pixels`,
      )
    }
  }
}

/** Start the endpoint on 127.0.0.1; resolves to { url, close, requests } (`requests`: the bodies). */
export async function startAnthropicMock({ maxImageBase64 = MAX_IMAGE_BASE64 } = {}) {
  const endpoint = await startEndpoint({
    maxBytes: 32 * 1024 * 1024,
    route(req, body) {
      if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
        return { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not found' } } }
      }
      if (!(req.headers['x-api-key'] || req.headers.authorization) || !req.headers['anthropic-version']) {
        return { status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'missing credentials or anthropic-version' } } }
      }
      validateMessagesRequest(body, { maxImageBase64 })
      return {
        status: 200,
        json: {
          id: `msg_${endpoint.requests.length}`,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }
    },
    refuse(e) {
      if (e.status === 413) {
        return { status: 413, json: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } } }
      }
      return { status: e.status, json: { type: 'error', error: { type: 'invalid_request_error', message: e.message } } }
    },
  })
  return endpoint
}
