'use strict'
// Escape suite, the process boundary: namespaces and mounts, the parent
// (ptrace, signals, /proc/<parent>), /proc/self/root, the terminal, the
// keyring, and the process's own confinement facts.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const {
  AccessMode, PathScope, setup, tree, basePolicy, escapeCase, describe, withoutSandy
} = require('../helpers/sandbox.js')

// (every case here confines a Sandy policy)
if (withoutSandy(t)) return
const fx = setup(t)

// ws: writable grant and cwd; out: no grant. /proc readable where a case
// needs it, so that the failures below are not just "no /proc here".
function make (user, { proc = false, subprocesses = false } = {}) {
  const root = tree(fx, user, { 'ws/mnt': null, 'ws/file': 'ws\n', 'out/file': 'out\n' })
  const at = (rel) => path.join(root, rel)
  let policy = basePolicy(fx, { subprocesses }).grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
  if (proc) policy = policy.grant('/proc', AccessMode.Read, PathScope.Subtree)
  return { root, at, policy, cwd: at('ws') }
}

const op = (...args) => [fx.op, ...args]
const DENIED = ['EPERM', 'EACCES', 'ENOSYS']

// ---- mounts and namespaces -----------------------------------------------
for (const [action, arg] of [
  ['mount', 'ws/mnt'],
  ['fsopen', null],
  ['pivot_root', 'ws/mnt'],
  ['chroot', 'ws'],
  ['unshare', 'user'],
  ['unshare', 'all']
]) {
  escapeCase(t, fx, `${action}${arg ? ` ${arg}` : ''}`, (user) => {
    const s = make(user)
    return { ...s, argv: op(action, ...(arg ? [arg.includes('/') || arg === 'ws' ? s.at(arg) : arg] : [])), errnos: DENIED }
  })
}

escapeCase(t, fx, 'setns into a namespace that is not its own', (user) => {
  const s = make(user, { proc: true, subprocesses: true })
  return { ...s, argv: op('setns'), prefix: [fx.hold, '--'], errnos: DENIED }
})

// ---- the parent ----------------------------------------------------------
// (the holder, which starts the launcher: in its own PID namespace the
// command's parent is its init, and the holder has no number there: ESRCH)
for (const action of ['ptrace-parent', 'vm-read-parent', 'kill-parent']) {
  escapeCase(t, fx, `${action}`, (user) => {
    const s = make(user, { proc: true })
    return { ...s, argv: op(action), prefix: [fx.hold, '--'], errnos: [...DENIED, 'ESRCH'] }
  })
}

escapeCase(t, fx, '/proc/<parent>/root reaches an ungranted file', (user) => {
  const s = make(user, { proc: true })
  return { ...s, argv: op('read', `/proc/PPID/root${s.at('out/file')}`), prefix: [fx.hold, '--'], errnos: ['EACCES', 'EPERM', 'ENOENT'] }
})

escapeCase(t, fx, '/proc/<parent>/cwd reaches an ungranted directory', (user) => {
  const s = make(user, { proc: true })
  return { ...s, argv: op('read', '/proc/PPID/cwd/file'), prefix: [fx.hold, '--cwd', s.at('out'), '--'], errnos: ['EACCES', 'EPERM', 'ENOENT'] }
})

escapeCase(t, fx, '/proc/<parent>/fd reaches a file the parent holds open', (user) => {
  const s = make(user, { proc: true })
  return { ...s, argv: op('read', '/proc/PPID/fd/9'), prefix: [fx.hold, '--open', s.at('out/file'), '--'], errnos: ['EACCES', 'EPERM', 'ENOENT'] }
})

escapeCase(t, fx, '/proc/self/root reaches an ungranted file', (user) => {
  const s = make(user, { proc: true })
  return { ...s, argv: op('read', `/proc/self/root${s.at('out/file')}`), errnos: ['ENOENT', 'EACCES'] }
})

escapeCase(t, fx, 'write through /proc/self/root to an ungranted file', (user) => {
  const s = make(user, { proc: true })
  return { ...s, argv: op('write', `/proc/self/root${s.at('out/file')}`), watch: [s.at('out/file')], errnos: ['ENOENT', 'EACCES', 'EROFS'] }
})

