// A strict local stand-in for Amazon Bedrock's Converse endpoint (POST
// /model/<modelId>/converse), per the project notes' REFERENCE.md sections
// 2 and 6: images png, jpeg, gif or webp whose bytes are that format, each
// at most 3.75 MB and 8000 px a side; documents of the listed formats, at
// most 4.5 MB, named with letters, digits, single spaces, hyphens,
// parentheses and square brackets only, with a text block beside them; at
// most 20 images and 5 documents per request; toolResult blocks that answer
// a toolUse of the assistant turn before, with a toolConfig in the request.
// The error texts are the endpoint's own, sent as a ValidationException.
import { startEndpoint, Refusal, strictBase64, imageProblem, sniff } from './common.mjs'

const IMAGE_FORMATS = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }
const DOCUMENT_FORMATS = ['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md']
const MAX_IMAGE_BYTES = 3_932_160 // 3.75 MiB
const MAX_DOCUMENT_BYTES = 4_718_592 // 4.5 MiB
const MAX_IMAGES = 20
const MAX_DOCUMENTS = 5
// Letters, digits, hyphens, parentheses, square brackets, and whitespace
// that is never doubled.
const DOCUMENT_NAME = /^(?:[A-Za-z0-9\-()[\]]|\s(?!\s))+$/

function checkImage(image, where, totals) {
  const declared = IMAGE_FORMATS[image?.format]
  if (!declared) throw new Refusal(`${where}.format: Member must satisfy enum value set: [png, jpeg, gif, webp]`)
  const bytes = strictBase64(image.source?.bytes)
  if (bytes === null) throw new Refusal(`${where}.source.bytes: invalid base64 data`)
  if (bytes.length > MAX_IMAGE_BYTES) throw new Refusal(`${where}: The image size exceeds the maximum of 3.75 MB.`)
  const problem = imageProblem(bytes, declared, Object.values(IMAGE_FORMATS), { maxSide: 8000 })
  if (problem?.kind === 'pixels') throw new Refusal(`${where}: The image dimensions exceed the maximum of 8000 pixels.`)
  if (problem !== null) throw new Refusal(`${where}: The provided image does not match the format ${image.format} or could not be processed.`)
  totals.images++
}

function checkDocument(document, where, totals) {
  if (!DOCUMENT_FORMATS.includes(document?.format)) throw new Refusal(`${where}.format: Member must satisfy enum value set: [${DOCUMENT_FORMATS.join(', ')}]`)
  if (typeof document.name !== 'string' || !DOCUMENT_NAME.test(document.name)) {
    throw new Refusal(
      `${where}.name: The document file name can only contain alphanumeric characters, whitespace characters, hyphens, parentheses, and square brackets. The name can't contain more than one consecutive whitespace character.`,
    )
  }
  const bytes = strictBase64(document.source?.bytes)
  if (bytes === null || bytes.length === 0) throw new Refusal(`${where}.source.bytes: the document is empty or not valid base64`)
  if (bytes.length > MAX_DOCUMENT_BYTES) throw new Refusal(`${where}: The document size exceeds the maximum of 4.5 MB.`)
  if (document.format === 'pdf' && sniff(bytes) !== 'application/pdf') throw new Refusal(`${where}: The provided document is not a valid pdf.`)
  if (totals.names.has(document.name)) throw new Refusal(`${where}.name: Document names must be unique within a request.`)
  totals.names.add(document.name)
  totals.documents++
}

function checkBlocks(blocks, where, totals, allowed) {
  if (!Array.isArray(blocks)) throw new Refusal(`${where}: must be a list`)
  let documents = 0
  let texts = 0
  blocks.forEach((block, k) => {
    const at = `${where}.${k + 1}.member`
    const key = Object.keys(block)[0]
    if (!allowed.includes(key)) throw new Refusal(`${at}: ${key} is not accepted here`)
    if (key === 'text') texts++
    else if (key === 'image') checkImage(block.image, at, totals)
    else if (key === 'document') {
      checkDocument(block.document, at, totals)
      documents++
    } else if (key === 'toolResult') {
      checkBlocks(block.toolResult.content, `${at}.toolResult.content`, totals, ['text', 'json', 'image', 'document', 'video', 'searchResult'])
    }
  })
  if (documents > 0 && texts === 0) throw new Refusal(`${where}: A conversation must include a text block along with a document.`)
}

/** Throws a Refusal for what Converse refuses in `body`. */
export function validateConverse(body) {
  if (!Array.isArray(body.messages)) throw new Refusal('1 validation error detected: messages must not be null')
  const totals = { images: 0, documents: 0, names: new Set() }
  let uses = new Set()
  let usesTools = false
  body.messages.forEach((m, i) => {
    const where = `messages.${i + 1}.member.content`
    if (m.role === 'assistant') {
      uses = new Set(m.content.filter((b) => b.toolUse).map((b) => b.toolUse.toolUseId))
      usesTools ||= uses.size > 0
      return
    }
    for (const block of m.content) {
      if (block.toolResult && !uses.has(block.toolResult.toolUseId)) {
        throw new Refusal('The toolResult blocks at the user turn must answer the toolUse blocks of the previous turn.')
      }
    }
    uses = new Set()
    checkBlocks(m.content, where, totals, ['text', 'image', 'document', 'video', 'toolResult', 'audio'])
  })
  if (usesTools && !body.toolConfig) throw new Refusal('The toolConfig field must be defined when using toolUse and toolResult content blocks.')
  if (totals.images > MAX_IMAGES) throw new Refusal(`Too many images: ${totals.images} > ${MAX_IMAGES}.`)
  if (totals.documents > MAX_DOCUMENTS) throw new Refusal(`Too many documents: ${totals.documents} > ${MAX_DOCUMENTS}.`)
}

export async function startBedrockMock() {
  const endpoint = await startEndpoint({
    h2c: true,
    route(req, body) {
      const m = /^\/model\/([^/]+)\/converse$/.exec(req.url)
      if (req.method !== 'POST' || !m) return { status: 404, headers: { 'x-amzn-errortype': 'ResourceNotFoundException' }, json: { message: 'Not found' } }
      if (!/^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? ''))
        return { status: 403, headers: { 'x-amzn-errortype': 'AccessDeniedException' }, json: { message: 'Missing Authentication Token' } }
      validateConverse(body)
      return {
        status: 200,
        json: {
          output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          metrics: { latencyMs: 1 },
        },
      }
    },
    refuse: (e) => ({
      status: e.status,
      headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
      json: { message: e.message },
    }),
  })
  return endpoint
}
