// npm run pack:all: builds the native addon for every target of
// package.json `napi.targets` that this machine can build, and writes the
// npm tarballs to dist/ (git-ignored):
//   dist/mcp-content-<version>.tgz            the main package: JS, types, no binary,
//                                             optionalDependencies on every platform package
//   dist/mcp-content-<target>-<version>.tgz   one per platform package built, with its .node
//                                             (wasm32-wasi: its .wasm and the WASI loaders)
//   dist/logs/build-<target>.log              each build's output
//
// Builds go through `napi build --platform --release --target <triple>`:
//   linux gnu      `-x` (cargo-zigbuild + zig) for glibc 2.17, so the binary loads on any
//                  glibc a supported Node.js runs on; without zig only the host's own target
//                  is built, with plain cargo (it then needs the host's glibc or newer)
//   linux musl     `-x` (cargo-zigbuild + zig)
//   macOS          `-x` (cargo-zigbuild + zig, no SDK): best effort
//   wasm32-wasi    plain cargo with the wasm32-wasip1-threads Rust target, on any host
//   Windows x64    on a Linux host with mingw-w64 (apt: gcc-mingw-w64-x86-64): built for
//                  x86_64-pc-windows-gnu and packed as win32-x64-msvc, the package an ordinary
//                  node.exe loads (see windowsGnuPlan); otherwise `-x` (cargo-xwin, which
//                  downloads the MSVC CRT and Windows SDK): best effort
// zig, cargo-zigbuild and cargo-xwin come from PyPI (pinned below) into a venv under
// node_modules/.cache/mcp-content-pack; Rust targets are added with rustup.
// The platform packages are the committed npm/<target> folders, filled by `napi artifacts`
// in a staging folder. The main package's optionalDependencies are written the way
// `napi pre-publish` writes them on publish: `<name>-<target>` at the package's version.
//
// Options:
//   --targets a,b   only these targets (triples or suffixes such as linux-arm64-musl)
//   --native        only this machine's own target, from the .node `npm run build` made
//                   (no build; what the install test uses)
//   --out DIR       write the tarballs there instead of dist/ (which is emptied first)
//   --strict        fail when any target fails (default: fail only for linux targets on a
//                   linux host, wasm32-wasi, and Windows when mingw-w64 builds it; macOS and
//                   Windows through cargo-xwin are reported and skipped)
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const npmCli = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const napiCli = path.join(repoRoot, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
const toolsDir = path.join(repoRoot, 'node_modules', '.cache', 'mcp-content-pack')
const venv = path.join(toolsDir, 'venv')
const venvBin = path.join(venv, process.platform === 'win32' ? 'Scripts' : 'bin')
const PYPI_TOOLS = ['ziglang==0.17.1', 'cargo-zigbuild==0.24.1', 'cargo-xwin==0.23.1']
/** The oldest glibc the gnu builds link against (what `--use-napi-cross` targets too). */
const GLIBC = '2.17'

function parseArgs(argv) {
  const args = { targets: null, native: false, out: path.join(repoRoot, 'dist'), strict: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--native') args.native = true
    else if (a === '--strict') args.strict = true
    else if (a === '--targets') args.targets = argv[++i].split(',').filter(Boolean)
    else if (a === '--out') args.out = path.resolve(argv[++i])
    else throw new Error(`pack-all: unknown argument ${a}`)
  }
  return args
}

function run(cmd, cmdArgs, options = {}) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options })
  if (r.error) throw r.error
  return r
}

function mustRun(cmd, cmdArgs, options = {}) {
  const r = run(cmd, cmdArgs, options)
  if (r.status !== 0) {
    throw new Error(`${cmd} ${cmdArgs.join(' ')} exited ${r.status}\n${r.stdout ?? ''}${r.stderr ?? ''}`)
  }
  return r
}

