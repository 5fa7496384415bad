'use strict'
// Escape suite, the process boundary: a confined command reaches no host
// process (signals, limits, priorities, affinity, scheduling, /proc), and
// every process it starts ends with it, however the launcher ends; exit
// statuses, signal deaths and a terminal's job control pass through. On
// every backend that applies, as root and as uid 65534: `sandy` and `bwrap`
// give the command a PID namespace of its own; the Landlock-only level
// (uid 65534 only) refuses such calls with seccomp and ends what the
// command leaves as a subreaper and a watcher (csrc/linux/processes.c).
// Every refusal is shown to succeed unconfined, every leftover killed is
// shown to outlive an unconfined command.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const {
  users, setup, backendsFor, confineAs, withSanitizerEnv, plainNodeEnv, describe,
  escapeCase, basePolicy, tree, AccessMode, PathScope
} = require('../helpers/sandbox.js')
const { createLocalSandboxProvider } = require('../..')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const { patience } = require('../helpers/patience.js')

const fx = setup(t, ['pidfds', 'status', 'pty'])
const PACKAGE = path.join(__dirname, '..', '..')
const SANDY = path.join(PACKAGE, 'bin', 'sandy')
const sh = (script, ...args) => ['/bin/sh', '-c', script, ...args]

// A fresh directory of user's under the fixtures' base.
function ownDir (user) {
  const d = fs.mkdtempSync(path.join(fx.base, 'p-'))
  fs.chmodSync(d, 0o755)
  fs.chownSync(d, user.uid, user.gid)
  return fs.realpathSync(d)
}

// argv as a process of its own with a pipe on stdin: until(re) waits for
// its stdout to match, end() closes its stdin, exited settles when it
// ended and closed when its output has too (nothing else holds it). With
// limit, it gets SIGTERM once that has passed without its end (the pty
// fixture then says which step it waited for).
function session (argv, { cwd, detached = false, env = { PATH: '/usr/bin:/bin', LC_ALL: 'C' }, limit = 0 }) {
  const child = spawn(argv[0], argv.slice(1), { cwd, detached, env: withSanitizerEnv(env), stdio: ['pipe', 'pipe', 'pipe'] })
  if (limit > 0) {
    const timer = setTimeout(() => child.kill('SIGTERM'), limit)
    child.on('exit', () => clearTimeout(timer))
  }
  let stdout = ''
  let stderr = ''
  const waiters = []
  const closed = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const check = () => {
    for (const w of [...waiters]) if (w.re.test(stdout)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(stdout) }
  }
  child.stdout.on('data', (d) => { stdout += d; check() })
  child.stderr.on('data', (d) => { stderr += d })
  return {
    child,
    closed,
    exited,
    until (re) {
      return new Promise((resolve, reject) => {
        waiters.push({ re, resolve })
        check()
        closed.then((r) => reject(new Error(`ended before ${re}: ${describe(r)}`)))
      })
    },
    end () { child.stdin.end() }
  }
}

// A process of user that only waits, outside any sandbox: the host process
// a confined command aims at.
async function victim (t, user) {
  const argv = [...user.wrap, '/bin/sleep', '1000']
  const v = spawn(argv[0], argv.slice(1), { stdio: 'ignore' })
  const ended = new Promise((resolve) => v.on('close', resolve))
  t.teardown(async () => { v.kill('SIGKILL'); await ended })
  await new Promise((resolve) => v.on('spawn', resolve))
  // (until it is sleep itself, not setpriv about to exec it)
  while (!fs.readFileSync(`/proc/${v.pid}/cmdline`, 'latin1').startsWith('/bin/sleep\0')) await new Promise(setImmediate)
  return v.pid
}

// What a host process keeps that those calls would change.
function hostState (pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /s, '').split(' ')
  const status = fs.readFileSync(`/proc/${pid}/status`, 'latin1')
  return {
    fileSizeLimit: fs.readFileSync(`/proc/${pid}/limits`, 'latin1').split('\n').find((l) => l.startsWith('Max file size')),
    nice: stat[16],
    policy: stat[38],
    affinity: /Cpus_allowed_list:\s*(\S+)/.exec(status)[1],
    ioprio: spawnSync('ionice', ['-p', String(pid)], { encoding: 'utf8' }).stdout.trim()
  }
}

// The op fixture's actions that aim at another process by number, each
// changing what hostState reads (or, for the first, only asking).
const AIMED = [['kill0'], ['prlimit'], ['setprio', 'process'], ['ioprio', 'process'], ['affinity'], ['sched'],
  ['schedparam'], ['schedattr'], ['migrate'], ['movepages']]
const aimedAt = (pid) => AIMED.map(([op, scope]) => [fx.op, op, ...(scope ? [scope] : []), String(pid)])
// the same, through the tools a person would use
const toolsAt = (pid) => [`kill -0 ${pid}`, `prlimit --pid ${pid} --fsize=64`, `renice -n 5 -p ${pid}`]
const script = (argvs, tools = []) => [...argvs.map((a) => a.join(' ')), ...tools.map((l) => `${l} 2>&1 || echo "tool failed"`)].join('\n')
const results = (stdout) => stdout.split('\n').filter((l) => /^(ok|fail )/.test(l))

