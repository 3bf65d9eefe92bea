'use strict'
// mcp-content inspect <file...|->: what each file or MCP tool result holds, and what each provider
// would be sent.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const mcp = require('../lib/index.js')
const { readSource, parseToolResult } = require('./input.js')
const { parse, PROVIDERS, provider: checkProvider, maxTextTokens, maxInput } = require('./options.js')
const { outcomeOf, outcomeWords } = require('./outcome.js')
const { EXIT, colours, formatBytes, printError, progress, usageError, printable, jsonText } = require('./terminal.js')

const HELP = `Usage: mcp-content inspect [options] <file...|->

What each file, or each part of an MCP tool result, is (sniffed type, dimensions, encoding,
problems) and what each provider would be sent. A file holding JSON of a CallToolResult, a
JSON-RPC response carrying one, a content part or an array of parts is read as a tool result;
any other file as one blob. "-" reads standard input.

Options:
  --provider <p>          only this provider (repeat for more); default: all of
                          ${PROVIDERS.join(', ')}
  --type <mediaType>      the media type a plain file is declared as (default: none declared)
  --max-text-tokens <n>   the text cap of the conversions (default 12500; Infinity: off)
  --max-input <size>      the most read from one file or standard input (default 256MiB);
                          bytes, or KiB, MiB, GiB; past it reading stops with an error
  --json                  one JSON document on stdout
  --no-color              no colours (also NO_COLOR=1; colours only on a terminal anyway)
  -h, --help              this help

Nothing is kept: files a conversion would save go to a temporary folder removed at the end.
What came from the input is printed with control and bidi characters escaped (\u001b).
Exit codes: 0 every source inspected, 1 a source could not be read, 2 bad command line.`

/** The facts of one part: its type, what it declared, and what its bytes are. */
function describePart(part, index, declaresType = true) {
  if (part === null || typeof part !== 'object') return { index, type: part === null ? 'null' : typeof part }
  const out = { index, type: part.type }
  const resource = part.type === 'resource' && part.resource && typeof part.resource === 'object' ? part.resource : undefined
  const uri = resource ? resource.uri : part.uri
  if (typeof uri === 'string') out.uri = uri
  const declared = resource ? resource.mimeType : part.mimeType
  const declaredType = declaresType && typeof declared === 'string' ? declared : undefined
  if (declaredType !== undefined) out.declaredMediaType = declaredType
  const data = resource ? resource.blob : part.data
  if (typeof data === 'string' || data instanceof Uint8Array) {
    out.classification = declaredType === undefined ? mcp.classify(data) : mcp.classify(data, declaredType)
  } else {
    const text = resource ? resource.text : part.text
    if (typeof text === 'string') {
      out.chars = text.length
      out.tokens = mcp.estimateTokens(text)
    }
  }
  if (part.type === 'resource_link' && typeof part.name === 'string') out.name = part.name
  return out
}

/** The sources as parts: a tool result's own, or a plain file as one `media` part. */
function partsOf(source, bytes, declared) {
  const result = parseToolResult(bytes)
  if (result) return { kind: 'tool-result', parts: result.content, result }
  const part = { type: 'media', data: bytes, mimeType: declared ?? 'application/octet-stream' }
  if (source !== '-') part.uri = pathToFileURL(path.resolve(source)).href
  return { kind: 'file', parts: [part] }
}

async function inspectSource(source, settings, shown) {
  const bytes = await readSource(source, { maxBytes: settings.maxInput })
  const { kind, parts } = partsOf(source, bytes, settings.type)
  const described = []
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    // A plain file declares only what --type says: its media-part shape is ours, not the file's.
    const facts = describePart(part, i + 1, kind === 'tool-result' || settings.type !== undefined)
    facts.providers = {}
    for (const p of settings.providers) {
      shown.update(`inspecting ${source}: part ${i + 1} of ${parts.length}, ${p}`)
      const converted = await mcp.convertToolResult({ content: [part] }, { provider: p, store: settings.store, maxTextTokens: settings.maxTextTokens })
      facts.providers[p] = outcomeOf(converted)
    }
    if (kind === 'file') facts.type = 'file'
    described.push(facts)
  }
  return { source, kind, byteLength: bytes.length, parts: described }
}

