#!/usr/bin/env node
// npm run demo: real MCP servers over stdio (our demo server and server-everything), each called
// twice with the real SDK client: directly, and through `mcp-content proxy`. For each content part,
// side by side: what the server declared, what the bytes are, what a naive pass-through sends to
// Claude and whether the API would refuse it, and what mcp-content sends instead.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { demoCases } from './cases.mjs'
import { generatedImages } from './images.mjs'
import { checkBlock, naiveBlock, IMAGE_LIMIT_BEDROCK_VERTEX, IMAGE_LIMIT_DIRECT } from './anthropic-check.mjs'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.join(here, '..')
const mcp = require('../lib/index.js')
const { colours, formatBytes, oneLine, progress } = require('../cli/terminal.js')
const cli = path.join(root, 'cli', 'mcp-content.js')

const HELP = `Usage: npm run demo [-- options]   (node demo/demo.mjs [options])

Starts real MCP servers over stdio and shows, for each content part they return: what the server
declared, what the bytes are, what a naive pass-through would send to Claude and whether the API
would refuse it, and what mcp-content sends (through \`mcp-content proxy\`).

Options:
  --provider <p>      the profile the proxy converts for (default: default). Claude's image limit
                      is 5 MB of base64 (Bedrock, Google Cloud); 10 MB with --provider anthropic
  --output-dir <dir>  keep the files mcp-content saves there (default: a temp folder, removed)
  --json              one JSON document on stdout
  --no-color          no colours (also NO_COLOR=1; colours only on a terminal anyway)
  -h, --help          this help`

