'use strict'
// mcp-content convert --provider <p> [result.json|-]: one MCP tool result converted, as JSON.
const mcp = require('../lib/index.js')
const { readSource, parseToolResult, notJson } = require('./input.js')
const options = require('./options.js')
const { toMcpResult } = require('./mcp-shape.js')
const { EXIT, jsonText, progress, usageError } = require('./terminal.js')

const HELP = `Usage: mcp-content convert [options] [result.json|-]

Converts one MCP tool result for a provider and writes the answer of convertToolResult as JSON
({ content, isError, deferred, saved, sources, structuredContent? }) on stdout. The input (a file, or standard input when
none or "-" is given) is JSON of a CallToolResult, a JSON-RPC response carrying one, a content
part or an array of parts. Files that cannot be sent are saved by the store and noted.

Options:
  --provider <p>          ${options.PROVIDERS.join(', ')}
                          (default: default)
  --output-dir <dir>      where files are saved (default: the per-user temp store), or
                          s3://bucket/prefix (credentials and endpoint from AWS_* variables)
  --presign-seconds <n>   with an s3:// --output-dir: each note naming a saved object also
                          gives a presigned URL of it, valid n seconds (at most 604800)
  --defer-media <when>    auto, true or false (default auto: for openai-chat, openrouter, google)
  --max-text-tokens <n>   the text cap (default 12500; Infinity: off)
  --max-input <size>      the most read from one file or standard input (default 256MiB);
                          bytes, or KiB, MiB, GiB; past it, or at a first byte that cannot
                          start JSON, reading stops with an error
  --mcp                   write the MCP CallToolResult the proxy would send instead
                          (no deferral: what goes only in a user message is saved)
  --json                  accepted; the output is always JSON
  -h, --help              this help

Exit codes: 0 converted, 1 unreadable input, not a tool result, or the conversion failed,
2 bad command line.`

async function run(args) {
  const { values, positionals } = options.parse('convert', args, {
    provider: { type: 'string' },
    'output-dir': { type: 'string' },
    'presign-seconds': { type: 'string' },
    'defer-media': { type: 'string' },
    'max-text-tokens': { type: 'string' },
    'max-input': { type: 'string' },
    mcp: { type: 'boolean' },
    json: { type: 'boolean' },
    'no-color': { type: 'boolean' },
  })
  if (values.help) {
    process.stdout.write(`${HELP}\n`)
    return EXIT.OK
  }
  if (positionals.length > 1) throw usageError('convert takes one result: give a file or - (see mcp-content convert --help)')
  if (values.mcp && values['defer-media'] !== undefined) {
    throw usageError('--mcp sends no media to a following message: leave out --defer-media (see mcp-content convert --help)')
  }
  const settings = {
    provider: options.provider('convert', values.provider),
    // An MCP result has no following user message: what goes only there is saved, as in the proxy.
    deferMedia: values.mcp ? false : options.deferMedia('convert', values['defer-media']),
    maxTextTokens: options.maxTextTokens('convert', values['max-text-tokens']),
  }
  const presign = options.presignSeconds('convert', values['presign-seconds'], values['output-dir'])
  const maxBytes = options.maxInput('convert', values['max-input'])
  const source = positionals[0] ?? '-'
  const bytes = await readSource(source, { maxBytes, json: true })
  const result = parseToolResult(bytes)
  if (result === null) throw notJson(source)
  settings.store = options.store(values['output-dir'], presign)
  const shown = progress()
  shown.update(`converting ${source === '-' ? 'standard input' : source} for ${settings.provider}`)
  let converted
  try {
    converted = await mcp.convertToolResult(result, settings)
  } finally {
    shown.done()
  }
  const answer = values.mcp ? toMcpResult(converted, result) : converted
  process.stdout.write(`${jsonText(answer)}\n`)
  return EXIT.OK
}

module.exports = { run, HELP }
