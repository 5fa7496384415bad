'use strict'
// lib/launcher-copy.js in this process, one rule at a time: where copies
// may live, what a copy must look like, and each way of refusing. The
// attacks themselves, through real sandboxes, are test/confinement/launcher-copy.test.js.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { verifiedLauncher, protectedDirs, ancestorIds, chainProblem } = require('../../lib/launcher-copy.js')
const binding = require('../../lib/binding.js')
const { launcherPath, launcherDigest, readDigest } = binding
const { UNCOVERED } = require('../../scripts/test-verdict.js')

const ROOT_ONLY = process.getuid() !== 0 && `${UNCOVERED} the launcher copy's ownership rules for another uid: this run is not root`
const NOBODY = 65534
const source = launcherPath()

function scratch (t, mode = 0o755) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-copyunit-')))
  fs.chmodSync(dir, mode)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// A root-owned directory holding a copy of the shipped launcher.
function rootInstall (t) {
  const dir = scratch(t)
  const pkg = path.join(dir, 'pkg')
  fs.mkdirSync(pkg, { mode: 0o755 })
  const shipped = path.join(pkg, 'sandy-launcher')
  fs.copyFileSync(source, shipped)
  fs.chmodSync(shipped, 0o755)
  return { dir, pkg, shipped }
}

const unusable = (t, fn, message) => t.throws(fn, { code: 'SANDY_LAUNCHER_UNUSABLE', message })

t.test('where copies live: a function of the user alone (csrc/core/copy_dirs.c)', async (t) => {
  t.same(binding.addon.copyDirs(0), ['/var/cache/sandy-native'])
  t.same(binding.addon.copyDirs(NOBODY), [`/var/tmp/sandy-native-${NOBODY}`, `/tmp/sandy-native-${NOBODY}`, `/dev/shm/sandy-native-${NOBODY}`],
    'never a home directory: the user\'s own confined commands could re-point it')
})

t.test('the directories every sandbox keeps read-only: the launcher\'s own and each of the user\'s copy directories', { skip: ROOT_ONLY }, async (t) => {
  const dir = scratch(t)
  fs.mkdirSync(path.join(dir, 'real'))
  fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'))
  fs.writeFileSync(path.join(dir, 'file'), '')
  fs.mkdirSync(path.join(dir, 'theirs'))
  fs.chownSync(path.join(dir, 'theirs'), 1234, 1234)
  fs.mkdirSync(path.join(dir, 'loose'))
  fs.chmodSync(path.join(dir, 'loose'), 0o777)
  const candidates = ['missing', 'file', 'real', 'link', 'theirs', 'loose'].map((n) => path.join(dir, n))
  fs.mkdirSync(path.join(dir, 'own'))
  t.same(protectedDirs(path.join(dir, 'own', 'sandy-launcher'), candidates, 0), ['own', 'missing', 'real', 'loose'].map((n) => path.join(dir, n)),
    'the launcher\'s own directory; a missing one is made; a file, a symlink and another user\'s directory are no copy directories')
  t.same(protectedDirs('/no/such/dir/sandy-launcher', [], 0), [], 'a launcher that is not there protects nothing')
  t.equal(fs.statSync(path.join(dir, 'loose')).mode & 0o777, 0o755, 'a loosened one of the user\'s own is tightened again')
  const mine = binding.guardedDirs(binding.verifiedLauncherPath())
  t.equal(mine[0], path.dirname(binding.verifiedLauncherPath()))
  for (const d of mine) t.ok(fs.statSync(d).isDirectory(), `${d} exists`)
})

t.test('device and inode of a path and every directory above it', async (t) => {
  const dir = scratch(t)
  fs.mkdirSync(path.join(dir, 'a'))
  const ids = ancestorIds(path.join(dir, 'a'))
  const id = (p) => { const st = fs.statSync(p, { bigint: true }); return `${st.dev}:${st.ino}` }
  for (const p of [path.join(dir, 'a'), dir, '/']) t.ok(ids.has(id(p)), p)
  t.notOk(ids.has(id('/usr')), 'not a sibling')
})

