'use strict'
// confinePolicy's contract, a host missing a mechanism (fail closed, with
// nothing run), the denial signatures measured with real tools, and
// `sandy run --policy` confining a shell to its workspace.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const {
  SandboxPolicy, AccessMode, PathScope, NetworkPolicy, users, setup, tree, basePolicy, run, confine, describe, withSanitizerEnv, withoutSandy
} = require('../helpers/sandbox.js')
const { confinePolicy, SandboxError, probe } = require('../../lib/index.js')
const { confineWith } = require('../../lib/confine.js')
const { LAUNCHER_EXIT_FAILURE } = require('../../lib/launcher-protocol.js')
const { verifiedLauncherPath } = require('../../lib/binding.js')
const { runCommand, passThrough, raiseOnSelf } = require('../../lib/cli-run.js')

// (every case here confines a Sandy policy)
if (withoutSandy(t)) return
const fx = setup(t)
const SANDY_RUN = path.join(__dirname, '..', 'helpers', 'sandy-run.js')

// Everything a dynamically linked shell needs, read + execute.
function withSystem (policy) {
  for (const d of ['/usr', '/bin', '/lib', '/lib64']) {
    policy = policy.grant(d, AccessMode.Read, PathScope.Subtree).allowExecute(d, PathScope.Subtree)
  }
  return policy
}

function workspace (user) {
  const root = tree(fx, user, { 'ws/file': 'ws\n', 'ro/file': 'ro\n', 'ro/dir': null, 'out/file': 'out\n' })
  const at = (rel) => path.join(root, rel)
  const policy = withSystem(basePolicy(fx)
    .grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
    .grant(at('ro'), AccessMode.Read, PathScope.Subtree))
  return { root, at, policy, cwd: at('ws') }
}

// The seam's rule semantics, for one rule: nonzero exit, allowed codes,
// then a fatal signature within one stderr line (case-insensitive).
function ruleMatches (rule, code, stderr) {
  if (code === 0) return false
  if (rule.allowedExitCodes && !rule.allowedExitCodes.includes(code)) return false
  const lines = stderr.split('\n').map((l) => l.toLowerCase())
  return lines.some((l) => rule.fatalSignatures.some((s) => l.includes(s.toLowerCase())))
}

// ---- confinePolicy ---------------------------------------------------------
t.test('confinePolicy returns the seam\'s ConfinedArgv', async (t) => {
  const s = workspace(users()[0])
  const c = confinePolicy(['/usr/bin/true', 'a b'], s.policy, { cwd: s.cwd })
  t.ok(Object.isFrozen(c) && Object.isFrozen(c.argv), 'frozen')
  // (the per-layer runs swap in a test build: test/helpers/launcher-override.js)
  t.equal(c.argv[0], process.env.SANDY_TEST_LAUNCHER || verifiedLauncherPath(), 'argv runs the verified launcher')
  t.equal(c.argv[1], '--sandy-policy-v1', 'then the policy words')
  t.same(c.argv.slice(-3), ['--', '/usr/bin/true', 'a b'], 'then the caller\'s argv, verbatim')
  t.equal(c.enforcement, probe().backends.sandy.enforcement, 'enforcement is the probe\'s verdict')
  t.equal(c.enforcement, 'full')
  t.match(c.runnerFailureRules, [{ allowedExitCodes: [125], fatalSignatures: [/^\[run [0-9a-f]{32}\]$/] }])
  t.not(confinePolicy(['/usr/bin/true'], s.policy, { cwd: s.cwd }).runnerFailureRules[0].fatalSignatures[0],
    c.runnerFailureRules[0].fatalSignatures[0], 'a new tag for every call')
  t.ok(c.denialSignatures.length > 0 && c.denialSignatures.every((x) => typeof x === 'string' && x))
  const here = process.cwd()
  process.chdir(s.cwd)
  try {
    t.ok(confinePolicy(['/usr/bin/true'], s.policy).argv.includes(s.cwd), 'cwd defaults to process.cwd()')
  } finally {
    process.chdir(here)
  }
})

