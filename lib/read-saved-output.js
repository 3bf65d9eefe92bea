'use strict'
// readSavedOutputTool: a tool an agent gives its model to read back a file
// a note named (`saved to <path>`): a text a page of lines at a time, an
// image attached (made to fit the provider), anything else described. Its
// answer is an MCP CallToolResult, converted like any other tool's. Only
// the store's own files are read (the core refuses any other location).

const native = require('./native.js')
const { invalidArgument, own } = require('./own-objects.js')
const { storeHandle } = require('./store.js')
const { toContentAsync } = require('./to-content.js')

const NumberIsSafeInteger = Number.isSafeInteger
const BufferConcat = Buffer.concat
const TextDecoderConstructor = TextDecoder

/** Lines a page holds at most, and by default (opencode's read tool's page). */
const MAX_PAGE_LINES = 2000
/** Characters a line keeps; the rest is cut and the cut said. */
const MAX_LINE_CHARS = 2000
/** Bytes of a line kept to decode it: enough for MAX_LINE_CHARS of any encoding. */
const MAX_LINE_BYTES = MAX_LINE_CHARS * 4
/** A page's text stays within the default text cap, in estimated tokens (at least one line is given). */
const MAX_PAGE_TOKENS = native.defaultMaxTextTokens()
/** The most the core returns a read: the file is read this much at a time. */
const MAX_READ_BYTES = native.storeMaxReadBytes()
/** Images larger than this are described, not read: the fitter decodes 64 megapixels at most anyway. */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024

const LINE_CUT = ` [line cut at ${MAX_LINE_CHARS} characters]`

/** Errors of the store a model can act on: told in the answer, not thrown. */
const TOLD_CODES = new Set(['STORE_NOT_OWN_FILE', 'STORE_NOT_FOUND', 'STORE_PERMISSION_DENIED', 'STORE_IO', 'INVALID_ARGUMENT'])

function inputSchema() {
  return {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The path (or s3:// URL) of the saved file, exactly as the note that named it gives it.' },
      offset: { type: 'integer', minimum: 1, description: 'Text only: the line to start at, counted from 1 (default 1).' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_LINES,
        description: `Text only: how many lines to read (default and at most ${MAX_PAGE_LINES}).`,
      },
    },
    required: ['location'],
    additionalProperties: false,
  }
}

const DESCRIPTION =
  'Read a file an earlier tool result saved, named in its note (`saved to <path or s3:// URL>`). A text comes a ' +
  `page at a time: up to ${MAX_PAGE_LINES} lines, each cut at ${MAX_LINE_CHARS} characters, and about ` +
  `${MAX_PAGE_TOKENS} tokens; the last line of the answer says which lines it holds and the offset of the ` +
  'next page. An image comes back as an image. Other files are described by type and size.'

function answer(text, isError) {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] }
}

/** A whole number argument from 1, its default when absent. */
function lineArgument(args, name, fallback) {
  const value = own(args, name)
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || !NumberIsSafeInteger(value) || value < 1) return undefined
  return value
}

function decoderFor(encoding) {
  try {
    return new TextDecoderConstructor(encoding)
  } catch {
    return new TextDecoderConstructor('utf-8')
  }
}

/** A line cut to MAX_LINE_CHARS, not inside a surrogate pair. */
function cutLine(text) {
  const code = text.charCodeAt(MAX_LINE_CHARS - 1)
  const end = code >= 0xd800 && code <= 0xdbff ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS
  return text.slice(0, end)
}

/**
 * Lines `first` to `first + limit - 1` of the text `location` names (fewer
 * when the page's token cap is reached first), and how many lines it has:
 * read MAX_READ_BYTES at a time, holding one read and the page.
 */
async function textPage(handle, location, encoding, first, limit) {
  const decoder = decoderFor(encoding)
  const lines = []
  let tokens = 0
  let closed = false
  let lineNumber = 1
  let kept = []
  let keptBytes = 0
  let lineBytes = 0
  const inPage = () => !closed && lineNumber >= first
  const keep = (bytes) => {
    lineBytes += bytes.length
    if (!inPage() || keptBytes >= MAX_LINE_BYTES) return
    const piece = bytes.subarray(0, MAX_LINE_BYTES - keptBytes)
    kept.push(piece)
    keptBytes += piece.length
  }
  const endLine = () => {
    if (inPage()) {
      let text = decoder.decode(BufferConcat(kept, keptBytes))
      if (text.endsWith('\r')) text = text.slice(0, -1)
      let cut = lineBytes > keptBytes
      if (text.length > MAX_LINE_CHARS) {
        text = cutLine(text)
        cut = true
      }
      if (cut) text += LINE_CUT
      const cost = native.estimateTokens(text) + 1
      if (lines.length > 0 && tokens + cost > MAX_PAGE_TOKENS) {
        closed = true
      } else {
        lines.push(text)
        tokens += cost
        if (lines.length === limit) closed = true
      }
    }
    kept = []
    keptBytes = 0
    lineBytes = 0
    lineNumber += 1
  }
  let offset = 0
  let endsWithNewline = true
  for (;;) {
    const chunk = await native.storeRead(handle, location, offset, MAX_READ_BYTES)
    if (chunk.length === 0) break
    offset += chunk.length
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      if (newline === -1) {
        keep(chunk.subarray(start))
        break
      }
      keep(chunk.subarray(start, newline))
      endLine()
      start = newline + 1
    }
    endsWithNewline = chunk[chunk.length - 1] === 10
  }
  if (!endsWithNewline) endLine()
  return { lines, total: lineNumber - 1 }
}

