'use strict'
// Every mount beneath a writable grant is read-only inside the sandbox
// unless that mount is granted itself (issue 9 item 1, `sandy` backend;
// issue 10, `bwrap`, whose guard remounts each read-only). The host mounts kernel file
// systems and a tmpfs beneath a workspace; the confined command is asked
// for the kernel's answer (the write, or its own mountinfo), and every
// action is also shown to work unconfined.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const { users, setup, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const sandy = require('../..')

const ROOT_ONLY = process.getuid() !== 0 && `${UNCOVERED} host mounts beneath a workspace: this run is not root`
const fx = setup(t)
const SH = '/bin/sh'

function run (argv, { cwd, wrap = [], timeout = patience(20000) } = {}) {
  const full = [...wrap, ...argv]
  const r = spawnSync(full[0], full.slice(1), { cwd, encoding: 'utf8', timeout, env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }) })
  return { code: r.status, stdout: r.stdout || '', stderr: r.stderr || '' }
}

// A workspace owned by the user, with host mounts beneath it. At teardown
// every mount beneath it (the test's own later ones too) is undone,
// lazily and deepest first, before the directory goes.
function workspace (t, user, mounts) {
  const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-submounts-'))
  fs.chmodSync(dir, 0o755)
  fs.chownSync(dir, user.uid, user.gid)
  t.teardown(() => {
    const beneath = () => fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
      .map((l) => (l.split(' ')[4] || '').replace(/\\040/g, ' ')).filter((m) => m === dir || m.startsWith(dir + '/'))
    for (let m = beneath(), tries = 0; m.length > 0 && tries < 5; m = beneath(), tries++) {
      for (const at of m.sort().reverse()) spawnSync('umount', ['-l', at])
    }
    fs.rmSync(dir, { recursive: true, force: true })
  })
  for (const [name, type, options] of mounts) {
    const at = path.join(dir, name)
    fs.mkdirSync(at)
    execFileSync('mount', ['-t', type, ...(options ? ['-o', options] : []), `sandy-${type}`, at])
  }
  return dir
}

// The options of the mount at `at`, as the command sees it.
// (the table writes a space as \040)
const MOUNT_OPTS = 'awk -v p="$1" \'{ gsub(/\\\\040/, " ", $5) } $5 == p { print $6 }\' /proc/self/mountinfo'

const KINDS = [
  ['tmpfs', 'tmpfs', 'mode=1777'],
  ['proc', 'proc', null],
  ['sys', 'sysfs', null],
  ['cgroup', 'cgroup2', null],
  // one beneath another, and a mount point the mount table escapes
  ['tmpfs/nested', 'tmpfs', 'mode=1777'],
  ['with space', 'tmpfs', 'mode=1777']
]

for (const backend of ['sandy', 'bwrap']) {
  for (const user of users()) {
    t.test(`kernel file systems and a tmpfs beneath a workspace are read-only inside [${backend}, ${user.name}]`, { skip: ROOT_ONLY }, async (t) => {
      const ws = workspace(t, user, KINDS)
      const provider = sandy.createLocalSandboxProvider({ backend })
      for (const [name] of KINDS) {
        const at = path.join(ws, name)
        const c = provider.confine([SH, '-c', MOUNT_OPTS, 'sh', at], { mode: 'workspace-write', workspaceRoot: ws })
        const inside = run(c.argv, { cwd: ws, wrap: user.wrap })
        t.match(inside.stdout, /^ro[,\n]/, `${name}: read-only inside (${inside.stdout.trim()} ${inside.stderr.trim()})`)
        const bare = run([SH, '-c', MOUNT_OPTS, 'sh', at], { cwd: ws, wrap: user.wrap })
        t.match(bare.stdout, /^rw[,\n]/, `${name}: writable on the host`)
      }
      // the kernel's answer to real writes: a sysctl written with its own
      // value (root only may), files in the tmpfs mounts, the workspace
      const write = [
        ...(user.uid === 0 ? ['v=$(cat proc/sys/kernel/domainname) && printf "%s\\n" "$v" > proc/sys/kernel/domainname && echo PROC'] : []),
        'echo x > tmpfs/f && echo TMPFS', 'echo x > tmpfs/nested/f && echo NESTED',
        'echo x > "with space/f" && echo SPACE', 'echo y > own && echo WS'
      ].join('; ')
      const c = provider.confine([SH, '-c', write], { mode: 'workspace-write', workspaceRoot: ws })
      const r = run(c.argv, { cwd: ws, wrap: user.wrap })
      t.equal(r.stdout, 'WS\n', `confined: only the workspace's own files are written (${r.stderr.trim()})`)
      if (user.uid === 0) t.match(r.stderr, /proc\/sys\/kernel\/domainname: Read-only file system/)
      t.match(r.stderr, /tmpfs\/f: Read-only file system/)
      t.match(r.stderr, /tmpfs\/nested\/f: Read-only file system/)
      t.match(r.stderr, /with space\/f: Read-only file system/)
      t.notOk(fs.existsSync(path.join(ws, 'tmpfs', 'f')))
      fs.rmSync(path.join(ws, 'own'))
      const bare = run([SH, '-c', write], { cwd: ws, wrap: user.wrap })
      t.equal(bare.stdout, `${user.uid === 0 ? 'PROC\n' : ''}TMPFS\nNESTED\nSPACE\nWS\n`, 'unconfined, every write works')
    })
  }
}

