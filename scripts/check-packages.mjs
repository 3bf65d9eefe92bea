// Checks the tarballs `npm run pack:all` wrote for one target, under a runtime
// of that target (which may be emulated or borrowed, hence the prefix):
//   node scripts/check-packages.mjs --target linux-arm64-gnu \
//     --runtime "qemu-aarch64-static -L /usr/aarch64-linux-gnu /path/to/arm64/node"
// In two fresh projects it installs, with npm run by that runtime (so npm picks
// the platform packages as that machine would), offline and from an empty cache:
//   - the main tarball and the target's one: require and import check (a PNG
//     attached, a binary spilled, classify, the async path and the store);
//   - the main tarball alone: require fails with the error that names the package.
// --runtime defaults to this Node; --dist defaults to dist/.
// --target wasm32-wasi checks the WebAssembly package on any machine: it is
// installed with --force (npm refuses its `cpu: ["wasm32"]` otherwise) and
// online (its runtime, @napi-rs/wasm-runtime and emnapi, comes from the
// registry), and the checks run with NAPI_RS_FORCE_WASI=error, so the wasm
// binary loads or they fail; the loader's error without it is the native one's.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const fixtures = path.join(repoRoot, '__test__', 'fixtures', 'install')
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))

const args = { target: null, runtime: [process.execPath], dist: path.join(repoRoot, 'dist') }
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--target') args.target = argv[++i]
  else if (argv[i] === '--runtime') args.runtime = argv[++i].split(' ').filter(Boolean)
  else if (argv[i] === '--dist') args.dist = path.resolve(argv[++i])
  else throw new Error(`check-packages: unknown argument ${argv[i]}`)
}
if (!args.target) throw new Error('check-packages: --target <suffix> is required (e.g. linux-arm64-musl)')

const pkg = `${manifest.name}-${args.target}`
const mainTarball = path.join(args.dist, `${manifest.name}-${manifest.version}.tgz`)
const platformTarball = path.join(args.dist, `${pkg}-${manifest.version}.tgz`)
for (const t of [mainTarball, platformTarball]) if (!fs.existsSync(t)) throw new Error(`check-packages: ${t} is missing (npm run pack:all)`)
const npmRoot = spawnSync('npm', ['root', '-g'], { encoding: 'utf8', shell: process.platform === 'win32' }).stdout.trim()
const npmCli = path.join(npmRoot, 'npm', 'bin', 'npm-cli.js')

const wasm = args.target === 'wasm32-wasi'
const [runtime, ...prefix] = args.runtime
function js(cwd, ...rest) {
  const env = wasm ? { ...process.env, NAPI_RS_FORCE_WASI: 'error', NODE_NO_WARNINGS: '1' } : process.env
  const r = spawnSync(runtime, [...prefix, ...rest], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}` }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-content-check-packages-'))
let passed = 0
let failed = 0
function check(name, ok, detail) {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `\n${detail}`}`)
}

try {
  console.log(`check-packages: ${pkg} with ${args.runtime.join(' ')}`)
  console.log(`runtime: ${js(tmp, '-p', 'process.version + " " + process.platform + "-" + process.arch').out.trim()}`)
  const projects = [['project', [mainTarball, platformTarball]]]
  if (!wasm) projects.push(['bare', [mainTarball]])
  for (const [dir, tarballs] of projects) {
    const cwd = path.join(tmp, dir)
    fs.mkdirSync(cwd)
    fs.writeFileSync(path.join(cwd, 'package.json'), JSON.stringify({ name: dir, private: true }))
    for (const f of fs.readdirSync(fixtures)) fs.copyFileSync(path.join(fixtures, f), path.join(cwd, f))
    const how = wasm ? ['--force'] : ['--offline']
    const r = js(cwd, npmCli, 'install', ...how, '--no-audit', '--no-fund', '--ignore-scripts', '--cache', path.join(cwd, '.npm-cache'), ...tarballs)
    const installed = fs.existsSync(path.join(cwd, 'node_modules', pkg))
    check(`${dir}: npm install ${tarballs.map((t) => path.basename(t)).join(' ')}`, r.status === 0 && installed === (dir === 'project'), r.out)
  }
  const project = path.join(tmp, 'project')
  for (const [script, how] of [
    ['check.cjs', 'require'],
    ['check.mjs', 'import'],
  ]) {
    const r = js(project, script)
    const line = r.out.trim().split('\n').at(-1)
    const loaded = line.endsWith(wasm ? ', wasm32-wasi' : ', native')
    check(`${how}: ${line}`, r.status === 0 && line.startsWith(`install-check ok: ${how}`) && loaded, r.out)
  }
  if (!wasm) {
    const bare = js(path.join(tmp, 'bare'), 'check.cjs')
    const line = bare.out.split('\n').find((l) => l.includes('native addon')) ?? ''
    check(
      `without ${pkg}: ${line.trim().slice(0, 100)}...`,
      bare.status !== 0 && bare.out.includes(`npm install ${pkg}@${manifest.version}`) && bare.out.includes('NATIVE_ADDON_NOT_FOUND'),
      bare.out,
    )
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