t.test('a directory chain only root and the owner can change', { skip: ROOT_ONLY }, async (t) => {
  const dir = scratch(t)
  const mine = path.join(dir, 'mine')
  fs.mkdirSync(mine, { mode: 0o700 })
  fs.chownSync(mine, NOBODY, NOBODY)
  t.equal(chainProblem(mine, NOBODY), null, 'root-owned parents, the owner\'s own directory')
  t.match(chainProblem(mine, 1234), /belongs to uid 65534/, 'another user\'s directory')
  fs.chmodSync(dir, 0o777)
  t.match(chainProblem(mine, NOBODY), /writable by others/, 'a parent anyone can write')
  fs.chmodSync(dir, 0o1777)
  t.equal(chainProblem(mine, NOBODY), null, 'a sticky parent (like /tmp) is fine for an entry of the owner')
  t.match(chainProblem(dir, 0), /writable by others/, 'but not as the directory itself')
  const foreign = path.join(dir, 'foreign')
  fs.mkdirSync(foreign)
  fs.chownSync(foreign, 1234, 1234)
  fs.mkdirSync(path.join(foreign, 'inner'))
  fs.chownSync(path.join(foreign, 'inner'), NOBODY, NOBODY)
  t.match(chainProblem(path.join(foreign, 'inner'), NOBODY), /belongs to uid 1234/, 'a parent of a third user')
  fs.writeFileSync(path.join(dir, 'file'), '')
  t.match(chainProblem(path.join(dir, 'file'), 0), /is not a directory/)
  t.match(chainProblem(path.join(dir, 'missing', 'copies'), 0), /missing\/copies: ENOENT$/, 'a missing one is a problem, not a throw')
  fs.symlinkSync(mine, path.join(dir, 'link'))
  t.match(chainProblem(path.join(dir, 'link'), NOBODY), /is not a directory/, 'a symlink is not a directory')
})

t.test('a missing, malformed or unreadable source is refused', async (t) => {
  unusable(t, () => verifiedLauncher({ source, digest: null }), /recorded no digest/)
  unusable(t, () => verifiedLauncher({ source, digest: 'abc' }), /recorded no digest/)
  const dir = scratch(t)
  unusable(t, () => verifiedLauncher({ source: path.join(dir, 'missing'), digest: launcherDigest, dirs: [path.join(dir, 'copies')] }, NOBODY), /cannot be read \(ENOENT\)/)
  // (as this process's own user: a copy needs a directory it owns)
  const me = process.geteuid()
  unusable(t, () => verifiedLauncher({ source: path.join(dir, 'missing'), digest: launcherDigest, dirs: [path.join(dir, 'copies')] }, me), /cannot be read \(ENOENT\)/,
    'a copy from a missing source: the same')
  const wrong = path.join(dir, 'wrong')
  fs.writeFileSync(wrong, 'not the launcher', { mode: 0o755 })
  const copies = path.join(dir, 'copies')
  unusable(t, () => verifiedLauncher({ source: wrong, digest: launcherDigest, dirs: [copies] }, me),
    /does not match the digest recorded when it was built/)
  t.same(fs.readdirSync(copies), [], 'and no copy is written from it')
})

t.test('a copy is made, reused, and made again when it changes', async (t) => {
  const dir = scratch(t)
  const copies = path.join(dir, 'copies')
  const euid = process.geteuid()
  // one array: the same request, so the process's verified state is used
  const dirs = [copies]
  const first = verifiedLauncher({ source, digest: launcherDigest, dirs }, euid)
  t.equal(first, path.join(copies, `sandy-launcher-${launcherDigest}`))
  const st = fs.statSync(first)
  t.equal(st.mode & 0o7777, 0o555)
  t.equal(st.nlink, 1)
  t.same(fs.readdirSync(copies), [path.basename(first)], 'no temporary file is left')
  t.equal(verifiedLauncher({ source, digest: launcherDigest, dirs }, euid), first, 'reused')
  t.equal(fs.statSync(first).ino, st.ino, 'the same file')
  fs.rmSync(first)
  t.equal(verifiedLauncher({ source, digest: launcherDigest, dirs }, euid), first, 'made again when removed')
  t.equal(fs.statSync(first).nlink, 1)
  for (const [what, spoil] of [
    ['not executable', () => fs.chmodSync(first, 0o444)],
    ['group-writable', () => fs.chmodSync(first, 0o575)],
    ['a directory', () => { fs.rmSync(first); fs.mkdirSync(first) }],
    ['truncated', () => { fs.rmSync(first, { recursive: true, force: true }); fs.writeFileSync(first, '', { mode: 0o555 }) }]
  ]) {
    spoil()
    if (what === 'a directory') {
      unusable(t, () => verifiedLauncher({ source, digest: launcherDigest, dirs }, euid), /copies: EISDIR/)
      fs.rmSync(first, { recursive: true })
      continue
    }
    t.equal(verifiedLauncher({ source, digest: launcherDigest, dirs }, euid), first, `${what}: made again`)
    t.equal(fs.statSync(first).mode & 0o777, 0o555, `${what}: a clean copy`)
  }
})

