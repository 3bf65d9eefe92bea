// Runs the whole node:test suite under Bun (`bun test` runs node:test files),
// with the Bun binary installed by the `bun` devDependency.
// Exits non-zero when Bun is missing, when any test fails, or when no test ran.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const testDir = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(testDir, '..')
const bun = path.join(repoRoot, 'node_modules', 'bun', 'bin', 'bun.exe') // same name on every platform

if (!fs.existsSync(bun)) {
  console.error(`run-bun: Bun not found at ${bun} (run npm ci)`)
  process.exit(1)
}

const files = fs
  .readdirSync(testDir)
  .filter((f) => /\.test\.(mjs|cjs|js)$/.test(f))
  .sort()
  .map((f) => `./${path.relative(repoRoot, path.join(testDir, f))}`)

if (files.length === 0) {
  console.error('run-bun: no test files found')
  process.exit(1)
}

const version = spawnSync(bun, ['--version'], { encoding: 'utf8' })
console.log(`run-bun: bun ${String(version.stdout).trim()} running ${files.length} files`)

const r = spawnSync(bun, ['test', '--timeout', '120000', ...files], {
  cwd: repoRoot,
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
  env: { ...process.env, MCP_CONTENT_RUNTIME: 'bun' },
})
process.stdout.write(r.stdout ?? '')
process.stderr.write(r.stderr ?? '')

const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
const pass = Number(/^\s*(\d+) pass\s*$/m.exec(out)?.[1] ?? 0)
const fail = Number(/^\s*(\d+) fail\s*$/m.exec(out)?.[1] ?? 0)
console.log(`run-bun: bun exit ${r.status}${r.signal ? `, signal ${r.signal}` : ''}`)
console.log(`bun: ${pass} passed, ${fail} failed`)

if (r.error) {
  console.error(`run-bun: could not run bun: ${r.error.message}`)
  process.exit(1)
}
if (r.status !== 0 || fail > 0 || pass === 0) process.exit(1)
