// The benchmark suite for the runtime it runs in. bench.mjs starts it as a
// child process (with --expose-gc on Node) once per runtime:
//
//   <runtime> [--expose-gc] benchmark/suite.mjs --out <file> [--quick] [--only id,id]
//
// Progress goes to stderr; all numbers go to the --out JSON file.

import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'

import { KB, MB, MiB } from './fixtures.mjs'
import { classifyInput, classifySizes, inputSize, scenarios } from './scenarios.mjs'
import {
  gc,
  implementations,
  isBun,
  loadNative,
  loadedBinding,
  loadReference,
  measureBlocked,
  outcome,
  OutputDir,
  outputDirs,
  timeImplementations,
} from './measure.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

const args = process.argv.slice(2)
const option = (name) => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const quick = args.includes('--quick')
const outFile = option('--out')
const only = option('--only')?.split(',')
if (!outFile) throw new Error('usage: suite.mjs --out <file> [--quick] [--only id,id]')

const runtime = isBun ? 'bun' : 'node'
const version = isBun ? globalThis.Bun.version : process.versions.node
const log = (message) => process.stderr.write(`[${runtime} ${version}] ${message}\n`)

const selected = (item) => (only ? only.includes(item.id) : !quick || item.quick)

/** Iteration bounds by input size: big inputs get fewer, so a full run stays within minutes. */
function timingParams(size) {
  const heavy = size > 8 * MB
  const medium = size > 500 * KB
  return {
    time: quick ? 100 : 500,
    warmupTime: quick ? 20 : 100,
    iterations: heavy ? (quick ? 2 : 4) : medium ? (quick ? 4 : 8) : quick ? 10 : 32,
    warmupIterations: heavy ? 1 : medium ? 2 : 8,
  }
}
const blockedReps = quick ? 5 : 9

const native = loadNative()
const { reference, file: referenceFile, error: referenceError } = await loadReference()
if (!reference) log(`JS reference not loaded (${referenceError}): JS and pass-through columns stay empty`)

const result = {
  runtime: { name: runtime, version, execPath: process.execPath, gcExposed: isBun || typeof globalThis.gc === 'function' },
  machine: {
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    memory: os.totalmem(),
    platform: os.platform(),
    arch: os.arch(),
    kernel: os.release(),
  },
  nativeBinding: loadedBinding(),
  reference: reference ? path.relative(path.resolve(here, '..'), referenceFile) : null,
  referenceError: reference ? undefined : referenceError,
  mode: quick ? 'quick' : 'full',
  startedAt: new Date().toISOString(),
  scenarios: [],
  classify: [],
  memory: [],
  targets: [],
}

const started = performance.now()

// ------------------------------------------------------------------ per-scenario time and blocked time

for (const scenario of scenarios.filter(selected)) {
  let parts = await scenario.build()
  const size = inputSize(parts)
  const dirs = outputDirs(scenario.id)
  const impls = implementations({ native, reference, scenario, dirs })
  const emptyDirs = () => Object.values(dirs).forEach((dir) => dir.empty())

  // What each implementation decided, so a ratio never compares different work.
  const decisions = {}
  for (const name of ['nativeSync', 'nativeAsync', 'js']) {
    if (!impls[name]) continue
    const out = await impls[name].run(parts)
    decisions[name] = summarizeOutcomes(out.map(outcome))
  }
  emptyDirs()
  const agree = new Set(Object.values(decisions)).size === 1
  if (!agree) log(`${scenario.id}: implementations decided differently: ${JSON.stringify(decisions)}`)

  log(`${scenario.id}: timing (${parts.length} part${parts.length > 1 ? 's' : ''}, ${size} bytes given)`)
  const time = await timeImplementations(impls, parts, { ...timingParams(size), dirs })
  emptyDirs()

  let blocked
  if (scenario.blocked) {
    log(`${scenario.id}: blocked time`)
    blocked = {}
    for (const name of ['oneCopy', 'nativeSync', 'nativeAsync', 'js']) {
      if (!impls[name]) continue
      blocked[name] = await measureBlocked(() => impls[name].run(parts), { reps: blockedReps, between: () => dirs[name]?.empty() })
    }
    emptyDirs()
  }

  result.scenarios.push({
    id: scenario.id,
    title: scenario.title,
    parts: parts.length,
    inputGiven: size,
    decisions,
    decisionsAgree: agree,
    time,
    blocked,
  })
  parts = null
  gc()
}

