'use strict'
// Issue 25's rules in this process, one at a time: what the real runs in
// test/confinement/launcher-copy.test.js and test/unit/prototype.test.js do in child
// processes, here where each branch can be seen.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync, spawnSync } = require('node:child_process')
const { makePrivateFiles, linkWarnings } = require('../../lib/package-links.js')
const { verifiedLauncher, copyParentIds, ancestorIds } = require('../../lib/launcher-copy.js')
const { isDense } = require('../../lib/own.js')
const { launcherPath, launcherDigest } = require('../../lib/binding.js')
const sandy = require('../..')

function scratch (t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-trust-')))
  t.teardown(() => {
    spawnSync('chmod', ['-R', 'u+rwX', dir])
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

// A directory nothing can be written in: a read-only mount for root (who
// writes through any mode), a mode without write for anyone else.
function unwritable (t, dir) {
  fs.mkdirSync(dir)
  if (process.getuid() === 0) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,mode=0755', 'sandy', dir])
    t.teardown(() => spawnSync('umount', ['-l', dir]))
  } else {
    fs.chmodSync(dir, 0o555)
  }
  return dir
}

t.test('package files with other names are given names of their own', async (t) => {
  const dir = scratch(t)
  const pkg = path.join(dir, 'pkg')
  fs.mkdirSync(path.join(pkg, 'lib'), { recursive: true })
  fs.writeFileSync(path.join(pkg, 'lib', 'a.js'), 'a\n', { mode: 0o644 })
  fs.writeFileSync(path.join(pkg, 'lib', 'single.js'), 'single\n')
  fs.mkdirSync(path.join(pkg, 'node_modules'))
  fs.writeFileSync(path.join(pkg, 'node_modules', 'dep.js'), 'dep\n')
  fs.linkSync(path.join(pkg, 'lib', 'a.js'), path.join(dir, 'store-a.js'))
  fs.linkSync(path.join(pkg, 'node_modules', 'dep.js'), path.join(dir, 'store-dep.js'))
  const got = makePrivateFiles([pkg, path.join(dir, 'missing')], process.geteuid())
  t.same(got.made, [path.join(pkg, 'lib', 'a.js')], 'the linked file, and only it (node_modules is another package\'s)')
  t.same(got.left, [])
  t.equal(fs.statSync(path.join(pkg, 'lib', 'a.js')).nlink, 1, 'its name is its own now')
  t.equal(fs.readFileSync(path.join(pkg, 'lib', 'a.js'), 'utf8'), 'a\n', 'with the same bytes')
  t.equal(fs.statSync(path.join(pkg, 'lib', 'a.js')).mode & 0o777, 0o644, 'and mode')
  fs.writeFileSync(path.join(dir, 'store-a.js'), 'changed through the store\n')
  t.equal(fs.readFileSync(path.join(pkg, 'lib', 'a.js'), 'utf8'), 'a\n', 'a write through the other name no longer reaches it')
  t.equal(fs.statSync(path.join(pkg, 'node_modules', 'dep.js')).nlink, 2, 'control: the file left alone keeps its link')
  t.same(makePrivateFiles([path.join(pkg, 'lib', 'single.js')], process.geteuid()).made, [], 'a root that is a file with one name: nothing to do')
})

t.test('a file another user owns and cannot write is not this user\'s worry', async (t) => {
  const dir = scratch(t)
  fs.writeFileSync(path.join(dir, 'f'), 'x\n', { mode: 0o644 })
  fs.linkSync(path.join(dir, 'f'), path.join(dir, 'g'))
  const other = process.geteuid() === 0 ? 65534 : 0
  if (process.geteuid() === 0) fs.chownSync(path.join(dir, 'f'), 0, 0)
  t.same(makePrivateFiles([path.join(dir, 'f')], other), { made: [], left: [] }, 'uid that cannot write it: left as it is')
  fs.chmodSync(path.join(dir, 'f'), 0o666)
  t.same(makePrivateFiles([path.join(dir, 'f')], other === 0 ? 0 : other).made, [path.join(dir, 'f')], 'writable by others: made private')
})

t.test('files that cannot be made private are listed, and warned about', async (t) => {
  const dir = scratch(t)
  const ro = unwritable(t, path.join(dir, 'ro'))
  // (a file with two names inside the unwritable directory: made before
  // it became unwritable, or, on a read-only mount, outside it and bound)
  const pkg = path.join(dir, 'pkg')
  fs.mkdirSync(pkg)
  fs.writeFileSync(path.join(pkg, 'f.js'), 'x\n')
  fs.linkSync(path.join(pkg, 'f.js'), path.join(pkg, 'g.js'))
  let root = pkg
  if (process.getuid() === 0) {
    execFileSync('mount', ['--bind', '-o', 'ro', pkg, ro])
    t.teardown(() => spawnSync('umount', ['-l', ro]))
    root = ro
  } else {
    fs.chmodSync(pkg, 0o555)
  }
  const got = makePrivateFiles([root], process.geteuid())
  t.same(got.made, [])
  t.same([...got.left].sort(), [path.join(root, 'f.js'), path.join(root, 'g.js')], 'both names are left')
  t.equal(fs.readdirSync(root).filter((f) => f.startsWith('.')).length, 0, 'no temporary copy stays behind')
  const [warning] = linkWarnings(got)
  t.match(warning, /^2 of sandy-native's files \(or node-gyp-build's\) have other names.*package-import-method=copy/, 'the warning counts them and says what to do')
  t.same(linkWarnings({ left: [] }), [], 'nothing left: no warning')
})

t.test('a copy directory that cannot be made names its cause', async (t) => {
  const dir = scratch(t)
  const ro = unwritable(t, path.join(dir, 'ro'))
  const err = t.throws(() => verifiedLauncher({ source: launcherPath(), digest: launcherDigest, dirs: [path.join(ro, 'copies')] }, process.geteuid()))
  const cause = process.getuid() === 0 ? 'its file system is read-only \\(EROFS\\)' : 'permission denied \\(EACCES\\)'
  t.match(err.message, new RegExp(`no directory can hold a private copy of it \\(.*ro/copies: ${cause}\\); make one of them usable`))
  t.notMatch(err.message, /reinstall/, 'no reinstall, which would not help')
})

t.test('the parents of copy directories that do not exist yet', async (t) => {
  const missing = path.join(os.tmpdir(), `sandy-trust-missing-${process.pid}`, 'deeper', 'copies')
  const ids = copyParentIds([missing])
  for (const id of ancestorIds(fs.realpathSync(os.tmpdir()))) t.ok(ids.has(id), `the nearest existing ancestor and everything above it (${id})`)
  t.equal(ids.size, ancestorIds(fs.realpathSync(os.tmpdir())).size, 'and nothing else')
})

t.test('own-property reads: holes, missing options', async (t) => {
  t.ok(isDense([1, 2]))
  t.notOk(isDense([1, , 2]), 'a hole') // eslint-disable-line no-sparse-arrays
  t.notOk(isDense('12'), 'not an array')
  t.notOk(isDense({ length: 0 }), 'not an array either')
  const e = new sandy.SandboxUnavailableError('m')
  t.same([e.reasons, Object.hasOwn(e, 'cause')], [[], false], 'no options: no reasons, no cause')
  t.equal(new sandy.SandboxUnavailableError('m', { reasons: ['r'], cause: 'c' }).cause, 'c')
  const rule = (r) => ({ runnerFailureRules: [r], denialSignatures: [] })
  t.throws(() => sandy.classifyExit(rule({ fatalSignatures: ['a', , 'b'] }), { code: 1 }), /fatalSignatures must be a non-empty array/, 'a rule\'s array with a hole') // eslint-disable-line no-sparse-arrays
  t.throws(() => sandy.classifyExit(rule({ fatalSignatures: ['a'], allowedExitCodes: [1, , 2] }), { code: 1 }), /allowedExitCodes must be an array/) // eslint-disable-line no-sparse-arrays
  t.throws(() => sandy.classifyExit(rule({ fatalSignatures: ['a'], informationalLines: 'x' }), { code: 1 }), /informationalLines must be an array/)
  t.equal(sandy.classifyExit(rule({ fatalSignatures: ['a'] }), { code: 1, stderr: null }).kind, 'ordinary', 'stderr null reads as none')
  const err = Object.assign(new Error('x'), { code: 'ENOENT', path: '/x', syscall: 'spawnSync' })
  t.equal(sandy.classifySpawnError({ argv: [, '/x'] }, err, { cwd: '/' }), null, 'an argv with a hole is no confined argv') // eslint-disable-line no-sparse-arrays
  t.equal(sandy.classifySpawnError({ argv: 'x' }, err, { cwd: '/' }), null, 'nor is a string')
})

t.test('the parents of the copy directories, refused in this process', async (t) => {
  const candidate = require('../../lib/binding.js').addon.copyDirs(process.geteuid())[0]
  const parent = path.dirname(candidate)
  const policy = new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree').grant(parent, 'read_write', 'subtree')
  t.throws(() => sandy.confinePolicy(['/usr/bin/true'], policy, { cwd: '/usr' }), { kind: 'InvalidPolicy', message: /a writable grant holds the parent of a launcher copy directory/ }, 'confinePolicy')
  const here = process.cwd()
  process.chdir('/usr')
  t.teardown(() => process.chdir(here))
  t.throws(() => sandy.confinePolicy(['/usr/bin/true'], policy), { kind: 'InvalidPolicy' }, 'confinePolicy with the working directory of the process')
  t.throws(() => sandy.confinePolicy(['/usr/bin/true'], policy, null), { name: 'TypeError', message: 'options must be an object' }, 'options that are no object')
  const err = t.throws(() => sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'workspace-write', workspaceRoot: parent }))
  t.match(err.message, /the writable workspace holds the parent of a launcher copy directory/, 'the workspace')
})

