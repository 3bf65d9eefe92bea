// npm run soak [-- --parts 100000 --workers 4 --json]
//
// Converts many mixed parts, sync and async interleaved, on the main thread
// and in worker threads at once, then checks that nothing leaks: resident
// memory flat after warm-up, no file descriptor left open, no temporary file
// left in the stores. Prints a summary (JSON with --json) and exits 1 when a
// check fails. __test__/soak.test.mjs runs a short version. MCP_CONTENT_MODULE
// (a folder, as for the test suite) runs it on another build or an installed
// package instead of this checkout.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

import * as fx from './fixtures.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

const gc = globalThis.gc ?? (globalThis.Bun ? () => globalThis.Bun.gc(true) : () => {})

/** Growth of resident memory after warm-up that still counts as flat. */
const RSS_SLACK_MIB = 48

/** The mix every thread converts, in turn. */
function parts() {
  const small = fx.png(4 * 1024, 1)
  const medium = fx.png(120 * 1024, 2)
  const blob = Buffer.alloc(20_000, 7)
  blob.write('PAR1', 0)
  const markdown = Buffer.from('# Notes\n\n' + 'Some text, a list:\n- one\n- two\n'.repeat(200))
  const longText = 'a line of a long log\n'.repeat(5_000)
  return [
    { type: 'text', text: 'Done: 3 files changed.' },
    { type: 'image', data: small.toString('base64'), mimeType: 'image/png' },
    { type: 'image', data: medium, mimeType: 'image/png' },
    { type: 'image', data: 'QR==', mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: blob.toString('base64') } },
    { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', blob: markdown.toString('base64') } },
    { type: 'resource_link', uri: 'file:///app.log', name: 'app.log', size: 1234 },
    { type: 'text', text: longText },
    { type: 'image', data: small, mimeType: 'image/jpeg', annotations: { audience: ['assistant'] } },
  ]
}

/** Convert `count` parts of the mix, sync and async in turn. */
async function convert(count, dir) {
  const { toContent, toContentAsync, ToolOutputStore } = require(path.resolve(process.env.MCP_CONTENT_MODULE || path.join(here, '..')))
  // A small cap keeps the disk bounded however long the run.
  const store = new ToolOutputStore(dir, { maxBytes: 64 * 1024 * 1024 })
  const mix = parts()
  let files = 0
  for (let i = 0; i < count; i++) {
    const part = mix[i % mix.length]
    const out = i % 2 === 0 ? toContent(part, { store }) : await toContentAsync(part, { store })
    if (out?.type === 'file') files++
  }
  return files
}

function openFds() {
  try {
    return fs.readdirSync('/proc/self/fd').length
  } catch {
    return null // not Linux: not measured
  }
}

function leftoverTemps(dirs) {
  return dirs.reduce((n, d) => n + (fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.startsWith('.tool_tmp_')).length : 0), 0)
}

function arg(name, fallback) {
  const at = process.argv.indexOf(name)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}

/** Convert in a worker thread; settles once the thread has exited. */
function inWorker(count, dir) {
  return new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: { count, dir } })
    let files
    w.once('message', (n) => (files = n))
    w.once('error', reject)
    w.once('exit', (code) => (code === 0 ? resolve(files) : reject(new Error(`worker exited with ${code}`))))
  })
}

async function main() {
  const total = arg('--parts', 100_000)
  const workers = arg('--workers', 4)
  const json = process.argv.includes('--json')
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-soak-'))
  const threads = workers + 1
  const each = Math.ceil(total / threads)
  const dirs = Array.from({ length: threads }, (_, i) => path.join(root, `store-${i}`))
  try {
    // Warm-up: a tenth of the work on the main thread and in one worker (Node
    // opens some descriptors of its own for the first worker), then the baseline.
    await Promise.all([convert(Math.ceil(each / 10), dirs[0]), inWorker(Math.ceil(each / 10), dirs[1])])
    gc()
    const fdsBefore = openFds()
    const rssBefore = process.memoryUsage().rss
    const started = Date.now()
    let rssPeak = rssBefore
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50)
    const runs = dirs.slice(1).map((dir) => inWorker(each, dir))
    await Promise.all([convert(each, dirs[0]), ...runs])
    clearInterval(sampler)
    gc()
    await new Promise((r) => setTimeout(r, 200))
    const rssAfter = process.memoryUsage().rss
    const summary = {
      parts: each * threads,
      threads,
      seconds: (Date.now() - started) / 1000,
      rssBeforeMiB: +(rssBefore / 2 ** 20).toFixed(1),
      rssPeakMiB: +(rssPeak / 2 ** 20).toFixed(1),
      rssAfterMiB: +(rssAfter / 2 ** 20).toFixed(1),
      fdsBefore,
      fdsAfter: openFds(),
      leftoverTempFiles: leftoverTemps(dirs),
    }
    const failures = []
    if ((rssAfter - rssBefore) / 2 ** 20 > RSS_SLACK_MIB) failures.push(`resident memory grew by more than ${RSS_SLACK_MIB} MiB`)
    if (summary.fdsBefore !== null && summary.fdsAfter > summary.fdsBefore) failures.push('file descriptors left open')
    if (summary.leftoverTempFiles > 0) failures.push('temporary files left behind')
    summary.failures = failures
    console.log(json ? JSON.stringify(summary) : summary)
    process.exitCode = failures.length ? 1 : 0
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

if (isMainThread) await main()
else parentPort.postMessage(await convert(workerData.count, workerData.dir))