// The errno a call aimed at a host process gets: none such in a PID
// namespace of its own; at the Landlock-only level, refused (Landlock's
// signal scoping for kill, seccomp for the rest).
const HIDDEN = { sandy: 'ESRCH', bwrap: 'ESRCH', landlock: 'EPERM' }
const TOOL_SAYS = { sandy: /No such process/, bwrap: /No such process/, landlock: /Operation not permitted/ }

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`a host process of the same user is out of reach [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const pid = await victim(t, user)
      const before = hostState(pid)
      const cmd = sh(script(aimedAt(pid), toolsAt(pid)) + '\nls /proc')
      const c = confineAs(user, backend, cmd, { mode: 'read-only', workspaceRoot: cwd })
      const r = await session([...user.wrap, ...c.argv], { cwd }).closed
      const got = results(r.stdout)
      t.equal(got.length, AIMED.length, `every action reported (${describe(r)})`)
      for (const [i, [op]] of AIMED.entries()) t.match(got[i], new RegExp(`^fail \\S+ ${HIDDEN[backend]}$`), `confined: ${op} fails with ${HIDDEN[backend]}`)
      t.equal((r.stdout.match(/tool failed/g) || []).length, 3, 'confined: kill -0, prlimit --pid and renice fail')
      t.match(r.stdout, TOOL_SAYS[backend], 'as the kernel says')
      t.same(hostState(pid), before, 'the host process\'s limits, priorities, affinity and policy are unchanged')
      const listed = r.stdout.split('\n').filter((l) => /^\d+$/.test(l))
      if (backend === 'landlock') t.ok(listed.includes(String(pid)), 'no PID namespace here: the host process stays listed (the level\'s partial note)')
      else t.notOk(listed.includes(String(pid)), `its /proc lists only the command's own processes (${listed.join(' ')})`)

      const u = await session([...user.wrap, ...sh(script(aimedAt(pid), toolsAt(pid).slice(0, 1)))], { cwd }).closed
      t.same(results(u.stdout), AIMED.map(() => 'ok'), `unconfined, every action works (${describe(u)})`)
      t.notMatch(u.stdout, /tool failed/, 'and so does kill -0')
      const after = hostState(pid)
      for (const k of ['fileSizeLimit', 'nice', 'policy', 'ioprio']) t.not(after[k], before[k], `unconfined, the host process's ${k} changed`)
    })

    // The Node process that confined the command: the original attack
    // lowered its descriptor limit, after which every confine failed.
    t.test(`the confining Node process keeps its limits [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const code = `const fs = require('node:fs'); const { spawnSync } = require('node:child_process')
        const [pkg, backend, op] = process.argv.slice(1)
        const me = String(process.pid)
        const c = require(pkg).createLocalSandboxProvider({ backend }).confine(['/bin/sh', '-c',
          'prlimit --pid ' + me + ' --nofile=64:64 --core=unlimited; ' + op + ' prlimit ' + me + '; ' + op + ' setprio process ' + me],
          { mode: 'read-only', workspaceRoot: process.cwd() })
        const before = fs.readFileSync('/proc/self/limits', 'latin1') + fs.readFileSync('/proc/self/stat', 'latin1').split(') ')[1].split(' ')[16]
        const r = spawnSync(c.argv[0], c.argv.slice(1), { encoding: 'utf8' })
        const after = fs.readFileSync('/proc/self/limits', 'latin1') + fs.readFileSync('/proc/self/stat', 'latin1').split(') ')[1].split(' ')[16]
        const again = require(pkg).createLocalSandboxProvider({ backend }).confine(['true'], { mode: 'read-only', workspaceRoot: process.cwd() })
        process.stdout.write(JSON.stringify({ same: before === after, out: r.stdout + r.stderr, again: spawnSync(again.argv[0], again.argv.slice(1)).status }))`
      const argv = [...user.wrap, process.execPath, '-e', code, PACKAGE, backend, fx.op]
      const r = spawnSync(argv[0], argv.slice(1), { cwd, env: plainNodeEnv(withSanitizerEnv({ PATH: '/usr/bin:/bin' })), encoding: 'utf8' })
      t.equal(r.status, 0, `the confining process ran (${r.stderr})`)
      const out = JSON.parse(r.stdout)
      t.match(out.out, /failed to (get|set) the \w+ resource limit/, 'confined: prlimit --pid of the confining process fails')
      t.match(out.out, new RegExp(`fail prlimit ${HIDDEN[backend]}\\nfail setpriority ${HIDDEN[backend]}`), 'and so do the calls themselves')
      t.ok(out.same, 'its limits and niceness are unchanged')
      t.equal(out.again, 0, 'and it confines again')
    })
  }
}

// ---- what the command leaves ------------------------------------------------

// Every process descending from pid (its children, theirs, ...), by /proc.
function descendants (pid) {
  const parent = new Map()
  for (const p of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      parent.set(Number(p), Number(fs.readFileSync(`/proc/${p}/stat`, 'latin1').replace(/^.*\) /s, '').split(' ')[1]))
    } catch {} // (gone meanwhile)
  }
  const out = []
  for (const [p] of parent) {
    for (let q = parent.get(p), n = 0; q !== undefined && n < 64; q = parent.get(q), n++) {
      if (q === pid) { out.push(p); break }
    }
  }
  return out
}

// Its first word, by /proc ('' once gone).
function argv0 (pid) {
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0] } catch { return '' }
}

// The processes whose argv is exactly words, by /proc.
function byArgv (words) {
  const want = words.join('\0') + '\0'
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((p) => {
    try { return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1') === want } catch { return false }
  }).map(Number)
}

// A command that leaves two processes behind (a new session, a double
// fork), says so, and waits for its stdin to close.
function leaving () {
  const mark = crypto.randomInt(1e6, 9e6)
  const left = [['sleep', `1000.${mark}`], ['sleep', `1001.${mark}`]]
  const cmd = sh(`setsid ${left[0].join(' ')} &\n(${left[1].join(' ')} &)\necho up\nread x\nexit 0`, `sandy-main-${mark}`)
  return { cmd, left, main: [...cmd.slice(0, 3), `sandy-main-${mark}`] }
}

// Starts argv, waits until the command's processes are all there, and
// holds a pidfd of each process below argv's (and of the leftovers):
// ask(question, answer) asks the holder; done() kills what is left
// through the pidfds, waits for it to end, and lets the holder go, so a
// test ends whatever the launcher left (under a build with a layer off).
// own: the launcher's and bubblewrap's own processes among them.
async function started (argv, cwd, l, { detached = false } = {}) {
  const s = session(argv, { cwd, detached })
  await s.until(/^up$/m)
  // (what the command put in the background is there a moment after "up",
  // and the subshell of the double fork gone)
  while ([l.main, ...l.left].some((w) => byArgv(w).length !== 1)) await new Promise(setImmediate)
  const pids = [...new Set([...descendants(s.child.pid), ...l.left.flatMap(byArgv)])]
  const holder = session([fx.pidfds, ...pids.map(String)], { cwd })
  await holder.until(/^ready$/m)
  let answers = 0
  const ask = async (line, re) => {
    holder.child.stdin.write(line + '\n')
    answers++
    // ("ready", then a line per question)
    const out = await holder.until(new RegExp(`^(?:[^\\n]*\\n){${answers + 1}}`))
    return re.exec(out.split('\n')[answers])
  }
  const done = async () => {
    await ask('kill', /^killed$/)
    await ask('wait', /^none$/)
    holder.end()
    await holder.closed
    await s.closed
  }
  const own = pids.filter((p) => argv0(p) === argv.find((a) => a.includes('sandy-launcher')) || argv0(p).endsWith('/bwrap'))
  return { s, pids, own, ask, done, cwd }
}

// A holder of the launcher's own processes (or of those given as own),
// opened while they run: gone() waits for them to end. The one that ends last (the init, the
// reaper, bubblewrap as pid 1 of the guard's namespace) does so only once
// everything below it has. A build without them has none to wait for.
async function holdLauncher (run) {
  if (run.own.length === 0) return { gone: async () => {} }
  const h = session([fx.pidfds, ...run.own.map(String)], { cwd: run.cwd })
  await h.until(/^ready$/m)
  return {
    async gone () {
      h.child.stdin.write('wait\n')
      await h.until(/^none$/m)
      h.end()
      await h.closed
    }
  }
}

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`what a command leaves running ends with it [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const l = leaving()
      const c = confineAs(user, backend, l.cmd, { mode: 'workspace-write', workspaceRoot: cwd })
      const run = await started([...user.wrap, ...c.argv], cwd, l)
      t.ok(run.pids.length >= 3, `the command and what it left: ${run.pids.length} processes held`)
      run.s.end()
      const r = await run.s.exited
      t.equal(r.code, 0, 'the command ended')
      t.equal((await run.ask('alive', /^alive (\d+)$/))[1], '0', 'when the launcher has ended, none of them runs')
      await run.done()

      const u = await started([...user.wrap, ...l.cmd], cwd, l)
      u.s.end()
      await u.s.exited
      t.equal((await u.ask('alive', /^alive (\d+)$/))[1], String(l.left.length), 'unconfined, both stay running after the command')
      await u.done()
    })

    t.test(`what a command leaves running ends when the launcher is killed [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const l = leaving()
      const c = confineAs(user, backend, l.cmd, { mode: 'workspace-write', workspaceRoot: cwd })
      const run = await started([...user.wrap, ...c.argv], cwd, l)
      t.ok(run.own.length > 0, `the launcher's own processes below it: ${run.own.length}`)
      const launcher = await holdLauncher(run)
      run.s.child.kill('SIGKILL')
      const r = await run.s.exited
      t.equal(r.signal, 'SIGKILL', 'the launcher was killed')
      // (a pidfd becomes readable when its process ends: no time is guessed)
      await launcher.gone()
      t.equal((await run.ask('alive', /^alive (\d+)$/))[1], '0', `once they have ended, none of the ${run.pids.length} processes below it runs`)
      await run.done()

      const u = await started([...user.wrap, ...l.cmd], cwd, l)
      u.s.child.kill('SIGKILL')
      await u.s.exited
      t.equal((await u.ask('alive', /^alive (\d+)$/))[1], String(l.left.length), 'unconfined, what the killed shell left keeps running')
      await u.done()
    })
  }
}

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    // A caller's kill of its child's whole process group (timeout -s KILL,
    // tree-kill helpers) reaches the launcher and the command; what the
    // command left in a session of its own it does not.
    t.test(`what a command leaves running ends when the launcher's process group is killed [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const l = leaving()
      const c = confineAs(user, backend, l.cmd, { mode: 'workspace-write', workspaceRoot: cwd })
      const run = await started([...user.wrap, ...c.argv], cwd, l, { detached: true })
      const launcher = await holdLauncher(run)
      process.kill(-run.s.child.pid, 'SIGKILL')
      await run.s.exited
      await launcher.gone()
      t.equal((await run.ask('alive', /^alive (\d+)$/))[1], '0', `once the launcher's own processes have ended, none of the ${run.pids.length} runs`)
      await run.done()

      const u = await started([...user.wrap, ...l.cmd], cwd, l, { detached: true })
      // (the double fork's sleep is in the group: its end is waited for)
      const inGroup = await holdLauncher({ ...u, own: byArgv(l.left[1]) })
      process.kill(-u.s.child.pid, 'SIGKILL')
      await u.s.exited
      await inGroup.gone()
      t.equal((await u.ask('alive', /^alive (\d+)$/))[1], '1', 'unconfined, what left the group (setsid) keeps running')
      await u.done()
    })

    // The launcher's words, the nonce among them, are gone from the argv of
    // every process of the launcher's once the command runs (one of another
    // run of the user's could read it there, and pass for this run's fatal
    // line); bubblewrap runs as pid 1 of the guard's PID namespace.
    t.test(`the launcher's processes keep no nonce in their argv [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const l = leaving()
      const c = confineAs(user, backend, l.cmd, { mode: 'workspace-write', workspaceRoot: cwd })
      const nonce = c.argv[c.argv.indexOf('--nonce') + 1]
      t.match(nonce, /^[0-9a-f]{16,}$/, 'the argv carries one')
      const run = await started([...user.wrap, ...c.argv], cwd, l)
      const mine = [run.s.child.pid, ...descendants(run.s.child.pid)]
      const showing = mine.filter((p) => { try { return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').includes(nonce) } catch { return false } })
      t.same(showing, [], `none of the ${mine.length} processes shows it`)
      if (backend === 'bwrap') {
        const nspid = (p) => /NSpid:\s*([\d\s]+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'latin1'))[1].trim().split(/\s+/)
        const bwrap = descendants(run.s.child.pid).find((p) => argv0(p).endsWith('/bwrap'))
        t.equal(nspid(bwrap).length, 2, 'bubblewrap runs in the guard\'s PID namespace, which ends with the guard')
      }
      run.s.end()
      await run.s.exited
      await run.done()
    })
  }
}

// ---- how the command ended --------------------------------------------------

// bubblewrap's own pid 1 reports a command killed by a signal as the exit
// status 128 + N (as it always has); the launcher passes the signal on.
const SIGNALLED = {
  sandy: (n) => `signal ${n} core 0`,
  landlock: (n) => `signal ${n} core 0`,
  bwrap: (n) => `exit ${128 + n}`
}
const PLAIN_CORE = !fs.readFileSync('/proc/sys/kernel/core_pattern', 'utf8').startsWith('|')
const cores = (dir) => fs.readdirSync(dir).filter((f) => /^core/.test(f))

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`exit status and signals pass through, with no core of the launcher [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const status = async (cmd) => {
        const c = confineAs(user, backend, cmd, { mode: 'read-only', workspaceRoot: cwd })
        const r = await session([...user.wrap, fx.status, ...c.argv], { cwd }).closed
        return r.stdout.trim()
      }
      t.equal(await status(sh('exit 7')), 'exit 7')
      t.equal(await status(sh('kill -TERM $$')), SIGNALLED[backend](15))
      t.equal(await status(sh('kill -SEGV $$')), SIGNALLED[backend](11), 'a command that dumps core: killed by SIGSEGV')
      t.same(cores(cwd), [], 'and no core file lands in the caller\'s directory (the launcher has none, the command\'s own is refused there)')
      const run = await session([...user.wrap, fx.status, '/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, SANDY, 'run',
        '--mode', 'read-only', '--backend', backend, '--', ...sh('kill -SEGV $$')], { cwd }).closed
      t.equal(run.stdout.trim(), backend === 'bwrap' ? 'exit 139' : 'signal 11 core 0', `sandy run ends as its command did (${describe(run)})`)
      t.same(cores(cwd), [], 'and leaves no core of Node either')

      const u = await session([...user.wrap, fx.status, ...sh('kill -SEGV $$')], { cwd }).closed
      t.equal(u.stdout.trim(), 'signal 11 core 1', 'unconfined, the same command dumps core')
      if (PLAIN_CORE) t.equal(cores(cwd).length, 1, 'into the directory the test looks at')
      for (const f of cores(cwd)) fs.rmSync(path.join(cwd, f))
    })
  }
}