for (const user of users()) {
  t.test(`a tmpfs beneath the workspace is read-only, unless granted itself [${user.name}]`, { skip: ROOT_ONLY }, async (t) => {
    const ws = workspace(t, user, [['mnt', 'tmpfs', 'mode=1777'], ['other', 'tmpfs', 'mode=1777']])
    const write = 'echo x > mnt/f && echo MNT; echo x > other/f && echo OTHER'
    const policy = new sandy.SandboxPolicy('block_all').allowSubprocesses()
      .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
      .grant(ws, 'read_write', 'subtree').grant(path.join(ws, 'mnt'), 'read_write', 'subtree')
    const c = sandy.confinePolicy([SH, '-c', write], policy, { cwd: ws })
    const r = run(c.argv, { cwd: ws, wrap: user.wrap })
    t.equal(r.stdout, 'MNT\n', `the granted mount is writable, the other is not (${r.stderr.trim()})`)
    t.match(r.stderr, /other\/f: Read-only file system/)
    fs.rmSync(path.join(ws, 'mnt', 'f'))
    const bare = run([SH, '-c', write], { cwd: ws, wrap: user.wrap })
    t.equal(bare.stdout, 'MNT\nOTHER\n', 'unconfined, both are writable')
  })
}

// Starts a confined racer (argv, in cwd). stop() ends it and resolves once
// the racer itself is gone, not only the process spawned: the racer holds
// the write end of the spawned process's stdout, which reaches its end
// only when every holder has exited, and 'close' waits for that end. Each
// test awaits stop() before it returns, whatever failed, so its teardown
// never removes a tree the racer is still swapping (it once failed so:
// "ENOTDIR: rmdir .../sub", the next test's subtests running meanwhile).
// (SIGTERM is passed on to the racer: the launcher ends only once its PID
// namespace is empty; after a SIGKILL the racer would go on until its
// init's death reached it)
// It resolves to the racers still found in /proc then (none, or the wait
// is broken): processes running the op fixture's xchg from cwd.
function racing (argv, cwd) {
  const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'ignore'], env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }) })
  child.stdout.resume()
  const ended = new Promise((resolve) => child.on('close', resolve))
  const left = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').startsWith(`${cwd}/op\0xchg\0`)
    } catch {
      return false
    }
  })
  return {
    child,
    stop: async () => {
      child.kill('SIGTERM')
      await ended
      return left()
    }
  }
}

