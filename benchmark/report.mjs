// The one table `npm run bench` prints, built from the suites' JSON results.

import { MiB } from './fixtures.mjs'

const COLUMNS = ['runtime', 'scenario', 'figure', 'native sync', 'native async', 'JS ref', 'pass-through', 'one copy', 'ratio', 'target', 'met?']

/** 0.000123 ms -> "123 ns", 0.5 -> "500 µs", 12.3 -> "12.3 ms". */
export function formatTime(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return ''
  if (ms < 0.001) return `${sig(ms * 1e6)} ns`
  if (ms < 1) return `${sig(ms * 1e3)} µs`
  if (ms < 1000) return `${sig(ms)} ms`
  return `${sig(ms / 1000)} s`
}

export function formatBytes(bytes, signed = true) {
  if (bytes === undefined || bytes === null) return ''
  const sign = signed && bytes >= 0 ? '+' : ''
  return `${sign}${(bytes / MiB).toFixed(1)} MiB`
}

const sig = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
const ratio = (x) => (Number.isFinite(x) ? `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}x` : '')
const metText = (target) => (target ? (target.detail ?? (target.met ? 'yes' : 'NO')) : '')

/** Rows of one runtime's result. */
function rows(result) {
  const runtime = `${result.runtime.name} ${result.runtime.version}`
  const out = []
  const targetsOf = (scenario, figure) => result.targets.filter((t) => t.scenario === scenario && t.figure === figure)
  const row = (scenario, figure, cells, targets = []) => {
    const [first, ...more] = targets.length ? targets : [undefined]
    out.push([runtime, scenario, figure, ...cells, first?.target ?? '', metText(first)])
    for (const target of more) out.push([runtime, scenario, figure, '', '', '', '', '', '', target.target, metText(target)])
  }

  for (const s of result.scenarios) {
    const t = s.time
    const perResult = s.parts > 1 ? `time/result (${s.parts} parts)` : 'time/part'
    const careful = t.careful ? `; careful JS ${formatTime(t.careful.p50)}: ${ratio(t.careful.p50 / t.nativeSync.p50)}` : ''
    const speedups = (t.js ? `JS/sync ${ratio(t.js.p50 / t.nativeSync.p50)}, JS/async ${ratio(t.js.p50 / t.nativeAsync.p50)}` : '') + careful
    const timeTargets = targetsOf(s.id, 'time')
    const copyTarget = timeTargets.find((x) => x.target.includes('one copy'))
    const timeRatio = copyTarget ? `${speedups}; sync/copy ${ratio(copyTarget.value)}` : speedups
    row(
      s.id + (s.decisionsAgree ? '' : ' (!)'),
      perResult,
      [t.nativeSync, t.nativeAsync, t.js, t.passThrough, t.oneCopy].map((x) => formatTime(x?.p50)).concat(timeRatio),
      timeTargets,
    )
    if (s.blocked) {
      const b = s.blocked
      row(
        s.id,
        'JS thread busy',
        [b.nativeSync, b.nativeAsync, b.js, undefined, b.oneCopy]
          .map((x) => formatTime(x?.blocked))
          .concat(`async/copy ${ratio(b.nativeAsync.blocked / b.oneCopy.blocked)}`),
        targetsOf(s.id, 'blocked'),
      )
    }
    const memory = (impl) => result.memory.find((m) => m.scenario === s.id && m.impl === impl && !m.error)
    const impls = ['nativeSync', 'nativeAsync', 'js', 'passThrough', 'oneCopy']
    if (impls.some(memory)) {
      const cells = (pick) => impls.map((impl) => (memory(impl) ? formatBytes(pick(memory(impl))) : ''))
      const given = impls.map(memory).find(Boolean).inputGiven
      const asyncPeak = memory('nativeAsync')?.peakGrowth.rss
      row(s.id, 'peak RSS growth', [...cells((m) => m.peakGrowth.rss), `async/input ${ratio(asyncPeak / given)}`], targetsOf(s.id, 'peak RSS'))
      row(s.id, 'peak external+AB', [...cells((m) => m.peakGrowth.external + m.peakGrowth.arrayBuffers), 'JS-visible buffers'])
      row(s.id, 'heapUsed at resolve', [...cells((m) => m.afterResolve.heapUsed), 'handed to the JS heap'])
      row(s.id, 'RSS kept: resolve', [...cells((m) => m.afterResolve.rss), 'no GC'], targetsOf(s.id, 'retained'))
      row(s.id, 'RSS kept: GC+idle', [...cells((m) => m.afterIdle.rss), 'GC, 300 ms idle, GC'])
    }
  }

  for (const c of result.classify) {
    const share = c.validationShare === undefined ? '' : `, read+validate >= ${(c.validationShare * 100).toFixed(0)}%`
    row(
      c.id,
      'classify',
      [formatTime(c.classify), '', '', '', formatTime(c.oneCopy), `${sig(c.msPerMB)} ms/MB, ${ratio(c.perCopy)} copy${share}`],
      targetsOf(c.id, 'classify'),
    )
    row(c.id, 'classify, invalid at end', [formatTime(c.invalidAtEnd), '', '', '', '', `invalid/valid ${ratio(c.invalidAtEnd / c.classify)}`])
  }
  return out
}

/** The table as text: aligned columns, a rule under the header. */
export function formatTable(results) {
  const body = results.flatMap(rows)
  const columns = results.length > 1 ? COLUMNS : COLUMNS.slice(1)
  const table = [columns, ...body.map((r) => (results.length > 1 ? r : r.slice(1)))]
  const widths = columns.map((_, i) => Math.max(...table.map((r) => String(r[i]).length)))
  const line = (r) =>
    r
      .map((cell, i) => String(cell).padEnd(widths[i]))
      .join(' | ')
      .trimEnd()
  return [line(table[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...table.slice(1).map(line)].join('\n')
}