t.test('confinePolicy rejects bad arguments', async (t) => {
  const s = workspace(users()[0])
  for (const bad of [[], 'true', [1], ['a\0b'], null]) {
    t.throws(() => confinePolicy(bad, s.policy, { cwd: s.cwd }), TypeError, `argv ${JSON.stringify(bad)}`)
  }
  t.throws(() => confinePolicy(['true'], s.policy.toJSON(), { cwd: s.cwd }), TypeError, 'a plain object is not a policy')
  t.throws(() => confinePolicy(['true'], s.policy, { cwd: 'relative' }), TypeError, 'relative cwd')
})

t.test('confinePolicy: InvalidPolicy when the policy cannot be resolved or misses the cwd', async (t) => {
  const s = workspace(users()[0])
  const missing = s.policy.grant(s.at('ws/nope'), AccessMode.Read, PathScope.Exact)
  t.throws(() => confinePolicy(['true'], missing, { cwd: s.cwd }), { name: 'SandboxError', kind: 'InvalidPolicy' })
  const err = t.throws(() => confinePolicy(['true'], s.policy, { cwd: s.at('out') }), { kind: 'InvalidPolicy' })
  t.match(err.message, /working directory must be covered/)
  t.notMatch(err.message, s.root, 'no path in the message')
})

t.test('confinePolicy: Unsupported, never a weaker fallback, when the host cannot keep the contract', async (t) => {
  const s = workspace(users()[0])
  const unusable = { backends: { sandy: { usable: false, enforcement: null, reason: 'Landlock ABI 3 found, 6 needed' } } }
  const err = t.throws(() => confineWith(['true'], s.policy, { cwd: s.cwd }, { report: unusable }), SandboxError)
  t.equal(err.kind, 'Unsupported')
  t.match(err.message, /Landlock ABI 3 found, 6 needed/, 'carries the probe\'s reason')
  t.throws(() => confineWith(['true'], s.policy, { cwd: s.cwd }, { report: { backends: {} } }), { kind: 'Unsupported' })
  t.throws(() => confineWith(['true'], s.policy, { cwd: s.cwd }, { report: { backends: { sandy: { usable: false } } } }), { kind: 'Unsupported' })
})

// ---- a host missing a mechanism: fail closed, nothing run -----------------
// nosys denies the named syscalls to the launcher as a host without them
// would (ENOSYS), or as host security policy would (EPERM).
// A mechanism the host lacks is Unsupported; a mechanism that is there but
// fails half-way (Landlock rules built, restrict refused) or a host policy
// refusal (EPERM) may be another kind, but is always a runner failure.
const ANY_KIND = /^sandy-launcher: fatal: [A-Za-z]+: /
const UNSUPPORTED = /^sandy-launcher: fatal: Unsupported: /
const MISSING = [
  ['unshare', 'ENOSYS', UNSUPPORTED],
  ['unshare', 'EPERM', ANY_KIND],
  ['landlock_create_ruleset', 'ENOSYS', UNSUPPORTED],
  ['landlock_restrict_self', 'ENOSYS', ANY_KIND],
  ['open_tree', 'ENOSYS', UNSUPPORTED],
  ['mount_setattr', 'ENOSYS', UNSUPPORTED],
  ['openat2', 'ENOSYS', UNSUPPORTED],
  ['seccomp', 'ENOSYS', UNSUPPORTED]
]
const ERRNO = { ENOSYS: 38, EPERM: 1 }
for (const user of users()) {
  for (const [syscall, errno, kind] of MISSING) {
    t.test(`a host without ${syscall} (${errno}) fails closed [${user.name}]`, async (t) => {
      const s = workspace(user)
      const marker = s.at('ws/ran')
      const argv = [fx.op, 'create', marker]
      const nosys = (names) => [fx.nosys, '--errno', String(ERRNO[errno]), names, '--']
      const r = await run(user, { ...s, argv, prefix: nosys(syscall) })
      t.equal(r.code, LAUNCHER_EXIT_FAILURE, `the launcher exits ${LAUNCHER_EXIT_FAILURE} (${describe(r)})`)
      const lines = r.stderr.split('\n').filter(Boolean)
      t.equal(lines.length, 1, 'one line on stderr')
      t.match(lines[0] || '', kind, kind === UNSUPPORTED ? 'the kind is Unsupported' : 'a fatal line')
      t.ok(r.confined.runnerFailureRules.some((rule) => ruleMatches(rule, r.code, r.stderr)), 'runnerFailureRules recognise it')
      t.notOk(fs.existsSync(marker), 'the target did not run')
      t.equal(r.stdout, '', 'nothing printed by the target')
      // Controls: the confined command runs when nothing is missing, and
      // the bare command does not itself need the syscall.
      const ok = await run(user, { ...s, argv, prefix: nosys('none') })
      t.equal(ok.code, 0, `confined, nothing missing: runs (${describe(ok)})`)
      t.ok(fs.existsSync(marker), 'confined, nothing missing: the marker appears')
      fs.rmSync(marker)
      const bare = await run(user, { ...s, argv, policy: null, prefix: nosys(syscall) })
      t.equal(bare.code, 0, `unconfined under the same filter: runs (${describe(bare)})`)
    })
  }
}

