// The examples in examples/ type-check with the pinned TypeScript under
// --strict, against index.d.ts and each SDK's own types (examples/sdk-types.ts
// assigns every adapter's answer to the SDK's type; examples/mcp-sdk-v1.ts and
// examples/sdk-v2/ give each MCP SDK major's results and blocks to the package,
// and the SDK v2 example expects an input_required result to be refused). A
// control file with a wrong assignment must fail, so the check cannot pass by
// checking nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot, isBun, tempDir } from './fixtures/index.mjs'

const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')
const tscNative = path.join(repoRoot, 'node_modules', '@typescript', `typescript-${process.platform}-${process.arch}`)
const examples = path.join(repoRoot, 'examples')

/** Node to run tsc with: this one, or under Bun the `node` on PATH. */
function nodeBinary() {
  if (!isBun) return process.execPath
  const r = spawnSync('node', ['-p', 'process.execPath'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : null
}
const node = nodeBinary()
const skip = !fs.existsSync(tscNative)
  ? `no ${path.relative(repoRoot, tscNative)} (node_modules installed for another platform)`
  : node === null
    ? 'no `node` on PATH to run tsc with'
    : false
if (skip) console.log(`examples.test: skipped: ${skip}`)

const runTsc = (project) => spawnSync(node, [tsc, '-p', project, '--noEmit', '--strict'], { cwd: repoRoot, encoding: 'utf8' })

test('examples/ type-check (tsc --noEmit --strict)', { skip, timeout: 120_000 }, () => {
  const r = runTsc(examples)
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`)
})

// examples/sdk-v2 needs the TypeScript SDK v2 (a devDependency): checked on its own.
const sdkV2Types = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'client', 'package.json')
const skipV2 = skip || (!fs.existsSync(sdkV2Types) && `no ${path.relative(repoRoot, sdkV2Types)} (the TypeScript SDK v2 is not installed)`)
if (skipV2 && !skip) console.log(`examples.test: examples/sdk-v2 skipped: ${skipV2}`)

test('examples/sdk-v2 type-checks against the TypeScript SDK v2', { skip: skipV2, timeout: 120_000 }, () => {
  const r = runTsc(path.join(examples, 'sdk-v2'))
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`)
})

test('a wrong assignment to an SDK type fails the same check', { skip, timeout: 120_000 }, (t) => {
  const dir = tempDir(t)
  const paths = {
    'mcp-content': [path.join(repoRoot, 'index.d.ts')],
    '@anthropic-ai/sdk': [path.join(repoRoot, 'node_modules', '@anthropic-ai', 'sdk', 'index.d.ts')],
  }
  const compilerOptions = { module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: [], paths }
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }))
  fs.writeFileSync(
    path.join(dir, 'wrong.ts'),
    "import type Anthropic from '@anthropic-ai/sdk'\nimport * as m from 'mcp-content'\ndeclare const c: m.ConvertedToolResult\nexport const x: Anthropic.ImageBlockParam = m.toAnthropicToolResult(c, 'id')\n",
  )
  const r = runTsc(dir)
  assert.notEqual(r.status, 0, 'tsc accepted a wrong assignment')
  assert.match(r.stdout, /wrong\.ts\(4,14\): error TS2741/)
})
