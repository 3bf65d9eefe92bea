// Measuring tools shared by the suite and the memory children: the
// implementations under test, tinybench timing, the JS-thread blocked-time
// probe and memory snapshots.

import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
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

/** Which artifact napi-rs's loader (lib/binding/index.js, not part of the package API) loaded. */
export function loadedBinding() {
  return createRequire(import.meta.url)(path.resolve(here, '..', 'lib', 'binding', 'index.js')).__napiBindingTarget
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
 * the usage in README.md) unless `sequential`.
 */
export function implementations({ native, reference, scenario, dirs }) {
  const convert = scenario.sequential
    ? async (parts, fn) => {
        const out = []
        for (const part of parts) out.push(await fn(part))
        return out
      }
    : (parts, fn) => Promise.all(parts.map(fn))
  if (scenario.wholeResult) return wholeResultImplementations({ native, reference, dirs })
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
    careful: reference && scenario.careful && { async: true, run: (parts) => convert(parts, reference.carefulImageJs) },
    passThrough: reference && { async: false, run: (parts) => parts.map(reference.passThrough) },
    oneCopy: { async: false, run: (parts) => parts.map((part) => copyOnce(dataOf(part))) },
  }
  return Object.fromEntries(Object.entries(impls).filter(([, impl]) => impl))
}

/** The same for a whole result: each run converts `{ content: parts }` and answers its content. */
function wholeResultImplementations({ native, reference, dirs }) {
  const impls = {
    nativeSync: {
      async: false,
      run: (parts) => native.convertToolResultSync({ content: parts }, { outputDir: dirs.nativeSync.path }).content,
    },
    nativeAsync: {
      async: true,
      run: async (parts) => (await native.convertToolResult({ content: parts }, { outputDir: dirs.nativeAsync.path })).content,
    },
    js: reference && {
      async: true,
      run: async (parts) => (await reference.convertToolResultJs({ content: parts }, { outputDir: dirs.js.path })).content,
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
 * then at least `iterations` runs and `time` ms. Output folders are emptied
 * after each iteration (not timed), whatever the scenario: a conversion that
 * spills where none was expected (a long text saved whole) would otherwise
 * fill the store to its cap and time its evictions instead.
 * Returns latency statistics in ms.
 */
export async function timeImplementations(impls, parts, { time, iterations, warmupTime, warmupIterations, dirs }) {
  const bench = new Bench({ time, iterations, warmupTime, warmupIterations, throws: true })
  for (const [name, impl] of Object.entries(impls)) {
    const afterEach = dirs[name] ? () => dirs[name].empty() : undefined
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
 * CPU time of the JS (main) thread in ms: Linux's per-thread schedstat
 * (nanoseconds on the CPU), else process.threadCpuUsage() (Node >= 23.9,
 * Bun; tick-granular). Time the thread is preempted by other processes does
 * not count, which a wall-clock probe on a busy 2-core machine cannot tell
 * apart from work (an idle 20 ms wait read as 10-18 ms "blocked" here).
 * The kernel brings a running thread's schedstat up to date only at a tick
 * or a context switch, so each read first sleeps 20 us (Atomics.wait): the
 * switch makes the figure exact; the sleep costs no CPU time.
 */
function threadCpuClock() {
  try {
    const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r')
    const buf = Buffer.alloc(64)
    const sleeper = new Int32Array(new SharedArrayBuffer(4))
    const read = () => {
      Atomics.wait(sleeper, 0, 0, 0.02)
      const n = readSync(fd, buf, 0, 64, 0)
      let ns = 0
      for (let i = 0; i < n && buf[i] >= 0x30 && buf[i] <= 0x39; i++) ns = ns * 10 + (buf[i] - 0x30)
      return ns / 1e6
    }
    if (read() > 0) return { name: 'schedstat', read }
  } catch {}
  if (typeof process.threadCpuUsage === 'function') {
    return {
      name: 'threadCpuUsage',
      read: () => {
        const { user, system } = process.threadCpuUsage()
        return (user + system) / 1000
      },
    }
  }
  return null
}

export const cpuClock = threadCpuClock()

/**
 * How long the JS thread works for one call: its CPU time from the call
 * until the promise settled and one more event-loop turn ran, so the
 * synchronous part of the call, the work done when the promise resolves
 * (building the JS result) and whatever JS runs in between all count.
 * While it waits for the thread pool the JS thread sleeps and costs nothing.
 *
 *   blocked  JS-thread CPU time from the call to settlement
 *   call     JS-thread CPU time until `start()` returned its promise
 *   wall     wall time from the call to settlement
 *
 * Each figure is the median over `reps` runs, less the same figures for an
 * empty call (the cost of the clock reads and the extra turn).
 */
export async function measureBlocked(start, { reps, between }) {
  if (!cpuClock) return null
  const once = async (fn) => {
    await tick()
    const c0 = cpuClock.read()
    const w0 = now()
    const promise = fn()
    const c1 = cpuClock.read()
    await promise
    const w1 = now()
    await tick()
    const c2 = cpuClock.read()
    return { blocked: c2 - c0, call: c1 - c0, wall: w1 - w0 }
  }
  const runs = async (fn, n, after) => {
    const list = []
    for (let i = 0; i < n; i++) {
      gc()
      list.push(await once(fn))
      after?.()
    }
    const pick = (key) => median(list.map((run) => run[key]))
    return { blocked: pick('blocked'), call: pick('call'), wall: pick('wall') }
  }
  const empty = await runs(() => undefined, 5)
  const measured = await runs(start, reps, between)
  return {
    blocked: Math.max(0, measured.blocked - empty.blocked),
    call: Math.max(0, measured.call - empty.call),
    wall: measured.wall,
    reps,
    clock: cpuClock.name,
  }
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
