'use strict'
// Escape suite, file effects: writes, truncation, metadata, links, renames
// and denies, each confined (must fail, host unchanged) and unconfined (the
// identical action must succeed).
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync, spawnSync } = require('node:child_process')
const {
  AccessMode, PathScope, setup, tree, basePolicy, escapeCase, allowedCase, describe, users, confine, run, withoutSandy
} = require('../helpers/sandbox.js')

// (every case here confines a Sandy policy)
if (withoutSandy(t)) return
const fx = setup(t)

// ws: writable grant (and the cwd); ro: read-only grant; out: no grant.
const STANDARD = {
  'ws/file': 'ws\n',
  'ws/d1/f': 'd1\n',
  'ws/d2': null,
  'ws/mnt': null,
  'ro/file': 'ro\n',
  'ro/sub/f': 'sub\n',
  'out/file': 'out\n',
  'out/dir': null
}

function standard (user, extra = {}, grant = (p) => p) {
  const root = tree(fx, user, { ...STANDARD, ...extra })
  const at = (rel) => path.join(root, rel)
  const policy = grant(basePolicy(fx)
    .grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
    .grant(at('ro'), AccessMode.Read, PathScope.Subtree), at)
  return { root, at, policy, cwd: at('ws') }
}

const op = (...args) => [fx.op, ...args]
const RO = ['EROFS', 'EACCES', 'EPERM']
const HIDDEN = ['ENOENT']

// ---- plain writes and metadata on a read-only grant -------------------
for (const [action, target] of [
  ['write', 'ro/file'],
  ['trunc', 'ro/file'],
  ['truncate', 'ro/file'],
  ['chmod', 'ro/file'],
  ['chmod', 'ro/sub'],
  ['chown', 'ro/file'],
  ['utime', 'ro/file'],
  ['xattr', 'ro/file'],
  ['create', 'ro/new'],
  ['mkdir', 'ro/newdir'],
  ['unlink', 'ro/file']
]) {
  escapeCase(t, fx, `${action} on a read-only grant (${target})`, (user) => {
    const s = standard(user)
    return { ...s, argv: op(action, s.at(target)), watch: [s.at(target), s.at('ro')], errnos: RO }
  })
}

// ---- paths outside every grant are invisible ------------------------------
for (const [action, target] of [['write', 'out/file'], ['read', 'out/file'], ['stat', 'out'], ['create', 'out/new']]) {
  escapeCase(t, fx, `${action} outside the grants is ENOENT (${target})`, (user) => {
    const s = standard(user)
    return {
      ...s,
      argv: op(action, s.at(target)),
      watch: [s.at('out/file'), s.at('out')],
      watchChanges: action !== 'read' && action !== 'stat',
      errnos: HIDDEN
    }
  })
}

escapeCase(t, fx, 'host files such as /etc/hostname are invisible', (user) => {
  const s = standard(user)
  return { ...s, argv: op('stat', '/etc/hostname'), errnos: HIDDEN }
})

escapeCase(t, fx, '/proc is invisible unless granted', (user) => {
  const s = standard(user)
  return { ...s, argv: op('stat', '/proc/self/status'), errnos: HIDDEN }
})

// The host root's top-level symlinks (/bin -> usr/bin on merged-/usr hosts)
// lead into the view, so a grant of /usr serves its old spellings too.
allowedCase(t, fx, 'a grant of /usr serves /bin/sh through the host\'s /bin link', (user) => {
  const s = standard(user)
  return {
    ...s,
    policy: s.policy.grant('/usr', AccessMode.Read, PathScope.Subtree).allowExecute('/usr', PathScope.Subtree),
    argv: ['/bin/sh', '-c', 'test -x /bin/sh && echo ok']
  }
})