let values
try {
  ;({ values } = parseArgs({
    options: {
      provider: { type: 'string', default: 'default' },
      'output-dir': { type: 'string' },
      json: { type: 'boolean' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }))
  if (!values.help) require('../cli/options.js').provider('demo', values.provider)
} catch (error) {
  process.stderr.write(`mcp-content demo: ${oneLine(error.message.replace(/mcp-content demo --help/, 'npm run demo -- --help'))}\n`)
  process.exit(2)
}
if (values.help) {
  console.log(HELP)
  process.exit(0)
}
const provider = values.provider
const imageLimit = provider === 'anthropic' ? IMAGE_LIMIT_DIRECT : IMAGE_LIMIT_BEDROCK_VERTEX
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-demo-'))
const outputDir = values['output-dir'] ? path.resolve(values['output-dir']) : path.join(tmp, 'tool-output')
const shown = progress()

const everythingDir = path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'))
const everythingPkg = require('@modelcontextprotocol/server-everything/package.json')
const everythingBin = path.join(everythingDir, typeof everythingPkg.bin === 'string' ? everythingPkg.bin : Object.values(everythingPkg.bin)[0])
const gzipData = `data:text/plain;base64,${Buffer.from('log line\n'.repeat(40)).toString('base64')}`

const servers = [
  {
    name: 'mcp-content-demo',
    args: [path.join(here, 'demo-server.mjs'), '--images', path.join(tmp, 'images')],
    tools: Object.entries(demoCases).map(([name, [about]]) => ({ name, about, args: {} })),
  },
  {
    name: 'server-everything',
    args: [everythingBin, 'stdio'],
    tools: [
      { name: 'get-tiny-image', about: 'the MCP logo', args: {} },
      { name: 'get-resource-reference', about: 'a text/plain blob resource', args: { resourceType: 'Blob', resourceId: 3 } },
      { name: 'gzip-file-as-resource', about: 'a gzip file', args: { name: 'app.log.gz', data: gzipData, outputType: 'resource' } },
    ],
  },
]

async function connect(args) {
  const client = new Client({ name: 'mcp-content-demo', version: '0.1.0' })
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', cwd: root })
  await client.connect(transport)
  return client
}

/** What the server declared for a part. */
function declared(part) {
  const r = part.type === 'resource' ? part.resource : undefined
  const out = { type: part.type }
  const mimeType = r ? r.mimeType : part.mimeType
  if (mimeType !== undefined) out.mimeType = mimeType
  const uri = r ? r.uri : part.uri
  if (uri !== undefined) out.uri = uri
  return out
}

/** What the bytes of a part are (mcp-content's classify), or its length for text. */
function bytesOf(part) {
  const r = part.type === 'resource' ? part.resource : undefined
  const data = r ? r.blob : part.data
  if (typeof data !== 'string') {
    const text = r ? r.text : part.text
    return { kind: 'text', characters: typeof text === 'string' ? text.length : 0 } // no bytes: a text part
  }
  const c = mcp.classify(data, r ? r.mimeType : part.mimeType)
  const out = { kind: c.kind, mediaType: c.mediaType, byteLength: c.byteLength }
  for (const k of ['width', 'height', 'textEncoding', 'problem', 'repair']) if (c[k] !== undefined) out[k] = c[k]
  return out
}

/** A block as a few words: `image block, image/png, 6.0 MB of base64`. */
function blockWords(block) {
  if (block.type === 'text') return `text block, ${block.text.length} characters`
  return `${block.type} block, ${block.source.media_type}, ${formatBytes(block.source.data.length)} of base64`
}

/** What mcp-content sends for a part (an MCP part from the proxy; `note`: the note beside an image made to fit). */
function sentOf(part, note) {
  if (part === undefined) return { type: 'nothing' }
  if (part.type === 'text') return { type: 'text', text: part.text }
  const r = part.type === 'resource' ? part.resource : undefined
  const data = r ? r.blob : part.data
  const sent = { type: part.type, mimeType: r ? r.mimeType : part.mimeType, byteLength: Buffer.byteLength(data, 'base64') }
  return note === undefined ? sent : { ...sent, note }
}

/** An image made to fit comes as two parts: this note, then the image. */
const FITTED_NOTE = /^\[Image [^\n]* to fit \([^\n]*\): original [^\n]*; sent [^\n]*\]$/

/** The proxied parts for each part the server sent, in order: one part, or a note and its image. */
function pairParts(raw, converted) {
  const out = []
  let at = 0
  for (let i = 0; i < raw.length; i++) {
    const part = converted[at]
    const next = converted[at + 1]
    if (part?.type === 'text' && FITTED_NOTE.test(part.text) && next?.type === 'image') {
      out.push({ sent: next, note: part.text })
      at += 2
    } else {
      out.push({ sent: part })
      at += 1
    }
  }
  return out
}

async function collect() {
  const rows = []
  for (const server of servers) {
    shown.update(`starting ${server.name}, directly and through mcp-content proxy`)
    const [direct, proxied] = await Promise.all([
      connect(server.args),
      connect([cli, 'proxy', '--provider', provider, '--output-dir', outputDir, '--', process.execPath, ...server.args]),
    ])
    try {
      for (const tool of server.tools) {
        shown.update(`${server.name}: calling ${tool.name}`)
        const [raw, converted] = await Promise.all([
          direct.callTool({ name: tool.name, arguments: tool.args }),
          proxied.callTool({ name: tool.name, arguments: tool.args }),
        ])
        const pairs = pairParts(raw.content, converted.content)
        raw.content.forEach((part, i) => {
          const naive = naiveBlock(part)
          const { sent, note } = pairs[i]
          rows.push({
            server: server.name,
            tool: tool.name,
            about: tool.about,
            part: i + 1,
            declared: declared(part),
            bytes: bytesOf(part),
            naive: { sends: blockWords(naive), ...checkBlock(naive, imageLimit) },
            mcpContent: { sends: sentOf(sent, note), ...(sent === undefined ? { verdict: 'accepted' } : checkBlock(naiveBlock(sent), imageLimit)) },
          })
        })
      }
    } finally {
      await Promise.all([direct.close(), proxied.close()])
    }
  }
  return rows
}

// ---------------------------------------------------------------- the terminal table

/** `text` in lines of at most `width` characters, broken at spaces where it can be. */
function wrap(text, width) {
  const lines = []
  for (const paragraph of String(text).split('\n')) {
    let line = ''
    for (const word of paragraph.split(' ')) {
      let w = word
      while (w.length > width) {
        if (line) lines.push(line)
        line = ''
        lines.push(w.slice(0, width))
        w = w.slice(width)
      }
      if (!line) line = w
      else if (line.length + 1 + w.length <= width) line += ` ${w}`
      else {
        lines.push(line)
        line = w
      }
    }
    lines.push(line)
  }
  return lines
}

const short = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text)

function cells(row, c) {
  const d = row.declared
  const declaredText = [d.type, d.mimeType, d.uri].filter(Boolean).join(' ')
  const b = row.bytes
  const bytesText =
    b.characters !== undefined
      ? `text, ${b.characters} characters`
      : [
          [b.mediaType, b.width !== undefined ? `${b.width}x${b.height} px` : null, formatBytes(b.byteLength)].filter(Boolean).join(', '),
          b.problem ? `problem: ${b.problem}` : null,
          b.repair ? `repair: ${b.repair}` : null,
        ]
          .filter(Boolean)
          .join('\n')
  const mark = (v) => (v.verdict === 'refused' ? c.red('✗ refused') : v.verdict === 'at-risk' ? c.yellow('! at risk') : c.green('✓ accepted'))
  const naiveText = `${row.naive.sends}\n${mark(row.naive)}${row.naive.error ? `: ${row.naive.error}` : ''}`
  const s = row.mcpContent.sends
  const sendsText =
    s.type === 'text'
      ? `text: ${short(s.text.split(outputDir).join('$OUT'), 240)}`
      : s.type === 'nothing'
        ? 'nothing'
        : `${s.type} ${s.mimeType}, ${formatBytes(s.byteLength)}${s.note ? `\n${short(s.note.split(outputDir).join('$OUT'), 240)}` : ''}`
  const mcpText = `${sendsText}\n${mark(row.mcpContent)}${row.mcpContent.error ? `: ${row.mcpContent.error}` : ''}`
  return [declaredText, bytesText, naiveText, mcpText]
}

// Visible width of a cell line: colour codes take no room.
const visible = (s) => s.replace(/\x1b\[[0-9;]*m/g, '').length

/** Narrow terminals: the four cells of a row one under the other, labelled. */
function stackedRow(row, c, total) {
  const labels = ['declared', 'bytes', 'naive', 'mcp-content']
  const width = Math.max(20, total - 15)
  const out = []
  cells(row, c).forEach((text, i) => {
    wrap(text, width).forEach((line, l) => out.push(`  ${c.dim((l === 0 ? labels[i] : '').padEnd(12))} ${line}`.trimEnd()))
  })
  return out
}

function printTable(rows) {
  const c = colours(process.stdout, { noColor: values['no-color'] === true })
  const termColumns = process.stdout.columns || 140
  const stacked = termColumns < 110
  const total = stacked ? termColumns : Math.min(termColumns, 220)
  const widths = [0.2, 0.22, 0.29].map((f) => Math.floor((total - 6) * f))
  widths.push(total - 6 - widths.reduce((a, b) => a + b, 0))
  const heads = ['the server declared', 'the bytes are', 'naive pass-through to Claude', 'mcp-content sends']
  const out = []
  out.push(
    c.bold(
      `mcp-content demo: provider "${provider}"; Claude's image limit ${formatBytes(imageLimit)} of base64 (${imageLimit === IMAGE_LIMIT_DIRECT ? 'direct API' : 'Bedrock, Google Cloud'})`,
    ),
  )
  out.push('')
  if (stacked) out.push(c.dim('declared: what the server declared; bytes: what they are; naive: a naive pass-through to Claude'))
  else
    out.push(
      heads
        .map((h, i) => c.bold(h.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
  out.push(c.dim('─'.repeat(total)))
  let last = ''
  for (const row of rows) {
    if (row.server !== last) {
      out.push(c.cyan(`server: ${row.server}`))
      last = row.server
    }
    out.push(
      c.bold(`${row.tool}${row.part > 1 || row.tool === 'get-tiny-image' || row.tool === 'get-resource-reference' ? ` part ${row.part}` : ''}: ${row.about}`),
    )
    if (stacked) {
      out.push(...stackedRow(row, c, total), '')
      continue
    }
    const columns = cells(row, c).map((text, i) => wrap(text, widths[i]))
    const height = Math.max(...columns.map((col) => col.length))
    for (let l = 0; l < height; l++) {
      out.push(
        columns
          .map((col, i) => {
            const cell = col[l] ?? ''
            return cell + ' '.repeat(Math.max(0, widths[i] - visible(cell)))
          })
          .join('  ')
          .trimEnd(),
      )
    }
    out.push('')
  }
  const s = summary(rows)
  out.push(c.dim('─'.repeat(total)))
  out.push(
    `${c.bold('naive pass-through:')} ${c.red(`${s.naiveRefused} of ${s.parts} parts refused`)}${s.naiveAtRisk ? `, ${c.yellow(`${s.naiveAtRisk} at risk`)}` : ''}; a refused part stays in the history, so every later turn of the session fails too.`,
  )
  out.push(
    `${c.bold('mcp-content:')} ${s.mcpRefused === 0 ? c.green('none refused') : c.red(`${s.mcpRefused} refused`)}; ${s.saved} file${s.saved === 1 ? '' : 's'} saved to $OUT = ${values['output-dir'] ? outputDir : `${outputDir} (removed now; keep them with --output-dir)`}.`,
  )
  out.push(c.dim('Any MCP client gets the same with one line of config: mcp-content proxy --provider <p> -- <server command> (docs/proxy.md).'))
  process.stdout.write(`${out.join('\n')}\n`)
}

function summary(rows) {
  return {
    parts: rows.length,
    naiveRefused: rows.filter((r) => r.naive.verdict === 'refused').length,
    naiveAtRisk: rows.filter((r) => r.naive.verdict === 'at-risk').length,
    mcpRefused: rows.filter((r) => r.mcpContent.verdict !== 'accepted').length,
    saved: fs.existsSync(outputDir) ? fs.readdirSync(outputDir).filter((f) => f.startsWith('tool_')).length : 0,
  }
}

let exitCode = 0
try {
  shown.update('making the 20,000 px screenshot and the 4.5 MB photo with pngjs')
  fs.mkdirSync(path.join(tmp, 'images'))
  generatedImages(path.join(tmp, 'images'))
  const rows = await collect()
  shown.done()
  if (values.json) {
    const report = { provider, claudeImageLimit: imageLimit, outputDir: values['output-dir'] ? outputDir : null, rows, summary: summary(rows) }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  } else printTable(rows)
} catch (error) {
  shown.done()
  process.stderr.write(`mcp-content demo: ${oneLine(error.message)}\n`)
  exitCode = 1
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
process.exitCode = exitCode