// ------------------------------------------------------------------ classify: size independence of the sniff

// `classify` of a base64 string reads and validates all of it but decodes
// only a fixed window (64 KiB head, 1 KiB tail) for the sniff and checks.
// The 65 KiB string is that window alone (decoded whole, the small-data path).
for (const item of classifySizes.filter((item) => !only || only.includes(item.id))) {
  log(`${item.id}: timing`)
  let { valid, invalidAtEnd } = classifyInput(item.size)
  const kinds = [native.classify(valid, 'image/png').kind, native.classify(invalidAtEnd, 'image/png').kind]
  const bench = new Bench({ ...timingParams(valid.length), throws: true })
  bench.add('classify', () => native.classify(valid, 'image/png'), { beforeAll: gc })
  bench.add('invalidAtEnd', () => native.classify(invalidAtEnd, 'image/png'), { beforeAll: gc })
  bench.add('oneCopy', () => Buffer.from(valid, 'latin1'), { beforeAll: gc })
  await bench.run()
  const p50 = Object.fromEntries(bench.tasks.map((task) => [task.name, task.result.latency.p50]))
  result.classify.push({
    id: item.id,
    title: item.title,
    decodedBytes: item.size,
    stringLength: valid.length,
    kinds,
    ...p50,
  })
  valid = invalidAtEnd = null
  gc()
}
// Read+validate share, a lower bound: whatever classify costs beyond its
// cost at 100 KB (which holds the whole sniff) grows with the string.
const reference100kb = result.classify.find((c) => c.id === 'classify-100kb')
for (const item of result.classify) {
  item.msPerMB = item.classify / (item.stringLength / MB)
  item.perCopy = item.classify / item.oneCopy
  if (reference100kb && item.stringLength > reference100kb.stringLength) {
    item.validationShare = Math.max(0, 1 - reference100kb.classify / item.classify)
  }
}

// ------------------------------------------------------------------ memory, one fresh child per figure

for (const scenario of scenarios.filter((s) => s.memory && selected(s))) {
  for (const impl of scenario.memory) {
    if (impl === 'js' && !reference) continue
    log(`${scenario.id}: memory, ${impl} (child process)`)
    const child = spawnSync(process.execPath, [...(isBun ? [] : ['--expose-gc']), path.join(here, 'memory-child.mjs'), scenario.id, impl], {
      encoding: 'utf8',
      // Fixed mmap threshold: glibc returns freed big blocks to the OS at
      // once, so RSS reads as live memory (no effect under Bun's allocator).
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' },
      maxBuffer: 16 * MiB,
    })
    const line = child.stdout.trim().split('\n').pop()
    if (child.status !== 0 || !line) {
      log(`memory child failed (${child.status}): ${child.stderr.slice(-2000)}`)
      result.memory.push({ scenario: scenario.id, impl, error: child.stderr.slice(-2000) })
      continue
    }
    result.memory.push(JSON.parse(line))
  }
}

OutputDir.removeAll()
result.targets = evaluateTargets(result)
result.durationSeconds = (performance.now() - started) / 1000
writeFileSync(outFile, JSON.stringify(result, null, 2))
log(`done in ${result.durationSeconds.toFixed(1)} s`)

// ------------------------------------------------------------------ targets

/** `3 × file image/png` style summary of a list of outcomes. */
function summarizeOutcomes(list) {
  const counts = new Map()
  for (const item of list) counts.set(item, (counts.get(item) ?? 0) + 1)
  return [...counts].map(([item, n]) => (n > 1 ? `${n} × ${item}` : item)).join(', ')
}