// ---- a terminal ---------------------------------------------------------------

// An interactive shell on a pseudo-terminal: a job started, suspended with
// Ctrl-Z, resumed with fg, interrupted with Ctrl-C, then another command.
// (bwrap runs its command in a session of its own, without a terminal:
// docs/backends.md.) The job's words are split
// with quotes so that their echo is not what is expected; the job reads
// on whatever interrupts its read, so that only the Ctrl-C ends it. Once
// the shell has said it resumes the job (printing its words), a word is
// typed, which the job echoes: it has the terminal again. (And dash runs
// a trap between commands, so the trap of a SIGCONT that came before its
// read() began, the Ctrl-Z having stopped it on its way there, runs once
// that read ends: before the echo, as it would have.)
const JOB = 'sh -c \'trap "echo con""t" CONT; echo rea""dy; while :; do read x && echo go""t-$x || :; done\''
const STEPS = ['expect:sandy$ ', `send:${JOB}\\n`, 'expect:ready', 'send:\\x1a', 'expect:Stopped', 'expect:sandy$ ',
  'send:fg\\n', 'expect:do read x', 'send:wake\\n', 'expect:cont', 'expect:got-wake', 'send:\\x03', 'expect:sandy$ ',
  'send:echo do""ne-$((6*7))\\n', 'expect:done-42', 'send:exit\\n']