// A second confined command of the same user swaps the directory above a
// mount beneath the workspace with a decoy whose entry of the same name is
// a symlink, over and over (renameat2 RENAME_EXCHANGE). A runner that made
// the mount read-only by looking its path up again (bubblewrap's
// --remount-ro did) could be sent to the decoy, leaving the mount writable
// (fourth review of issue 9, F1: a confined root rewrote a kernel setting).
// Every write into the mount must fail, under both backends.
for (const backend of ['sandy', 'bwrap']) {
  for (const user of users()) {
    t.test(`a racer swapping the directories above a mount cannot keep it writable [${backend}, ${user.name}]`, { skip: ROOT_ONLY }, async (t) => {
      const ws = workspace(t, user, [])
      fs.mkdirSync(path.join(ws, 'a', 'm'), { recursive: true })
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=1777', 'sandy-race', path.join(ws, 'a', 'm')])
      fs.mkdirSync(path.join(ws, 'b'))
      fs.symlinkSync('/newroot', path.join(ws, 'b', 'm'))
      fs.copyFileSync(fx.op, path.join(ws, 'op'))
      execFileSync('chown', ['-hR', `${user.uid}:${user.gid}`, path.join(ws, 'a'), path.join(ws, 'b'), path.join(ws, 'op')])
      const provider = sandy.createLocalSandboxProvider({ backend })
      const racer = provider.confine([path.join(ws, 'op'), 'xchg', 'a', 'b'], { mode: 'workspace-write', workspaceRoot: ws })
      const full = [...user.wrap, ...racer.argv]
      const { child, stop } = racing(full, ws)
      const write = 'for d in a b; do if [ -d $d/m ] && [ ! -L $d/m ]; then echo x > $d/m/f 2>/dev/null && echo WROTE; fi; done; true'
      let wrote = 0
      let ran = 0
      try {
        for (let i = 0; i < 25; i++) {
          const c = provider.confine([SH, '-c', write], { mode: 'workspace-write', workspaceRoot: ws })
          const r = run(c.argv, { cwd: ws, wrap: user.wrap })
          if (r.code === 0) ran++
          if (/WROTE/.test(r.stdout)) wrote++
        }
        t.equal(child.exitCode, null, 'the racer was still swapping')
      } finally {
        t.same(await stop(), [], 'the racer is gone')
      }
      t.ok(ran > 0, `the writers ran (${ran} of 25)`)
      t.equal(wrote, 0, 'no write reached the mount')
      const bare = run([SH, '-c', write], { cwd: ws, wrap: user.wrap })
      t.match(bare.stdout, /WROTE/, 'unconfined, the mount is writable')
    })
  }
}

// A workspace inside another command's workspace: that command swaps the
// inner workspace's directory with a symlink to /dev over and over, while
// the inner one is confined again and again and creates a file in its
// workspace. bubblewrap's own path lookups (its --bind-fd mounts a path
// on Debian) once followed such a symlink, binding the host's /dev or
// /proc/sys writable (second review of issue 10, F1). Nothing may land in
// the host's /dev, under either backend.
for (const backend of ['sandy', 'bwrap']) {
  t.test(`a racer re-pointing the workspace root cannot redirect it [${backend}]`, { skip: ROOT_ONLY }, async (t) => {
    const root = users()[0]
    const outer = workspace(t, root, [])
    const inner = path.join(outer, 'sub')
    fs.mkdirSync(inner)
    fs.symlinkSync('../../../dev', path.join(outer, 'sub_real'))
    fs.copyFileSync(fx.op, path.join(outer, 'op'))
    const probe = `sandy-race-probe-${process.pid}`
    t.teardown(() => fs.rmSync(path.join('/dev', probe), { force: true }))
    const provider = sandy.createLocalSandboxProvider({ backend })
    const racer = provider.confine([path.join(outer, 'op'), 'xchg', 'sub', 'sub_real'], { mode: 'workspace-write', workspaceRoot: outer })
    const { child, stop } = racing(racer.argv, outer)
    let ran = 0
    let refused = 0
    try {
      for (let i = 0; i < 150; i++) {
        let c
        try {
          c = provider.confine([SH, '-c', `echo x > ${inner}/${probe}`], { mode: 'workspace-write', workspaceRoot: inner })
        } catch {
          refused++ // confine saw the symlink: refused
          continue
        }
        const r = run(c.argv, { cwd: '/' })
        if (r.code === 0) ran++
      }
      t.equal(child.exitCode, null, 'the racer was still swapping')
    } finally {
      t.same(await stop(), [], 'the racer is gone')
    }
    t.ok(ran + refused > 0, `the inner commands ran (${ran}) or were refused (${refused})`)
    t.notOk(fs.existsSync(path.join('/dev', probe)), 'nothing was created in the host\'s /dev')
  })
}

