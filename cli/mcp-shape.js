'use strict'
// A converted result in MCP terms, as the proxy sends it to its client (README "The proxy"):
// attachments back as MCP image, audio or embedded resource parts of their real type, everything
// else (decoded text, notes of saved files, previews) as text parts. Parts whose audience leaves
// out the assistant are the client's to show, not the model's: they stay as the server sent them.

/** The text convertToolResult puts first in an error result that has none. */
const ERROR_NOTE = '[The tool reported an error and sent no message]'

/** MCP `annotations.audience`: for the model unless it leaves "assistant" out (as the package reads it). */
function isForModel(part) {
  const audience = part !== null && typeof part === 'object' && part.annotations ? part.annotations.audience : undefined
  return !Array.isArray(audience) || audience.includes('assistant')
}

/** One model part (`ContentPart`) as an MCP content block; `index` names a uri-less document. */
function toMcpPart(part, index) {
  if (part.type !== 'file') return { type: 'text', text: part.text }
  const { mediaType, data } = part
  if (mediaType.startsWith('image/')) return { type: 'image', data, mimeType: mediaType }
  if (mediaType.startsWith('audio/')) return { type: 'audio', data, mimeType: mediaType }
  // A document (pdf, docx, ...) travels as an embedded resource, which needs a uri.
  return { type: 'resource', resource: { uri: part.uri ?? `mcp-content:part/${index}`, mimeType: mediaType, blob: data } }
}

/**
 * A `CallToolResult` from `convertToolResult`'s answer: the converted parts, the error flag, and
 * the server's `structuredContent` and `_meta` as they were (a client validates structured
 * content against the tool's output schema).
 */
function toMcpResult(converted, original) {
  const parts = original && Array.isArray(original.content) ? original.content : []
  const made = converted.content
  // convertToolResult gives one part per model-bound part, in order, after the error note (when it
  // added one) and before the structured content's JSON (when it added that).
  let next = made.length > parts.filter(isForModel).length && converted.isError && made[0].type === 'text' && made[0].text === ERROR_NOTE ? 1 : 0
  const content = made.slice(0, next).map(toMcpPart)
  for (const part of parts) {
    if (!isForModel(part)) {
      content.push(part)
      continue
    }
    if (next >= made.length) break
    const mcpPart = toMcpPart(made[next], content.length)
    if (part && typeof part === 'object' && part.annotations !== undefined) mcpPart.annotations = part.annotations
    content.push(mcpPart)
    next++
  }
  for (; next < made.length; next++) content.push(toMcpPart(made[next], content.length))
  const out = { content }
  if (original && original.structuredContent !== undefined) out.structuredContent = original.structuredContent
  if (converted.isError || (original && original.isError !== undefined)) out.isError = converted.isError
  if (original && original._meta !== undefined) out._meta = original._meta
  return out
}

/**
 * One item of a `resources/read` result after conversion: an attachment keeps its uri with its
 * real type; text (decoded, or a note naming the saved file) becomes a text item.
 */
function toResourceContents(part, original) {
  const out = { uri: original.uri }
  if (part !== null && part.type === 'file') {
    out.mimeType = part.mediaType
    out.blob = part.data
  } else {
    out.mimeType = 'text/plain'
    out.text = part === null ? '' : part.text
  }
  if (original._meta !== undefined) out._meta = original._meta
  return out
}

module.exports = { toMcpPart, toMcpResult, toResourceContents }