// how long a terminal's session may take before the pty fixture is ended
const PTY_LIMIT = patience(30000)

// The fixture itself: a session the test gives up on says which step it
// waited for, and its command does not outlive it, even one that ignores
// the terminal's hangup. (Its only step: what the fixture prints, it
// prints while waiting for that. Not a confinement case, so not in the
// per-layer runs.)
if (process.env.SANDY_LAYER_RUN !== '1') t.test('the pty fixture ends a session the test gave up on', async (t) => {
  const cwd = fs.mkdtempSync(path.join(fx.base, 'p-'))
  const s = session([fx.pty, 'expect:never', '--', ...sh('trap "" HUP; echo rea""dy; exec sleep 1000')], { cwd })
  await s.until(/ready/)
  const [command] = descendants(s.child.pid)
  s.child.kill('SIGTERM')
  const r = await s.closed
  t.match(r.stdout, /\nmissing: never\n$/, `it names the step (${describe(r)})`)
  t.equal(r.code, 1, 'and fails')
  t.ok(command, 'the command was running')
  if (command) t.ok(await killLeft(command, []), 'and has ended')
})

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'landlock'])) {
    for (const shell of [['/bin/sh', '-i'], ['/bin/bash', '--norc', '--noprofile', '-i']]) {
      t.test(`job control in an interactive ${path.basename(shell[0])} [${backend}, ${user.name}]`, async (t) => {
        const cwd = ownDir(user)
        const env = { PATH: '/usr/bin:/bin', PS1: 'sandy$ ', TERM: 'dumb' }
        const c = confineAs(user, backend, shell, { mode: 'workspace-write', workspaceRoot: cwd })
        const r = await session([fx.pty, ...STEPS, '--', ...user.wrap, ...c.argv], { cwd, env, limit: PTY_LIMIT }).closed
        t.notMatch(r.stdout, /missing: /, `every step happened (${describe(r)})`)
        // dash gives the terminal back to the process group it started in
        // when it exits: in a PID namespace of its own that group has no
        // number (docs/backends.md, "Limits")
        const dashInOwnNamespace = shell[0] === '/bin/sh' && backend === 'sandy'
        t.match(r.stdout, dashInOwnNamespace ? /Cannot set tty process group \(No such process\)\s*\nexit 2\s*$/ : /\nexit 0\s*$/,
          dashInOwnNamespace ? 'dash ends complaining about its process group' : 'the shell ends cleanly')
        const u = await session([fx.pty, ...STEPS, '--', ...user.wrap, ...shell], { cwd, env, limit: PTY_LIMIT }).closed
        t.match(u.stdout, /\nexit 0\s*$/, `unconfined, the same session (${describe(u)})`)
      })
    }
  }
}

