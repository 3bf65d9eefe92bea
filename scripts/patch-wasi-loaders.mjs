// Runs after every `napi build` of package.json (build, build:wasm, ...: napi
// writes the WASI loaders on native builds too):
// makes the generated WASI loaders (mcp-content.wasi.cjs for the loading
// thread, wasi-worker.mjs for the pool threads) hand the wasm module plain JS
// functions that forward to Node's WASI functions, instead of Node's own.
//
// Why: Node's WASI functions are V8 fast API functions. Called straight from
// wasm on Node 20 and 22, a WASI call that allocates (path_open, path_link, ...)
// reports the allocation to V8, and that can start a garbage collection inside
// the fast call, which corrupts the JS heap: live objects become `FreeSpace`
// and the process dies with SIGSEGV or SIGTRAP (nodejs/node#46777). Through a
// JS function the call takes V8's regular API path, where a collection is safe.
// docs/platforms.md, "WebAssembly fallback", has the reproduction.
//
// Idempotent: a loader that already has the block is left as it is. Exits
// non-zero when a loader lacks the line the block goes after (a napi-rs
// upgrade changed it), so the build does not silently ship without it.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MARK = 'mcp-content: WASI calls go through JS functions'

function block(indent, wasiName) {
  const lines = [
    `// ${MARK} (added by scripts/patch-wasi-loaders.mjs):`,
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
  ]
  return lines.map((line) => indent + line).join('\n') + '\n'
}

// Each loader: the file, the statement that creates its WASI object (the
// block goes right after it), the object's name and the indent.
const LOADERS = [
  { file: 'mcp-content.wasi.cjs', start: 'const __wasi = new __nodeWASI({\n', end: '\n})\n', name: '__wasi', indent: '' },
  { file: 'wasi-worker.mjs', start: '      const wasi = new WASI({\n', end: '\n      })\n', name: 'wasi', indent: '      ' },
]

let failed = false
for (const loader of LOADERS) {
  const file = path.join(repoRoot, 'lib', 'binding', loader.file)
  const text = fs.readFileSync(file, 'utf8')
  if (text.includes(MARK)) {
    console.log(`patch-wasi-loaders: ${loader.file} already patched`)
    continue
  }
  const start = text.indexOf(loader.start)
  const end = start === -1 ? -1 : text.indexOf(loader.end, start)
  if (start === -1 || end === -1 || text.indexOf(loader.start, start + 1) !== -1) {
    console.error(`patch-wasi-loaders: ${loader.file}: did not find exactly one \`${loader.start.trim()}\` statement`)
    failed = true
    continue
  }
  const at = end + loader.end.length
  fs.writeFileSync(file, text.slice(0, at) + block(loader.indent, loader.name) + text.slice(at))
  console.log(`patch-wasi-loaders: ${loader.file} patched`)
}
process.exit(failed ? 1 : 0)
