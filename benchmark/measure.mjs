// Measuring tools shared by the suite and the memory children: the
// implementations under test, tinybench timing, the JS-thread blocked-time
// probe and memory snapshots.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Bench } from 'tinybench'

import { dataOf } from './scenarios.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
export const isBun = typeof globalThis.Bun !== 'undefined'
export const now = () => performance.now()

// ------------------------------------------------------------------ loading

export function loadNative() {
  return createRequire(import.meta.url)(path.resolve(here, '..'))
}

/**
 * The pure-JS reference (`benchmark/reference.mjs`, or the module named by
 * BENCH_REFERENCE). `null` when it cannot be loaded: the JS columns stay empty.
 */
export async function loadReference() {
  const file = process.env.BENCH_REFERENCE || path.join(here, 'reference.mjs')
  if (!existsSync(file)) return { reference: null, error: `${file} not found` }
  try {
    const reference = await import(pathToFileURL(path.resolve(file)).href)
    if (typeof reference.toContentJs !== 'function' || typeof reference.passThrough !== 'function') {
      return { reference: null, error: `${file} does not export toContentJs and passThrough` }
    }
    return { reference, file }
  } catch (error) {
    return { reference: null, error: `${file}: ${error.message}` }
  }
}

/** Full garbage collection when the runtime lets us (node --expose-gc, Bun). */
export function gc() {
  if (isBun) globalThis.Bun.gc(true)
  else if (typeof globalThis.gc === 'function') globalThis.gc()
}

export const tick = () => new Promise((resolve) => setImmediate(resolve))

// ------------------------------------------------------------------ implementations

/** A scratch folder for spilled files, emptied between iterations. */
export class OutputDir {
  constructor(...names) {
    this.path = path.join(tmpdir(), `mcp-content-bench-${process.pid}`, ...names)
    mkdirSync(this.path, { recursive: true })
  }

  empty() {
    for (const name of readdirSync(this.path)) unlinkSync(path.join(this.path, name))
  }

  static removeAll() {
    rmSync(path.join(tmpdir(), `mcp-content-bench-${process.pid}`), { recursive: true, force: true })
  }
}

/** One memory copy of a payload: the floor for anything that reads all of it. */
function copyOnce(data) {
  if (typeof data === 'string') return Buffer.from(data, 'latin1')
  if (data) return Buffer.from(data) // copies a Uint8Array
  return null
}

/**
 * The functions under test, each converting all `parts` of one tool result.
 * `async` ones return a promise. Parts are converted with Promise.all (as in
 * the README's usage) unless `sequential`.
 */
export function implementations({ native, reference, scenario, dirs }) {
  const convert = scenario.sequential
    ? async (parts, fn) => {
        const out = []
        for (const part of parts) out.push(await fn(part))
        return out
      }
    : (parts, fn) => Promise.all(parts.map(fn))
  const impls = {
    nativeSync: {
      async: false,
      run: (parts) => parts.map((part) => native.toContent(part, { outputDir: dirs.nativeSync.path })),
    },
    nativeAsync: {
      async: true,
      run: (parts) => convert(parts, (part) => native.toContentAsync(part, { outputDir: dirs.nativeAsync.path })),
    },
    js: reference && {
      async: true,
      run: (parts) => convert(parts, (part) => reference.toContentJs(part, { outputDir: dirs.js.path })),
    },
    passThrough: reference && { async: false, run: (parts) => parts.map(reference.passThrough) },
    oneCopy: { async: false, run: (parts) => parts.map((part) => copyOnce(dataOf(part))) },
  }
  return Object.fromEntries(Object.entries(impls).filter(([, impl]) => impl))
}

export function outputDirs(scenarioId) {
  return {
    nativeSync: new OutputDir(scenarioId, 'native-sync'),
    nativeAsync: new OutputDir(scenarioId, 'native-async'),
    js: new OutputDir(scenarioId, 'js'),
  }
}

/** What a result part became: `file <type>`, `saved` (spilled), `text`, `null`. */
export function outcome(part) {
  if (part === null) return 'null'
  if (part.type === 'file') return `file ${part.mediaType}`
  if (/^\[Binary [^\]]* saved to /.test(part.text)) return 'saved'
  if (/could not be saved|invalid base64|empty data/.test(part.text)) return 'note'
  return 'text'
}

// ------------------------------------------------------------------ timing (tinybench)

/**
 * Time each implementation on the scenario's parts with tinybench: warmup,
 * then at least `iterations` runs and `time` ms. Spill folders are emptied
 * after each iteration (not timed). Returns latency statistics in ms.
 */
