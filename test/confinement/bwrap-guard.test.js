'use strict'
// bubblewrap behind the guard (issue 10, docs/bwrap-guard.md): loader
// variables reach no code outside the sandbox and still reach the command;
// no value from the environment appears on any command line; this
// package's seccomp filter runs inside; the bounding set is empty. Every
// attack is also shown to work where the guard does not stand in the way.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const { users, setup, fixtures, tree, backendsFor, withSanitizerEnv, FAIL_LINE } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { createLocalSandboxProvider, classifyExit } = require('../..')
const sandyClassify = (c, r) => classifyExit(c, { code: r.code, signal: null, stderr: r.stderr }).kind
const { UNCOVERED } = require('../../scripts/test-verdict.js')

const fx = setup(t)
const BWRAP = '/usr/bin/bwrap'
const MODES = ['read-only', 'workspace-write']

fixtures(fx.bin, { SHARED: ['preload', 'audit'] })
const PRELOAD = path.join(fx.bin, 'preload.so')
const AUDIT = path.join(fx.bin, 'audit.so')

// A workspace of the user's own, holding copies of what the command needs
// (the seam's workspace-write mode hides the host's /tmp, where the
// fixtures are built).
function workspace (user) {
  return tree(fx, user, {
    'op': { copy: fx.op },
    'lib/preload.so': { copy: PRELOAD },
    'lib/audit.so': { copy: AUDIT },
    'mnt/.keep': ''
  })
}

function run (argv, { user, env, cwd, timeout = patience(20000) }) {
  const full = [...user.wrap, ...argv]
  const r = spawnSync(full[0], full.slice(1), { cwd, env: withSanitizerEnv(env), encoding: 'utf8', timeout })
  return { code: r.status, stdout: r.stdout || '', stderr: r.stderr || '' }
}

const describe = (r) => `exit ${r.code}; stdout ${JSON.stringify(r.stdout.slice(0, 300))}; stderr ${JSON.stringify(r.stderr.slice(0, 600))}`

// Four of glibc's loader variables, each with a trace of its own in the
// program whose loader honoured it: a preloaded constructor and an audit
// library name that program; LD_SHOW_AUXV prints its AT_EXECFN; LD_DEBUG
// lists the libraries it searched (only bwrap links libselinux).
function loaderEnv (ws) {
  return {
    PATH: '/usr/bin:/bin',
    LD_PRELOAD: path.join(ws, 'lib/preload.so'),
    LD_AUDIT: path.join(ws, 'lib/audit.so'),
    LD_SHOW_AUXV: '1',
    LD_DEBUG: 'libs',
    GLIBC_TUNABLES: 'glibc.malloc.perturb=0',
    SANDY_ORDINARY: 'kept'
  }
}
const BWRAP_TRACES = [
  [/PRELOAD-RAN \/usr\/bin\/bwrap/, 'LD_PRELOAD'],
  [/AUDIT-RAN \/usr\/bin\/bwrap/, 'LD_AUDIT'],
  [/AT_EXECFN:\s+\/usr\/bin\/bwrap/, 'LD_SHOW_AUXV'],
  [/libselinux\.so/, 'LD_DEBUG']
]

// The sanitizer stage's launcher is a dynamically linked test build: the
// variables reach it by construction. The shipped one is static, and the
// first stage checks it.
const SANITIZED = process.env.ASAN_OPTIONS !== undefined &&
  `${UNCOVERED} loader variables in the sanitizer stage: its launcher is dynamically linked`

for (const user of users()) {
  t.test(`loader variables reach the command, not bwrap [${user.name}]`, { skip: SANITIZED }, async (t) => {
    if (backendsFor(t, user, ['bwrap']).length === 0) return
    const provider = createLocalSandboxProvider({ backend: 'bwrap' })
    for (const mode of MODES) {
      const ws = workspace(user)
      const env = loaderEnv(ws)
      const c = provider.confine(['/usr/bin/env'], { mode, workspaceRoot: ws })
      const r = run(c.argv, { user, env, cwd: ws })
      t.equal(r.code, 0, `${mode}: runs (${describe(r)})`)
      const all = r.stdout + r.stderr
      for (const [trace, name] of BWRAP_TRACES) t.notMatch(all, trace, `${mode}: ${name} ran nothing in bwrap`)
      t.match(r.stderr, /PRELOAD-RAN \/usr\/bin\/env/, `${mode}: the command's own loader preloaded the library`)
      t.match(r.stderr, /AUDIT-RAN \/usr\/bin\/env/, `${mode}: and loaded the audit library`)
      t.match(all, /AT_EXECFN:\s+\/usr\/bin\/env/, `${mode}: and showed its auxiliary vector`)
      for (const [k, v] of Object.entries(env)) {
        t.ok(r.stdout.split('\n').includes(`${k}=${v}`), `${mode}: the command sees ${k} unchanged`)
      }
    }
    // the same variables, the same bwrap, without the guard
    const ws = workspace(user)
    const bare = run([BWRAP, '--ro-bind', '/', '/', '--', '/usr/bin/true'], { user, env: loaderEnv(ws), cwd: ws })
    t.equal(bare.code, 0, `unguarded bwrap runs (${describe(bare)})`)
    for (const [trace, name] of BWRAP_TRACES) t.match(bare.stdout + bare.stderr, trace, `unguarded, ${name} runs code in bwrap`)
  })
}

