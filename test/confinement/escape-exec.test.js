'use strict'
// Escape suite, execution: a file that is only readable must not run by any
// route (execve, the ELF interpreter, mmap(PROT_EXEC), memfd + execveat);
// an execute grant does run; subprocesses need allowSubprocesses, threads
// never do.
const t = require('tap')
const fs = require('node:fs')
const { execFileSync } = require('node:child_process')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const path = require('node:path')
const {
  AccessMode, PathScope, setup, tree, basePolicy, escapeCase, allowedCase, describe, users, run, withoutSandy
} = require('../helpers/sandbox.js')

// (every case here confines a Sandy policy)
if (withoutSandy(t)) return
const fx = setup(t)
// The loader by its canonical path.
const LDSO = fs.realpathSync('/lib64/ld-linux-x86-64.so.2')
const LIBDIR = path.dirname(fs.realpathSync('/lib/x86_64-linux-gnu/libc.so.6'))

// ro holds copies of the fixtures, granted read only; xd holds copies
// granted read + execute. The C library and loader are executable.
function make (user, { subprocesses = false } = {}) {
  const root = tree(fx, user, {
    'ws/file': 'ws\n',
    'ws/op': { copy: fx.op },
    'ro/op': { copy: fx.op },
    'ro/hello': { copy: fx.hello },
    'xd/op': { copy: fx.op },
    'xd/hello': { copy: fx.hello }
  })
  const at = (rel) => path.join(root, rel)
  let policy = basePolicy(fx, { subprocesses })
    .grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
    .grant(at('ro'), AccessMode.Read, PathScope.Subtree)
    .grant(at('xd'), AccessMode.Read, PathScope.Subtree)
    .allowExecute(at('xd'), PathScope.Subtree)
    .grant(LIBDIR, AccessMode.Read, PathScope.Subtree)
    .allowExecute(LIBDIR, PathScope.Subtree)
  for (const spelling of ['/lib64', '/lib']) {
    // PT_INTERP names /lib64/..., a link to /lib/...: the caller grants
    // those spellings too, so the view recreates them.
    policy = policy.grant(spelling, AccessMode.Read, PathScope.Subtree).allowExecute(spelling, PathScope.Subtree)
  }
  return { root, at, policy, cwd: at('ws') }
}

const EXEC_DENIED = ['EACCES', 'EPERM']
const ranNothing = (t, r) => t.notMatch(r.stdout, /ok hello/, 'the program did not run')

// ---- a merely readable program --------------------------------------------
escapeCase(t, fx, 'the launcher cannot exec a read-only-granted program', (user) => {
  const s = make(user)
  return {
    ...s,
    argv: [s.at('ro/op'), 'hello'],
    expectConfined: (t, r) => {
      t.equal(r.code, 126, `exit 126, the ordinary cannot-execute status (${describe(r)})`)
      t.notMatch(r.stderr, /sandy-launcher: fatal:/, 'not a runner failure')
      ranNothing(t, r)
    }
  }
})

escapeCase(t, fx, 'execve of a read-only-granted program from inside', (user) => {
  const s = make(user, { subprocesses: true })
  return { ...s, argv: [fx.op, 'exec', s.at('ro/op'), 'hello'], errnos: EXEC_DENIED }
})

escapeCase(t, fx, 'execve of a program in the writable grant', (user) => {
  const s = make(user, { subprocesses: true })
  return { ...s, argv: [fx.op, 'exec', s.at('ws/op'), 'hello'], errnos: EXEC_DENIED }
})

escapeCase(t, fx, 'the ELF interpreter loading a read-only-granted program', (user) => {
  const s = make(user)
  return {
    ...s,
    argv: [LDSO, s.at('ro/hello')],
    // ld.so maps the program itself: the PROT_EXEC mapping is what is
    // refused, and ld.so reports it as a loading error (exit 127)
    expectConfined: (t, r) => {
      t.equal(r.code, 127, `ld.so's loading-error status (${describe(r)})`)
      t.match(r.stderr, /error while loading shared libraries: .*hello: failed to map segment from shared object/, 'refused at the executable mapping')
      t.notMatch(r.stderr, /sandy-launcher: fatal:/, 'not a runner failure')
      ranNothing(t, r)
    }
  }
})

for (const how of ['mmap', 'mprotect']) {
  escapeCase(t, fx, `${how} PROT_EXEC of a read-only-granted file`, (user) => {
    const s = make(user)
    return { ...s, argv: [fx.op, 'mmap-exec', s.at('ro/hello'), how], errnos: EXEC_DENIED }
  })
}

escapeCase(t, fx, 'memfd_create + execveat(AT_EMPTY_PATH)', (user) => {
  const s = make(user)
  return {
    ...s,
    argv: [fx.op, 'memfd-exec', s.at('ro/op'), 'execveat'],
    errnos: ['EPERM', 'EACCES', 'ENOSYS'],
    expectUnconfined: (t, r) => t.match(r.stdout, /^ok hello/m, `unconfined: the memfd copy runs (${describe(r)})`)
  }
})