// ---- grants spelled through a symlink a command can re-point -----------
// (a command with ws writable re-points ws/link, and every later resolution
// of the same policy would grant what the link names then: refused, as
// denies spelled that way are)
for (const user of users()) {
  t.test(`a grant spelled through a symlink inside a writable grant is refused [${user.name}]`, async (t) => {
    const root = tree(fx, user, { 'ws/d/f': 'd\n', 'out/secret': 'secret\n' })
    const at = (rel) => path.join(root, rel)
    fs.symlinkSync(at('ws/d'), at('ws/link'))
    fs.lchownSync(at('ws/link'), user.uid, user.gid)
    const writable = () => basePolicy(fx).grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
    for (const [what, policy, section] of [
      ['a read grant of the link', writable().grant(at('ws/link'), AccessMode.Read, PathScope.Subtree), 'grants'],
      ['a read grant beneath it', writable().grant(at('ws/link/f'), AccessMode.Read, PathScope.Exact), 'grants'],
      ['an execute grant of it', writable().allowExecute(at('ws/link'), PathScope.Subtree), 'executable_grants']
    ]) {
      t.throws(() => confine(op('read', at('ws/d/f')), policy, at('ws')),
        { kind: 'InvalidPolicy', message: new RegExp(`${section}\\[\\d\\]: spelled through a symlink inside a writable grant`) }, `${what}: refused`)
    }
    t.doesNotThrow(() => confine(op('read', at('ws/d/f')), writable().grant(at('ws/d'), AccessMode.Read, PathScope.Subtree), at('ws')),
      'the same grant by its canonical path is accepted')
    // a relative grant joined to a working directory spelled through the link
    t.throws(() => confine(op('read', 'f'), writable().grant('.', AccessMode.Read, PathScope.Subtree), at('ws/link')),
      { kind: 'InvalidPolicy', message: /cwd: spelled through a symlink inside a writable grant/ }, 'a relative grant under a working directory spelled through it: refused')
    t.doesNotThrow(() => confine(op('read', 'f'), writable().grant('.', AccessMode.Read, PathScope.Subtree), at('ws/d')),
      'the same under the canonical working directory is accepted')
    // the link reached through another name of the writable grant (a bind
    // mount of it), which a comparison of spellings would miss
    if (process.getuid() === 0) {
      fs.mkdirSync(at('alias'))
      execFileSync('mount', ['--bind', at('ws'), at('alias')])
      t.teardown(() => spawnSync('umount', ['-l', at('alias')]))
      t.throws(() => confine(op('read', at('ws/d/f')), writable().grant(at('alias/link'), AccessMode.Read, PathScope.Subtree), at('ws')),
        { kind: 'InvalidPolicy', message: /grants\[\d\]: spelled through a symlink inside a writable grant/ }, 'through a bind mount of the writable grant: refused')
    }
    // (the control: a command confined with ws writable re-points the link)
    const r = await run(user, { argv: ['/usr/bin/ln', '-sfn', at('out'), at('ws/link')], cwd: at('ws'),
      policy: writable().grant('/usr', AccessMode.Read, PathScope.Subtree).allowExecute('/usr', PathScope.Subtree) })
    t.equal(r.code, 0, `confined with ws writable, a command re-points the link (${describe(r)})`)
    t.equal(fs.readlinkSync(at('ws/link')), at('out'), 'which now names the directory outside')
  })
}

// ---- an exact directory grant: the node, not what it holds -------------
// (the view shows it as an empty directory of its skeleton; the
// Landlock-only level gives it READ_DIR alone: csrc/linux/landlock.c)
function exactDir (user) {
  const root = tree(fx, user, { 'ex/f': 'ex\n', 'ex/sub/g': 'g\n' })
  const at = (rel) => path.join(root, rel)
  return { at, policy: basePolicy(fx).grant(at('ex'), AccessMode.Read, PathScope.Exact), cwd: at('ex') }
}
allowedCase(t, fx, 'an exact directory grant lists the directory', (user) => {
  const s = exactDir(user)
  return { ...s, argv: op('list', s.at('ex')) }
})
for (const child of ['ex/f', 'ex/sub/g']) {
  escapeCase(t, fx, `an exact directory grant cannot read its children (${child})`, (user) => {
    const s = exactDir(user)
    return { ...s, argv: op('read', s.at(child)), errnos: [...HIDDEN, 'EACCES'] }
  })
}
// ---- symlinks from the writable grant to the outside ----------------------
for (const [name, link, errnos] of [
  ['an absolute symlink to an ungranted file', { symlink: '@/out/file' }, HIDDEN],
  ['a relative symlink to an ungranted file', { symlink: '../out/file' }, HIDDEN],
  ['a symlink to a read-only file', { symlink: '@/ro/file' }, RO]
]) {
  escapeCase(t, fx, `write through ${name} in the writable grant`, (user) => {
    const s = standard(user, { 'ws/link': link })
    return { ...s, argv: op('write', s.at('ws/link')), watch: [s.at('out/file'), s.at('ro/file')], errnos }
  })
}