/**
 * The targets, read off the numbers above. The suite reports them;
 * it never fails on them.
 */
function evaluateTargets({ scenarios: measured, classify, memory }) {
  const targets = []
  const scenarioDef = (id) => scenarios.find((s) => s.id === id)
  const both = (sync, async, pass) => ({
    value: { sync, async },
    met: pass(sync) && pass(async),
    detail: `sync ${pass(sync) ? 'yes' : 'NO'}, async ${pass(async) ? 'yes' : 'NO'}`,
  })

  for (const s of measured) {
    const def = scenarioDef(s.id).targets ?? {}
    const { nativeSync, nativeAsync, js, oneCopy } = s.time
    if (js && (def.small || def.attach)) {
      const bound = def.small ? 1 : 5
      targets.push({
        scenario: s.id,
        figure: 'time',
        target: def.small ? 'native not slower than JS' : 'native >= 5x faster than JS',
        measure: 'JS time / native time (sync, async)',
        bound,
        ...both(js.p50 / nativeSync.p50, js.p50 / nativeAsync.p50, (x) => x >= bound),
      })
    }
    const careful = s.time.careful
    const carefulBound = scenarioDef(s.id).careful
    if (careful && carefulBound) {
      targets.push({
        scenario: s.id,
        figure: 'time',
        target: `native >= ${carefulBound}x the careful JS way`,
        measure: 'careful JS time / native time (sync, async)',
        bound: carefulBound,
        ...both(careful.p50 / nativeSync.p50, careful.p50 / nativeAsync.p50, (x) => x >= carefulBound),
      })
    }
    if (def.oneCopy) {
      const value = nativeSync.p50 / oneCopy.p50
      targets.push({
        scenario: s.id,
        figure: 'time',
        target: `native sync <= ${def.oneCopy}x one copy`,
        measure: 'native sync time / one-copy time',
        bound: def.oneCopy,
        value,
        met: value <= def.oneCopy,
      })
    }
    if (def.spill) {
      const value = s.blocked.nativeAsync.blocked / s.blocked.oneCopy.blocked
      targets.push({
        scenario: s.id,
        figure: 'blocked',
        target: 'async blocks JS <= 1.5x one copy',
        measure: 'native async blocked time / one-copy time',
        bound: 1.5,
        value,
        met: value <= 1.5,
      })
      const mem = memory.find((m) => m.scenario === s.id && m.impl === 'nativeAsync' && !m.error)
      if (mem) {
        const bound = mem.inputGiven + MiB
        targets.push({
          scenario: s.id,
          figure: 'peak RSS',
          target: 'async peak RSS growth <= input + 1 MiB',
          measure: 'peak RSS growth over baseline, bytes (input = the base64 string)',
          bound,
          value: mem.peakGrowth.rss,
          met: mem.peakGrowth.rss <= bound,
        })
        const retained = Math.max(mem.afterResolve.rss, mem.afterResolve.external, mem.afterGc.rss, mem.afterGc.external)
        targets.push({
          scenario: s.id,
          figure: 'retained',
          target: 'nothing retained after resolve (<= 1 MiB)',
          measure: 'max growth of RSS and external after resolve, without and with GC, bytes',
          bound: MiB,
          value: retained,
          met: retained <= MiB,
        })
      }
    }
  }

  // A sniff that grew with the size would make classify dearer per byte
  // than a plain copy of the string as the size grows.
  const at = (id) => classify.find((c) => c.id === id)
  const [medium, large] = [at('classify-5mb'), at('classify-32mib')]
  if (medium && large) {
    const value = large.perCopy / medium.perCopy
    targets.push({
      scenario: 'classify-32mib',
      figure: 'classify',
      target: 'sniff cost independent of size',
      measure: '(classify / one copy) at 32 MiB over the same at 5 MB; <= 1.5 met',
      bound: 1.5,
      value,
      met: value <= 1.5,
    })
  }
  return targets
}
