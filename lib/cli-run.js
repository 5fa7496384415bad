'use strict'
// `sandy run`: runs CMD confined, either by a Sandy policy document
// (--policy) or by a seam mode through the local provider (--mode), with
// CMD's stdio, exit status and terminating signal passed through. Errors
// name the file at most, never its contents.
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { constants: osConstants } = require('node:os')
const { LAUNCHER_EXIT_FAILURE } = require('./launcher-protocol')
const { currentDir } = require('./paths')

const { UsageError, parseCommand, directory, VERSION } = require('./cli-args')

const USAGE_EXIT = 2
// The policy could not be read, parsed, resolved or enforced on this host.
const POLICY_EXIT = 1
// The launcher could not be started: the same status the launcher uses for
// its own failures before the target runs (csrc/core/protocol.h).
const START_FAILURE_EXIT = LAUNCHER_EXIT_FAILURE
const path = require('node:path')
const { CONFINED_MODES, UNCONFINED_MODE, BACKENDS: NAMED, LAUNCHER } = require('./vocabulary')
const { PRESET_NAMES } = require('./protect')
const { PROTECTION_NAMES } = require('./protect-writes')
const SHIELD_FLAGS = ['deny-read', 'protect', 'no-protect', 'keep-env', 'protect-write', 'no-protect-writes', 'allow-home']
const BACKENDS = ['auto', ...NAMED]
// What each backend leaves ungoverned when it reports partial enforcement,
// said before the command runs (docs/backends.md).
const PARTIAL_GAPS = {
  sandy: 'some of the policy is not enforced on this host (sandy probe says what)',
  bwrap: 'a read-only bind does not stop writing into a host FIFO or connecting to a host UNIX socket',
  landlock: 'Landlock does not govern chmod, chown, utime or xattr changes, and names inside denied directories stay listable',
  seatbelt: 'some of the policy is not enforced on this host (sandy probe says what)'
}

// Signals sent to `sandy` alone are passed on to the command; SIGINT and
// SIGQUIT from a terminal already reach the whole foreground group, so they
// are only kept from ending `sandy` before the command does.
const FORWARDED = ['SIGTERM', 'SIGHUP']
const ABSORBED = ['SIGINT', 'SIGQUIT']

// The checks parseArgs cannot make: which flags go together, the words a
// flag takes, and the directories the user named.
function checkRunOptions (opts) {
  if ((opts.policy === undefined) === (opts.mode === undefined)) throw new UsageError('give either --policy FILE.json or --mode MODE')
  if (opts.policy !== undefined && (opts.root !== undefined || opts.backend !== undefined || opts['allow-write'] !== undefined)) {
    throw new UsageError('--root, --backend and --allow-write go with --mode, not --policy (a policy grants its own writes)')
  }
  if (opts.policy !== undefined && SHIELD_FLAGS.some((f) => opts[f] !== undefined)) {
    throw new UsageError('--deny-read, --protect, --no-protect, --keep-env, --protect-write, --no-protect-writes and --allow-home go with --mode, not --policy (a policy grants and denies by itself)')
  }
  if (opts['no-protect'] && opts.protect !== undefined) throw new UsageError('give --protect PRESET or --no-protect, not both')
  for (const p of opts.protect ?? []) {
    if (!PRESET_NAMES.includes(p)) throw new UsageError(`--protect must be one of ${PRESET_NAMES.join(', ')}, not ${p}`)
  }
  if (opts['no-protect-writes'] && opts['protect-write'] !== undefined) throw new UsageError('give --protect-write NAME or --no-protect-writes, not both')
  for (const p of opts['protect-write'] ?? []) {
    if (!PROTECTION_NAMES.includes(p)) throw new UsageError(`--protect-write must be one of ${PROTECTION_NAMES.join(', ')}, not ${p}`)
  }
  if (opts.mode === UNCONFINED_MODE) throw new UsageError(`--mode ${UNCONFINED_MODE} would run the command unconfined: run it without sandy`)
  if (opts.mode !== undefined && !CONFINED_MODES.includes(opts.mode)) throw new UsageError(`--mode must be ${CONFINED_MODES.join(' or ')}, not ${opts.mode}`)
  if (opts.backend !== undefined && !BACKENDS.includes(opts.backend)) throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}, not ${opts.backend}`)
  const allowWrite = opts['allow-write'] ?? []
  if (allowWrite.length > 0 && opts.mode !== 'workspace-write') throw new UsageError(`--allow-write goes with --mode workspace-write, not ${opts.mode}`)
  if (allowWrite.length > LAUNCHER.writableRootsMax) throw new UsageError(`--allow-write may be given at most ${LAUNCHER.writableRootsMax} times`)
  if (opts.command.length === 0) throw new UsageError(`a command is required after --, as in \`${RUN.example}\``)
  if (opts.command[0] === '') throw new UsageError('the command after -- is an empty word')
  const cwd = opts.cwd === undefined ? currentDir() : directory('--cwd', opts.cwd)
  const root = opts.root === undefined ? undefined : directory('--root', opts.root)
  // what the user typed, and where it is
  const writable = allowWrite.map((typed) => ({ typed, dir: directory('--allow-write', typed) }))
  const denyRead = (opts['deny-read'] ?? []).map((typed) => path.resolve(cwd, typed))
  return { ...opts, cwd, root, writable, denyRead }
}

