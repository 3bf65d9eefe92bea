// Installs the packed package the way a user gets it: the main tarball and
// this machine's platform tarball (`npm run pack:all -- --native`, which reuses
// the .node `npm run build` made) go into a fresh project outside the
// checkout with `npm install --offline` and an empty cache, so nothing comes
// from the network. There: require, import, TypeScript (tsc --strict) and
// Bun, and the error when the platform package is missing.
// Under Bun's test runner the same checks run; npm, the packing and the Node
// checks use the `node` on PATH (skipped, with the reason printed, without one).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const testDir = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(testDir, '..')
const fixtures = path.join(testDir, 'fixtures', 'install')
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
const { hostSuffix } = await import('../scripts/pack-all.mjs')
const suffix = hostSuffix()
const platformPackage = `${manifest.name}-${suffix}`
const isBun = typeof globalThis.Bun !== 'undefined'
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
/**
 * npm's own script when npm started this run (`npm test` sets npm_execpath): it is then run by
 * the Node under test, so it installs what npm on that Node would (the same Node as the `npm` on
 * PATH, except in an emulated run).
 */
const npmCli = /npm-cli\.js$/.test(process.env.npm_execpath ?? '') && fs.existsSync(process.env.npm_execpath) ? process.env.npm_execpath : null
const bun = path.join(repoRoot, 'node_modules', 'bun', 'bin', 'bun.exe')
const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')
const TIMEOUT = { timeout: 60_000 }
/** Packing and two npm installs: about 7 s here, minutes under an emulator. */
const SETUP_TIMEOUT = { timeout: 300_000 }
/** Why Bun cannot run the checks here (absent, built for another libc or CPU), else false. */
function bunSkipReason() {
  if (!fs.existsSync(bun)) return `no Bun at ${bun}`
  const r = spawnSync(bun, ['-p', 'process.platform + "-" + process.arch'], { encoding: 'utf8' })
  if (r.status !== 0) return `${bun} does not run here`
  const where = r.stdout.trim()
  return where === `${process.platform}-${process.arch}` ? false : `Bun is a ${where} build, this is ${process.platform}-${process.arch}`
}
const bunSkip = bunSkipReason()
/** TypeScript 7's tsc runs a native compiler from a per-platform package. */
const tscNative = path.join(repoRoot, 'node_modules', '@typescript', `typescript-${process.platform}-${process.arch}`)
const tscSkip = fs.existsSync(tscNative) ? false : `no ${path.relative(repoRoot, tscNative)} (node_modules installed for another platform)`

/** Node for the child processes: this one, or under Bun the `node` on PATH. */
function findNode() {
  if (!isBun) return process.execPath
  const r = spawnSync('node', ['-p', 'process.execPath'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : null
}
const node = findNode()

function skipReason() {
  if (node === null) return 'no `node` on PATH to run npm and the packing with'
  const built = path.join(repoRoot, 'lib', 'binding', `mcp-content.${suffix}.node`)
  if (!fs.existsSync(built)) return `${path.relative(repoRoot, built)} is missing (run npm run build)`
  if (!npmCli && spawnSync(npm, ['--version'], { shell: process.platform === 'win32' }).status !== 0) return 'no npm on PATH'
  return null
}
const skip = skipReason()
if (skip) console.log(`install.test: skipped: ${skip}`)
if (!skip && bunSkip) console.log(`install.test: Bun checks skipped: ${bunSkip}`)

/** Runs a command to its end; resolves with { status, stdout, stderr }. */
function run(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, shell: process.platform === 'win32' && cmd === npm })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

function ok(r, what) {
  assert.equal(r.status, 0, `${what} exited ${r.status}\n${r.stdout}\n${r.stderr}`)
  return r
}

function tarList(tarball) {
  return ok(spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }), 'tar')
    .stdout.split('\n')
    .filter(Boolean)
}