// The addon's crossing keeps each call's refused ids its own: an id's
// getter that calls in again (what a worker thread's call at that moment
// would do) neither empties the outer call's list nor grows it past its
// bound (a list once kept in static memory, findings.md).
t.test('the refused ids are each call\'s own', async (t) => {
  const { addon, copyParents } = require('../../lib/binding.js')
  const parent = path.dirname(addon.copyDirs(process.geteuid())[0])
  const writes = new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree').grant(parent, 'read_write', 'subtree').toNative()
  const reads = new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree').toNative()
  const ids = [...copyParents()]
  const inner = []
  const reentering = ids.slice()
  Object.defineProperty(reentering, ids.length - 1, {
    get () {
      inner.push(addon.confinePolicy(reads, Buffer.from('/usr'), null, []))
      return ids[ids.length - 1]
    }
  })
  const r = addon.confinePolicy(writes, Buffer.from('/usr'), null, reentering)
  t.equal(inner.length, 1, 'the getter called in once')
  t.ok(inner[0].argv, 'the inner call made its argv')
  t.match(r.error && r.error.message, /a writable grant holds the parent of a launcher copy directory/, 'the outer call still refuses the grant')
  const full = Array(63).fill('1:2')
  Object.defineProperty(full, 62, {
    get () {
      inner.push(addon.confinePolicy(reads, Buffer.from('/usr'), null, Array(64).fill('3:4')))
      return '1:2'
    }
  })
  t.ok(addon.confinePolicy(reads, Buffer.from('/usr'), null, full).argv, '63 ids with a getter that calls in with 64: each call within its bound')
  t.throws(() => addon.confinePolicy(reads, Buffer.from('/usr'), null, Array(65).fill('1:2')), { code: 'ESANDYARGS' }, 'more than 64 are refused')
  for (const bad of ['1:2x', ':2', '1:', '12', '-1:2', ' 1:2']) t.throws(() => addon.confinePolicy(reads, Buffer.from('/usr'), null, [bad]), { code: 'ESANDYARGS' }, `${JSON.stringify(bad)} is no id`)
})

// (root always makes a copy; another user may use the shipped launcher in
// place and make none)
const ROOT_COPIES = process.geteuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} making a copy directory's missing parents: this run is not root`
t.test('a copy directory whose parent is missing is made with its parents', { skip: ROOT_COPIES }, async (t) => {
  const dir = scratch(t)
  fs.chmodSync(dir, 0o755)
  const copies = path.join(dir, 'missing', 'copies')
  const got = verifiedLauncher({ source: launcherPath(), digest: launcherDigest, dirs: [copies] }, process.geteuid())
  t.equal(got, path.join(copies, path.basename(got)), 'the copy lies there')
  t.ok(fs.statSync(copies).isDirectory(), 'the directory and its parent were made')
})