export async function timeImplementations(impls, parts, { time, iterations, warmupTime, warmupIterations, dirs, spills }) {
  const bench = new Bench({ time, iterations, warmupTime, warmupIterations, throws: true })
  for (const [name, impl] of Object.entries(impls)) {
    const afterEach = spills && dirs[name] ? () => dirs[name].empty() : undefined
    bench.add(name, () => impl.run(parts), { async: impl.async, afterEach, beforeAll: gc })
  }
  await bench.run()
  const out = {}
  for (const task of bench.tasks) {
    const { latency } = task.result
    out[task.name] = {
      p50: latency.p50,
      mean: latency.mean,
      min: latency.min,
      p99: latency.p99,
      rme: latency.rme,
      samples: latency.samplesCount,
    }
  }
  return out
}

// ------------------------------------------------------------------ blocked time

/**
 * How long the JS thread cannot run other work while `start()` runs and its
 * promise settles. A probe re-schedules itself with setImmediate and stamps
 * the time at every turn; idle turns are a few microseconds apart. After 20
 * idle turns, one turn calls `start()`; the probe keeps turning until the
 * promise has settled and three more turns have passed.
 *
 *   blocked  = sum of the gaps between turns beyond the idle gap, from the
 *              call on (gaps under idle + 20 us are idle noise, not counted)
 *   longest  = the longest such gap (the worst stall a timer would see)
 *   call     = the time `start()` takes to return its promise
 *   wall     = call start to settlement
 *
 * The synchronous part of the call, work done when the promise resolves
 * (building the JS result) and any other JS in between are all in the gaps.
 */
export function probeBlocked(start) {
  return new Promise((resolve, reject) => {
    const stamps = []
    let callIndex = -1
    let callTime = 0
    let settledAt = 0
    let callAt = 0
    let afterSettled = -1
    const turn = () => {
      stamps.push(now())
      if (callIndex < 0 && stamps.length >= 20) {
        callIndex = stamps.length - 1
        callAt = now()
        let promise
        try {
          promise = start()
        } catch (error) {
          reject(error)
          return
        }
        callTime = now() - callAt
        Promise.resolve(promise).then(() => {
          settledAt = now()
          afterSettled = 0
        }, reject)
      } else if (afterSettled >= 0 && ++afterSettled >= 3) {
        resolve(summarize())
        return
      }
      setImmediate(turn)
    }
    const summarize = () => {
      const gaps = []
      for (let i = 1; i < stamps.length; i++) gaps.push(stamps[i] - stamps[i - 1])
      const idle = median(gaps.slice(0, callIndex))
      let blocked = 0
      let longest = 0
      for (const gap of gaps.slice(callIndex)) {
        const excess = gap - idle
        if (excess > 0.02) {
          blocked += excess
          longest = Math.max(longest, excess)
        }
      }
      return { blocked, longest, call: callTime, wall: settledAt - callAt, idleGap: idle }
    }
    setImmediate(turn)
  })
}

/** Median of each figure over `reps` probed runs, with `between()` run after each. */
export async function measureBlocked(start, { reps, between }) {
  const runs = []
  for (let i = 0; i < reps; i++) {
    gc()
    await tick()
    runs.push(await probeBlocked(start))
    between?.()
  }
  const pick = (key) => median(runs.map((run) => run[key]))
  return { blocked: pick('blocked'), longest: pick('longest'), call: pick('call'), wall: pick('wall'), reps }
}

// ------------------------------------------------------------------ memory

/** Peak resident set size (VmHWM) and current RSS from /proc, in bytes; Linux only. */
export function procStatus() {
  try {
    const status = readFileSync('/proc/self/status', 'latin1')
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
    return { hwm: kb('VmHWM'), rss: kb('VmRSS') }
  } catch {
    return null
  }
}

/** Reset VmHWM to the current RSS (Linux >= 4.0), so it records the peak from now on. */
export function resetPeakRss() {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
    return true
  } catch {
    return false
  }
}

export function memorySnapshot() {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
  return { rss, heapUsed, external, arrayBuffers }
}

/** Samples memoryUsage() every `interval` ms and keeps the maximum of each field. */
export class MemorySampler {
  constructor(interval = 1) {
    this.peak = memorySnapshot()
    this.samples = 0
    this.timer = setInterval(() => this.sample(), interval)
  }

  sample() {
    const snapshot = memorySnapshot()
    this.samples++
    for (const key of Object.keys(snapshot)) this.peak[key] = Math.max(this.peak[key], snapshot[key])
  }

  stop() {
    clearInterval(this.timer)
    this.sample()
    return this.peak
  }
}

// ------------------------------------------------------------------ helpers

export function median(values) {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