// At most max bytes of a file, whatever it is (a FIFO, /dev/zero, a file
// of gigabytes): one byte past the document limit is enough for the parser
// to say TooLarge.
function readAtMost (file, max) {
  const fd = fs.openSync(file, 'r')
  try {
    const buf = Buffer.alloc(max)
    let got = 0
    for (let n; got < max && (n = fs.readSync(fd, buf, got, max - got, null)) > 0;) got += n
    return buf.subarray(0, got)
  } finally {
    fs.closeSync(fd)
  }
}

// A policy file's problem, in the user's words: FILE:LINE:COLUMN for a
// parse error, the file and the kind otherwise; never its contents.
function readPolicy (file) {
  const { SandboxPolicy } = require('./policy')
  const { PolicyDocumentError } = require('./errors')
  let source
  try {
    source = readAtMost(file, require('./binding').addon.limits().documentBytes + 1)
  } catch (err) {
    throw new Error(`--policy ${file}: cannot read it (${err.code})`)
  }
  try {
    return SandboxPolicy.fromJson(source)
  } catch (err) {
    if (!(err instanceof PolicyDocumentError)) throw err
    const what = err.message.slice(err.message.indexOf('): ') + 3)
    throw new Error(err.kind === 'Parse' ? `${file}:${err.line}:${err.column}: Parse: ${what}` : `${file}: ${err.kind}: ${what}`)
  }
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

// Without a listener of this process's own, with the signal's default
// action and RLIMIT_CORE at 0 (csrc/core/end.h), so that no core of this
// Node process lands in the caller's directory; with one, as
// process.kill delivers it.
function raiseOnSelf (signal) {
  if (process.listenerCount(signal) > 0) process.kill(process.pid, signal)
  else require('./binding').addon.raiseWithoutCore(signalNumber(signal))
}

function defaultConfine (argv, policy, options) {
  return require('./confine').confinePolicy(argv, policy, options)
}

// The seam's way: a mode and a workspace root, through the local provider,
// with the --allow-write directories as its writable roots. A refused one
// is named as the user typed it.
function confineMode (opts) {
  const { createLocalSandboxProvider, holdsPackage, unprintedWarnings } = require('./provider')
  const provider = createLocalSandboxProvider({
    backend: opts.backend ?? 'auto',
    writableRoots: opts.writable.map((w) => w.dir),
    ...(opts['no-protect'] ? { protect: [] } : opts.protect !== undefined ? { protect: opts.protect } : {}),
    ...(opts.denyRead.length > 0 ? { denyRead: opts.denyRead } : {}),
    ...(opts['keep-env'] !== undefined ? { keepEnv: opts['keep-env'] } : {}),
    ...(opts['no-protect-writes'] ? { protectWrites: [] } : opts['protect-write'] !== undefined ? { protectWrites: opts['protect-write'] } : {}),
    ...(opts['allow-home'] ? { allowHomeWorkspace: true } : {})
  })
  const workspaceRoot = opts.root ?? opts.cwd
  let confined
  try {
    confined = provider.confine(opts.command, { mode: opts.mode, workspaceRoot })
  } catch (err) {
    if (err.writableRoot) err.message = `--allow-write ${opts.writable[err.writableRoot.index].typed} ${err.writableRoot.why}`
    throw err
  }
  const report = provider.probe(opts.mode === 'workspace-write' ? { workspaceRoot } : undefined)
  // (once per root in this process)
  const warnings = report.warnings === undefined ? [] : unprintedWarnings(workspaceRoot, report.warnings)
  // (the writable roots this run really has, as the user typed them)
  for (const w of opts.writable) {
    const real = fs.realpathSync(w.dir)
    if (confined.writableRoots.includes(real) && holdsPackage(real)) {
      warnings.push(`--allow-write ${w.typed} holds sandy-native's own files (its JavaScript and addon) or lies among them: ` +
        'a confined command can change what the next Node process loads from them')
    }
  }
  return { confined, backend: report.selected, warnings }
}

// A refusal with reasons (SandboxUnavailableError) lists them.
function describeError (err) {
  const reasons = Array.isArray(err.reasons) ? err.reasons.map((r) => `\n  ${r}`).join('') : ''
  return `sandy run: ${err.message}${reasons}\n`
}

// What --verbose says, and what is said whenever enforcement is partial.
function announce (opts, { confined, backend }, io) {
  if (opts.verbose) {
    io.err(`sandy: backend ${backend}, enforcement ${confined.enforcement}, launcher ${confined.argv[0]}, sandy-native ${VERSION}\n`)
    if ((confined.writableRoots ?? []).length > 0) io.err(`sandy: writable beside the workspace: ${confined.writableRoots.join(', ')}\n`)
  }
  if (confined.enforcement === 'partial') {
    io.err(`sandy: warning: enforcement is partial under the ${backend} backend: ${PARTIAL_GAPS[backend]}\n`)
  }
}

// deps exist for the tests: how a signal is raised on this process, and how
// the argv is confined (to exercise a launcher that cannot be started).
async function runParsed (parsed, io, { raise = raiseOnSelf, confine = defaultConfine } = {}) {
  const opts = checkRunOptions(parsed)
  let run
  try {
    if (opts.mode !== undefined) {
      run = confineMode(opts)
    } else {
      const policy = readPolicy(opts.policy)
      try {
        run = { confined: confine(opts.command, policy, { cwd: opts.cwd }), backend: 'sandy', warnings: [] }
      } catch (err) {
        err.message = `${opts.policy}: ${err.message}`
        throw err
      }
    }
  } catch (err) {
    io.err(describeError(err))
    return POLICY_EXIT
  }
  for (const w of run.warnings) io.err(`sandy: warning: ${w}\n`)
  announce(opts, run, io)
  let result
  try {
    result = await runConfined(run.confined.argv, opts.cwd)
  } catch (err) {
    io.err(`sandy run: cannot start the launcher ${run.confined.argv[0]}: ${err.code}\n`)
    return START_FAILURE_EXIT
  }
  return passThrough(result, raise)
}

const RUN = {
  usage: [
    'sandy run --mode MODE [--root DIR] [--allow-write DIR]... [--deny-read PATH]... [--protect PRESET]... [--no-protect]',
    '          [--keep-env NAME]... [--protect-write NAME]... [--no-protect-writes] [--allow-home]',
    '          [--backend NAME] [--cwd DIR] [--verbose] -- CMD [ARGS...]',
    'sandy run --policy FILE.json [--cwd DIR] [--verbose] -- CMD [ARGS...]'
  ],
  summary: 'run CMD confined, by a seam mode (the workspace root is --cwd, or ' +
    'the current directory, unless --root names another) or by a Sandy policy document; ' +
    'its input, output, exit status and terminating signal pass through',
  options: {
    mode: { type: 'string', value: 'MODE', help: 'read-only (write nothing but /dev/null) or workspace-write (write the workspace, and a private /tmp but under landlock)' },
    root: { type: 'string', value: 'DIR', help: 'the workspace root of --mode (default: --cwd, else the current directory)' },
    'allow-write': { type: 'string', multiple: true, value: 'DIR', help: `with --mode workspace-write, DIR is writable too, as a tool's cache (~/.npm); repeatable, at most ${LAUNCHER.writableRootsMax}; not /, /tmp, or one holding the launcher's copy` },
    'deny-read': { type: 'string', multiple: true, value: 'PATH', help: 'PATH (a file, socket or directory that exists) is unreadable and unconnectable inside; repeatable' },
    protect: { type: 'string', multiple: true, value: 'PRESET', help: `only these presets: ${PRESET_NAMES.join(', ')} (default: both; docs/api.md, "Protected reads"); repeatable` },
    'no-protect': { type: 'boolean', help: 'no preset: credential files readable and host sockets reachable' },
    'keep-env': { type: 'string', multiple: true, value: 'NAME', help: 'keep the variable NAME, which the launcher would remove as a secret; repeatable' },
    'protect-write': { type: 'string', multiple: true, value: 'NAME', help: `only these protected writes: ${PROTECTION_NAMES.join(', ')} (default: both; docs/protected-writes.md); repeatable` },
    'no-protect-writes': { type: 'boolean', help: "no protected writes: the command may plant git hooks and config, and start-up files of a held home, that run later outside the sandbox" },
    'allow-home': { type: 'boolean', help: 'let the workspace or an --allow-write directory be or hold your home directory: what you run later (start-up files, commands on your PATH) becomes writable, not all of it protected' },
    backend: { type: 'string', value: 'NAME', help: `one of ${BACKENDS.join(', ')} (default: auto, the first usable)` },
    policy: { type: 'string', value: 'FILE', help: 'a Sandy policy document (JSON) instead of a mode' },
    cwd: { type: 'string', value: 'DIR', help: 'the directory CMD starts in (default: the current directory)' },
    verbose: { type: 'boolean', help: 'say on stderr which backend runs CMD, its enforcement, the launcher and this version' }
  },
  example: "sandy run --mode workspace-write -- sh -c 'echo ok > here.txt'",
  takesCommand: true,
  run: runParsed
}

// `sandy run ARGS` from its words: a usage error is printed with a hint
// and ends with status 2.
async function runCommand (args, io, deps) {
  try {
    return await runParsed(parseCommand('run', RUN, args), io, deps)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.err(`sandy run: ${err.message}\nRun \`sandy help run\` for its usage.\n`)
    return USAGE_EXIT
  }
}

module.exports = { RUN, runCommand, passThrough, announce, raiseOnSelf }
