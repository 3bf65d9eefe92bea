// Images made to fit: mcp-content (toContentAsync: decode, resize, encode in
// Rust on the libuv pool, original saved) against the same work done with
// sharp (libvips) in JS, on the scenarios of scenarios.mjs's
// `imageFitScenarios`. Time is the median of several runs in this process;
// peak memory is measured once per implementation in a fresh child process
// (VmHWM reset at a baseline, as memory-child.mjs does).
//
//   node --expose-gc benchmark/image-fit.mjs [--out file.json]
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
const RUNS = 5

let sharp
try {
  sharp = require('sharp')
} catch (error) {
  console.error(`sharp is not installed (${error.message}): only mcp-content is measured`)
}

/**
 * sharp doing what mcp-content does for the scenario: decode, resize into
 * the box (Lanczos3, as both use), PNG out (JPEG for a JPEG), save the
 * original, base64 for the model.
 */
async function sharpFit(part, { maxSide }, dir) {
  const input = Buffer.from(part.data, 'base64')
  fs.writeFileSync(path.join(dir, `original-${process.hrtime.bigint()}.png`), input)
  const out = await sharp(input, { limitInputPixels: 64_000_000 })
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' })
    .png()
    .toBuffer({ resolveWithObject: true })
  return { type: 'file', mediaType: 'image/png', data: out.data.toString('base64'), width: out.info.width, height: out.info.height }
}

function implementations(dir) {
  const native = loadNative()
  const impls = {
    native: (part, scenario) => native.toContentAsync(part, { ...scenario.options, outputDir: dir }),
  }
  if (sharp) impls.sharp = (part, scenario) => sharpFit(part, scenario, dir)
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
    await impl({ type: 'image', data: (await scenario.build(64)).data, mimeType: 'image/png' }, { ...scenario, maxSide: 32, options: { maxLongSide: 32 } })
    let part = await scenario.build()
    gc()
    await tick()
    gc()
    const base = memorySnapshot()
    const baseProc = procStatus()
    const reset = resetPeakRss()
    const sampler = new MemorySampler(1)
    const t0 = performance.now()
    const result = await impl(part, scenario)
    const elapsed = performance.now() - t0
    const peak = sampler.stop()
    const proc = procStatus()
    let peakRss = peak.rss - base.rss
    if (reset && proc && baseProc) peakRss = Math.max(peakRss, proc.hwm - baseProc.rss)
    if (result.type !== 'file') throw new Error(`${implName} did not answer a file part`)
    part = null
    process.stdout.write(JSON.stringify({ elapsed, peakRss, source: reset ? 'VmHWM' : 'sampled' }) + '\n')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  const args = process.argv.slice(2)
  const outFile = args[args.indexOf('--out') + 1]
  const dir = tempDir()
  const impls = implementations(dir)
  const rows = []
  try {
    for (const scenario of imageFitScenarios) {
      const part = await scenario.build()
      const row = { id: scenario.id, title: scenario.title, input: part.data.length }
      for (const [name, impl] of Object.entries(impls)) {
        const times = []
        let result
        for (let i = 0; i <= RUNS; i++) {
          const t0 = performance.now()
          result = await impl(part, scenario)
          if (i > 0) times.push(performance.now() - t0) // the first run warms up
          for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f))
        }
        const bytes = Buffer.from(result.data, 'base64')
        const size = sharp ? await sharp(bytes).metadata() : {}
        const memory = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', scenario.id, name], { encoding: 'utf8' })
        const measured = memory.status === 0 ? JSON.parse(memory.stdout.trim().split('\n').pop()) : { error: memory.stderr.slice(-500) }
        row[name] = { medianMs: median(times), times, outBytes: bytes.length, out: `${size.width}x${size.height}`, peakRss: measured.peakRss, memory: measured }
      }
      rows.push(row)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const mb = (n) => (n === undefined ? '?' : `${(n / 2 ** 20).toFixed(0)} MiB`)
  console.log('\nImages made to fit: mcp-content (toContentAsync) vs sharp in JS; median of 5 runs; peak RSS growth in a fresh process')
  console.log('scenario | mcp-content time | sharp time | time ratio | mcp-content peak | sharp peak | out (mcp-content / sharp)')
  for (const r of rows) {
    const n = r.native
    const s = r.sharp
    const ratio = s ? (n.medianMs / s.medianMs).toFixed(2) : '-'
    console.log(
      `${r.title} | ${n.medianMs.toFixed(0)} ms | ${s ? s.medianMs.toFixed(0) + ' ms' : '-'} | ${ratio}x | ${mb(n.peakRss)} | ${s ? mb(s.peakRss) : '-'} | ${n.out} ${(n.outBytes / 1e6).toFixed(2)} MB / ${s ? `${s.out} ${(s.outBytes / 1e6).toFixed(2)} MB` : '-'}`,
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