// Ends pid, a process an unconfined control left behind (SIGKILL ends a
// stopped one too; nothing is killed unless /proc shows it running words),
// and waits until it has ended: gone from /proc, or a zombie there (dead;
// whoever adopted it reaps it, no process of the test's, and the machine's
// PID 1 may take a second or more to), polled within a generous bound.
// True once it has ended.
async function killLeft (pid, words) {
  let cmdline = null
  try { cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1') } catch {}
  if (cmdline === words.join('\0') + '\0') {
    try { process.kill(pid, 'SIGKILL') } catch (e) { if (e.code !== 'ESRCH') throw e }
  }
  const ended = () => {
    try { return fs.readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /s, '')[0] === 'Z' } catch { return true }
  }
  for (const until = Date.now() + patience(30000); !ended() && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return ended()
}

// A command that takes the terminal's foreground group (job control, or on
// purpose) and ends: the caller, in whose group the launcher ran, has it
// back, where it would otherwise read into SIGTTIN. Under a shell without
// job control on a pseudo-terminal, which then asks who has it.
for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'landlock', 'bwrap'])) {
    t.test(`the terminal is the caller's again after the command took it [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const c = confineAs(user, backend, [fx.op, 'fgsteal'], { mode: 'read-only', workspaceRoot: cwd })
      const then = (argv) => [fx.pty, '--', ...user.wrap, ...sh('"$@"; "$0" fg', fx.op, ...argv)]
      const r = await session(then(c.argv), { cwd, limit: PTY_LIMIT }).closed
      const fg = /ok fg (\d+) own (\d+)/.exec(r.stdout)
      t.ok(fg, `the caller says who has the terminal (${describe(r)})`)
      if (fg) t.equal(fg[1], fg[2], 'its own group')
      const u = await session(then([fx.op, 'fgsteal']), { cwd, limit: PTY_LIMIT }).closed
      const ufg = /ok fg (\d+) own (\d+)/.exec(u.stdout)
      t.ok(ufg && ufg[1] !== ufg[2], `unconfined, the group that took it keeps it after its end (${describe(u)})`)
    })

    // The same, with the run as a job of an interactive shell which it
    // put in the background (Ctrl-Z, bg): the shell took the terminal, and
    // has it after the run ends, also when the command took it meanwhile
    // (for a group that ends with it). The shell waits for the launcher's
    // end with builtins only (its wait builtin would take the terminal
    // back itself), then reads its terminal's foreground group from /proc;
    // the terminal hangs up (a shell without it would read forever).
    for (const steal of [false, true]) {
    t.test(`a run in the background leaves the terminal to the shell that has it${steal ? ', after the command took it' : ''} [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const fifo = path.join(cwd, 'go')
      execFileSync('mkfifo', ['-m', '0666', fifo])
      const job = sh(`echo rea""dy; read x < "$0"; ${steal ? '"$1" fgsteal; ' : ''}echo go""ne`, fifo, fx.op)
      const quote = (w) => `'${w.replaceAll("'", "'\\''")}'`
      const steps = (argv) => {
        fs.writeFileSync(path.join(cwd, 'job.sh'), `exec ${argv.map(quote).join(' ')}\n`)
        return ['expect:sandy$ ', 'send:sh job.sh\\n', 'expect:ready', 'send:\\x1a', 'expect:Stopped', 'expect:sandy$ ',
          'send:bg\\n', 'expect:sandy$ ', 'send:echo x > go; while kill -0 $! 2>/dev/null; do :; done; read -a st < /proc/$$/stat; ' +
          '[ "${st[7]}" = "${st[4]}" ] && echo she""ll-has-it || echo ot""her-has-it\\n', 'expect:gone', 'expect:-has-it', 'hangup']
      }
      const env = { PATH: '/usr/bin:/bin', PS1: 'sandy$ ', TERM: 'dumb' }
      const bash = ['/bin/bash', '--norc', '--noprofile', '-i']
      const c = confineAs(user, backend, job, { mode: 'read-only', workspaceRoot: cwd })
      const r = await session([fx.pty, ...steps(c.argv), '--', ...user.wrap, ...bash], { cwd, env, limit: PTY_LIMIT }).closed
      t.notMatch(r.stdout, /missing: /, `every step happened (${describe(r)})`)
      t.match(r.stdout, /\bshell-has-it/, 'the shell has its terminal after the run\'s end')
      const u = await session([fx.pty, ...steps(job), '--', ...user.wrap, ...bash], { cwd, env, limit: PTY_LIMIT }).closed
      t.match(u.stdout, steal ? /\bother-has-it/ : /\bshell-has-it/,
        steal ? `unconfined, the group that took it keeps it after its end (${describe(u)})` : `unconfined, the same session (${describe(u)})`)
    })
    }

    // A terminal that hangs up while the command is stopped in a group of its
    // own: the kernel signals the session's leader and foreground group, the
    // launcher's, which pass the hangup on (with SIGCONT); the run ends. (The
    // same command unconfined is ended by the kernel itself when its group is
    // orphaned by the death of the shell above it, if it had stopped by
    // then: one that stops later stays stopped, and the control ends it by
    // the pid it printed.)
    t.test(`a terminal's hangup ends a run whose command is stopped in the background [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const c = confineAs(user, backend, [fx.op, 'stopbg'], { mode: 'read-only', workspaceRoot: cwd })
      const r = await session([fx.pty, 'expect:stopping', 'hangup', '--', ...user.wrap, ...c.argv], { cwd, limit: PTY_LIMIT }).closed
      t.match(r.stdout, backend === 'bwrap' ? /\n(signal 1|exit 129)\s*$/ : /\nsignal 1\s*$/, `the run ended by the hangup (${describe(r)})`)
      const u = await session([fx.pty, 'expect:stopping', 'hangup', '--', ...user.wrap, ...sh('"$0" stopbg', fx.op)], { cwd, limit: PTY_LIMIT }).closed
      const pid = /pid (\d+) stopping/.exec(u.stdout)
      t.ok(pid, `unconfined, the command said its pid (${describe(u)})`)
      if (pid) t.ok(await killLeft(Number(pid[1]), [fx.op, 'stopbg']), 'and it is gone once killed')
      t.match(u.stdout, /\nsignal 1\s*$/, `unconfined, the hangup ends it too (${describe(u)})`)
    })
  }
}

// ---- kernel filesystems -----------------------------------------------------------

// Their files check the uid, not capabilities: a confined root with /proc
// writable set sysctls (kernel.core_pattern: code run as the host's root)
// and any user the autogroup niceness of the caller's session. No
// read_write grant may name anything on one but a device node.
// A Node script run as the user in cwd, with args.
function nodeAs (user, cwd, script, ...args) {
  const argv = [...user.wrap, process.execPath, '-e', script, ...args]
  return spawnSync(argv[0], argv.slice(1), { cwd, env: plainNodeEnv(), encoding: 'utf8' })
}

// What confinePolicy, run as the user, says of policies granting the
// workspace and each [p, scope] of grants read_write: for each, 'accepted'
// or the error's kind and message (one Node process of the user's asks
// them all).
function grantsAs (user, ws, grants) {
  const r = nodeAs(user, ws, `const s = require(${JSON.stringify(PACKAGE)}); const [ws, grants] = process.argv.slice(1)
    console.log(JSON.stringify(JSON.parse(grants).map(([p, scope]) => {
      try { s.confinePolicy(['true'], new s.SandboxPolicy('allow_all').grant(ws, 'read_write', 'subtree').grant(p, 'read_write', scope), { cwd: ws }); return 'accepted' }
      catch (e) { return e.kind + ': ' + e.message }
    })))`, ws, JSON.stringify(grants))
  if (r.status !== 0) throw new Error(`asking as ${user.name} failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}