// ---- denial signatures, measured with real tools --------------------------
const TOOLS = [
  ['touch on a read-only grant', 'touch ro/file'],
  ['shell redirection on a read-only grant', 'echo x > ro/file'],
  ['rm on a read-only grant', 'rm ro/file'],
  ['chmod on a read-only grant', 'chmod 600 ro/file'],
  ['mkdir on a read-only grant', 'mkdir ro/dir/new'],
  ['cp into a read-only grant', 'cp ws/file ro/dir/'],
  ['python3 open for writing on a read-only grant', 'python3 -c "open(\'ro/file\', \'w\')"'],
  ['fork in a shell without allowSubprocesses', '/usr/bin/true; /usr/bin/true']
]
for (const user of users()) {
  t.test(`denialSignatures match what real tools print [${user.name}]`, async (t) => {
    for (const [name, script] of TOOLS) {
      const s = workspace(user)
      const forks = !script.startsWith('/usr/bin/true')
      const policy = forks ? s.policy.allowSubprocesses() : s.policy
      const argv = ['/bin/sh', '-c', `cd .. && ${script}`]
      const c = confine(argv, policy, s.cwd)
      const r = await run(user, { ...s, argv, policy })
      t.not(r.code, 0, `${name}: fails confined (${describe(r)})`)
      t.ok(c.denialSignatures.some((sig) => r.stderr.toLowerCase().includes(sig.toLowerCase())),
        `${name}: stderr carries a denial signature (${JSON.stringify(r.stderr)})`)
      const u = await run(user, { ...s, argv, policy: null })
      t.equal(u.code, 0, `${name}: succeeds unconfined (${describe(u)})`)
    }
    const s = workspace(user)
    const argv = ['/bin/sh', '-c', 'cat missing-file']
    const policy = s.policy.allowSubprocesses()
    const r = await run(user, { ...s, argv, policy })
    t.not(r.code, 0, `an ordinary failure fails (${describe(r)})`)
    const c = confine(argv, policy, s.cwd)
    t.notOk(c.denialSignatures.some((sig) => r.stderr.toLowerCase().includes(sig.toLowerCase())),
      `an ordinary failure is not a denial (${JSON.stringify(r.stderr)})`)
  })
}

// ---- sandy run --policy ---------------------------------------------------
function policyFile (s, policy = s.policy) {
  const file = s.at('policy.json')
  fs.writeFileSync(file, JSON.stringify(policy))
  fs.chmodSync(file, 0o644)
  return file
}