t.test('directories that cannot hold a copy are skipped, with the reason', async (t) => {
  const dir = scratch(t)
  const file = path.join(dir, 'file')
  fs.writeFileSync(file, '')
  const err = t.throws(() => verifiedLauncher({ source, digest: launcherDigest, dirs: [path.join(file, 'sub')] }, process.geteuid()))
  t.match(err.message, /no directory can hold a private copy of it \(.*: ENOTDIR\)/)
  t.match(err.message, /make one of them usable \(each reason says what is wrong there\)/, 'and says how to fix it')
})

t.test('a directory on a noexec mount is skipped', { skip: ROOT_ONLY }, async (t) => {
  const dir = scratch(t)
  const noexec = path.join(dir, 'noexec')
  fs.mkdirSync(noexec)
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'noexec,mode=0755', 'sandy-test', noexec])
  t.teardown(() => execFileSync('umount', ['-l', noexec]))
  const good = path.join(dir, 'good')
  const got = verifiedLauncher({ source, digest: launcherDigest, dirs: [path.join(noexec, 'copies'), good] }, 0)
  t.equal(path.dirname(got), good, 'the next candidate')
  const err = t.throws(() => verifiedLauncher({ source, digest: launcherDigest, dirs: [path.join(noexec, 'copies')] }, 0))
  t.match(err.message, /cannot be executed \(noexec mount\?\)/)
})

t.test('another user\'s directory, or one others can write, is refused', { skip: ROOT_ONLY }, async (t) => {
  const dir = scratch(t)
  const theirs = path.join(dir, 'theirs')
  fs.mkdirSync(theirs, { mode: 0o755 })
  fs.chownSync(theirs, 1234, 1234)
  const err = t.throws(() => verifiedLauncher({ source, digest: launcherDigest, dirs: [theirs] }, 0))
  t.match(err.message, /belongs to uid 1234/)
  const open = path.join(dir, 'open')
  fs.mkdirSync(open)
  fs.chmodSync(open, 0o777)
  t.match(t.throws(() => verifiedLauncher({ source, digest: launcherDigest, dirs: [path.join(open, 'copies')] }, 0)).message, /open is writable by others/,
    'a parent others can write (not sticky)')
  t.equal(path.dirname(verifiedLauncher({ source, digest: launcherDigest, dirs: [open] }, 0)), open, 'the user\'s own directory, loosened: tightened and used')
  t.equal(fs.statSync(open).mode & 0o777, 0o755)
})

t.test('the shipped launcher itself, where only root can change it', { skip: ROOT_ONLY }, async (t) => {
  const { dir, pkg, shipped } = rootInstall(t)
  const copies = path.join(dir, 'copies')
  fs.mkdirSync(copies, { mode: 0o700 })
  fs.chownSync(copies, NOBODY, NOBODY)
  t.equal(verifiedLauncher({ source: shipped, digest: launcherDigest, dirs: [copies] }, NOBODY), shipped, 'for another user: used as it is')
  t.not(verifiedLauncher({ source: shipped, digest: launcherDigest, dirs: [path.join(dir, 'rootcopies')] }, 0), shipped, 'never for root')
  // (a copy this root process writes belongs to root, so for uid 65534 it
  // cannot verify: what matters here is that the shipped file is not used)
  const copyTaken = /the copy did not verify after it was written/
  fs.chownSync(pkg, NOBODY, NOBODY)
  unusable(t, () => verifiedLauncher({ source: shipped, digest: launcherDigest, dirs: [copies] }, NOBODY), copyTaken)
  t.pass('a directory the user owns above it: not used as it is')
  fs.chownSync(pkg, 0, 0)
  fs.linkSync(shipped, path.join(dir, 'second'))
  unusable(t, () => verifiedLauncher({ source: shipped, digest: launcherDigest, dirs: [copies] }, NOBODY), copyTaken)
  t.pass('a second hard link: not used as it is')
  fs.rmSync(path.join(dir, 'second'))
  fs.appendFileSync(shipped, 'x')
  unusable(t, () => verifiedLauncher({ source: shipped, digest: launcherDigest, dirs: [copies] }, NOBODY), /does not match the digest/)
})

t.test('the digest the build recorded, read when the addon loads', async (t) => {
  t.match(launcherDigest, /^[0-9a-f]{64}$/)
  t.equal(readDigest(scratch(t)), null, 'none recorded: null, and the launcher is unusable')
})