// Every process's command line, as any user can read it.
function commandLines () {
  const out = []
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      out.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1'))
    } catch {}
  }
  return out
}

// A FIFO in dir for a command to read one byte from: it runs until the
// watcher below has seen it run.
function gate (dir) {
  const fifo = path.join(dir, 'gate')
  execFileSync('mkfifo', ['-m', '0666', fifo])
  return fifo
}
const WAIT_AT = (fifo) => ['/usr/bin/head', '-c1', fifo]

// Runs argv, a command that reads one byte from fifo (WAIT_AT), while
// watching every command line for the secrets until it ends. Once the
// command holds the FIFO open (a writer's non-blocking open succeeds), it
// is running: after SCANS more scans the byte lets it end. running: the
// command was seen so.
const SCANS = 5
async function watchCommandLines (argv, { user, env, cwd, fifo }) {
  const full = [...user.wrap, ...argv]
  const child = spawn(full[0], full.slice(1), { cwd, env: withSanitizerEnv(env), stdio: 'ignore' })
  const done = new Promise((resolve) => child.on('close', resolve))
  let ended = false
  done.then(() => { ended = true })
  const seen = new Set()
  let writer = null
  let after = 0
  try {
    while (!ended) {
      for (const line of commandLines()) for (const s of Object.values(env)) if (s.includes('sandy-secret') && line.includes(s)) seen.add(s)
      if (writer === null) {
        try {
          writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
        } catch (e) {
          if (e.code !== 'ENXIO') throw e // (no reader yet)
        }
      } else if (++after === SCANS) {
        fs.writeSync(writer, 'x')
      }
      // (a pause between scans, not a bound: the gate says when to stop)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    // (whatever happened, the command is let go and its end awaited)
    if (writer !== null) fs.closeSync(writer)
    else if (!ended) {
      try {
        fs.closeSync(fs.openSync(fifo, fs.constants.O_RDWR))
      } catch {}
    }
    await done
  }
  return { code: await done, seen: [...seen], running: writer !== null }
}

for (const user of users()) {
  t.test(`no value from the environment appears on a command line [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['bwrap']).length === 0) return
    const provider = createLocalSandboxProvider({ backend: 'bwrap' })
    for (const mode of MODES) {
      const ws = workspace(user)
      const fifo = gate(ws)
      const env = {
        PATH: '/usr/bin:/bin',
        API_KEY: `sandy-secret-ordinary-${mode}`,
        LD_LIBRARY_PATH: `/nonexistent/sandy-secret-loader-${mode}`,
        GLIBC_TUNABLES: `sandy-secret-tunable-${mode}`
      }
      const c = provider.confine(WAIT_AT(fifo), { mode, workspaceRoot: ws })
      t.notMatch(c.argv.join('\0'), /sandy-secret/, `${mode}: the confined argv holds no secret`)
      const r = await watchCommandLines(c.argv, { user, env, cwd: ws, fifo })
      t.equal(r.code, 0, `${mode}: runs`)
      t.ok(r.running, `${mode}: the command lines were read while it ran (${SCANS} scans and more)`)
      t.same(r.seen, [], `${mode}: no secret seen on any command line`)
    }
    // the scanner does see a value passed the way the guard avoids
    const env = { PATH: '/usr/bin:/bin', API_KEY: 'sandy-secret-on-the-command-line' }
    const fifo = gate(workspace(user))
    const bare = await watchCommandLines([BWRAP, '--ro-bind', '/', '/', '--setenv', 'API_KEY', env.API_KEY, '--', ...WAIT_AT(fifo)], { user, env, cwd: '/', fifo })
    t.ok(bare.running, 'bwrap ran the command')
    t.same(bare.seen, [env.API_KEY], 'bwrap --setenv on the command line shows the value to every user')
  })
}

// The calls the `sandy` backend's filter refuses, under bwrap.
const SECCOMP_CASES = [
  ['add-key', []],
  ['keyctl', []],
  ['unshare', ['user']],
  ['mount', ['mnt']],
  ['io_uring', []]
]

for (const user of users()) {
  t.test(`this package's seccomp filter runs inside bwrap [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['bwrap']).length === 0) return
    const provider = createLocalSandboxProvider({ backend: 'bwrap' })
    for (const mode of MODES) {
      const ws = workspace(user)
      for (const [op, args] of SECCOMP_CASES) {
        const argv = [path.join(ws, 'op'), op, ...args.map((a) => a === 'mnt' ? path.join(ws, a) : a)]
        const c = provider.confine(argv, { mode, workspaceRoot: ws })
        const r = run(c.argv, { user, env: { PATH: '/usr/bin:/bin' }, cwd: ws })
        const m = FAIL_LINE.exec(r.stdout)
        t.equal(r.code, 1, `${mode} ${op}: fails (${describe(r)})`)
        t.ok(m && m[2] === 'EPERM', `${mode} ${op}: refused with EPERM`)
        const bare = run(argv, { user, env: { PATH: '/usr/bin:/bin' }, cwd: ws })
        t.equal(bare.code, 0, `${mode} ${op}: works unconfined (${describe(bare)})`)
      }
      const c = provider.confine(['/bin/sh', '-c', 'grep -E "^(Seccomp|CapBnd):" /proc/self/status'], { mode, workspaceRoot: ws })
      const r = run(c.argv, { user, env: { PATH: '/usr/bin:/bin' }, cwd: ws })
      t.match(r.stdout, /^Seccomp:\s+2$/m, `${mode}: a filter is loaded`)
      t.match(r.stdout, /^CapBnd:\s+0+$/m, `${mode}: the bounding set is empty`)
    }
    const bare = run([BWRAP, '--ro-bind', '/', '/', '--', '/bin/sh', '-c', 'grep -E "^Seccomp:" /proc/self/status'], { user, env: { PATH: '/usr/bin:/bin' }, cwd: '/' })
    t.match(bare.stdout, /^Seccomp:\s+0$/m, 'bwrap alone loads no filter')
  })
}