// ---- hard links and renames across grants (REFER) -------------------------
escapeCase(t, fx, 'hard link of a read-only file into the writable grant', (user) => {
  const s = standard(user)
  return { ...s, argv: op('link', s.at('ro/file'), s.at('ws/hl')), watch: [s.at('ws/hl'), s.at('ro/file')], errnos: ['EXDEV', 'EACCES', 'EPERM', 'EROFS'] }
})

escapeCase(t, fx, 'hard link of an ungranted file into the writable grant', (user) => {
  const s = standard(user)
  return { ...s, argv: op('link', s.at('out/file'), s.at('ws/hl')), watch: [s.at('ws/hl'), s.at('out/file')], errnos: HIDDEN }
})

escapeCase(t, fx, 'rename a read-only file into the writable grant', (user) => {
  const s = standard(user)
  return { ...s, argv: op('rename', s.at('ro/file'), s.at('ws/moved')), watch: [s.at('ws/moved'), s.at('ro/file')], errnos: ['EXDEV', 'EACCES', 'EPERM', 'EROFS'] }
})

escapeCase(t, fx, 'rename a writable file into the read-only grant', (user) => {
  const s = standard(user)
  return { ...s, argv: op('rename', s.at('ws/file'), s.at('ro/moved')), watch: [s.at('ro/moved'), s.at('ws/file')], errnos: ['EXDEV', 'EACCES', 'EPERM', 'EROFS'] }
})

escapeCase(t, fx, 'rename a writable file out to an ungranted directory', (user) => {
  const s = standard(user)
  return { ...s, argv: op('rename', s.at('ws/file'), s.at('out/moved')), watch: [s.at('out/moved'), s.at('ws/file')], errnos: ['ENOENT', 'EXDEV'] }
})

escapeCase(t, fx, 'cross-grant rename between two writable grants leaves each grant whole', (user) => {
  // ws2 is writable but its file is deny-write: moving it to ws (where it
  // would be writable) must not be possible.
  const s = standard(user, { 'ws2/keep': 'keep\n' }, (p, at) => p
    .grant(at('ws2'), AccessMode.ReadWrite, PathScope.Subtree)
    .denyWriteExact(at('ws2/keep')))
  return { ...s, argv: op('rename', s.at('ws2/keep'), s.at('ws/keep')), watch: [s.at('ws2/keep'), s.at('ws/keep')], errnos: ['EXDEV', 'EACCES', 'EPERM', 'EROFS', 'EBUSY'] }
})

allowedCase(t, fx, 'cross-directory rename inside one writable grant works', (user) => {
  const s = standard(user)
  return { ...s, argv: op('rename', s.at('ws/d1/f'), s.at('ws/d2/f')) }
})

allowedCase(t, fx, 'writes inside the writable grant work', (user) => {
  const s = standard(user)
  return {
    ...s,
    argv: op('write', s.at('ws/file')),
    after: (t) => t.equal(fs.readFileSync(s.at('ws/file'), 'utf8'), 'ws\nx', 'the write reached the host file')
  }
})

allowedCase(t, fx, 'reads of the read-only grant work', (user) => {
  const s = standard(user)
  return { ...s, argv: op('read', s.at('ro/sub/f')) }
})