t.test('confine and the provider refuse, never run bare, when no verified launcher can be had', async (t) => {
  const broken = { ...binding, verifiedLauncherPath: () => { throw Object.assign(new Error('no copy (test)'), { code: 'SANDY_LAUNCHER_UNUSABLE' }) } }
  const { confinePolicy } = t.mockRequire('../../lib/confine.js', { '../../lib/binding.js': broken, '../../lib/policy.js': require('../../lib/policy.js') })
  const { SandboxPolicy } = require('../..')
  const policy = new SandboxPolicy('block_all').grant('/usr', 'read', 'subtree')
  // (the probe asks the launcher first: without one, the host cannot keep
  // the contract)
  t.throws(() => confinePolicy(['/usr/bin/true'], policy, { cwd: '/usr' }), { kind: 'Unsupported', message: /the sandy launcher cannot keep its contract on this host: no copy \(test\)/ })
  // a provider whose launcher was fine when probed and at arbitration, and
  // is not any more
  let calls = 0
  const flaky = { ...binding, verifiedLauncherPath: () => { if (calls++ > 1) return broken.verifiedLauncherPath(); return binding.verifiedLauncherPath() } }
  const { createLocalSandboxProvider } = t.mockRequire('../../lib/provider.js', { '../../lib/binding.js': flaky })
  const provider = createLocalSandboxProvider({ backend: 'sandy' })
  t.equal(provider.probe().selected, 'sandy')
  const err = t.throws(() => provider.confine(['true'], { mode: 'read-only', workspaceRoot: '/usr' }), { code: 'SANDBOX_UNAVAILABLE' })
  t.match(err.reasons.join('\n'), /sandy: no copy \(test\)/)
  // fine when probed, gone at confine: confinePolicy refuses all the same
  let once = 0
  const gone = { ...binding, verifiedLauncherPath: () => { if (once++ > 0) return broken.verifiedLauncherPath(); return binding.verifiedLauncherPath() } }
  const late = t.mockRequire('../../lib/confine.js', { '../../lib/binding.js': gone, '../../lib/policy.js': require('../../lib/policy.js') })
  t.throws(() => late.confinePolicy(['/usr/bin/true'], policy, { cwd: '/usr' }), { kind: 'Unsupported', message: /the sandy launcher cannot be used here: no copy \(test\)/ })
  // fine when probed, gone at the provider's arbitration: every Linux
  // backend unusable, with that reason, nothing selected
  let twice = 0
  const lost = { ...binding, verifiedLauncherPath: () => { if (twice++ > 0) return broken.verifiedLauncherPath(); return binding.verifiedLauncherPath() } }
  const arbitrating = t.mockRequire('../../lib/provider.js', { '../../lib/binding.js': lost }).createLocalSandboxProvider()
  const report = arbitrating.probe()
  t.equal(report.selected, null)
  t.match(report.candidates.find((c) => c.name === 'sandy'), { usable: false, enforcement: null, reason: 'no copy (test)' })
})

// The warning on the ordinary layout (the package in the project's own
// node_modules) says what to do about it (issue 31): where else to install
// the package, or which other root to give.
t.test('the warning about the package inside the workspace says what to do', async (t) => {
  const { createLocalSandboxProvider } = require('../..')
  const [warning] = createLocalSandboxProvider().probe({ workspaceRoot: path.join(__dirname, '..', '..') }).warnings
  t.match(warning, /^sandy-native's own files \(its JavaScript and addon\) lie inside the writable workspace: a confined command can change what the next Node process loads from them; /, 'what is at stake')
  t.match(warning, /; install the package outside the workspace \(globally with npm install -g, then run the sandy on your PATH rather than npx sandy; or as a dependency of the tool that runs the agent rather than of the project it works in\)/,
    'where to install it instead')
  t.match(warning, /, or make the workspace root a directory that does not hold it$/, 'or which root to give instead')
})

t.test('the provider\'s probe with a workspace root: what a run there leaves unprotected', async (t) => {
  const { createLocalSandboxProvider } = require('../..')
  const provider = createLocalSandboxProvider()
  t.notOk('warnings' in provider.probe(), 'none asked, none given')
  t.same(provider.probe({ workspaceRoot: '/usr' }).warnings, [])
  const pkgRoot = path.join(__dirname, '..', '..')
  t.match(provider.probe({ workspaceRoot: pkgRoot }).warnings, [/sandy-native's own files \(its JavaScript and addon\) lie inside the writable workspace/])
  t.throws(() => provider.probe(null), TypeError)
  t.throws(() => provider.probe({ root: '/' }), { name: 'TypeError', message: /unknown key "root"/ })
  t.throws(() => provider.probe({ workspaceRoot: 'relative' }), TypeError)
  t.throws(() => provider.probe({ workspaceRoot: '/no/such/root' }), { name: 'RangeError', message: 'the workspace root cannot be resolved (ENOENT)' })
})

t.test('the Landlock-only level refuses a workspace that holds a launcher copy (in this process)', async (t) => {
  // a root process never gets that level from the host probe: pretend it does
  const { probe } = require('../../lib/probe.js')
  const host = structuredClone(probe())
  host.backends.landlock = { usable: true, enforcement: 'partial', reason: 'test' }
  const { createLocalSandboxProvider } = t.mockRequire('../../lib/provider.js', { '../../lib/probe.js': { probe: () => host } })
  const provider = createLocalSandboxProvider({ backend: 'landlock' })
  const copy = binding.verifiedLauncherPath()
  const err = t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: path.dirname(path.dirname(copy)) }), { code: 'SANDBOX_UNAVAILABLE' })
  t.match(err.message, /the Landlock-only level cannot protect/)
  t.ok(provider.confine(['true'], { mode: 'read-only', workspaceRoot: path.dirname(path.dirname(copy)) }), 'read-only is fine')
  t.ok(provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: scratch(t) }), 'and a workspace elsewhere')
})