describe('install from the packed tarballs', { skip: skip ?? false }, () => {
  let tmp
  let mainTarball
  let platformTarball
  let project // main + platform package
  let bare // main package only

  async function install(dir, tarballs) {
    fs.mkdirSync(dir)
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir), private: true }))
    for (const f of fs.readdirSync(fixtures)) fs.copyFileSync(path.join(fixtures, f), path.join(dir, f))
    // An empty cache and --offline: whatever the install needs must be in the tarballs.
    const args = ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--cache', path.join(dir, '.npm-cache'), ...tarballs]
    const r = npmCli ? await run(node, [npmCli, ...args], { cwd: dir }) : await run(npm, args, { cwd: dir })
    ok(r, `npm ${args.join(' ')}`)
  }

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-install-test-'))
    const dist = path.join(tmp, 'dist')
    ok(await run(node, [path.join(repoRoot, 'scripts', 'pack-all.mjs'), '--native', '--out', dist], { cwd: repoRoot }), 'pack-all --native')
    mainTarball = path.join(dist, `${manifest.name}-${manifest.version}.tgz`)
    platformTarball = path.join(dist, `${platformPackage}-${manifest.version}.tgz`)
    project = path.join(tmp, 'project')
    bare = path.join(tmp, 'bare')
    await Promise.all([install(project, [mainTarball, platformTarball]), install(bare, [mainTarball])])
  }, SETUP_TIMEOUT)

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true })
  })

  test('the main tarball holds the JS, the types, README and LICENSE, and no binary', () => {
    const files = tarList(mainTarball)
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'lib/index.js',
      'lib/native.js',
      'lib/binding/index.js',
      'index.d.ts',
      'cli/mcp-content.js',
      'cli/proxy.js',
    ]) {
      assert.ok(files.includes(`package/${f}`), `${f} in ${files.join(', ')}`)
    }
    assert.deepEqual(
      files.filter((f) => f.endsWith('.node')),
      [],
    )
  })

  test('the platform tarball holds its binary', () => {
    assert.ok(tarList(platformTarball).includes(`package/mcp-content.${suffix}.node`))
  })

  test('the installed package lists every platform package as an optional dependency, at its version', () => {
    const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', manifest.name, 'package.json'), 'utf8'))
    const expected = Object.fromEntries(
      fs
        .readdirSync(path.join(repoRoot, 'npm'))
        .sort()
        .map((dir) => [`${manifest.name}-${dir}`, manifest.version]),
    )
    assert.deepEqual(Object.fromEntries(Object.entries(installed.optionalDependencies).sort()), expected)
    assert.equal(installed.version, manifest.version)
    assert.equal(JSON.parse(fs.readFileSync(path.join(project, 'node_modules', platformPackage, 'package.json'), 'utf8')).version, manifest.version)
  })

  test('Node: require (CommonJS) converts, spills and classifies', TIMEOUT, async () => {
    const r = ok(await run(node, ['check.cjs'], { cwd: project }), 'node check.cjs')
    assert.match(r.stdout, /install-check ok: require, node .*, native$/m)
  })

  test('Node: import (ESM) with named exports', TIMEOUT, async () => {
    const r = ok(await run(node, ['check.mjs'], { cwd: project }), 'node check.mjs')
    assert.match(r.stdout, /install-check ok: import, node .*, native$/m)
  })

  test('TypeScript: tsc --noEmit --strict on a typed example', { ...TIMEOUT, skip: tscSkip }, async () => {
    assert.ok(fs.existsSync(tsc), `${tsc} (the typescript devDependency)`)
    ok(await run(node, [tsc, '-p', path.join(project, 'tsconfig.json'), '--noEmit', '--strict'], { cwd: project }), 'tsc')
  })

  test('Bun: require and import', { ...TIMEOUT, skip: bunSkip }, async () => {
    const cjs = ok(await run(bun, ['check.cjs'], { cwd: project }), 'bun check.cjs')
    assert.match(cjs.stdout, /install-check ok: require, bun .*, native$/m)
    const esm = ok(await run(bun, ['check.mjs'], { cwd: project }), 'bun check.mjs')
    assert.match(esm.stdout, /install-check ok: import, bun .*, native$/m)
  })

  test('the CLI: npx mcp-content --help, and inspect of a PNG', TIMEOUT, async () => {
    // npx beside the npm that installed (npm_execpath), else the one on PATH; --no: never download; -- keeps --help for the command.
    const npxCli = npmCli ? path.join(path.dirname(npmCli), 'npx-cli.js') : null
    const npx = (args) =>
      npxCli && fs.existsSync(npxCli)
        ? run(node, [npxCli, '--no', '--', ...args], { cwd: project })
        : run(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['--no', '--', ...args], { cwd: project })
    const help = ok(await npx(['mcp-content', '--help']), 'npx mcp-content --help')
    assert.match(help.stdout, /^Usage: mcp-content <command>/)
    const png = path.join(testDir, 'fixtures', 'file-type', 'fixture.png')
    const inspect = ok(await npx(['mcp-content', 'inspect', '--json', '--provider', 'anthropic', png]), 'npx mcp-content inspect')
    const [part] = JSON.parse(inspect.stdout).sources[0].parts
    assert.deepEqual([part.classification.mediaType, part.classification.width, part.classification.height], ['image/png', 200, 133])
    assert.deepEqual(part.providers.anthropic, { action: 'attached', mediaType: 'image/png' })
  })

  test('without the platform package, the error names it and says how to install it', TIMEOUT, async () => {
    assert.ok(!fs.existsSync(path.join(bare, 'node_modules', platformPackage)))
    const runtimes = [['node', node]]
    if (!bunSkip) runtimes.push(['bun', bun])
    for (const [name, bin] of runtimes) {
      for (const script of ['check.cjs', 'check.mjs']) {
        const r = await run(bin, [script], { cwd: bare })
        assert.notEqual(r.status, 0, `${name} ${script} should fail`)
        const out = r.stderr + r.stdout
        assert.ok(out.includes(`the native addon for ${suffix} is not installed`), `${name} ${script}:\n${out}`)
        assert.ok(out.includes(`npm install ${platformPackage}@${manifest.version}`), `${name} ${script}:\n${out}`)
        assert.ok(out.includes('NATIVE_ADDON_NOT_FOUND'), `${name} ${script}:\n${out}`)
      }
    }
  })
})
