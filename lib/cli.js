'use strict'
// The `sandy` command line. Each command is one entry in COMMANDS: its
// usage lines, a summary, its options (node:util parseArgs specs, each
// with the words its help shows), an example, and run(opts, io) resolving
// to an exit code. main() parses (lib/cli-args.js) and dispatches, so a new
// command is one more entry. Output goes through io so tests can run
// commands in-process. Every help text fits 80 columns.
//
// Exit statuses: 0, or the command's own; 2 for a usage error, whose
// message names the flag; 1 for anything else, whose message names what
// the user gave (a path, a flag value), never a policy's contents.

const { parseCommand, UsageError, directory, wrap, WIDTH, VERSION } = require('./cli-args')
const { currentDir } = require('./paths')
const { RUN } = require('./cli-run')

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

// The host facts' rows. Their order is not the report's, and a flag and
// its detail, the ABI and its errata, and bubblewrap's facts share a row,
// so the rows are written here rather than made from the probe's one list
// (PROBE_FIELDS, lib/vocabulary.js); test/meta/vocabulary.test.js fails
// while a fact of that list shows in no row.
function factRows (report) {
  const errata = report.landlockAbi > 0 ? ` (errata 0x${report.landlockErrata.toString(16)})` : ''
  return [
    ['platform', report.platform],
    ['kernel release', report.kernelRelease],
    ['Landlock ABI', `${report.landlockAbi}${errata}`],
    ['user namespaces', withDetail(report.userNamespaces, report.userNamespacesDetail) + (report.userNamespacesDenied ? ', made but refused their capabilities (EPERM)' : '')],
    ['AppArmor userns', report.userNamespacesRestricted ? 'restricted (kernel.apparmor_restrict_unprivileged_userns=1)' : 'not restricted'],
    ['PID namespace', withDetail(report.pidNamespace, report.pidNamespaceDetail)],
    ['mount API', withDetail(report.mountApi, report.mountApiDetail)],
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

function packageRows (pkg) {
  return [
    ['sandy-native', pkg.version],
    ['addon', pkg.addon],
    ['launcher', pkg.launcher],
    ['runs as', pkg.launcherCopy],
    ['auto selects', pkg.autoSelects ?? 'nothing: no backend is usable']
  ]
}

// What keeps each protection (docs/api.md, "Protected reads";
// docs/protected-writes.md): by which mechanism, or "no"; and what a
// host's replacement of a denied path during a run meets
// (docs/deny-durability.md).
function protectionRows (protections) {
  const rows = [['BACKEND', 'CREDENTIAL FILES', 'HOST SOCKETS', 'SECRET VARIABLES', 'PROTECTED WRITES', 'HOST REPLACES ONE']]
  for (const [name, p] of Object.entries(protections)) rows.push([name, p.files ?? 'no', p.sockets ?? 'no', p.environment ?? 'no', p.writes ?? 'no', p.replaced])
  return rows
}

function formatProbe (report) {
  return 'Package\n' + formatTable(packageRows(report.package)) +
    '\nHost facts\n' + formatTable(factRows(report)) +
    '\nBackends\n' + formatTable(backendRows(report)) +
    '\nProtections\n' + formatTable(protectionRows(report.protections))
}

// This package: its version, the addon and launcher it uses (or why there
// is none), the verified copy of the launcher a confined command runs
// (lib/launcher-copy.js: the launcher itself where only root can change
// it), and the backend a provider with backend 'auto' takes.
function packageFacts () {
  const binding = require('./binding')
  const where = (f) => {
    try {
      return f()
    } catch (err) {
      return `none: ${err.message}`
    }
  }
  const arbitration = require('./provider').createLocalSandboxProvider().probe()
  const autoSelects = arbitration.selected
  return {
    version: VERSION,
    addon: where(() => binding.addonPath),
    launcher: where(() => binding.launcherPath()),
    launcherCopy: where(() => binding.verifiedLauncherPath()),
    autoSelects,
    protections: Object.fromEntries(arbitration.candidates.map((c) => [c.name, c.protections]))
  }
}

async function runProbe (opts, io) {
  // Loaded here so `sandy --help` works even when the addon is not built.
  const root = opts.root === undefined ? currentDir() : directory('--root', opts.root)
  const { protections, ...pkg } = packageFacts()
  const report = { package: pkg, ...require('./probe').probe(), protections }
  const { workspaceWarnings, unprintedWarnings } = require('./provider')
  report.warnings = workspaceWarnings(root)
  // (shown whenever asked, and then not said again by a run in this process)
  unprintedWarnings(root, report.warnings)
  const warnings = report.warnings.map((w) => `\nwarning: ${w}\n`).join('')
  io.out(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatProbe(report) + warnings)
  return 0
}

const PROBE = {
  usage: ['sandy probe [--json] [--root DIR]'],
  summary: 'report what this host can enforce, which backends are usable and ' +
    'which one `auto` selects, with the package\'s version and the paths of ' +
    'its addon and launcher',
  options: {
    json: { type: 'boolean', help: 'print the report as JSON' },
    root: { type: 'string', value: 'DIR', help: 'warn about what a workspace-write run with this root cannot protect (default: the current directory)' }
  },
  example: 'sandy probe --root ~/project',
  run: runProbe
}

const COMMANDS = { probe: PROBE, run: RUN }

function optionRows (options) {
  return Object.entries(options).map(([name, o]) => [`--${name}${o.value ? ` ${o.value}` : ''}`, o.help])
}

// Two columns, the second wrapped to the width.
function formatOptions (rows) {
  const left = Math.max(...rows.map(([l]) => l.length)) + 4
  return rows.map(([l, r]) => wrap(r, WIDTH - left).map((line, i) => (i === 0 ? `  ${l.padEnd(left - 2)}` : ' '.repeat(left)) + line).join('\n')).join('\n') + '\n'
}

function commandHelp (name) {
  const c = COMMANDS[name]
  // an optional part ("[--root DIR]", "[--allow-write DIR]...") is never split
  const usage = c.usage.flatMap((u) => wrap(u.match(/\[[^\]]*\](?:\.\.\.)?|\S+/g), WIDTH - 7).map((l, i) => (i === 0 ? '  ' : '      ') + l))
  return `Usage:\n${usage.join('\n')}\n\n${wrap(c.summary[0].toUpperCase() + c.summary.slice(1) + '.', WIDTH).join('\n')}\n\n` +
    `Options:\n${formatOptions([...optionRows(c.options), ['--help', `show this help (right after ${name})`]])}\n` +
    `Example:\n  ${c.example}\n`
}

function help () {
  const rows = [...Object.entries(COMMANDS).map(([name, c]) => [name, c.summary.split(',')[0]]), ['help', 'show help for sandy or for one command']]
  return `sandy ${VERSION}: confine the file effects of a command\n\n` +
    'Usage:\n  sandy COMMAND [OPTIONS]\n  sandy help [COMMAND]\n  sandy --version\n\n' +
    `Commands:\n${formatOptions(rows)}\n` +
    'Run `sandy help COMMAND` for its options and an example.\n'
}

function usageError (why, name, io) {
  io.err(`sandy${name ? ` ${name}` : ''}: ${why}\n${name ? `Run \`sandy help ${name}\` for its usage.\n` : 'Run `sandy help` for the commands.\n'}`)
  return USAGE_EXIT
}

const isHelp = (arg) => arg === '--help' || arg === '-h'

const isVersion = (arg) => arg === '--version' || arg === '-V'

async function main (argv, io = defaultIo) {
  const [word, ...args] = argv
  // (no command is a usage error: the usage, on stderr; asked for, it is
  // the answer, on stdout)
  if (word === undefined) {
    io.err(help())
    return USAGE_EXIT
  }
  if (isHelp(word)) {
    io.out(help())
    return 0
  }
  if (isVersion(word)) {
    if (args.length > 0) return usageError(`${word} takes no argument`, null, io)
    io.out(`sandy-native ${VERSION}\n`)
    return 0
  }
  if (word === 'help') {
    if (args.length === 0 || (args.length === 1 && args[0] === 'help')) {
      io.out(help())
      return 0
    }
    if (args.length > 1 || !Object.hasOwn(COMMANDS, args[0])) return usageError(`help: no command ${args.join(' ')}`, null, io)
    io.out(commandHelp(args[0]))
    return 0
  }
  if (!Object.hasOwn(COMMANDS, word)) return usageError(`unknown command ${word}`, null, io)
  const name = word
  const command = COMMANDS[name]
  // Only right after the command name: later words may belong to a program
  // a command runs (`sandy run ... -- cmd --help`).
  if (isHelp(args[0])) {
    io.out(commandHelp(name))
    return 0
  }
  try {
    return await command.run(parseCommand(name, command, args), io)
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, name, io)
    throw err
  }
}

module.exports = { main, COMMANDS, formatTable, formatProbe, help, commandHelp, VERSION }