function isMusl() {
  try {
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {}
  try {
    return !process.report.getReport().header.glibcVersionRuntime
  } catch {
    return false
  }
}

/** This machine's suffix as napi-rs names it (linux-x64-gnu, darwin-arm64, win32-x64-msvc). */
export function hostSuffix() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

async function napiConfig() {
  const { readNapiConfig } = await import('@napi-rs/cli')
  return readNapiConfig(path.join(repoRoot, 'package.json'))
}

function rustHost() {
  const r = run('rustc', ['-vV'])
  return /^host: (\S+)$/m.exec(r.stdout ?? '')?.[1] ?? null
}

/** zig, cargo-zigbuild and cargo-xwin in a venv; null (with the reason printed) when they cannot be had. */
function crossTools() {
  const python = path.join(venvBin, process.platform === 'win32' ? 'python.exe' : 'python3')
  const stamp = path.join(venv, 'mcp-content-tools.txt')
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === PYPI_TOOLS.join('\n')) return venvBin
  console.log(`pack-all: installing ${PYPI_TOOLS.join(' ')} into ${path.relative(repoRoot, venv)}`)
  for (const py of ['python3', 'python']) {
    const r = run(py, ['-m', 'venv', '--clear', venv])
    if (r.status === 0) break
  }
  if (!fs.existsSync(python)) {
    console.log('pack-all: no Python venv (python3 -m venv failed): cross builds are skipped')
    return null
  }
  const r = run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PYPI_TOOLS], { stdio: 'inherit' })
  if (r.status !== 0) {
    console.log('pack-all: pip could not install the cross tools: cross builds are skipped')
    return null
  }
  fs.writeFileSync(stamp, PYPI_TOOLS.join('\n'))
  return venvBin
}

function hasCommand(cmd) {
  try {
    return run(cmd, ['--version']).status === 0
  } catch {
    return false
  }
}

const MINGW = 'x86_64-w64-mingw32'
/**
 * Windows x64 from Linux without Microsoft's SDK: the x86_64-pc-windows-gnu target, linked by
 * mingw-w64's gcc (rustc's default linker for it; napi's `-x` is cargo-xwin, MSVC only).
 * It goes into the win32-x64-msvc package, which is what the generated loader requires on an
 * ordinary node.exe (it takes win32-x64-gnu only on a Node built as libnode.dll). That is
 * sound because:
 * - Node-API is a C ABI, and the binary finds its functions in the host process at load
 *   time (napi's dyn-symbols, as an MSVC build always does), so it links against no Node;
 * - its C runtime is msvcrt.dll, part of Windows, and no C runtime object (heap block, FILE,
 *   fd) crosses Node-API: Node copies what it is given, and memory lent to it comes back
 *   through the addon's own finalizers;
 * - libgcc and winpthreads are linked in statically: `checkWindowsImports` refuses a binary
 *   that imports any DLL but the system ones.
 * napi-build, run by the napi crate for every windows-gnu build, links against a mingw
 * `libnode.dll` it must find under LIBNODE_PATH: it is given a folder with an empty
 * placeholder of that name and an empty import library, so nothing from it is imported.
 */
function windowsGnuPlan(target) {
  if (process.platform !== 'linux' || target.triple !== 'x86_64-pc-windows-msvc') return null
  if (!hasCommand(`${MINGW}-gcc`)) return null
  return {
    how: 'mingw-w64 (x86_64-pc-windows-gnu)',
    args: ['--target', 'x86_64-pc-windows-gnu'],
    rustTarget: 'x86_64-pc-windows-gnu',
    gnuForMsvc: true,
  }
}

/** The DLLs a Windows binary may import: Windows' own (so it needs nothing installed). */
const SYSTEM_DLL = /^(kernel32|ntdll|msvcrt|userenv|ws2_32|advapi32|bcrypt|bcryptprimitives|api-ms-win-[a-z0-9-]+)\.dll$/i