// ---- deny_write_exact inside a writable grant -----------------------------
function denyWrite (user) {
  return standard(user, { 'ws/sub/settings.json': '{}\n', 'ws/sub/other': 'o\n', 'ws/x': 'x\n' },
    (p, at) => p.denyWriteExact(at('ws/sub/settings.json')))
}

for (const [action, args] of [
  ['write', ['ws/sub/settings.json']],
  ['trunc', ['ws/sub/settings.json']],
  ['chmod', ['ws/sub/settings.json']],
  ['utime', ['ws/sub/settings.json']],
  ['unlink', ['ws/sub/settings.json']],
  ['rename', ['ws/sub/settings.json', 'ws/sub/moved']],
  ['rename', ['ws/x', 'ws/sub/settings.json']],
  ['link', ['ws/sub/settings.json', 'ws/sub/hl']],
  ['rename', ['ws/sub', 'ws/sub2']]
]) {
  const what = action === 'rename' && args[0] === 'ws/sub' ? 'rename an ancestor of' : `${action} ${args.join(' -> ')} on`
  escapeCase(t, fx, `${what} a deny-write-exact file`, (user) => {
    const s = denyWrite(user)
    return {
      ...s,
      argv: op(action, ...args.map(s.at)),
      watch: [s.at('ws/sub/settings.json'), s.at('ws/sub'), s.at('ws/sub2'), s.at('ws/sub/moved'), s.at('ws/sub/hl')],
      errnos: ['EROFS', 'EACCES', 'EPERM', 'EBUSY', 'EXDEV']
    }
  })
}

allowedCase(t, fx, 'a file next to a deny-write-exact file stays writable', (user) => {
  const s = denyWrite(user)
  return { ...s, argv: op('write', s.at('ws/sub/other')) }
})

// The seed: preparation pins writable ancestors against relocation, but
// adjacent entries remain writable, so new entries can be made beside.
for (const [what, rel] of [['file', 'ws/sub/new'], ['file', 'ws/new'], ['directory', 'ws/newdir']]) {
  allowedCase(t, fx, `a new ${what} can be made beside a deny-write-exact file (${rel})`, (user) => {
    const s = denyWrite(user)
    return { ...s, argv: op(what === 'file' ? 'create' : 'mkdir', s.at(rel)) }
  })
}

// A deny-write-exact directory is read-only with everything beneath it, a
// writable grant nested inside it included, whether its parent is
// writable or read-only.
for (const parent of ['ws', 'ro']) {
  escapeCase(t, fx, `write in a grant nested in a deny-write-exact directory (${parent} parent)`, (user) => {
    const s = standard(user, { [`${parent}/locked/inner/f`]: 'f\n' }, (p, at) => p
      .grant(at(`${parent}/locked/inner`), AccessMode.ReadWrite, PathScope.Subtree)
      .denyWriteExact(at(`${parent}/locked`)))
    return { ...s, argv: op('write', s.at(`${parent}/locked/inner/f`)), watch: [s.at(`${parent}/locked/inner/f`)], errnos: RO }
  })
}