/** `image/png 1200x20000 px, 81.2 KB, utf-8`: what a part's bytes are. */
function bytesWords(c) {
  const words = [printable(c.mediaType)]
  if (c.width !== undefined) words.push(`${c.width}x${c.height} px`)
  words.push(formatBytes(c.byteLength))
  if (c.textEncoding) words.push(c.textEncoding)
  return words.join(', ')
}

function printHuman(report, settings) {
  const c = colours(process.stdout, settings)
  const out = []
  for (const s of report.sources) {
    const what = s.kind === 'file' ? `a file, ${formatBytes(s.byteLength)}` : `an MCP tool result, ${s.parts.length} part${s.parts.length === 1 ? '' : 's'}`
    out.push(`${c.bold(printable(s.source))} ${c.dim(`(${what})`)}`)
    for (const p of s.parts) {
      const head = s.kind === 'file' ? '  ' : `  part ${p.index}: ${printable(p.type)}`
      const facts = []
      if (p.uri && s.kind !== 'file') facts.push(printable(p.uri))
      if (p.name) facts.push(printable(p.name))
      if (p.declaredMediaType !== undefined) facts.push(`declared ${printable(p.declaredMediaType)}`)
      if (p.classification) facts.push(`bytes: ${bytesWords(p.classification)}`)
      if (p.chars !== undefined) facts.push(`${p.chars} characters, ~${p.tokens} tokens`)
      out.push(`${head}${s.kind === 'file' ? '' : facts.length ? ' ' : ''}${facts.join('; ')}`)
      const cl = p.classification
      if (cl && cl.problem) out.push(`    ${c.yellow('problem:')} ${printable(cl.problem)}`)
      if (cl && cl.repair) out.push(`    ${c.yellow('repair:')} ${printable(cl.repair)}`)
      // Providers with the same outcome on one line.
      const groups = new Map()
      for (const [name, o] of Object.entries(p.providers)) {
        const words = outcomeWords(o)
        groups.set(words, [...(groups.get(words) ?? []), name])
      }
      const width = Math.max(...[...groups.values()].map((names) => names.join(', ').length))
      for (const [words, names] of groups) {
        const label = groups.size === 1 && names.length === settings.providers.length && names.length > 1 ? 'every provider' : names.join(', ')
        const colour =
          words.startsWith('attached') || words.startsWith('text') ? c.green : words.startsWith('saved') || words.startsWith('a note') ? c.yellow : c.cyan
        out.push(`    ${c.dim(label.padEnd(groups.size === 1 ? 0 : width))}  ${colour(printable(words))}`)
      }
    }
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

async function run(args) {
  const { values, positionals } = parse('inspect', args, {
    provider: { type: 'string', multiple: true },
    type: { type: 'string' },
    'max-text-tokens': { type: 'string' },
    'max-input': { type: 'string' },
    json: { type: 'boolean' },
    'no-color': { type: 'boolean' },
  })
  if (values.help) {
    process.stdout.write(`${HELP}\n`)
    return EXIT.OK
  }
  if (positionals.length === 0) throw usageError('no file to inspect: give paths or - for standard input (see mcp-content inspect --help)')
  const providers = (values.provider ?? PROVIDERS).flatMap((p) => p.split(',')).map((p) => checkProvider('inspect', p.trim()))
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-inspect-'))
  const settings = {
    providers: [...new Set(providers)],
    type: values.type,
    maxTextTokens: maxTextTokens('inspect', values['max-text-tokens']),
    maxInput: maxInput('inspect', values['max-input']),
    store: new mcp.ToolOutputStore(tmp),
    noColor: values['no-color'] === true,
  }
  const shown = progress()
  const report = { sources: [] }
  let failed = false
  try {
    for (const source of positionals) {
      try {
        report.sources.push(await inspectSource(source, settings, shown))
      } catch (error) {
        shown.done()
        printError('inspect', error)
        failed = true
      }
    }
  } finally {
    shown.done()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  if (values.json) process.stdout.write(`${jsonText(report)}\n`)
  else if (report.sources.length > 0) printHuman(report, settings)
  return failed ? EXIT.FAILED : EXIT.OK
}

module.exports = { run, HELP }