/** The DLLs `file` imports, or null when objdump is missing. */
export function windowsImports(file) {
  const objdump = `${MINGW}-objdump`
  if (!hasCommand(objdump)) return null
  const dump = mustRun(objdump, ['-p', file]).stdout
  return [...dump.matchAll(/^\s*DLL Name: (\S+)$/gm)].map((m) => m[1])
}

function checkWindowsImports(file) {
  const imports = windowsImports(file)
  if (imports === null) return `${MINGW}-objdump is missing: cannot check the DLLs it imports`
  const foreign = imports.filter((dll) => !SYSTEM_DLL.test(dll))
  if (foreign.length > 0) return `it imports DLLs Windows does not ship: ${foreign.join(', ')}`
  return null
}

function ensureRustTarget(triple) {
  const installed = run('rustup', ['target', 'list', '--installed'])
  if (installed.status === 0 && installed.stdout.split('\n').includes(triple)) return
  mustRun('rustup', ['target', 'add', triple], { stdio: 'inherit' })
}

/** How this machine builds a target: napi build arguments, or why it cannot. */
function buildPlan(target, host, tools) {
  const hostIsLinux = host?.includes('-linux-')
  if (target.platform === 'wasi') return { how: 'cargo (Rust target only)', args: ['--target', target.triple], wasm: true }
  if (!tools) {
    if (target.triple === host) return { how: 'cargo (host toolchain)', args: ['--target', target.triple] }
    return { skip: 'needs zig and cargo-zigbuild (PyPI), which could not be installed' }
  }
  if (target.platform === 'linux' && target.abi === 'gnu') {
    if (!hostIsLinux && target.triple !== host) return { skip: 'cross builds to linux run on a linux host' }
    return { how: `zig (cargo-zigbuild), glibc ${GLIBC}`, args: ['--target', `${target.triple}.${GLIBC}`, '-x'] }
  }
  if (target.platform === 'linux') return { how: 'zig (cargo-zigbuild)', args: ['--target', target.triple, '-x'] }
  if (target.triple === host) return { how: 'cargo (host toolchain)', args: ['--target', target.triple] }
  const windowsGnu = windowsGnuPlan(target)
  if (windowsGnu) return windowsGnu
  if (target.platform === 'darwin') return { how: 'zig (cargo-zigbuild), no macOS SDK', args: ['--target', target.triple, '-x'] }
  if (target.platform === 'win32') return { how: 'cargo-xwin (downloads the MSVC CRT and Windows SDK)', args: ['--target', target.triple, '-x'] }
  return { skip: `no cross build set up for ${target.triple}` }
}

function buildTarget(target, plan, tools, buildDir, logFile) {
  fs.rmSync(buildDir, { recursive: true, force: true })
  fs.mkdirSync(buildDir, { recursive: true })
  const env = { ...process.env }
  if (tools) env.PATH = `${tools}${path.delimiter}${env.PATH}`
  if (plan.gnuForMsvc) {
    const stub = path.join(buildDir, 'libnode-placeholder')
    fs.mkdirSync(stub)
    fs.writeFileSync(path.join(stub, 'libnode.dll'), '')
    fs.writeFileSync(path.join(stub, 'libnode.dll.a'), '!<arch>\n') // an empty ar archive
    env.LIBNODE_PATH = stub
  }
  // --no-js: the loader (index.js) is the committed one; the generated types go to
  // the scratch folder, not over the hand-written index.d.ts.
  const args = [napiCli, 'build', '--platform', '--release', '--features', 'binding', ...plan.args, '--output-dir', buildDir, '--no-js']
  console.log(`pack-all: ${target.platformArchABI}: napi ${args.slice(1).join(' ')}`)
  const started = Date.now()
  const r = run(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const log = `${r.stdout ?? ''}${r.stderr ?? ''}`
  fs.writeFileSync(logFile, log)
  const built = plan.gnuForMsvc ? 'win32-x64-gnu' : target.platformArchABI
  let file = path.join(buildDir, `mcp-content.${built}.${plan.wasm ? 'wasm' : 'node'}`)
  if (r.status !== 0 || !fs.existsSync(file)) {
    const tail = log.trim().split('\n').slice(-12).join('\n')
    return { error: `napi build exited ${r.status} (log: ${path.relative(process.cwd(), logFile)}):\n${tail}` }
  }
  if (plan.gnuForMsvc) {
    const refused = checkWindowsImports(file)
    if (refused) return { error: `${path.basename(file)}: ${refused}` }
    const named = path.join(buildDir, `mcp-content.${target.platformArchABI}.node`)
    fs.renameSync(file, named)
    file = named
  }
  return { file, seconds: Math.round((Date.now() - started) / 1000) }
}

function tarList(tarball) {
  return mustRun('tar', ['-tzf', tarball]).stdout.split('\n').filter(Boolean)
}

function npmPack(dir, out) {
  const r = mustRun(npmCli, ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
    cwd: dir,
    shell: process.platform === 'win32',
  })
  return path.join(out, JSON.parse(r.stdout)[0].filename)
}