// A workspace on a read-only host mount: the command runs, and its writes
// fail as the kernel says (second review of issue 10, F3: the guard
// refused it instead).
for (const backend of ['sandy', 'bwrap']) {
  t.test(`a workspace on a read-only mount runs, its writes refused [${backend}]`, { skip: ROOT_ONLY }, async (t) => {
    const ws = workspace(t, users()[0], [['ro', 'tmpfs', 'mode=755']])
    const at = path.join(ws, 'ro')
    execFileSync('mount', ['-o', 'remount,ro', at])
    const c = sandy.createLocalSandboxProvider({ backend }).confine([SH, '-c', 'echo RAN; echo x > f'], { mode: 'workspace-write', workspaceRoot: at })
    const r = run(c.argv, { cwd: at })
    t.equal(r.stdout, 'RAN\n', `the command ran (${r.stderr.trim()})`)
    t.match(r.stderr, /f: Read-only file system/)
    const bare = run([SH, '-c', 'echo x > f'], { cwd: at })
    t.match(bare.stderr, /Read-only file system/, 'unconfined too')
  })
}

// The host adds a mount beneath the workspace while the command runs. The
// workspace is bound onto itself and made shared first (systemd shares
// every mount by default; this machine's are private), so the new mount
// propagates wherever a namespace lets it. Both backends start from a
// namespace with private propagation (the `sandy` view; bubblewrap's
// guard), so the command keeps writing to its own directory.
async function lateMount (t, backend) {
  const root = users()[0]
  const ws = workspace(t, root, [])
  execFileSync('mount', ['--bind', ws, ws])
  execFileSync('mount', ['--make-shared', ws])
  fs.mkdirSync(path.join(ws, 'late'))
  // (the command says it runs, its view made; the host mounts only then)
  const script = 'echo RUNNING; while [ ! -e go ]; do sleep 0.05; done; echo x > late/f && echo WROTE'
  const c = sandy.createLocalSandboxProvider({ backend }).confine([SH, '-c', script], { mode: 'workspace-write', workspaceRoot: ws })
  const child = spawn(c.argv[0], c.argv.slice(1), { cwd: ws, env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }) })
  let out = ''
  let running
  const started = new Promise((resolve) => { running = resolve })
  child.stdout.on('data', (d) => {
    out += d
    if (out.includes('RUNNING\n')) running()
  })
  const done = new Promise((resolve) => child.on('close', resolve))
  try {
    await Promise.race([started, done])
    execFileSync('mount', ['-t', 'tmpfs', 'sandy-late', path.join(ws, 'late')])
  } finally {
    fs.writeFileSync(path.join(ws, 'go'), '')
    await done
  }
  t.equal(out, 'RUNNING\nWROTE\n', 'the command wrote to late/')
  const inHostMount = fs.readdirSync(path.join(ws, 'late'))
  t.equal(spawnSync('umount', ['-l', path.join(ws, 'late')]).status, 0, 'the host unmounts it again')
  return { ws, inHostMount }
}

for (const backend of ['sandy', 'bwrap']) {
  t.test(`a mount the host adds beneath the workspace during a run is not reachable from inside [${backend}]`, { skip: ROOT_ONLY }, async (t) => {
    const { ws, inHostMount } = await lateMount(t, backend)
    t.same(inHostMount, [], 'the host\'s new mount is untouched (private propagation)')
    t.ok(fs.existsSync(path.join(ws, 'late', 'f')), 'the write went to the workspace directory beneath it')
    execFileSync('mount', ['-t', 'tmpfs', 'sandy-late', path.join(ws, 'late')])
    t.equal(run([SH, '-c', 'echo x > late/f && echo WROTE'], { cwd: ws }).stdout, 'WROTE\n', 'unconfined, a write lands in the new mount')
    t.same(fs.readdirSync(path.join(ws, 'late')), ['f'])
  })
}
