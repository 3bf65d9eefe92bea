// npm run bench:text [-- <another checkout's folder to time instead>]
//
// What a plain text part costs through toContent, with and without options,
// against the hand-written helper it replaces: `{ type: 'text', text:
// part.text }`. Nanoseconds at this scale move with the machine's load, so
// the three are interleaved round by round and the fastest round of each is
// reported. Give another checkout's folder to time its entry the same way
// (how the before/after figures of docs/performance.md were taken).
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const entryDir = process.argv[2] ? path.resolve(process.argv[2]) : path.join(here, '..')
const { toContent } = createRequire(import.meta.url)(entryDir)

const PARTS = 1000
const REPEATS = 200
const ROUNDS = 30
const parts = Array.from({ length: PARTS }, (_, i) => ({ type: 'text', text: `${'x'.repeat(90)}${i}` }))
const options = { outputDir: os.tmpdir() }

const ways = {
  'hand-written helper': (part) => ({ type: 'text', text: part.text }),
  'toContent(part)': (part) => toContent(part),
  'toContent(part, { outputDir })': (part) => toContent(part, options),
}

let sink
/** Nanoseconds per part for one round of `convert`. */
function round(convert) {
  const start = process.hrtime.bigint()
  for (let r = 0; r < REPEATS; r++) for (let i = 0; i < PARTS; i++) sink = convert(parts[i])
  return Number(process.hrtime.bigint() - start) / (REPEATS * PARTS)
}

const fastest = Object.fromEntries(Object.keys(ways).map((name) => [name, Infinity]))
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, convert] of Object.entries(ways)) fastest[name] = Math.min(fastest[name], round(convert))
}
if (sink === undefined) throw new Error('nothing converted')
const runtime = typeof globalThis.Bun === 'undefined' ? `Node.js ${process.version}` : `Bun ${globalThis.Bun.version}`
console.log(`${runtime}, entry ${entryDir}; fastest of ${ROUNDS} rounds, ns per part:`)
for (const [name, ns] of Object.entries(fastest)) console.log(`  ${name.padEnd(32)} ${ns.toFixed(1)}`)