/** The platform packages for `built` ({ target, file }), staged and filled by `napi artifacts`. */
function packPlatforms(config, built, stageDir, out) {
  const artifacts = path.join(stageDir, 'artifacts')
  fs.mkdirSync(artifacts, { recursive: true })
  const pkg = structuredClone(config.packageJson)
  pkg.napi = { ...pkg.napi, targets: built.map((b) => b.target.triple) }
  fs.writeFileSync(path.join(stageDir, 'package.json'), JSON.stringify(pkg, null, 2))
  for (const { target, file } of built) {
    fs.copyFileSync(file, path.join(artifacts, path.basename(file)))
    const src = path.join(repoRoot, 'npm', target.platformArchABI)
    const manifest = JSON.parse(fs.readFileSync(path.join(src, 'package.json'), 'utf8'))
    if (manifest.version !== config.packageJson.version) {
      throw new Error(`npm/${target.platformArchABI} is at ${manifest.version}, the package at ${config.packageJson.version}: run \`npx napi version\``)
    }
    // Beside the .wasm, `napi artifacts` packs the WASI loaders its package lists in `files`:
    // the committed ones, which every `npm run build` regenerates and
    // scripts/patch-wasi-loaders.mjs patches. It also wants the package's root entries
    // there; those go to the staged root only.
    if (target.platform === 'wasi') {
      const loaders = manifest.files.filter((name) => name !== path.basename(file))
      for (const name of [...loaders, 'index.js', 'browser.js']) fs.copyFileSync(path.join(repoRoot, 'lib', 'binding', name), path.join(artifacts, name))
    }
    fs.cpSync(src, path.join(stageDir, 'npm', target.platformArchABI), { recursive: true })
  }
  mustRun(process.execPath, [napiCli, 'artifacts', '--cwd', stageDir, '--output-dir', 'artifacts', '--npm-dir', 'npm'])
  return built.map(({ target, file }) => {
    const tarball = npmPack(path.join(stageDir, 'npm', target.platformArchABI), out)
    const binary = `package/${path.basename(file)}`
    if (!tarList(tarball).includes(binary)) throw new Error(`${path.basename(tarball)} lacks ${binary}`)
    return tarball
  })
}