t.test('a loosened directory above the copies is noticed at the next confine', { skip: ROOT_ONLY }, async (t) => {
  const dir = scratch(t)
  const parent = path.join(dir, 'parent')
  fs.mkdirSync(parent, { mode: 0o755 })
  const dirs = [path.join(parent, 'copies')]
  const first = verifiedLauncher({ source, digest: launcherDigest, dirs }, 0)
  t.equal(verifiedLauncher({ source, digest: launcherDigest, dirs }, 0), first, 'reused while nothing changed')
  fs.chmodSync(parent, 0o777)
  unusable(t, () => verifiedLauncher({ source, digest: launcherDigest, dirs }, 0), /parent is writable by others/)
  fs.chmodSync(parent, 0o755)
  t.equal(verifiedLauncher({ source, digest: launcherDigest, dirs }, 0), first, 'and used again once it is not')
})

t.test('a FIFO or a symlink loop in place of a copy neither hangs nor throws a raw error', { skip: ROOT_ONLY }, async (t) => {
  const dir = scratch(t)
  const dirs = [path.join(dir, 'copies')]
  const copy = verifiedLauncher({ source, digest: launcherDigest, dirs }, 0)
  fs.rmSync(copy)
  execFileSync('mkfifo', [copy])
  t.equal(verifiedLauncher({ source, digest: launcherDigest, dirs }, 0), copy, 'a FIFO is replaced by a copy')
  t.ok(fs.lstatSync(copy).isFile())
  const loop = path.join(dir, 'loop')
  fs.symlinkSync(loop, loop)
  t.same(protectedDirs(path.join(dir, 'copies', 'sandy-launcher'), [loop], 0), [path.join(dir, 'copies')], 'a squatted symlink loop is skipped')
  unusable(t, () => verifiedLauncher({ source, digest: launcherDigest, dirs: [loop] }, 0), /loop/)
})

t.test('which writable roots expose a copy directory', async (t) => {
  const { exposure } = require('../../lib/launcher-copy.js')
  const dir = scratch(t)
  const parent = path.join(dir, 'parent')
  const copies = path.join(parent, 'copies')
  fs.mkdirSync(copies, { recursive: true })
  const id = (p) => { const st = fs.statSync(p, { bigint: true }); return `${st.dev}:${st.ino}` }
  t.equal(exposure({ root: '/usr', rootId: id('/usr') }, [copies], false), null, 'a root elsewhere')
  t.equal(exposure({ root: copies, rootId: id(copies) }, [copies], false), null, 'the directory itself: the sandboxes bind it read-only')
  t.equal(exposure({ root: parent, rootId: id(parent) }, [copies], false), null, 'its parent: the rule of copyParentIds, not this one')
  t.match(exposure({ root: '/elsewhere', rootId: id(parent) }, [copies], false), /under another name \(a bind mount\)/)
  t.match(exposure({ root: copies, rootId: id(copies) }, [copies], true), /the Landlock-only level cannot protect/)
})

// (a resolved path that cannot be pinned: pinning happens in the addon's
// one crossing, csrc/test/confine_test.c, where the lookup can fail on cue)