const KERNEL_FS_REFUSED = /^InvalidPolicy: .*grants\[1\].*a kernel filesystem \(\/proc, \/sys, \/dev and the like\) cannot be granted read_write/

for (const user of users()) {
  t.test(`a kernel filesystem cannot be granted read_write [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return // (a Sandy policy)
    const root = tree(fx, user, { 'ws/f': 'x\n' })
    const ws = path.join(root, 'ws')
    // (a cgroup filesystem, wherever this host mounts one)
    const cgroup = fs.readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' '))
      .find((f) => f[2] === 'cgroup2' || f[2] === 'cgroup')?.[1]
    // (and a tmpfs within one of the kernel's trees, which shows tmpfs's
    // magic: /dev is devtmpfs, whose nodes a confined root would replace)
    const tmpfsWithin = fs.readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' '))
      .filter((f) => (f[2] === 'tmpfs' || f[2] === 'devtmpfs') && /^\/(dev|sys)(\/|$)/.test(f[1])).map((f) => f[1])
      .filter((p, i, all) => all.indexOf(p) === i).map((p) => [p, 'subtree'])
    t.ok(tmpfsWithin.some(([p]) => p === '/dev'), 'this host has /dev on a tmpfs-like filesystem')
    const kernelFs = [['/proc', 'subtree'], ['/proc/sys/kernel', 'subtree'], ['/proc/self/autogroup', 'subtree'], ['/sys', 'subtree'],
      ...(cgroup ? [[cgroup, 'subtree']] : []), ...tmpfsWithin, ['/dev/pts', 'subtree']]
    const answers = grantsAs(user, ws, [...kernelFs, ['/dev/pts/ptmx', 'exact']])
    kernelFs.forEach(([p], i) => t.match(answers[i], KERNEL_FS_REFUSED, `${p}: refused`))
    t.equal(answers[kernelFs.length], 'accepted', 'a device node on one stays grantable')
    // (and the launcher, which resolves again, runs with it)
    const run = nodeAs(user, ws, `const s = require(${JSON.stringify(PACKAGE)}); const c = s.confinePolicy([${JSON.stringify(fx.op)}, 'hello'],
        new s.SandboxPolicy('allow_all').grant(${JSON.stringify(ws)}, 'read', 'subtree').grant(${JSON.stringify(fx.bin)}, 'read', 'subtree').allowExecute(${JSON.stringify(fx.bin)}, 'subtree')
          .grant('/dev/pts/ptmx', 'read_write', 'exact'), { cwd: ${JSON.stringify(ws)} })
      const r = require('node:child_process').spawnSync(c.argv[0], c.argv.slice(1), { encoding: 'utf8' }); process.stdout.write(r.stdout + r.stderr)`)
    t.match(run.stdout, /^ok hello/m, `confined with the device granted, the command runs (${run.stdout.trim()} ${run.stderr.trim()})`)
    if (user.uid === 0) {
      // (the same value written back: that the write is allowed is all)
      const swappiness = fs.readFileSync('/proc/sys/vm/swappiness', 'utf8')
      fs.writeFileSync('/proc/sys/vm/swappiness', swappiness)
      t.pass('unconfined, root writes a sysctl')
      const node = path.join('/dev', `sandy-test-${process.pid}`)
      fs.writeFileSync(node, '')
      fs.renameSync(node, `${node}.moved`)
      fs.unlinkSync(`${node}.moved`)
      t.pass('unconfined, root adds, renames and removes entries of /dev')
      const dir = fs.mkdtempSync(path.join(fx.base, 'proc-'))
      fs.chmodSync(dir, 0o755)
      execFileSync('mount', ['-t', 'proc', 'proc', dir])
      t.teardown(() => spawnSync('umount', ['-l', dir]))
      t.match(grantsAs(user, ws, [[dir, 'subtree']])[0], /^InvalidPolicy: .*cannot be granted read_write/, 'a procfs mounted anywhere else: refused')
    } else {
      // (in a session of its own, so in an autogroup of its own: a process
      // whose session never called setsid is in the kernel's default one,
      // which has no such file to write; the nice value read is written back)
      const w = spawnSync(user.wrap[0], [...user.wrap.slice(1), 'setsid', '--wait', '/bin/sh', '-c',
        'read -r group word nice < /proc/self/autogroup && echo "$nice" > /proc/self/autogroup && echo "$group $word $nice"'], { encoding: 'utf8' })
      t.equal(w.status, 0, `unconfined, the user writes its session's autogroup (${w.stdout.trim()} ${w.stderr.trim()})`)
      t.match(w.stdout, /^\/autogroup-\d+ nice -?\d+$/m, 'and it was an autogroup of its own')
    }
  })
}