// The memfd lives on an internal mount that Landlock does not govern and
// the exec is an ordinary execve of a path, which seccomp cannot judge.
escapeCase(t, fx, 'memfd_create + execve(/proc/self/fd/N)', (user) => {
  const s = make(user)
  const policy = s.policy.grant('/proc', AccessMode.Read, PathScope.Subtree)
  return {
    ...s,
    policy,
    argv: [fx.op, 'memfd-exec', s.at('ro/op'), 'proc'],
    // seccomp answers an executable memfd with ENOSYS (callers fall back
    // to files, which the policy governs)
    errnos: ['EPERM', 'EACCES', 'ENOENT', 'ENOSYS'],
    expectUnconfined: (t, r) => t.match(r.stdout, /^ok hello/m, `unconfined: the memfd copy runs (${describe(r)})`)
  }
})

// Sealed against execution (MFD_NOEXEC_SEAL), a memfd still reached a
// granted loader through /proc/self/fd/N, which mapped it executable
// (issue 9 item 5): no memfd may be created at all.
escapeCase(t, fx, 'memfd_create(MFD_NOEXEC_SEAL) run by the granted loader', (user) => {
  const s = make(user)
  const policy = s.policy.grant('/proc', AccessMode.Read, PathScope.Subtree)
  return {
    ...s,
    policy,
    argv: [fx.op, 'memfd-ldso', s.at('ro/hello'), LDSO],
    errnos: ['ENOSYS'],
    expectUnconfined: (t, r) => t.match(r.stdout, /^ok hello/m, `unconfined: the loader runs the sealed memfd (${describe(r)})`)
  }
})

// A descriptor of a host file, inherited, is on the host's mount, which the
// view cannot make noexec: a granted loader would map it through
// /proc/self/fd/N. Under a policy that restricts execution the launcher
// refuses such descriptors, whether open for reading (a merely readable
// program) or for writing (the command fills it, then reopens it).
const refusedBeforeRunning = (t, r) => {
  t.equal(r.code, 125, `a runner failure (${describe(r)})`)
  t.match(r.stderr, /sandy-launcher: fatal: .*inherited file descriptor 3 could be mapped executable/, 'the launcher names the descriptor')
  ranNothing(t, r)
}
for (const [how, flags, src] of [['read-only', 'r', '-'], ['write-only', 'w', 'ro/hello']]) {
  escapeCase(t, fx, `an inherited ${how} file run by the granted loader`, (user) => {
    const s = make(user)
    const target = s.at(how === 'read-only' ? 'ro/hello' : 'ws/filled')
    const fd = fs.openSync(target, flags)
    fs.chmodSync(target, 0o644)
    if (user.uid !== 0) fs.chownSync(target, user.uid, user.gid)
    return {
      ...s,
      policy: s.policy.grant('/proc', AccessMode.Read, PathScope.Subtree),
      argv: [fx.op, 'fd-ldso', '3', src === '-' ? '-' : s.at(src), LDSO],
      extraFds: [fd],
      expectConfined: refusedBeforeRunning,
      expectUnconfined: (t, r) => t.match(r.stdout, /^ok hello/m, `unconfined: the loader runs the file (${describe(r)})`),
      after: () => fs.closeSync(fd)
    }
  })
}

// Where everything readable is executable anyway (the kernel's trees
// aside) an inherited file reaches nothing new and is accepted; so is one
// on a noexec mount under any policy.
allowedCase(t, fx, 'an inherited file under a policy that executes all it reads', (user) => {
  const s = make(user)
  const fd = fs.openSync(s.at('xd/hello'), 'r')
  let policy = basePolicy(fx)
    .grant(s.at('xd'), AccessMode.Read, PathScope.Subtree)
    .allowExecute(s.at('xd'), PathScope.Subtree)
    .grant(LIBDIR, AccessMode.Read, PathScope.Subtree)
    .allowExecute(LIBDIR, PathScope.Subtree)
    .grant('/proc', AccessMode.Read, PathScope.Subtree)
  for (const spelling of ['/lib64', '/lib']) {
    policy = policy.grant(spelling, AccessMode.Read, PathScope.Subtree).allowExecute(spelling, PathScope.Subtree)
  }
  return { ...s, policy, cwd: s.at('xd'), argv: [fx.op, 'fd-ldso', '3', '-', LDSO], extraFds: [fd], stdout: /^ok hello/m, after: () => fs.closeSync(fd) }
})

// A block device holds content a loader can map, like a file: an exact
// grant of one makes a policy restrict execution like any other readable
// grant, so its inherited descriptor is refused too (fourth review of
// issue 9, F2). Root only: a loop device is needed.
const LOOP = process.getuid() !== 0 ? 'a loop device needs root'
  : !fs.existsSync('/dev/loop-control') ? 'this host has no loop devices' : null
