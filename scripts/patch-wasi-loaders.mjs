// Runs after every `napi build` of package.json (build, build:wasm, ...: napi
// writes the WASI loaders on native builds too) and patches the generated
// WASI loaders (mcp-content.wasi.cjs for the loading thread, wasi-worker.mjs
// for the pool threads). docs/platforms.md, "WebAssembly fallback", has the
// reproductions.
//
// 1. WASI calls go through JS functions. Node's WASI functions are V8 fast
//    API functions. Called straight from wasm on Node 20 and 22, a WASI call
//    that allocates (path_open, path_link, ...) reports the allocation to V8,
//    and that can start a garbage collection inside the fast call, which
//    corrupts the JS heap: live objects become `FreeSpace` and the process
//    dies with SIGSEGV or SIGTRAP (nodejs/node#46777). Through a JS function
//    the call takes V8's regular API path, where a collection is safe.
// 2. A pool worker imports the runtime's ES modules before it requires the
//    runtime. Its CommonJS entry loads @emnapi/core, @emnapi/runtime and the
//    core's plugins through require(esm); Node 20 aborts the whole process
//    (FATAL ERROR: v8::Module::IsGraphAsync) when a worker is terminated
//    inside that synchronous load, and the loader's 'exit' teardown
//    terminates pool workers that may still be booting. Once imported, the
//    modules are evaluated and a require only looks them up; a termination
//    inside an import() ends that worker alone.
//
// Idempotent: a loader that already has a block is left as it is. Exits
// non-zero when a loader lacks the line a block goes after (a napi-rs
// upgrade changed it), so the build does not silently ship without it.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const BY = '(added by scripts/patch-wasi-loaders.mjs)'
const WASI_MARK = 'mcp-content: WASI calls go through JS functions'
const IMPORT_MARK = 'mcp-content: the runtime imported before it is required'

function indented(indent, lines) {
  return lines.map((line) => indent + line).join('\n') + '\n'
}

function wasiBlock(indent, wasiName) {
  return indented(indent, [
    `// ${WASI_MARK} ${BY}:`,
    '// a direct call from wasm is a V8 fast API call, and on Node 20 and 22 a',
    '// garbage collection started inside one corrupts the JS heap',
    '// (nodejs/node#46777; docs/platforms.md, "WebAssembly fallback").',
    `${wasiName}.wasiImport = (function (direct) {`,
    '  const apply = Reflect.apply',
    '  const throughJs = {}',
    '  for (const name of Object.keys(direct)) {',
    '    const call = direct[name]',
    '    // Rest arguments: optimized code forwards them as varargs, never as',
    '    // a fast API call.',
    '    throughJs[name] = function (...args) {',
    '      return apply(call, undefined, args)',
    '    }',
    '  }',
    '  return throughJs',
    `})(${wasiName}.wasiImport)`,
  ])
}

function importBlock() {
  return indented('', [
    '',
    `// ${IMPORT_MARK} ${BY}:`,
    "// the runtime's CommonJS entry loads @emnapi/core, @emnapi/runtime and the",
    "// core's plugins, ES modules, through require(esm), and Node 20 aborts the",
    "// process when this worker is terminated inside such a load (the loader's",
    "// 'exit' teardown terminates workers still booting). Imported first, they",
    '// are evaluated when a require looks them up. A failure here is left to',
    '// the requires, which report it (docs/platforms.md).',
    'try {',
    "  await import('@napi-rs/wasm-runtime')",
    "  const runtimeRequire = createRequire(require.resolve('@napi-rs/wasm-runtime'))",
    "  const { pathToFileURL } = await import('node:url')",
    "  await import(pathToFileURL(runtimeRequire.resolve('@emnapi/core/plugins')).href)",
    '} catch {}',
  ])
}

// Each block: the loader, the statement it goes right after (from `start`
// to the first `end` after it) and its text.
const PATCHES = [
  { file: 'mcp-content.wasi.cjs', mark: WASI_MARK, start: 'const __wasi = new __nodeWASI({\n', end: '\n})\n', text: wasiBlock('', '__wasi') },
  { file: 'wasi-worker.mjs', mark: WASI_MARK, start: '      const wasi = new WASI({\n', end: '\n      })\n', text: wasiBlock('      ', 'wasi') },
  { file: 'wasi-worker.mjs', mark: IMPORT_MARK, start: 'const require = createRequire(import.meta.url)\n', end: '', text: importBlock() },
]

let failed = false
for (const patch of PATCHES) {
  const file = path.join(repoRoot, 'lib', 'binding', patch.file)
  const text = fs.readFileSync(file, 'utf8')
  const what = `${patch.file}: ${patch.mark.replace('mcp-content: ', '')}`
  if (text.includes(patch.mark)) {
    console.log(`patch-wasi-loaders: ${what}: already patched`)
    continue
  }
  const start = text.indexOf(patch.start)
  const end = start === -1 ? -1 : text.indexOf(patch.end, start + patch.start.length)
  if (start === -1 || end === -1 || text.indexOf(patch.start, start + 1) !== -1) {
    console.error(`patch-wasi-loaders: ${patch.file}: did not find exactly one \`${patch.start.trim()}\` statement`)
    failed = true
    continue
  }
  const at = end + patch.end.length
  fs.writeFileSync(file, text.slice(0, at) + patch.text + text.slice(at))
  console.log(`patch-wasi-loaders: ${what}: patched`)
}
process.exit(failed ? 1 : 0)
