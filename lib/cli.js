'use strict'
// The `sandy` command line. Each command is one entry in COMMANDS: its usage
// line, a one-line summary for the help text, and run(args, io) resolving to
// an exit code. main() only dispatches, so a new command (`sandy run ...`) is
// one more entry. Output goes through io so tests can run commands in-process.

const path = require('node:path')
const { runCommand, RUN_USAGE, RUN_SUMMARY } = require('./cli-run')

const USAGE_EXIT = 2

const defaultIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text)
}

// Pads every column but the last to its widest cell.
function formatTable (rows, indent = '  ') {
  const widths = []
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] || 0, String(cell).length)
    })
  }
  return rows.map((row) => indent + row.map((cell, i) =>
    i === row.length - 1 ? String(cell) : String(cell).padEnd(widths[i])
  ).join('  ').trimEnd()).join('\n') + '\n'
}

const yesNo = (flag) => (flag ? 'yes' : 'no')

// A yes/no fact with the measured reason when it is "no".
const withDetail = (flag, detail) => flag || !detail ? yesNo(flag) : `no (${detail})`

function bwrapFact (bwrap) {
  if (!bwrap.found) return 'not found'
  const version = bwrap.version ? ` ${bwrap.version}` : ''
  const works = bwrap.works ? 'works' : `does not work${bwrap.detail ? `: ${bwrap.detail}` : ''}`
  return `${bwrap.path}${version}, ${works}`
}

function factRows (report) {
  const errata = report.landlockAbi > 0 ? ` (errata 0x${report.landlockErrata.toString(16)})` : ''
  return [
    ['platform', report.platform],
    ['kernel release', report.kernelRelease],
    ['Landlock ABI', `${report.landlockAbi}${errata}`],
    ['user namespaces', withDetail(report.userNamespaces, report.userNamespacesDetail)],
    ['mount API', yesNo(report.mountApi)],
    ['openat2', yesNo(report.openat2)],
    ['seccomp filter', yesNo(report.seccompFilter)],
    ['no_new_privs', yesNo(report.noNewPrivs)],
    ['bubblewrap', bwrapFact(report.bwrap)],
    ['sandbox-exec', yesNo(report.sandboxExec)]
  ]
}

function backendRows (report) {
  const rows = [['BACKEND', 'USABLE', 'ENFORCEMENT', 'REASON']]
  for (const [name, v] of Object.entries(report.backends)) {
    rows.push([name, yesNo(v.usable), v.enforcement || '-', v.reason])
  }
  return rows
}

function formatProbe (report) {
  return 'Host facts\n' + formatTable(factRows(report)) +
    '\nBackends\n' + formatTable(backendRows(report))
}

// --root DIR (default: the current directory, the default root of `sandy
// run --mode`): warns about what a workspace-write run there cannot protect.
function parseProbeArgs (args) {
  const opts = { json: false, root: null }
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') opts.json = true
    else if (args[i] === '--root' && i + 1 < args.length) opts.root = args[++i]
    else return { error: `unexpected argument for probe: ${args[i]}` }
  }
  return opts
}

async function runProbe (args, io) {
  const opts = parseProbeArgs(args)
  if (opts.error) return usageError(opts.error, io)
  // Loaded here so `sandy --help` works even when the addon is not built.
  const report = { ...require('./probe').probe() }
  try {
    report.warnings = require('./provider').workspaceWarnings(path.resolve(opts.root ?? process.cwd()))
  } catch (err) {
    io.err(`sandy: --root: ${err.message}\n`)
    return USAGE_EXIT
  }
  const warnings = report.warnings.map((w) => `\nwarning: ${w}\n`).join('')
  io.out(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatProbe(report) + warnings)
  return 0
}

const COMMANDS = {
  probe: {
    usage: 'sandy probe [--json] [--root DIR]',
    summary: 'report what this host can enforce and which backends are usable',
    run: runProbe
  },
  run: {
    usage: RUN_USAGE,
    summary: RUN_SUMMARY,
    run: (args, io) => runCommand(args, io)
  }
}

function usage () {
  const rows = Object.values(COMMANDS).map((c) => [c.usage, c.summary])
  rows.push(['sandy --help', 'show this help'])
  return 'Usage:\n' + formatTable(rows)
}

function usageError (why, io) {
  io.err(`sandy: ${why}\n\n${usage()}`)
  return USAGE_EXIT
}

const isHelp = (arg) => arg === '--help' || arg === '-h' || arg === 'help'

async function main (argv, io = defaultIo) {
  const [name, ...args] = argv
  if (name === undefined || isHelp(name)) {
    io.out(usage())
    return 0
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : null
  if (command === null) return usageError(`unknown command: ${name}`, io)
  // Only right after the command name: later words may belong to a program
  // a command runs (`sandy run ... -- cmd --help`).
  if (args[0] === '--help' || args[0] === '-h') {
    io.out(`Usage: ${command.usage}\n  ${command.summary}\n`)
    return 0
  }
  return command.run(args, io)
}

module.exports = { main, COMMANDS, formatTable, formatProbe }