// ---- deny_subtree beats overlapping grants, whatever the builder order ----
const SECRET = { 'ws/a/secret/key': 'k\n', 'ws/a/plain': 'p\n' }
const denyOrders = {
  'deny after grant': (user) => standard(user, SECRET, (p, at) => p.denySubtree(at('ws/a/secret'))),
  'deny before grant': (user) => {
    const root = tree(fx, user, { ...STANDARD, ...SECRET })
    const at = (rel) => path.join(root, rel)
    const policy = basePolicy(fx)
      .denySubtree(at('ws/a/secret'))
      .grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
      .grant(at('ro'), AccessMode.Read, PathScope.Subtree)
    return { root, at, policy, cwd: at('ws') }
  },
  'deny with an explicit grant of the same subtree': (user) => standard(user, SECRET, (p, at) => p
    .grant(at('ws/a/secret'), AccessMode.ReadWrite, PathScope.Subtree)
    .denySubtree(at('ws/a/secret'))),
  // Two leading slashes, which musl's realpath keeps where glibc's folds
  // them (review of issue 13, F1): the deny is inside the grant all the
  // same, whichever libc built the resolver.
  'deny spelled with a leading //': (user) => standard(user, SECRET, (p, at) => p.denySubtree('/' + at('ws/a/secret'))),
  'deny through a link whose target starts with //': (user) => {
    const s = standard(user, SECRET)
    fs.symlinkSync('/' + s.at('ws/a'), s.at('ro/to-a'))
    return { ...s, policy: s.policy.denySubtree(s.at('ro/to-a/secret')) }
  }
}
for (const [order, make] of Object.entries(denyOrders)) {
  escapeCase(t, fx, `read in a denied subtree (${order})`, (user) => {
    const s = make(user)
    return { ...s, argv: op('read', s.at('ws/a/secret/key')), errnos: ['EACCES', 'ENOENT', 'EPERM'] }
  })
  escapeCase(t, fx, `write in a denied subtree (${order})`, (user) => {
    const s = make(user)
    return { ...s, argv: op('create', s.at('ws/a/secret/new')), watch: [s.at('ws/a/secret/new')], errnos: ['EACCES', 'ENOENT', 'EPERM', 'EROFS'] }
  })
}

allowedCase(t, fx, 'a new file can be made beside a denied subtree', (user) => {
  const s = denyOrders['deny after grant'](user)
  return { ...s, argv: op('create', s.at('ws/a/new')) }
})

escapeCase(t, fx, 'rename a denied subtree out from under its rule', (user) => {
  const s = denyOrders['deny after grant'](user)
  return { ...s, argv: op('rename', s.at('ws/a/secret'), s.at('ws/a/open')), watch: [s.at('ws/a/secret'), s.at('ws/a/open')], errnos: ['EACCES', 'ENOENT', 'EPERM', 'EBUSY', 'EXDEV', 'EROFS'] }
})

escapeCase(t, fx, 'rename an ancestor of a denied subtree', (user) => {
  const s = denyOrders['deny after grant'](user)
  return { ...s, argv: op('rename', s.at('ws/a'), s.at('ws/b')), watch: [s.at('ws/a'), s.at('ws/b')], errnos: ['EACCES', 'EPERM', 'EBUSY', 'EXDEV', 'EROFS'] }
})

// ---- directory descriptors inherited from the parent ----------------------
// A directory descriptor opened outside reaches the host's mounts beneath
// the view: writable where the view is read-only, with chmod/utime/xattr
// ungoverned by Landlock, past the mounts that keep denies. The launcher
// refuses to start with one on any descriptor, and nothing runs.
const refused = (fd) => (t, r) => {
  t.equal(r.code, 125, `confined: the launcher refuses (${describe(r)})`)
  t.match(r.stderr, new RegExp(`^sandy-launcher: fatal: PreparationFailed: descriptors: inherited directory descriptor ${fd} `))
  t.equal(r.stdout, '', 'confined: the action never ran')
}

escapeCase(t, fx, 'a deny inside a writable grant with an inherited directory descriptor', (user) => {
  const s = standard(user, { 'ws/secret/key': 'key\n' }, (p, at) => p.denySubtree(at('ws/secret')))
  const dirFd = fs.openSync(s.at('ws'), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
  return {
    ...s,
    argv: op('openat-fd', '3', 'secret/key', 'r'),
    extraFds: [dirFd],
    expectConfined: refused(3),
    after: () => fs.closeSync(dirFd)
  }
})

for (const mode of ['r', 'w', 'mkdir']) {
  escapeCase(t, fx, `openat through an inherited descriptor of an ungranted directory (${mode})`, (user) => {
    const s = standard(user)
    const dirFd = fs.openSync(s.at('out'), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
    return {
      ...s,
      argv: op('openat-fd', '3', mode === 'mkdir' ? 'newdir' : 'file', mode),
      extraFds: [dirFd],
      watch: [s.at('out/file'), s.at('out/newdir')],
      watchChanges: mode !== 'r',
      expectConfined: refused(3),
      after: () => fs.closeSync(dirFd)
    }
  })
}