// Through env -u NODE_OPTIONS: the test runner's process hooks would
// otherwise load into this node too (and write files as this user).
const sandyRun = (user, s, file, cmd, extra = {}) =>
  run(user, { argv: ['/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, SANDY_RUN, '--policy', file, '--cwd', s.cwd, '--', ...cmd], cwd: s.cwd, ...extra })

for (const user of users()) {
  t.test(`sandy run --policy: a shell writes its workspace and nothing else [${user.name}]`, async (t) => {
    const s = workspace(user)
    const file = policyFile(s)
    const inside = await sandyRun(user, s, file, ['/bin/sh', '-c', 'echo made > new && echo more >> file'])
    t.equal(inside.code, 0, `writes in the workspace work (${describe(inside)})`)
    t.equal(fs.readFileSync(s.at('ws/new'), 'utf8'), 'made\n', 'the new file is on the host')
    t.equal(fs.readFileSync(s.at('ws/file'), 'utf8'), 'ws\nmore\n', 'the append is on the host')

    const tmp = `/tmp/sandy-run-escape-${process.pid}-${user.uid}`
    for (const target of ['../out/file', '../out/new', '../ro/file', tmp, s.at('escape')]) {
      const before = fs.existsSync(target.startsWith('/') ? target : s.at(path.join('ws', target))) ? 'present' : 'absent'
      const r = await sandyRun(user, s, file, ['/bin/sh', '-c', `echo x >> ${target}`])
      t.not(r.code, 0, `writing ${target} fails (${describe(r)})`)
      const hostPath = target.startsWith('/') ? target : path.resolve(s.cwd, target)
      if (before === 'absent') t.notOk(fs.existsSync(hostPath), `${target} was not created`)
      else t.notMatch(fs.readFileSync(hostPath, 'utf8'), /x\n$/, `${target} was not changed`)
      const u = await run(user, { argv: ['/bin/sh', '-c', `echo x >> ${target}`], cwd: s.cwd })
      t.equal(u.code, 0, `unconfined, writing ${target} works (${describe(u)})`)
      if (target.startsWith('/')) fs.rmSync(target, { force: true })
    }
  })

  t.test(`sandy run passes exit status and signals through [${user.name}]`, async (t) => {
    const s = workspace(user)
    const file = policyFile(s)
    const seven = await sandyRun(user, s, file, ['/bin/sh', '-c', 'exit 7'])
    t.equal(seven.code, 7, `exit status 7 (${describe(seven)})`)
    const killed = await sandyRun(user, s, file, ['/bin/sh', '-c', 'kill -TERM $$'])
    t.equal(killed.signal, 'SIGTERM', `sandy itself ends by SIGTERM (${describe(killed)})`)
    const out = await sandyRun(user, s, file, ['/bin/sh', '-c', 'echo to-stdout; echo to-stderr >&2'])
    t.equal(out.stdout, 'to-stdout\n', 'stdout passes through')
    t.equal(out.stderr, 'to-stderr\n', 'stderr passes through')
  })
}

// A FIFO, made before the command starts, through which the command says
// it runs and is then held: HELD writes "started" to it, then reads it
// until a writer comes and goes. said(ended) is what the command wrote,
// once it has, or, should it end first (ended: a promise of how), that.
// release() lets a command still held go: its cat reads the FIFO's end
// (or its echo, not read yet, meets none). A test acts only once its
// command runs, and its teardown releases the command and waits for its
// end, whatever failed before.
const HELD = 'echo started > fifo && exec cat fifo'
function gate (fifo) {
  execFileSync('mkfifo', ['-m', '0666', fifo])
  const touch = (flags) => {
    try {
      fs.closeSync(fs.openSync(fifo, flags | fs.constants.O_NONBLOCK))
    } catch {} // (ENXIO: no reader)
  }
  const release = () => {
    touch(fs.constants.O_RDONLY)
    touch(fs.constants.O_WRONLY)
  }
  const said = (ended) => Promise.race([fs.promises.readFile(fifo, 'utf8'), ended.then((how) => {
    touch(fs.constants.O_WRONLY) // (the read, still waiting for a writer)
    return `the command ended first: ${JSON.stringify(how)}`
  })])
  return { said, release }
}

// (not in the per-layer runs: whether a signal reaches the command is no
// layer's question, and a launcher without its base layer leaves it to a
// race between the signal and the command's exec)
if (process.env.SANDY_LAYER_RUN !== '1') t.test('sandy run forwards SIGTERM to the command', async (t) => {
  const user = users()[0]
  const s = workspace(user)
  const file = policyFile(s, s.policy.allowSubprocesses())
  const g = gate(s.at('ws/fifo'))
  // (the sandy run process itself: env execs node; its command says it
  // runs, the CLI's handlers set by then)
  const argv = ['/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, SANDY_RUN, '--policy', file, '--cwd', s.cwd, '--', '/bin/sh', '-c', HELD]
  const child = spawn(argv[0], argv.slice(1), { cwd: s.cwd, env: withSanitizerEnv({ PATH: '/usr/bin', LANG: 'C', LC_ALL: 'C' }), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stdout.resume()
  child.stderr.on('data', (d) => { stderr += d })
  const ended = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
  t.teardown(async () => {
    g.release()
    await ended
  })
  t.equal(await g.said(ended), 'started\n', 'the command runs')
  process.kill(child.pid, 'SIGTERM')
  // (were it not forwarded, sandy run would end by it and the command
  // would stay held, holding the pipes: 'close' would not come)
  const r = await ended
  t.equal(r.signal, 'SIGTERM', `the command was ended by the forwarded SIGTERM and sandy re-raised it (exit ${r.code}; ${stderr})`)
})

t.test('sandy run in-process: signals forwarded and re-raised', async (t) => {
  const s = workspace(users()[0])
  // The command inherits this process's stdio, which may be files (the
  // suite's output sent to one): a policy that executes all it reads
  // accepts them, where one that restricts execution would refuse them
  // (test/confinement/escape-exec.test.js, "file run by the granted loader").
  const file = policyFile(s, s.policy.allowSubprocesses()
    .allowExecute(s.at('ws'), PathScope.Subtree).allowExecute(s.at('ro'), PathScope.Subtree))
  const io = { out: () => {}, err: () => {} }
  const raised = []
  const listeners = process.listenerCount('SIGTERM')
  const intListeners = process.listenerCount('SIGINT')
  // (the command says it runs through the FIFO, its stdio being this
  // process's; the CLI's handlers are set before it starts)
  const g = gate(s.at('ws/fifo'))
  const pending = runCommand(['--policy', file, '--cwd', s.cwd, '--', '/bin/sh', '-c', HELD], io,
    { raise: (sig) => raised.push(sig) })
  t.teardown(async () => {
    g.release()
    await pending.catch(() => {})
  })
  t.equal(await g.said(pending), 'started\n', 'the command runs')
  t.ok(process.listenerCount('SIGINT') > intListeners, 'the CLI forwards signals now')
  // (a signal sent to this process is handled in the order sent: were
  // SIGINT passed on, the command would end by it, before the SIGTERM)
  process.kill(process.pid, 'SIGINT') // absorbed: the terminal sends it to the command itself
  process.kill(process.pid, 'SIGTERM') // forwarded, not fatal to this process
  t.equal(await pending, 128 + 15, 'the command ended by SIGTERM')
  t.same(raised, ['SIGTERM'], 'and the signal was raised again')
  t.equal(process.listenerCount('SIGTERM'), listeners, 'the forwarding handlers are gone')
  let delivered
  const got = new Promise((resolve) => { delivered = resolve })
  const onUsr2 = () => delivered('SIGUSR2')
  process.on('SIGUSR2', onUsr2)
  t.teardown(() => process.removeListener('SIGUSR2', onUsr2))
  const code = await runCommand(['--policy', file, '--cwd', s.cwd, '--', '/bin/sh', '-c', 'kill -USR2 $$'], io)
  t.equal(code, 128 + 12)
  // (a listener keeps no event loop alive: the interval does, until the
  // signal has come)
  const alive = setInterval(() => {}, 60000)
  t.equal(await got, 'SIGUSR2', 'the default raise signals this process itself')
  clearInterval(alive)
})

// The default raise without a listener goes through the addon: the
// signal's default action with RLIMIT_CORE at 0 first. SIGWINCH's default
// is to be ignored, so this process lives to read its core limit, which
// process.kill would have left as it was.
t.test('sandy run raises a signal without a listener with no core limit left', async (t) => {
  const coreLimit = () => fs.readFileSync('/proc/self/limits', 'latin1').split('\n').find((l) => l.startsWith('Max core file size')).split(/\s{2,}/)[1]
  t.equal(process.listenerCount('SIGWINCH'), 0, 'no listener of this process\'s own')
  raiseOnSelf('SIGWINCH')
  t.equal(coreLimit(), '0', 'the soft core limit is 0 once raised')
  // (a signal's listener keeps no event loop alive: the interval does,
  // until the signal has come)
  const alive = setInterval(() => {}, 60000)
  const got = await new Promise((resolve) => {
    process.once('SIGUSR2', resolve)
    raiseOnSelf('SIGUSR2')
  })
  clearInterval(alive)
  t.equal(got, 'SIGUSR2', 'with a listener, process.kill delivers it to the listener')
})

t.test('sandy run argument and policy errors', async (t) => {
  const s = workspace(users()[0])
  const lines = []
  const io = { out: (x) => lines.push(x), err: (x) => lines.push(x) }
  const file = policyFile(s)
  for (const args of [[], ['--policy'], ['--policy='], ['--policy', file], ['--policy', file, '--'],
    ['--policy', file, '--policy', file, '--', 'true'], ['--bogus', '--', 'true'], ['--cwd', s.cwd, '--', 'true']]) {
    lines.length = 0
    t.equal(await runCommand(args, io), 2, `usage error: ${JSON.stringify(args)}`)
    t.match(lines.join(''), /^sandy run: .*\nRun `sandy help run` for its usage\.\n$/)
  }
  lines.length = 0
  t.equal(await runCommand(['--policy', s.at('missing.json'), '--', 'true'], io), 1, 'unreadable policy file')
  t.equal(lines.join(''), `sandy run: --policy ${s.at('missing.json')}: cannot read it (ENOENT)\n`, 'named as the user gave it')
  const secret = s.at('ws/SECRET-sk-12345')
  fs.writeFileSync(s.at('bad.json'), `{"schema_version": 1, "network": "block_all", "grants": [{"path": "${secret}", "oops": 1}]}`)
  lines.length = 0
  t.equal(await runCommand([`--policy=${s.at('bad.json')}`, `--cwd=${s.cwd}`, '--', 'true'], io), 1, 'invalid document')
  t.notMatch(lines.join(''), /SECRET/, 'the document is not echoed')
  t.match(lines.join(''), new RegExp(`^sandy run: ${s.at('bad.json')}:1:\\d+: Parse: `), 'FILE:LINE:COLUMN: kind: what')
  lines.length = 0
  t.equal(await runCommand(['--policy', file, '--cwd', s.at('out'), '--', 'true'], io), 1, 'cwd not covered')
  t.match(lines.join(''), /InvalidPolicy/)
  lines.length = 0
  const broken = () => ({ argv: [path.join(fx.base, 'no-such-launcher')] })
  t.equal(await runCommand(['--policy', file, '--cwd', s.cwd, '--', 'true'], io, { confine: broken }), 125, 'launcher cannot start')
  t.match(lines.join(''), new RegExp(`cannot start the launcher ${path.join(fx.base, 'no-such-launcher')}: ENOENT`))
  const raised = []
  t.equal(passThrough({ code: null, signal: 'SIGUSR2' }, (sig) => raised.push(sig)), 128 + 12, '128+n when the re-raised signal is survived')
  t.same(raised, ['SIGUSR2'])
  t.equal(passThrough({ code: 3, signal: null }, () => t.fail('no signal to raise')), 3)
})

t.test('the suite can target another launcher build', async (t) => {
  const s = workspace(users()[0])
  const c = confineWith(['true'], s.policy, { cwd: s.cwd }, { launcher: '/opt/other/sandy-launcher' })
  t.equal(c.argv[0], '/opt/other/sandy-launcher')
  t.equal(new SandboxPolicy(NetworkPolicy.AllowAll).network, 'allow_all')
})