/** The main package: what `npm pack` of the checkout holds, with the optionalDependencies napi pre-publish writes. */
function packMain(config, stageDir, out) {
  const dry = mustRun(npmCli, ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: repoRoot, shell: process.platform === 'win32' })
  const files = JSON.parse(dry.stdout)[0].files.map((f) => f.path)
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(stageDir, file)), { recursive: true })
    fs.copyFileSync(path.join(repoRoot, file), path.join(stageDir, file))
  }
  const pkg = structuredClone(config.packageJson)
  const { name, version } = pkg
  pkg.optionalDependencies = { ...pkg.optionalDependencies }
  for (const target of config.targets) pkg.optionalDependencies[`${name}-${target.platformArchABI}`] = version
  fs.writeFileSync(path.join(stageDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
  const tarball = npmPack(stageDir, out)
  const listed = tarList(tarball)
  const binaries = listed.filter((f) => f.endsWith('.node'))
  if (binaries.length > 0) throw new Error(`${path.basename(tarball)} holds binaries: ${binaries.join(', ')}`)
  for (const needed of ['package.json', 'README.md', 'LICENSE', 'lib/index.js', 'lib/native.js', 'lib/binding/index.js', 'index.d.ts']) {
    if (!listed.includes(`package/${needed}`)) throw new Error(`${path.basename(tarball)} lacks ${needed}`)
  }
  return tarball
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const config = await napiConfig()
  let targets = config.targets
  const host = rustHost()
  if (args.native) {
    const suffix = hostSuffix()
    targets = targets.filter((t) => t.platformArchABI === suffix)
    if (targets.length === 0) throw new Error(`pack-all: ${suffix} is not in napi.targets`)
  } else if (args.targets) {
    targets = targets.filter((t) => args.targets.includes(t.triple) || args.targets.includes(t.platformArchABI))
  }

  fs.rmSync(args.out, { recursive: true, force: true })
  fs.mkdirSync(args.out, { recursive: true })
  const stage = path.join(args.out, '.stage')
  const results = []
  const built = []
  if (args.native) {
    const file = path.join(repoRoot, 'lib', 'binding', `mcp-content.${targets[0].platformArchABI}.node`)
    if (!fs.existsSync(file)) throw new Error(`pack-all: ${path.relative(repoRoot, file)} is missing: run \`npm run build\``)
    built.push({ target: targets[0], file })
    results.push({ target: targets[0], how: 'npm run build (reused)' })
  } else {
    const tools = crossTools()
    for (const target of targets) {
      const plan = buildPlan(target, host, tools)
      if (plan.skip) {
        results.push({ target, skipped: plan.skip })
        continue
      }
      try {
        ensureRustTarget(plan.rustTarget ?? target.triple)
      } catch (error) {
        results.push({ target, how: plan.how, error: `rustup target add ${plan.rustTarget ?? target.triple} failed: ${error.message}` })
        continue
      }
      fs.mkdirSync(path.join(args.out, 'logs'), { recursive: true })
      const log = path.join(args.out, 'logs', `build-${target.platformArchABI}.log`)
      const r = buildTarget(target, plan, tools, path.join(stage, 'build', target.platformArchABI), log)
      if (r.error) results.push({ target, how: plan.how, error: r.error, required: plan.gnuForMsvc || plan.wasm })
      else {
        built.push({ target, file: r.file })
        results.push({ target, how: `${plan.how}, ${r.seconds} s` })
      }
    }
  }

  const tarballs = packPlatforms(config, built, path.join(stage, 'platforms'), args.out)
  const main = packMain(config, path.join(stage, 'main'), args.out)
  fs.rmSync(stage, { recursive: true, force: true })

  console.log('\npack-all: targets')
  let failed = false
  const hostIsLinux = process.platform === 'linux'
  for (const r of results) {
    const name = r.target.platformArchABI.padEnd(17)
    if (r.skipped) console.log(`  ${name} not built: ${r.skipped}`)
    else if (r.error) {
      // A wasm or mingw-w64 Windows build that fails is a fault too: its toolchain is there.
      const required = args.strict || (hostIsLinux && r.target.platform === 'linux') || r.required
      failed ||= required
      console.log(`  ${name} ${required ? 'FAILED' : 'not built'} (${r.how}): ${r.error.replace(/\n/g, '\n      ')}`)
    } else console.log(`  ${name} built: ${r.how}`)
  }
  console.log('pack-all: tarballs')
  for (const t of [main, ...tarballs]) console.log(`  ${path.relative(process.cwd(), t)} (${fs.statSync(t).size} bytes)`)
  if (failed) process.exitCode = 1
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error.message ?? error)
    process.exit(1)
  })
}