async function readText(handle, location, look, first, limit) {
  const { lines, total } = await textPage(handle, location, look.textEncoding, first, limit)
  if (total === 0) return answer(`[${location} is an empty text.]`, false)
  if (first > total) return answer(`[${location} has ${total} lines: offset ${first} is past its end.]`, true)
  const last = first + lines.length - 1
  const more = last < total ? ` Next page: offset ${last + 1}.` : ' End of the file.'
  const line = `[Lines ${first}-${last} of ${total} of ${location} (${look.mediaType}, ${look.byteLength} bytes).${more}]`
  return answer(`${lines.join('\n')}\n${line}`, false)
}

/** The whole file, read MAX_READ_BYTES at a time (its size is bounded by the caller). */
async function readWhole(handle, location, byteLength) {
  const chunks = []
  let offset = 0
  while (offset < byteLength) {
    const chunk = await native.storeRead(handle, location, offset, MAX_READ_BYTES)
    if (chunk.length === 0) break
    chunks.push(chunk)
    offset += chunk.length
  }
  return BufferConcat(chunks, offset)
}

async function readImage(store, handle, location, look, provider) {
  const facts = `${location}: ${look.mediaType} image, ${look.byteLength} bytes`
  if (look.byteLength > MAX_IMAGE_BYTES) {
    return answer(`[${facts}: larger than the ${MAX_IMAGE_BYTES} bytes this tool reads for an image; not attached.]`, false)
  }
  const bytes = await readWhole(handle, location, look.byteLength)
  const part = await toContentAsync({ type: 'image', data: bytes, mimeType: look.mediaType }, { provider, store, fitImages: true })
  if (part === null || part.type !== 'file') return answer(`[${facts}.]\n${part === null ? '' : part.text}`, false)
  const said = part.note === undefined ? `[${facts}, attached below.]` : `[${facts}, attached below.]\n${part.note}`
  return {
    content: [
      { type: 'text', text: said },
      { type: 'image', data: part.data, mimeType: part.mediaType },
    ],
  }
}

async function execute(store, handle, provider, args) {
  if (args === null || typeof args !== 'object') return answer('[The arguments must be an object with a `location`.]', true)
  const location = own(args, 'location')
  if (typeof location !== 'string' || location === '') return answer('[`location` must be the path a note named.]', true)
  const first = lineArgument(args, 'offset', 1)
  const limit = lineArgument(args, 'limit', MAX_PAGE_LINES)
  if (first === undefined) return answer('[`offset` must be a line number, 1 or more.]', true)
  if (limit === undefined) return answer(`[\`limit\` must be a number of lines, 1 to ${MAX_PAGE_LINES}.]`, true)
  try {
    const look = await native.storeLook(handle, location)
    if (look.kind === 'text' && look.pagedByLines) {
      return await readText(handle, location, look, first, limit > MAX_PAGE_LINES ? MAX_PAGE_LINES : limit)
    }
    if (look.kind === 'image') return await readImage(store, handle, location, look, provider)
    if (look.kind === 'empty') return answer(`[${location} is empty.]`, false)
    const encoding = look.textEncoding === null ? '' : ` in ${look.textEncoding}`
    return answer(`[${location}: ${look.mediaType} (${look.kind}${encoding}), ${look.byteLength} bytes; this tool shows text and images only.]`, false)
  } catch (error) {
    const code = error !== null && typeof error === 'object' ? own(error, 'code') : undefined
    if (!TOLD_CODES.has(code)) throw error
    return answer(`[Cannot read ${location}: ${error.message}]`, true)
  }
}

/**
 * A tool definition reading back files `store` saved: `{ name, description,
 * inputSchema, execute }`, `execute` answering an MCP CallToolResult.
 */
function readSavedOutputTool(store, options) {
  const handle = storeHandle(store)
  let provider
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw invalidArgument('`options` must be an object')
    provider = own(options, 'provider')
    if (provider !== undefined && !native.providerNames().includes(provider)) {
      throw invalidArgument('`options.provider` must be one of the provider names (`providers`)')
    }
  }
  return {
    name: 'read_saved_output',
    description: DESCRIPTION,
    inputSchema: inputSchema(),
    execute: (args) => execute(store, handle, provider, args),
  }
}

module.exports = { readSavedOutputTool, MAX_PAGE_LINES, MAX_LINE_CHARS, MAX_IMAGE_BYTES }
