// A strict local stand-in for OpenAI's Responses endpoint (POST
// /v1/responses). It checks the input_image and input_file items of user
// messages and function_call_output items the way the project notes'
// REFERENCE.md sections 2 and 6 describe the real API: images png, jpeg,
// webp or a still gif as a data URL whose bytes are that type; files as a
// data URL with a file name, of a type the API reads (PDF, text and office
// formats, by the name's extension or the data URL's type), each under 50 MB and all under 50 MB together; at most 1500
// images; and no media where the API takes none. OpenAI's exact error texts
// for these cases are not in the notes: the messages here are the
// endpoint's own, in the API's error shape.
import { startEndpoint, Refusal, parseDataUrl, strictBase64, imageProblem } from './common.mjs'

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif']
/** Extensions of files input_file reads (the file-inputs guide). */
const FILE_EXTENSIONS = [
  'pdf',
  'txt',
  'md',
  'json',
  'html',
  'xml',
  'csv',
  'tsv',
  'docx',
  'pptx',
  'xlsx',
  'xls',
  'doc',
  'js',
  'ts',
  'py',
  'c',
  'cpp',
  'java',
  'rb',
  'go',
  'rs',
  'css',
  'sh',
]
/** Media types of the same files, for a data URL whose file name has no known extension. */
const FILE_TYPES = [
  'application/pdf',
  'application/json',
  'application/xml',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-excel',
]
const readable = (mediaType) => FILE_TYPES.includes(mediaType) || /^text\//.test(mediaType)
const MAX_FILES_BYTES = 50 * 1024 * 1024
const MAX_IMAGES = 1500

function checkImage(item, where, totals) {
  const url = parseDataUrl(item.image_url)
  if (url === null) {
    if (typeof item.image_url === 'string' && /^https:\/\//.test(item.image_url)) return
    throw new Refusal(`Invalid '${where}.image_url'. Expected a valid URL or a base64-encoded data URL.`, 400, `${where}.image_url`)
  }
  if (!IMAGE_TYPES.includes(url.mediaType)) {
    throw new Refusal(
      `Invalid '${where}.image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...'), but got unsupported MIME type '${url.mediaType}'.`,
    )
  }
  const bytes = strictBase64(url.data)
  if (bytes === null) throw new Refusal(`Invalid '${where}.image_url'. Expected a base64-encoded data URL, but got invalid base64 data.`)
  const problem = imageProblem(bytes, url.mediaType, IMAGE_TYPES, { stillGifOnly: true })
  if (problem?.kind === 'empty') throw new Refusal(`Invalid '${where}.image_url'. The image data is empty.`)
  if (problem?.kind === 'animated') throw new Refusal(`Invalid '${where}.image_url'. Animated GIFs are not supported.`)
  if (problem !== null) throw new Refusal(`Invalid '${where}.image_url'. The image data is not a valid ${url.mediaType} image.`)
  totals.images++
}

function checkFile(item, where, totals) {
  if (typeof item.file_id === 'string' || typeof item.file_url === 'string') return
  const url = parseDataUrl(item.file_data)
  if (url === null) throw new Refusal(`Invalid '${where}.file_data'. Expected a base64-encoded data URL.`)
  if (typeof item.filename !== 'string' || item.filename === '') throw new Refusal(`Missing required parameter: '${where}.filename'.`)
  const extension = /\.([A-Za-z0-9]+)$/.exec(item.filename)?.[1]?.toLowerCase()
  if (!FILE_EXTENSIONS.includes(extension) && !readable(url.mediaType)) {
    throw new Refusal(`Invalid '${where}.file_data'. The file type '${url.mediaType}' of '${item.filename}' is not supported.`)
  }
  const bytes = strictBase64(url.data)
  if (bytes === null) throw new Refusal(`Invalid '${where}.file_data'. Expected a base64-encoded data URL, but got invalid base64 data.`)
  if (bytes.length === 0) throw new Refusal(`Invalid '${where}.file_data'. The file is empty.`)
  if ((extension === 'pdf' || url.mediaType === 'application/pdf') && bytes.toString('latin1', 0, 5) !== '%PDF-')
    throw new Refusal(`Invalid '${where}.file_data'. The file is not a valid PDF.`)
  totals.fileBytes += bytes.length
  if (bytes.length > MAX_FILES_BYTES || totals.fileBytes > MAX_FILES_BYTES) throw new Refusal('The files of a request must be under 50 MB together.')
}

function checkContent(list, where, totals) {
  if (typeof list === 'string') return
  if (!Array.isArray(list)) throw new Refusal(`Invalid type for '${where}': expected a string or an array.`)
  list.forEach((item, k) => {
    const at = `${where}[${k}]`
    if (item.type === 'input_text' || item.type === 'output_text') {
      if (typeof item.text !== 'string') throw new Refusal(`Missing required parameter: '${at}.text'.`)
    } else if (item.type === 'input_image') {
      checkImage(item, at, totals)
    } else if (item.type === 'input_file') {
      checkFile(item, at, totals)
    } else {
      throw new Refusal(`Invalid value: '${item.type}'. Supported values are: 'input_text', 'input_image' and 'input_file'.`)
    }
  })
}

/** Throws a Refusal for what the Responses API refuses in `body`. */
export function validateResponsesRequest(body) {
  if (typeof body.model !== 'string') throw new Refusal("Missing required parameter: 'model'.")
  const input = typeof body.input === 'string' ? [] : body.input
  if (!Array.isArray(input)) throw new Refusal("Invalid type for 'input': expected a string or an array.")
  const totals = { images: 0, fileBytes: 0 }
  const calls = new Set()
  input.forEach((item, i) => {
    const type = item.type ?? 'message'
    if (type === 'message') checkContent(item.content, `input[${i}].content`, totals)
    else if (type === 'function_call') calls.add(item.call_id)
    else if (type === 'function_call_output') {
      if (!calls.has(item.call_id)) throw new Refusal(`No tool call found for function call output with call_id ${item.call_id}.`)
      checkContent(item.output, `input[${i}].output`, totals)
    }
  })
  if (totals.images > MAX_IMAGES) throw new Refusal(`Too many images in the request: ${totals.images} > ${MAX_IMAGES}.`)
}

export async function startOpenAIResponsesMock() {
  const endpoint = await startEndpoint({
    route(req, body) {
      if (req.method !== 'POST' || !req.url.startsWith('/v1/responses'))
        return { status: 404, json: { error: { message: 'Not found', type: 'invalid_request_error' } } }
      if (!req.headers.authorization)
        return { status: 401, json: { error: { message: 'No API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } } }
      validateResponsesRequest(body)
      const n = endpoint.requests.length
      return {
        status: 200,
        json: {
          id: `resp_${n}`,
          object: 'response',
          created_at: 1_700_000_000,
          status: 'completed',
          error: null,
          incomplete_details: null,
          model: body.model,
          output: [
            { type: 'message', id: `msg_${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] },
          ],
          output_text: 'ok',
          parallel_tool_calls: true,
          tool_choice: 'auto',
          tools: [],
          usage: {
            input_tokens: 1,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 1,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 2,
          },
        },
      }
    },
    refuse: (e) => ({ status: e.status, json: { error: { message: e.message, type: 'invalid_request_error', param: null, code: null } } }),
  })
  return endpoint
}
