// Images made to fit: mcp-content (toContentAsync: decode, resize, encode in
// Rust on the libuv pool, original saved) against the same work done with
// sharp (libvips) in JS, on the scenarios of scenarios.mjs's
// `imageFitScenarios`. Time is the median of several runs in this process,
// the implementations taking turns;
// peak memory is measured once per implementation in a fresh child process
// (VmHWM reset at a baseline, as memory-child.mjs does).
//
//   node --expose-gc benchmark/image-fit.mjs [--out file.json] [--only id,id]
//   node --expose-gc benchmark/image-fit.mjs --child <scenario> <impl>   (one memory run)

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { imageFitScenarios } from './scenarios.mjs'
import { gc, loadNative, median, memorySnapshot, MemorySampler, procStatus, resetPeakRss, tick } from './measure.mjs'

const require = createRequire(import.meta.url)

let sharp
try {
  sharp = require('sharp')
} catch (error) {
  console.error(`sharp is not installed (${error.message}): only mcp-content is measured`)
}

/** Sides within `maxSide`, aspect ratio kept (as the core's `scaled`). */
function scaled(width, height, maxSide) {
  const long = Math.max(width, height)
  if (long <= maxSide) return [width, height]
  const side = (s) => Math.min(maxSide, Math.max(1, Math.round((s * maxSide) / long)))
  return [side(width), side(height)]
}

/**
 * sharp doing what mcp-content does for the scenario: decode, resize into
 * the box (Lanczos3, as both use), PNG out (JPEG, quality 85 then 70, for a
 * JPEG), smaller until within the byte limit (the sides times the square
 * root of limit/size, times 0.9, as docs/images.md says), the original
 * saved, base64 for the model.
 */
async function sharpFit(part, { maxSide, maxBytes }, dir) {
  const input = Buffer.from(part.data, 'base64')
  const jpeg = part.mimeType === 'image/jpeg'
  fs.writeFileSync(path.join(dir, `original-${process.hrtime.bigint()}.${jpeg ? 'jpg' : 'png'}`), input)
  const meta = await sharp(input, { limitInputPixels: MAX_PIXELS }).metadata()
  let [width, height] = scaled(meta.width, meta.height, maxSide)
  let quality = 85
  for (let attempt = 0; attempt < 10; attempt++) {
    let pipeline = sharp(input, { limitInputPixels: MAX_PIXELS }).rotate()
    if (width !== meta.width || height !== meta.height) pipeline = pipeline.resize({ width, height, fit: 'fill', kernel: 'lanczos3' })
    const out = await (jpeg ? pipeline.jpeg({ quality }) : pipeline.png()).toBuffer()
    if (out.length <= maxBytes) {
      return { type: 'file', mediaType: jpeg ? 'image/jpeg' : 'image/png', data: out.toString('base64') }
    }
    if (jpeg && quality > 70) {
      quality = 70
      continue
    }
    const ratio = Math.min(0.9, Math.max(0.25, Math.sqrt(maxBytes / out.length) * 0.9))
    width = Math.max(1, Math.round(width * ratio))
    height = Math.max(1, Math.round(height * ratio))
  }
  throw new Error('sharp: no size came within the byte limit')
}

/** libvips' default limit of input pixels, 0x3FFF squared. */
const MAX_PIXELS = 0x3fff * 0x3fff

/** Each implementation converts all of a scenario's parts at once. */
function implementations(dir) {
  const native = loadNative()
  const impls = {
    native: (parts, scenario) => Promise.all(parts.map((part) => native.toContentAsync(part, { ...scenario.options, outputDir: dir }))),
  }
  if (sharp) impls.sharp = (parts, scenario) => Promise.all(parts.map((part) => sharpFit(part, scenario, dir)))
  return impls
}

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-bench-fit-'))
}