// bwrap's pid 1 runs under the filter too: it must still reap and report.
for (const user of users()) {
  t.test(`bwrap's reaper works under the filter [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['bwrap']).length === 0) return
    const ws = workspace(user)
    const script = '(sleep 0.1; exit 3) & wait $!; echo "child=$?"; sleep 0.1 & exit 7'
    const c = createLocalSandboxProvider({ backend: 'bwrap' }).confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspaceRoot: ws })
    const r = run(c.argv, { user, env: { PATH: '/usr/bin:/bin' }, cwd: ws })
    t.equal(r.code, 7, `the command's status comes back (${describe(r)})`)
    t.equal(r.stdout, 'child=3\n', 'a subprocess is waited for with its status')
  })
}

// Third review of issue 10: bubblewrap's fresh /proc was writable, and uid
// 0 owns its entries (a chmod there changes the kernel's one copy for the
// whole host, F1); a working directory outside bubblewrap's tree fell back
// to $HOME (F5). Now /proc is read-only inside and such a directory is a
// runner failure.
t.test('a confined root cannot chmod /proc entries under bwrap', { skip: process.getuid() !== 0 && `${UNCOVERED} /proc entries as root: this run is not root` }, async (t) => {
  const root = users()[0]
  if (backendsFor(t, root, ['bwrap']).length === 0) return
  const ws = workspace(root)
  const before = fs.statSync('/proc/uptime').mode
  for (const mode of MODES) {
    const c = createLocalSandboxProvider({ backend: 'bwrap' }).confine(['/bin/sh', '-c', 'chmod 0444 /proc/uptime && echo CHMOD; true'], { mode, workspaceRoot: ws })
    const r = run(c.argv, { user: root, env: { PATH: '/usr/bin:/bin' }, cwd: ws })
    t.equal(r.stdout, '', `${mode}: refused (${r.stderr.trim()})`)
    t.match(r.stderr, /Read-only file system/)
  }
  t.equal(fs.statSync('/proc/uptime').mode, before, 'the host\'s entry is untouched')
  const bare = run(['/bin/sh', '-c', 'chmod 0444 /proc/uptime && echo CHMOD'], { user: root, env: { PATH: '/usr/bin:/bin' }, cwd: ws })
  t.equal(bare.stdout, 'CHMOD\n', 'unconfined, root may (with the mode it already has)')
})

for (const user of users()) {
  t.test(`a working directory bwrap does not show is a runner failure [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['bwrap']).length === 0) return
    const ws = workspace(user)
    // in workspace-write, the host's /tmp is replaced by the private one
    const hidden = fs.mkdtempSync(path.join(fx.base, 'cwd-'))
    fs.chmodSync(hidden, 0o755)
    const c = createLocalSandboxProvider({ backend: 'bwrap' }).confine(['/bin/sh', '-c', 'pwd'], { mode: 'workspace-write', workspaceRoot: ws })
    const r = run(c.argv, { user, env: { PATH: '/usr/bin:/bin' }, cwd: hidden })
    t.not(r.code, 0, `refused (${describe(r)})`)
    t.equal(sandyClassify(c, r), 'runner-failure', 'as a runner failure')
    t.equal(r.stdout, '', 'nothing ran')
  })
}
