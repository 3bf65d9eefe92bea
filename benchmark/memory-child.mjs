// One memory measurement in a fresh process, so peaks do not mix:
//
//   <runtime> [--expose-gc] benchmark/memory-child.mjs <scenario id> <implementation>
//
// Builds the scenario's input, warms the implementation up on a small part,
// collects garbage, then records a baseline, converts the input once while
// sampling memoryUsage() every millisecond (and, on Linux, the kernel's
// peak-RSS mark, reset at the baseline, which also sees the peaks of
// synchronous calls no timer can sample), and snapshots again after the
// promise resolved plus a few turns of the event loop, after a full GC, and
// after 300 ms of idling and another GC.
// The result and the input are still referenced at every snapshot, as a
// caller would hold them. Prints one JSON line.

import { findScenario, inputSize } from './scenarios.mjs'
import * as fx from './fixtures.mjs'
import {
  gc,
  implementations,
  loadNative,
  loadReference,
  memorySnapshot,
  MemorySampler,
  OutputDir,
  outcome,
  procStatus,
  resetPeakRss,
  tick,
} from './measure.mjs'

const [scenarioId, implName] = process.argv.slice(2)
const scenario = findScenario(scenarioId)
const native = loadNative()
const { reference } = await loadReference()
const dirs = {
  nativeSync: new OutputDir('memory', 'native-sync'),
  nativeAsync: new OutputDir('memory', 'native-async'),
  js: new OutputDir('memory', 'js'),
}
const impl = implementations({ native, reference, scenario, dirs })[implName]
if (!impl) throw new Error(`implementation ${implName} is not available`)

try {
  // Warm up code paths (lazy module loading, JIT) on a small input of each kind.
  const warm = [
    { type: 'image', data: fx.png(4000).toString('base64'), mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'file:///w.bin', mimeType: 'application/octet-stream', blob: fx.randomBytes(2000).toString('base64') } },
    { type: 'resource', resource: { uri: 'file:///w.md', mimeType: 'text/markdown', blob: fx.markdown(2000).toString('base64') } },
  ]
  for (let i = 0; i < 3; i++) await impl.run(warm)

  let parts = await scenario.build()
  const given = inputSize(parts)
  for (const dir of Object.values(dirs)) dir.empty()
  gc()
  await tick()
  gc()
  await new Promise((resolve) => setTimeout(resolve, 20))

  const base = memorySnapshot()
  const baseProc = procStatus()
  const hwmReset = resetPeakRss()
  const sampler = new MemorySampler(1)

  const t0 = performance.now()
  const result = await impl.run(parts)
  const elapsed = performance.now() - t0
  await tick()
  await tick()
  await new Promise((resolve) => setTimeout(resolve, 5))
  const peak = sampler.stop()
  const afterResolve = memorySnapshot()
  const proc = procStatus()
  gc()
  await tick()
  gc()
  const afterGc = memorySnapshot()
  // Allocators keep freed blocks a little while for reuse (mimalloc purges
  // after a delay): the RSS a caller keeps paying for is the one after idling.
  await new Promise((resolve) => setTimeout(resolve, 300))
  gc()
  const afterIdle = memorySnapshot()

  const growth = (snapshot) => Object.fromEntries(Object.entries(snapshot).map(([k, v]) => [k, v - base[k]]))
  const peakGrowth = growth(peak)
  if (hwmReset && proc && baseProc) peakGrowth.rss = Math.max(peakGrowth.rss, proc.hwm - baseProc.rss)
  const out = {
    scenario: scenarioId,
    impl: implName,
    inputGiven: given,
    elapsed,
    outcome: Array.isArray(result) ? result.map((part) => (part && part.type ? outcome(part) : typeof part)) : undefined,
    base,
    peakGrowth,
    peakRssSource: hwmReset && proc ? 'VmHWM' : 'sampled',
    samples: sampler.samples,
    afterResolve: growth(afterResolve),
    afterGc: growth(afterGc),
    afterIdle: growth(afterIdle),
  }
  // Keep the input and the result alive until every snapshot was taken.
  if (parts.length === 0 || result === undefined) console.error('empty scenario')
  parts = null
  process.stdout.write(JSON.stringify(out) + '\n')
} finally {
  OutputDir.removeAll()
}