/** One conversion in this fresh process, with its peak RSS growth. */
async function child(scenarioId, implName) {
  const scenario = imageFitScenarios.find((s) => s.id === scenarioId)
  const dir = tempDir()
  try {
    const impl = implementations(dir)[implName]
    // Warm up on a small image of the same kind.
    await impl((await scenario.build(1 / 64)).slice(0, 1), { ...scenario, maxSide: 32, options: { maxLongSide: 32 } })
    let parts = await scenario.build()
    gc()
    await tick()
    gc()
    const base = memorySnapshot()
    const baseProc = procStatus()
    const reset = resetPeakRss()
    const sampler = new MemorySampler(1)
    const t0 = performance.now()
    const results = await impl(parts, scenario)
    const elapsed = performance.now() - t0
    const peak = sampler.stop()
    const proc = procStatus()
    let peakRss = peak.rss - base.rss
    if (reset && proc && baseProc) peakRss = Math.max(peakRss, proc.hwm - baseProc.rss)
    if (results.some((r) => r.type !== 'file')) throw new Error(`${implName} did not answer a file part`)
    parts = null
    process.stdout.write(JSON.stringify({ elapsed, peakRss, source: reset ? 'VmHWM' : 'sampled' }) + '\n')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  const args = process.argv.slice(2)
  // Without --out nothing is written (indexOf's -1 would name the first argument).
  const outFile = args.includes('--out') ? args[args.indexOf('--out') + 1] : null
  const dir = tempDir()
  const impls = implementations(dir)
  const rows = []
  try {
    const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null
    for (const scenario of imageFitScenarios.filter((s) => !only || only.includes(s.id))) {
      const parts = await scenario.build()
      const row = { id: scenario.id, title: scenario.title, input: parts.reduce((n, part) => n + part.data.length, 0) }
      // The implementations take turns, a run each, so that the machine
      // slowing down or speeding up over the scenario moves both alike.
      const times = Object.fromEntries(Object.keys(impls).map((name) => [name, []]))
      const last = {}
      for (let i = 0; i <= scenario.runs; i++) {
        for (const [name, impl] of Object.entries(impls)) {
          const t0 = performance.now()
          last[name] = await impl(parts, scenario)
          if (i > 0) times[name].push(performance.now() - t0) // the first round warms up
          for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f))
        }
      }
      for (const name of Object.keys(impls)) {
        const results = last[name]
        const refused = results.find((r) => r.type !== 'file')
        if (refused) {
          row[name] = { notFitted: refused.text ?? refused.note, medianMs: median(times[name]) }
          continue
        }
        const bytes = Buffer.from(results[0].data, 'base64')
        const size = sharp ? await sharp(bytes).metadata() : {}
        const memory = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', scenario.id, name], { encoding: 'utf8' })
        const measured = memory.status === 0 ? JSON.parse(memory.stdout.trim().split('\n').pop()) : { error: memory.stderr.slice(-500) }
        row[name] = {
          medianMs: median(times[name]),
          times: times[name],
          outBytes: results.reduce((n, r) => n + (r.data.length * 3) / 4, 0),
          out: `${size.width}x${size.height}`,
          peakRss: measured.peakRss,
          memory: measured,
        }
      }
      rows.push(row)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const targets = (n, s) => {
    const time = n.medianMs <= s.medianMs ? 'time met' : 'time missed'
    const peak = n.peakRss === undefined || s.peakRss === undefined ? 'peak ?' : n.peakRss <= 2 * s.peakRss + 16 * 2 ** 20 ? 'peak met' : 'peak missed'
    return `${time}, ${peak}`
  }
  const mb = (n) => (n === undefined ? '?' : `${(n / 2 ** 20).toFixed(0)} MiB`)
  console.log('\nImages made to fit: mcp-content (toContentAsync) vs sharp in JS; median of 3-5 runs taken in turn; peak RSS growth in a fresh process')
  console.log(
    'scenario | mcp-content time | sharp time | time ratio | mcp-content peak | sharp peak | targets (time <= sharp; peak <= 2x sharp + 16 MiB) | out (mcp-content / sharp)',
  )
  for (const r of rows) {
    const n = r.native
    const s = r.sharp
    if (n.notFitted || s?.notFitted) {
      console.log(`${r.title} | not fitted: ${(n.notFitted ?? s.notFitted).slice(0, 200)}`)
      continue
    }
    const ratio = s ? (n.medianMs / s.medianMs).toFixed(2) : '-'
    console.log(
      `${r.title} | ${n.medianMs.toFixed(0)} ms | ${s ? s.medianMs.toFixed(0) + ' ms' : '-'} | ${ratio}x | ${mb(n.peakRss)} | ${s ? mb(s.peakRss) : '-'} | ${s ? targets(n, s) : '-'} | ${n.out} ${(n.outBytes / 1e6).toFixed(2)} MB / ${s ? `${s.out} ${(s.outBytes / 1e6).toFixed(2)} MB` : '-'}`,
    )
  }
  const report = {
    startedAt: new Date().toISOString(),
    node: process.version,
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    sharp: sharp ? sharp.versions.sharp : null,
    rows,
  }
  if (outFile && outFile !== '--out') fs.writeFileSync(outFile, JSON.stringify(report, null, 2) + '\n')
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4])
else await main()
