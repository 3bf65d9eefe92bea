// A strict local stand-in for OpenAI's Chat Completions endpoint (POST
// /v1/chat/completions), per the project notes' REFERENCE.md sections 2 and
// 6: a tool message's content is a string or text parts only; images
// (image_url: png, jpeg, webp, still gif), audio (input_audio: wav or mp3)
// and PDFs (file: file_data as a data URL, with a file name) only in user
// messages, each checked against its bytes; each tool message answers a
// tool call of the assistant message before it. The error texts are the
// endpoint's own, in the API's error shape.
import { startEndpoint, Refusal, parseDataUrl, strictBase64, imageProblem, sniff } from './common.mjs'

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif']

function checkUserPart(part, where) {
  if (part.type === 'text') return
  if (part.type === 'image_url') {
    const url = parseDataUrl(part.image_url?.url)
    if (url === null) {
      if (/^https:\/\//.test(part.image_url?.url ?? '')) return
      throw new Refusal(`Invalid '${where}.image_url.url'. Expected a valid URL or a base64-encoded data URL.`)
    }
    if (!IMAGE_TYPES.includes(url.mediaType)) {
      throw new Refusal(
        `Invalid '${where}.image_url.url'. Expected a base64-encoded data URL with an image MIME type, but got unsupported MIME type '${url.mediaType}'.`,
      )
    }
    const bytes = strictBase64(url.data)
    if (bytes === null || imageProblem(bytes, url.mediaType, IMAGE_TYPES, { stillGifOnly: true }) !== null) {
      throw new Refusal(`Invalid '${where}.image_url.url'. The image data is not a valid ${url.mediaType} image.`)
    }
    return
  }
  if (part.type === 'input_audio') {
    const { data, format } = part.input_audio ?? {}
    if (format !== 'wav' && format !== 'mp3') throw new Refusal(`Invalid value: '${format}'. Supported values are: 'wav' and 'mp3'.`)
    const bytes = strictBase64(data)
    const actual = bytes === null ? null : sniff(bytes)
    if (actual !== (format === 'wav' ? 'audio/wav' : 'audio/mpeg'))
      throw new Refusal(`Invalid '${where}.input_audio.data'. The audio is not valid ${format} data.`)
    return
  }
  if (part.type === 'file') {
    const url = parseDataUrl(part.file?.file_data)
    if (url === null) throw new Refusal(`Invalid '${where}.file.file_data'. Expected a base64-encoded data URL.`)
    if (typeof part.file.filename !== 'string') throw new Refusal(`Missing required parameter: '${where}.file.filename'.`)
    const bytes = strictBase64(url.data)
    if (url.mediaType !== 'application/pdf' || bytes === null || bytes.toString('latin1', 0, 5) !== '%PDF-') {
      throw new Refusal(`Invalid '${where}.file'. Only PDF files are supported here.`)
    }
    return
  }
  throw new Refusal(`Invalid value: '${part.type}'. Supported values are: 'text', 'image_url', 'input_audio' and 'file'.`)
}

/** Throws a Refusal for what Chat Completions refuses in `body`. */
export function validateChatRequest(body) {
  if (typeof body.model !== 'string') throw new Refusal("Missing required parameter: 'model'.")
  if (!Array.isArray(body.messages)) throw new Refusal("Missing required parameter: 'messages'.")
  let open = new Set()
  body.messages.forEach((m, i) => {
    const where = `messages[${i}]`
    if (m.role !== 'tool' && open.size > 0) {
      throw new Refusal("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.")
    }
    if (m.role === 'assistant') open = new Set((m.tool_calls ?? []).map((c) => c.id))
    else if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id))
        throw new Refusal(`Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`)
      if (typeof m.content !== 'string') {
        if (!Array.isArray(m.content)) throw new Refusal(`Invalid type for '${where}.content': expected a string or an array of text parts.`)
        m.content.forEach((p, k) => {
          if (p.type !== 'text') throw new Refusal(`Invalid value: '${p.type}'. Supported values are: 'text'.`, 400, `${where}.content[${k}].type`)
        })
      }
    } else if (m.role === 'user' && Array.isArray(m.content)) {
      m.content.forEach((p, k) => checkUserPart(p, `${where}.content[${k}]`))
    }
  })
}

export async function startOpenAIChatMock() {
  const endpoint = await startEndpoint({
    route(req, body) {
      if (req.method !== 'POST' || !req.url.startsWith('/v1/chat/completions'))
        return { status: 404, json: { error: { message: 'Not found', type: 'invalid_request_error' } } }
      if (!req.headers.authorization)
        return { status: 401, json: { error: { message: 'No API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } } }
      validateChatRequest(body)
      return {
        status: 200,
        json: {
          id: `chatcmpl_${endpoint.requests.length}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
      }
    },
    refuse: (e) => ({ status: e.status, json: { error: { message: e.message, type: 'invalid_request_error', param: null, code: null } } }),
  })
  return endpoint
}
