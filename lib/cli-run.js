'use strict'
// `sandy run`: runs CMD confined, either by a Sandy policy document
// (--policy) or by a seam mode through the local provider (--mode), with
// CMD's stdio, exit status and terminating signal passed through. Errors
// name the file at most, never its contents.
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { constants: osConstants } = require('node:os')
const { LAUNCHER_EXIT_FAILURE } = require('./launcher-protocol')

const RUN_USAGE = 'sandy run (--policy FILE.json | --mode MODE [--root DIR] [--backend NAME]) [--cwd DIR] -- CMD [ARGS...]'
const RUN_SUMMARY = 'run CMD confined by a Sandy policy document, or by a seam mode (root: the cwd)'
const FLAGS = ['--policy', '--cwd', '--mode', '--root', '--backend']
const USAGE_EXIT = 2
// The policy could not be read, parsed, resolved or enforced on this host.
const POLICY_EXIT = 1
// The launcher could not be started: the same status the launcher uses for
// its own failures before the target runs (csrc/core/protocol.h).
const START_FAILURE_EXIT = LAUNCHER_EXIT_FAILURE

// Signals sent to `sandy` alone are passed on to the command; SIGINT and
// SIGQUIT from a terminal already reach the whole foreground group, so they
// are only kept from ending `sandy` before the command does.
const FORWARDED = ['SIGTERM', 'SIGHUP']
const ABSORBED = ['SIGINT', 'SIGQUIT']

function takeValue (args, i, flag) {
  const arg = args[i]
  const eq = arg.indexOf('=')
  if (eq !== -1) return { value: arg.slice(eq + 1), next: i + 1 }
  if (i + 1 >= args.length) throw new Error(`${flag} needs a value`)
  return { value: args[i + 1], next: i + 2 }
}

function parseRunArgs (args) {
  const opts = { policy: null, cwd: null, mode: null, root: null, backend: null, command: null }
  let i = 0
  while (i < args.length) {
    const arg = args[i]
    if (arg === '--') {
      opts.command = args.slice(i + 1)
      break
    }
    const flag = arg.split('=', 1)[0]
    if (!FLAGS.includes(flag)) throw new Error(`unexpected argument for run: ${arg}`)
    const key = flag.slice(2)
    if (opts[key] !== null) throw new Error(`${flag} given twice`)
    const { value, next } = takeValue(args, i, flag)
    if (value === '') throw new Error(`${flag} needs a non-empty value`)
    opts[key] = value
    i = next
  }
  if ((opts.policy === null) === (opts.mode === null)) throw new Error('give either --policy FILE.json or --mode MODE')
  if (opts.policy !== null && (opts.root !== null || opts.backend !== null)) throw new Error('--root and --backend go with --mode')
  if (opts.command === null || opts.command.length === 0) throw new Error('a command is required after --')
  return opts
}

function readPolicy (file) {
  const { SandboxPolicy } = require('./policy')
  let source
  try {
    source = fs.readFileSync(file)
  } catch (err) {
    throw new Error(`cannot read the policy file ${JSON.stringify(file)}: ${err.code}`)
  }
  return SandboxPolicy.fromJson(source)
}

function signalNumber (name) {
  return osConstants.signals[name]
}

// Runs the confined argv and settles with {code, signal} or rejects with
// the spawn error; passes the listed signals on while the command runs.
function runConfined (argv, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, stdio: 'inherit' })
    const handlers = new Map()
    for (const sig of [...FORWARDED, ...ABSORBED]) {
      const h = FORWARDED.includes(sig) ? () => child.kill(sig) : () => {}
      handlers.set(sig, h)
      process.on(sig, h)
    }
    const done = () => { for (const [sig, h] of handlers) process.removeListener(sig, h) }
    child.once('error', (err) => { done(); reject(err) })
    child.once('exit', (code, signal) => { done(); resolve({ code, signal }) })
  })
}

// The command's terminating signal is raised again on this process, so the
// caller sees what it would have seen without `sandy`; if this process
// survives it (an ignored signal), 128+n is the shell's convention.
function passThrough ({ code, signal }, raise) {
  if (signal === null) return code
  raise(signal)
  return 128 + signalNumber(signal)
}

function raiseOnSelf (signal) {
  process.kill(process.pid, signal)
}

function defaultConfine (argv, policy, options) {
  return require('./confine').confinePolicy(argv, policy, options)
}

// The seam's way: a mode and a workspace root, through the local provider.
function confineMode (opts, cwd) {
  const { createLocalSandboxProvider } = require('./provider')
  const provider = createLocalSandboxProvider({ backend: opts.backend ?? 'auto' })
  const workspaceRoot = path.resolve(opts.root ?? cwd)
  const confined = provider.confine(opts.command, { mode: opts.mode, workspaceRoot })
  const warnings = opts.mode === 'workspace-write' ? provider.probe({ workspaceRoot }).warnings : []
  return { confined, warnings }
}

// A refusal with reasons (SandboxUnavailableError) lists them.
function describeError (err) {
  const reasons = Array.isArray(err.reasons) ? err.reasons.map((r) => `\n  ${r}`).join('') : ''
  return `sandy: ${err.message}${reasons}\n`
}

// deps exist for the tests: how a signal is raised on this process, and how
// the argv is confined (to exercise a launcher that cannot be started).
async function runCommand (args, io, { raise = raiseOnSelf, confine = defaultConfine } = {}) {
  let opts
  try {
    opts = parseRunArgs(args)
  } catch (err) {
    io.err(`sandy: ${err.message}\nUsage: ${RUN_USAGE}\n`)
    return USAGE_EXIT
  }
  const cwd = path.resolve(opts.cwd === null ? process.cwd() : opts.cwd)
  let confined
  try {
    let warnings = []
    if (opts.mode !== null) ({ confined, warnings } = confineMode(opts, cwd))
    else confined = confine(opts.command, readPolicy(opts.policy), { cwd })
    for (const w of warnings) io.err(`sandy: warning: ${w}\n`)
  } catch (err) {
    io.err(describeError(err))
    return POLICY_EXIT
  }
  let result
  try {
    result = await runConfined(confined.argv, cwd)
  } catch (err) {
    io.err(`sandy: cannot start the launcher: ${err.code}\n`)
    return START_FAILURE_EXIT
  }
  return passThrough(result, raise)
}

module.exports = { runCommand, RUN_USAGE, RUN_SUMMARY, parseRunArgs, passThrough }
