'use strict'
// mcp-content cleanup [dir]: the store's retention applied, and what it removed.
const fs = require('node:fs')
const path = require('node:path')
const mcp = require('../lib/index.js')
const options = require('./options.js')
const { EXIT, CliError, colours, formatBytes, jsonText, printable, usageError } = require('./terminal.js')

const HELP = `Usage: mcp-content cleanup [options] [dir]

Removes the store's own files (tool_<id>[.<ext>], and .tool_tmp_* files a crash left) older than
the retention from dir (default: the per-user temp store, <tmpdir>/mcp-content-<uid>/tool-output)
and lists every file it removed. Nothing else in the folder is touched.

Options:
  --retention-days <n>   how old a file must be to go (default 7; 0: every own file)
  --json                 one JSON document on stdout: { dir, removed: [{ name, byteLength }], count }
  --no-color             no colours (also NO_COLOR=1)
  -h, --help             this help

Exit codes: 0 done (also when nothing was old enough), 1 the folder cannot be used,
2 bad command line.`

/** How many `tool_*` regular files are left in `dir` (for the summary line). */
function filesLeft(dir) {
  let names
  try {
    names = fs.readdirSync(dir)
  } catch (error) {
    if (error.code === 'ENOENT') return 0
    throw error
  }
  let left = 0
  for (const name of names) {
    if (!name.startsWith('tool_')) continue
    try {
      if (fs.lstatSync(path.join(dir, name)).isFile()) left++
    } catch {
      // gone meanwhile
    }
  }
  return left
}

async function run(args) {
  const { values, positionals } = options.parse('cleanup', args, {
    'retention-days': { type: 'string' },
    json: { type: 'boolean' },
    'no-color': { type: 'boolean' },
  })
  if (values.help) {
    process.stdout.write(`${HELP}\n`)
    return EXIT.OK
  }
  if (positionals.length > 1) throw usageError('cleanup takes one folder (see mcp-content cleanup --help)')
  const storeOptions = {}
  if (values['retention-days'] !== undefined) {
    const days = values['retention-days']
    if (!/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(days))
      throw usageError(`--retention-days must be a number of days, not "${days}" (see mcp-content cleanup --help)`)
    storeOptions.retentionDays = Number(days)
  }
  const dir = positionals[0]
  if (dir !== undefined && !fs.existsSync(dir)) throw new CliError(`no such folder: ${dir}`)
  if (dir !== undefined && !fs.statSync(dir).isDirectory()) throw new CliError(`not a folder: ${dir}`)
  const store = positionals[0] === undefined ? new mcp.ToolOutputStore(undefined, storeOptions) : new mcp.ToolOutputStore(positionals[0], storeOptions)
  // Exactly what the store removed, temp files included, in name order.
  const removed = store.cleanupFiles()
  const count = removed.length
  const left = filesLeft(store.dir)
  if (values.json) {
    process.stdout.write(`${jsonText({ dir: store.dir, removed, count })}\n`)
    return EXIT.OK
  }
  const c = colours(process.stdout, { noColor: values['no-color'] === true })
  const total = removed.reduce((sum, f) => sum + f.byteLength, 0)
  const lines = [
    `${c.bold(`removed ${count} file${count === 1 ? '' : 's'}`)}${count > 0 ? ` (${formatBytes(total)})` : ''} from ${printable(store.dir)}; ${left} kept`,
  ]
  for (const f of removed) lines.push(`  ${printable(f.name)}  ${c.dim(formatBytes(f.byteLength))}`)
  process.stdout.write(`${lines.join('\n')}\n`)
  return EXIT.OK
}

module.exports = { run, HELP }