// The same filesystems shown elsewhere, with tmpfs's magic outside the
// kernel's trees: a bind mount of /dev, a devtmpfs mounted again (the
// superblock of /dev), a bind of /dev/shm, one of a tmpfs within /sys.
// What counts is the device (csrc/core/kernel_fs.h); a grant, a workspace
// and a writable root are refused alike.
const ROOT_ONLY = process.getuid() !== 0 && `${UNCOVERED} a kernel filesystem shown elsewhere: mounting one needs root`
const sysTmpfs = fs.readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' '))
  .find((f) => f[2] === 'tmpfs' && /^\/sys\//.test(f[1]))?.[1]
t.test('a kernel filesystem shown elsewhere cannot be granted read_write', { skip: ROOT_ONLY }, async (t) => {
  if (backendsFor(t, users()[0], ['sandy']).length === 0) return // (a Sandy policy)
  const base = fs.mkdtempSync(path.join(fx.base, 'shown-'))
  fs.chmodSync(base, 0o755)
  const shown = {}
  for (const [name, how] of [['devbind', ['--bind', '/dev']], ['devtmpfs', ['-t', 'devtmpfs', 'devtmpfs']],
    ['shmbind', ['--bind', '/dev/shm']], ...(sysTmpfs ? [['sysbind', ['--bind', sysTmpfs]]] : [])]) {
    shown[name] = path.join(base, name)
    fs.mkdirSync(shown[name])
    execFileSync('mount', [...how, shown[name]])
    t.teardown(() => spawnSync('umount', ['-l', shown[name]]))
  }
  const entry = `sandy-test-${process.pid}`
  fs.writeFileSync(path.join(shown.devbind, entry), '')
  t.ok(fs.existsSync(path.join('/dev', entry)), 'unconfined, an entry made through the bind of /dev lands in the host\'s /dev')
  fs.unlinkSync(path.join('/dev', entry))
  const provider = createLocalSandboxProvider({ backend: 'sandy' })
  for (const user of users()) {
    const ws = ownDir(user)
    const answers = grantsAs(user, ws, Object.values(shown).map((dir) => [dir, 'subtree']))
    Object.keys(shown).forEach((name, i) => t.match(answers[i], KERNEL_FS_REFUSED, `${name} as a grant [${user.name}]: refused`))
  }
  const ws = ownDir(users()[0])
  for (const [name, dir] of Object.entries(shown)) {
    t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: dir }), { message: /lies on a kernel filesystem/ }, `${name} as the workspace: refused`)
    t.throws(() => createLocalSandboxProvider({ backend: 'sandy', writableRoots: [dir] }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }),
      { message: /lies on a kernel filesystem/ }, `${name} as a writable root: refused`)
  }
})

// ---- a process group the host shares --------------------------------------------

// The launcher's outer process (or the reaper) stays in the caller's
// process group, as does the command: "who" 0 of the group scope would
// renice the caller itself. The run is its own group's leader here, so an
// unconfined control reaches nothing else.
for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`the process group the command shares with the host keeps its priorities [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const cmd = sh(`${fx.op} setprio pgrp 0; ${fx.op} ioprio pgrp 0; read x`)
      // (the control first: unconfined, both reach the group's leader)
      const u = session([...user.wrap, ...cmd], { cwd, detached: true })
      await u.until(/^(ok|fail).*\n(ok|fail).*\n/m)
      const reniced = hostState(u.child.pid)
      u.end()
      const ur = await u.closed
      t.same(results(ur.stdout), ['ok', 'ok'], 'unconfined, both work')
      t.same([reniced.nice, reniced.ioprio], ['7', 'best-effort: prio 7'], 'and reach the group\'s leader')

      const c = confineAs(user, backend, cmd, { mode: 'read-only', workspaceRoot: cwd })
      const s = session([...user.wrap, ...c.argv], { cwd, detached: true })
      await s.until(/^(ok|fail).*\n(ok|fail).*\n/m)
      const leader = hostState(s.child.pid)
      s.end()
      const r = await s.closed
      t.same(results(r.stdout), ['fail setpriority EPERM', 'fail ioprio_set EPERM'], `confined: both refused (${describe(r)})`)
      // (what the command would set, which the control above shows it
      // sets unconfined)
      t.ok(leader.nice !== '7' && leader.ioprio !== 'best-effort: prio 7', `the group's leader outside the sandbox kept its priorities (${leader.nice}, ${leader.ioprio})`)
    })
  }
}

