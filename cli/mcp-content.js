#!/usr/bin/env node
'use strict'
// The mcp-content command: inspect, convert, cleanup, proxy. Each command is its own module here
// and uses only the package's public API and Node's built-ins.
const { EXIT, CliError, printError, usageError } = require('./terminal.js')

const COMMANDS = {
  inspect: () => require('./inspect.js'),
  convert: () => require('./convert.js'),
  cleanup: () => require('./cleanup.js'),
  proxy: () => require('./proxy.js'),
}

const HELP = `Usage: mcp-content <command> [options]

Turns MCP tool results into content a model provider accepts.

Commands:
  inspect <file...|->         what each file or tool result is, and what each provider would be sent
  convert [result.json|-]     one tool result converted for a provider, as JSON
  cleanup [dir]               apply the store's retention and list what was removed
  proxy -- <command> [args]   run a stdio MCP server with every tool result converted

Options:
  -h, --help      help (also: mcp-content <command> --help)
  -v, --version   the package's version

Exit codes: 0 success, 1 the work failed (one line on stderr says why), 2 bad command line;
proxy exits with its server's code. Colours only on a terminal, never with NO_COLOR set.`

async function main(argv) {
  const [command, ...args] = argv
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    if (command === 'help' && args[0] in COMMANDS) return COMMANDS[args[0]]().run(['--help'])
    process.stdout.write(`${HELP}\n`)
    return command === undefined ? EXIT.USAGE : EXIT.OK
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${require('../package.json').version}\n`)
    return EXIT.OK
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    throw usageError(`unknown command "${command}": one of ${Object.keys(COMMANDS).join(', ')} (see mcp-content --help)`)
  }
  return COMMANDS[command]().run(args)
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error) => {
    const command = Object.hasOwn(COMMANDS, process.argv[2] ?? '') ? process.argv[2] : undefined
    printError(command, error)
    process.exitCode = error instanceof CliError ? error.exitCode : EXIT.FAILED
  },
)