// ---- the terminal ---------------------------------------------------------
// Since Linux 6.2 a kernel may refuse TIOCSTI itself to a process without
// CAP_SYS_ADMIN (dev.tty.legacy_tiocsti = 0, Debian's 6.12 among them):
// there the unconfined control of uid 65534 shows that refusal instead.
const LEGACY_TIOCSTI = (() => {
  try {
    return fs.readFileSync('/proc/sys/dev/tty/legacy_tiocsti', 'utf8').trim() !== '0'
  } catch {
    return true
  }
})()
for (const variant of ['plain', 'high']) {
  escapeCase(t, fx, `TIOCSTI on the controlling terminal (${variant} command bits)`, (user) => {
    const s = make(user)
    const refusedByKernel = !LEGACY_TIOCSTI && user.uid !== 0
    return {
      ...s,
      argv: op('tiocsti', variant),
      prefix: [fx.hold, '--pty', '--'],
      errnos: ['EPERM', 'EACCES', 'EIO'],
      ...(refusedByKernel && {
        expectUnconfined: (t, r) => t.match(r.stdout, /^fail ioctl EIO$/m, 'unconfined: the kernel itself refuses TIOCSTI to this user (dev.tty.legacy_tiocsti = 0)')
      })
    }
  })
}

// The line discipline outlives the command: N_NULL (27) would swallow the
// user's later input and output on that terminal.
escapeCase(t, fx, 'TIOCSETD on the controlling terminal', (user) => {
  const s = make(user)
  return { ...s, argv: op('setd', '27'), prefix: [fx.hold, '--pty', '--'], errnos: ['EPERM'] }
})

// A virtual console as the caller's terminal (a user logged in on one):
// its keyboard's mode and the console shown, once set, outlive the command
// (a console left without a keyboard, or another one shown). Every KD* and
// VT* request is refused; these reads, harmless unconfined, stand for them.
for (const which of ['kd', 'vt']) {
  escapeCase(t, fx, `console ioctls (${which}) on a virtual console`, (user) => {
    const s = make(user)
    const fd = fs.openSync('/dev/tty1', fs.constants.O_RDWR | fs.constants.O_NOCTTY)
    return { ...s, argv: op('console', which), extraFds: [fd], errnos: ['EPERM'], after: () => fs.closeSync(fd) }
  })
}

// ---- the keyring ----------------------------------------------------------
escapeCase(t, fx, 'add_key to the session keyring', (user) => {
  const s = make(user)
  return { ...s, argv: op('add-key'), errnos: DENIED }
})

escapeCase(t, fx, 'keyctl on the session keyring', (user) => {
  const s = make(user)
  return { ...s, argv: op('keyctl'), errnos: DENIED }
})

escapeCase(t, fx, "the parent's session keyring is not the sandbox's", (user) => {
  // The holder joins a fresh session keyring that only its possessors may
  // view: a child that still has it sees it in /proc/keys.
  const s = make(user, { proc: true })
  const name = `sandy-escape-${crypto.randomBytes(6).toString('hex')}`
  return { ...s, argv: op('sees-keyring', name), prefix: [fx.hold, '--keyring', name, '--'], errnos: ['ENOENT', 'EACCES'] }
})

// ---- the process's own confinement facts ----------------------------------
function statusFields (text) {
  const out = {}
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s*(\S+)/.exec(line)
    if (m) out[m[1]] = m[2]
  }
  return out
}

escapeCase(t, fx, '/proc/self/status: no capabilities, NoNewPrivs 1, Seccomp 2', (user) => {
  const s = make(user, { proc: true })
  return {
    ...s,
    argv: op('status'),
    expectConfined: (t, r) => {
      t.equal(r.code, 0, `status is readable (${describe(r)})`)
      const f = statusFields(r.stdout)
      for (const cap of ['CapInh', 'CapPrm', 'CapEff', 'CapAmb']) t.equal(f[cap], '0000000000000000', `${cap} is empty`)
      t.equal(f.NoNewPrivs, '1', 'NoNewPrivs is 1')
      t.equal(f.Seccomp, '2', 'Seccomp is 2 (filter)')
    },
    expectUnconfined: (t, r) => {
      t.equal(r.code, 0, `status is readable (${describe(r)})`)
      const f = statusFields(r.stdout)
      t.equal(f.Seccomp, '0', 'unconfined: no seccomp filter, so the confined one is the launcher\'s')
      t.equal(f.NoNewPrivs, '0', 'unconfined: NoNewPrivs is 0')
      if (user.uid === 0) t.not(f.CapEff, '0000000000000000', 'unconfined root has capabilities')
    }
  }
})
