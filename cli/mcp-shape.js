'use strict'
// A converted result in MCP terms, as the proxy sends it to its client (docs/proxy.md):
// attachments back as MCP image, audio or embedded resource parts of their real type, everything
// else (decoded text, notes of saved files, previews) as text parts. Parts whose audience leaves
// out the assistant are the client's to show, not the model's: they stay as the server sent them.

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
 * A `CallToolResult` from `convertToolResult`'s answer: the converted parts where the parts they
 * come from were (`converted.sources`), each with the annotations of its part (a note made from a
 * part takes that part's); parts whose audience leaves out the assistant as the server sent them,
 * in their places; the error flag; `structuredContent` with the strings the conversion replaced
 * (long repeats of a content part, base64: still valid for a schema that wants a string), the
 * server's `_meta` and `resultType` (MCP 2026-07-28: a client refuses a result without it). Other
 * fields are left out: the spec defines none on a tool result (extensions put theirs in `_meta`,
 * or answer with a `resultType` of their own, which the proxy passes whole), and one it cannot
 * read could carry what the model must not get unconverted. `userPart(part)` is what is sent for a
 * part whose audience leaves out the assistant (the part itself by default).
 */
function toMcpResult(converted, original, userPart = (part) => part) {
  const parts = original && Array.isArray(original.content) ? original.content : []
  // [place, part]: a converted part's place is the index of its source (-1 for the error note,
  // the number of parts for the structured content's JSON).
  const placed = converted.content.map((part, m) => {
    const source = converted.sources[m]
    const from = parts[source]
    const mcpPart = toMcpPart(part, m)
    if (from !== null && typeof from === 'object' && from.annotations !== undefined) mcpPart.annotations = from.annotations
    return [source, mcpPart]
  })
  parts.forEach((part, j) => {
    if (!isForModel(part)) placed.push([j, userPart(part)])
  })
  // A stable sort: parts of one place keep their order.
  const content = placed.sort((a, b) => a[0] - b[0]).map((entry) => entry[1])
  const out = { content }
  if (converted.structuredContent !== undefined) out.structuredContent = converted.structuredContent
  else if (original && original.structuredContent !== undefined) out.structuredContent = original.structuredContent
  if (converted.isError || (original && original.isError !== undefined)) out.isError = converted.isError
  if (original && original._meta !== undefined) out._meta = original._meta
  if (original && original.resultType !== undefined) out.resultType = original.resultType
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

/** Keywords a marker string (see toMcpResult) could fail, where a server's schema constrains a string. */
const STRING_CONSTRAINTS = ['pattern', 'format', 'minLength', 'contentEncoding', 'contentMediaType']

/**
 * A JSON Schema without the string constraints a marker could fail, or the schema itself when it
 * has none: a client that checks `structuredContent` against the tool's output schema must accept
 * the replaced strings. Subschemas are walked wherever JSON Schema puts them (objects and arrays).
 */
function withoutStringConstraints(schema, depth = 0) {
  if (schema === null || typeof schema !== 'object' || depth > 64) return schema
  if (Array.isArray(schema)) {
    let copy
    schema.forEach((item, i) => {
      const out = withoutStringConstraints(item, depth + 1)
      if (out !== item) (copy ??= schema.slice())[i] = out
    })
    return copy ?? schema
  }
  let copy
  for (const [key, value] of Object.entries(schema)) {
    if (STRING_CONSTRAINTS.includes(key) && typeof value !== 'object') {
      copy ??= { ...schema }
      delete copy[key]
      continue
    }
    const out = withoutStringConstraints(value, depth + 1)
    if (out !== value) (copy ??= { ...schema })[key] = out
  }
  return copy ?? schema
}

/** A `tools/list` result whose output schemas take the proxy's markers, or the result itself when they all do. */
function toolsForProxy(result) {
  if (result === null || typeof result !== 'object' || !Array.isArray(result.tools)) return result
  let tools
  result.tools.forEach((tool, i) => {
    if (tool === null || typeof tool !== 'object' || tool.outputSchema === undefined) return
    const outputSchema = withoutStringConstraints(tool.outputSchema)
    if (outputSchema !== tool.outputSchema) (tools ??= result.tools.slice())[i] = { ...tool, outputSchema }
  })
  return tools === undefined ? result : { ...result, tools }
}

module.exports = { toMcpPart, toMcpResult, toResourceContents, toolsForProxy }