// ---- the Landlock-only level: seccomp in place of a PID namespace ---------------

// Each call aimed at a host process is refused; the same call aimed at the
// caller itself (0) works. Calls no filter can judge by their target are
// refused whatever it is (process_madvise takes a pidfd; kcmp always was).
const LEVEL_CALLS = [
  ['prlimit'], ['setprio', 'process'], ['ioprio', 'process'], ['affinity'], ['sched'], ['schedparam'], ['schedattr'],
  ['migrate'], ['movepages']
]
const user = users().find((u) => u.uid !== 0)
if (user !== undefined) {
  for (const backend of backendsFor(t, user, ['landlock'])) {
    t.test(`seccomp keeps host processes out of reach [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const pid = await victim(t, user)
      const calls = (target) => LEVEL_CALLS.map(([op, scope]) => [fx.op, op, ...(scope ? [scope] : []), String(target)])
      const refusedAlways = [[fx.op, 'setprio', 'user', '0'], [fx.op, 'ioprio', 'user', '0'], [fx.op, 'setprio', 'pgrp', '0'],
        [fx.op, 'ioprio', 'pgrp', '0'], [fx.op, 'madvise', '0'], [fx.op, 'kcmp', '0']]
      const c = confineAs(user, backend, sh(script([...calls(pid), ...calls(0), ...refusedAlways])), { mode: 'read-only', workspaceRoot: cwd })
      const r = await session([...user.wrap, ...c.argv], { cwd }).closed
      const got = results(r.stdout)
      t.equal(got.length, 2 * LEVEL_CALLS.length + refusedAlways.length, `every call reported (${describe(r)})`)
      LEVEL_CALLS.forEach(([op], i) => {
        t.match(got[i], /^fail \S+ EPERM$/, `${op} aimed at a host process: EPERM`)
        t.equal(got[LEVEL_CALLS.length + i], 'ok', `${op} aimed at the caller: works`)
      })
      refusedAlways.forEach((a, i) => t.match(got[2 * LEVEL_CALLS.length + i], /^fail \S+ EPERM$/, `${a.slice(1).join(' ')}: EPERM`))
      const u = await session([...user.wrap, ...sh(script([...calls(pid), [fx.op, 'madvise', '0'], [fx.op, 'kcmp', '0']]))], { cwd }).closed
      t.same(results(u.stdout), [...LEVEL_CALLS, [], []].map(() => 'ok'), `unconfined, every call works (${describe(u)})`)
    })
  }
}

// The host's System V objects and POSIX queues, made by the user: the
// full level and bubblewrap have an IPC namespace of their own (none
// there); the Landlock-only level shares the host's, where seccomp refuses
// every call that would make, open or operate one.
const IPC_SAYS = { sandy: 'ENOENT', bwrap: 'ENOENT', landlock: 'EPERM' }
for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`the host's System V and POSIX IPC objects are out of reach [${backend}, ${user.name}]`, async (t) => {
      const cwd = ownDir(user)
      const key = String(0x5a000000 + ((process.pid * 4 + ['sandy', 'bwrap', 'landlock'].indexOf(backend) * 2 + (user.uid === 0 ? 0 : 1)) & 0xffffff))
      const name = `/sandy-test-${process.pid}-${backend}-${user.uid}`
      const as = (argv) => { const full = [...user.wrap, ...argv]; return spawnSync(full[0], full.slice(1), { cwd, encoding: 'utf8' }) }
      const made = as([fx.op, 'ipc', 'make', key, name])
      t.equal(made.status, 0, `the user makes a segment, a semaphore set, a queue and a POSIX queue (${made.stdout.trim()})`)
      t.teardown(() => as([fx.op, 'ipc', 'remove', key, name]))
      const c = confineAs(user, backend, [fx.op, 'ipc', 'open', key, name], { mode: 'read-only', workspaceRoot: cwd })
      const r = as(c.argv)
      t.same(results(r.stdout), ['shmget', 'semget', 'msgget', 'mq_open'].map((s) => `fail ${s} ${IPC_SAYS[backend]}`), `confined: none reached (${describe({ code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr })})`)
      const u = as([fx.op, 'ipc', 'open', key, name])
      t.same(results(u.stdout), ['ok', 'ok', 'ok', 'ok'], 'unconfined: the same calls reach each one')
    })
  }
}

// ---- a Sandy policy -------------------------------------------------------------

// confinePolicy's launches get the same boundary: the holder that starts
// the launcher has no number in the command's PID namespace, and /proc
// (granted) lists only the command's own processes.
for (const [name, action] of [['kill -0 of the process that started it', 'kill0'], ['prlimit of the process that started it', 'prlimit']]) {
  escapeCase(t, fx, `a Sandy policy: ${name}`, (user) => {
    const root = tree(fx, user, { 'ws/f': 'x\n' })
    const policy = basePolicy(fx).grant(path.join(root, 'ws'), AccessMode.ReadWrite, PathScope.Subtree)
      .grant('/proc', AccessMode.Read, PathScope.Subtree)
    return { argv: [fx.op, action, 'PPID'], policy, cwd: path.join(root, 'ws'), prefix: [fx.hold, '--'], errnos: ['ESRCH', 'EPERM'] }
  })
}

escapeCase(t, fx, 'a Sandy policy: /proc lists no process outside the sandbox', (user) => {
  const root = tree(fx, user, { 'ws/f': 'x\n' })
  const policy = basePolicy(fx).grant(path.join(root, 'ws'), AccessMode.ReadWrite, PathScope.Subtree)
    .grant('/proc', AccessMode.Read, PathScope.Subtree)
  return { argv: [fx.op, 'stat', '/proc/PPID'], policy, cwd: path.join(root, 'ws'), prefix: [fx.hold, '--'], errnos: ['ENOENT'] }
})