if (LOOP === null) {
  const image = path.join(fx.base, 'loop.img')
  fs.copyFileSync(fx.hello, image)
  fs.truncateSync(image, 1 << 20)
  const loop = execFileSync('losetup', ['-f', '--show', image], { encoding: 'utf8' }).trim()
  fs.chmodSync(loop, 0o644)
  t.teardown(() => execFileSync('losetup', ['-d', loop]))
  escapeCase(t, fx, 'an inherited block device run by the granted loader', (user) => {
    const s = make(user)
    const fd = fs.openSync(loop, 'r')
    let policy = basePolicy(fx)
      .grant(LIBDIR, AccessMode.Read, PathScope.Subtree)
      .allowExecute(LIBDIR, PathScope.Subtree)
      .grant(s.at('xd'), AccessMode.Read, PathScope.Subtree)
      .allowExecute(s.at('xd'), PathScope.Subtree)
      .grant('/proc', AccessMode.Read, PathScope.Subtree)
      .grant(loop, AccessMode.Read, PathScope.Exact)
    for (const spelling of ['/lib64', '/lib']) {
      policy = policy.grant(spelling, AccessMode.Read, PathScope.Subtree).allowExecute(spelling, PathScope.Subtree)
    }
    return {
      ...s,
      policy,
      cwd: s.at('xd'),
      argv: [fx.op, 'fd-ldso', '3', '-', LDSO],
      extraFds: [fd],
      expectConfined: refusedBeforeRunning,
      expectUnconfined: (t, r) => t.match(r.stdout, /^ok hello/m, `unconfined: the loader runs the device's content (${describe(r)})`),
      after: () => fs.closeSync(fd)
    }
  })
} else {
  t.skip(`${UNCOVERED} an inherited block device: ${LOOP}`)
}

t.test('an inherited file on a noexec mount is accepted under a restricting policy', { skip: process.getuid() !== 0 && 'not covered: mounting a noexec tmpfs needs root' }, async (t) => {
  const dir = fs.mkdtempSync(path.join(fx.base, 'noexec-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'noexec,size=1m', 'sandy-noexec', dir])
  t.teardown(() => execFileSync('umount', ['-l', dir]))
  fs.writeFileSync(path.join(dir, 'data'), 'data\n')
  for (const user of users()) {
    const s = make(user)
    const fd = fs.openSync(path.join(dir, 'data'), 'r')
    const r = await run(user, { ...s, argv: [fx.op, 'hello'], extraFds: [fd] })
    fs.closeSync(fd)
    t.equal(r.code, 0, `[${user.name}] runs (${describe(r)})`)
    t.match(r.stdout, /^ok hello/m)
  }
})

// ---- an execute grant -----------------------------------------------------
allowedCase(t, fx, 'the launcher execs an execute-granted program', (user) => {
  const s = make(user)
  return { ...s, argv: [s.at('xd/op'), 'hello'], stdout: /^ok hello/m }
})

allowedCase(t, fx, 'the ELF interpreter loads an execute-granted program', (user) => {
  const s = make(user)
  return { ...s, argv: [LDSO, s.at('xd/hello')], stdout: /^ok hello/m }
})

allowedCase(t, fx, 'a dynamically linked execute-granted program runs', (user) => {
  const s = make(user)
  return { ...s, argv: [s.at('xd/hello')], stdout: /^ok hello/m }
})

// ---- subprocesses and threads ---------------------------------------------
for (const action of ['fork', 'vfork']) {
  escapeCase(t, fx, `${action} without allowSubprocesses`, (user) => {
    const s = make(user)
    return { ...s, argv: [fx.op, action], errnos: ['EPERM', 'EACCES', 'EAGAIN'] }
  })
  allowedCase(t, fx, `${action} with allowSubprocesses`, (user) => {
    const s = make(user, { subprocesses: true })
    return { ...s, argv: [fx.op, action] }
  })
}

escapeCase(t, fx, 'fork + exec of an execute-granted program without allowSubprocesses', (user) => {
  const s = make(user)
  return { ...s, argv: [fx.op, 'spawn', s.at('xd/op'), 'hello'], errnos: ['EPERM', 'EACCES', 'EAGAIN'] }
})

allowedCase(t, fx, 'fork + exec of an execute-granted program with allowSubprocesses', (user) => {
  const s = make(user, { subprocesses: true })
  return { ...s, argv: [fx.op, 'spawn', s.at('xd/op'), 'hello'] }
})

escapeCase(t, fx, 'fork + exec of a read-only-granted program with allowSubprocesses', (user) => {
  const s = make(user, { subprocesses: true })
  return { ...s, argv: [fx.op, 'spawn', s.at('ro/op'), 'hello'], errnos: ['ECHILD'] }
})

// clone3 cannot be filtered on its flags, so it is ENOSYS either way (the
// C library then falls back to clone, which is filtered).
for (const subprocesses of [false, true]) {
  escapeCase(t, fx, `clone3 is ENOSYS (allowSubprocesses ${subprocesses})`, (user) => {
    const s = make(user, { subprocesses })
    return { ...s, argv: [fx.op, 'clone3'], errnos: ['ENOSYS'] }
  })
}

for (const subprocesses of [false, true]) {
  allowedCase(t, fx, `threads work (allowSubprocesses ${subprocesses})`, (user) => {
    const s = make(user, { subprocesses })
    return { ...s, argv: [fx.op, 'thread'] }
  })
}
