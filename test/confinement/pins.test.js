'use strict'
// What confine checked is what runs (issue 9 items 2 and 3): a Sandy
// policy is pinned by what it resolved (every canonical path, each deny's
// symlink spelling, the working directory, by device and inode), and the
// seam's workspace root under `sandy` by the object confine saw. A cached
// argv whose paths name other objects since is a runner failure, never a
// grant of what they name now. Each attack also shows that the change
// itself took effect (a fresh confine sees the new object).
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { users, backendsFor, withSanitizerEnv } = require('../helpers/sandbox.js')
const sandy = require('../..')
const { SandboxPolicy, confinePolicy, createLocalSandboxProvider, classifyExit } = sandy

const SH = '/bin/sh'

function run (c, { cwd, wrap }) {
  const full = [...wrap, ...c.argv]
  const r = spawnSync(full[0], full.slice(1), { cwd, encoding: 'utf8', env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }) })
  return { code: r.status, signal: r.signal, stdout: r.stdout || '', stderr: r.stderr || '' }
}

function layout (t, user, spec) {
  const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-pins-'))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const [rel, v] of Object.entries(spec)) {
    const p = path.join(dir, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    if (v === null) fs.mkdirSync(p, { recursive: true })
    else if (typeof v === 'object') fs.symlinkSync(path.join(dir, v.symlink), p)
    else fs.writeFileSync(p, v)
  }
  spawnSync('chown', ['-hR', `${user.uid}:${user.gid}`, dir])
  return (rel) => path.join(dir, rel)
}

// The host re-points link at target, atomically (a rename over it).
function repoint (link, target) {
  fs.symlinkSync(target, `${link}.new`)
  fs.renameSync(`${link}.new`, link)
}

const base = () => new SandboxPolicy('block_all').allowSubprocesses().grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')

for (const user of users()) {
  // (a symlink inside a writable grant, which a run could re-point, is
  // refused at confine, test/confinement/escape-fs.test.js; this one is the host's,
  // and the view shows each grant at its canonical path)
  t.test(`a grant reached through a symlink re-pointed since confine is not granted to a cached argv [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return // (a Sandy policy)
    const at = layout(t, user, { 'ws/x': '', 'public/file': 'public\n', 'secret/file': 'secret\n', 'links/data': { symlink: 'public' } })
    const policy = base().grant(at('ws'), 'read_write', 'subtree').grant(at('links/data'), 'read', 'subtree')
    const c = confinePolicy([SH, '-c', `cat ${at('public/file')}`], policy, { cwd: at('ws') })
    const first = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(first.stdout, 'public\n', `the first run read the public file (${first.stderr})`)
    repoint(at('links/data'), at('secret'))
    const again = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(again.code, 125, 'the same argv now fails before running')
    t.match(again.stderr, /grants(\[\d+\] is|:) not what confine resolved/)
    t.equal(classifyExit(c, again).kind, 'runner-failure')
    t.notMatch(again.stdout, /secret/, 'and never read the new target')
    const fresh = confinePolicy([SH, '-c', `cat ${at('secret/file')}`], policy, { cwd: at('ws') })
    t.equal(run(fresh, { cwd: at('ws'), wrap: user.wrap }).stdout, 'secret\n', 'control: a fresh confine grants what the link names now')
  })

  t.test(`a denied file replaced by an atomic save makes a cached argv fail [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return // (a Sandy policy)
    const at = layout(t, user, { 'ws/settings.json': '{}\n' })
    const policy = base().grant(at('ws'), 'read_write', 'subtree').denyWriteExact(at('ws/settings.json'))
    const c = confinePolicy(['/usr/bin/true'], policy, { cwd: at('ws') })
    t.equal(run(c, { cwd: at('ws'), wrap: user.wrap }).code, 0, 'the argv runs while nothing changed')
    fs.writeFileSync(at('ws/.settings.tmp'), '{"a":1}\n')
    fs.renameSync(at('ws/.settings.tmp'), at('ws/settings.json'))
    const r = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(r.code, 125, 'after an editor\'s atomic save the cached argv fails closed')
    t.match(r.stderr, /pin\[\d+\] changed since confine/)
    t.equal(run(confinePolicy(['/usr/bin/true'], policy, { cwd: at('ws') }), { cwd: at('ws'), wrap: user.wrap }).code, 0, 'a fresh confine works')
  })

  for (const backend of ['sandy', 'bwrap']) {
    t.test(`the seam's workspace root replaced after confine is refused [${backend}, ${user.name}]`, async (t) => {
      if (backendsFor(t, user, [backend]).length === 0) return
      const at = layout(t, user, { ws: null, other: null })
      const c = createLocalSandboxProvider({ backend }).confine([SH, '-c', 'echo x > made'], { mode: 'workspace-write', workspaceRoot: at('ws') })
      fs.renameSync(at('ws'), at('ws.away'))
      fs.renameSync(at('other'), at('ws'))
      const r = run(c, { cwd: '/', wrap: user.wrap })
      t.equal(r.code, 125, `refused (${r.stderr.trim()})`)
      t.equal(classifyExit(c, r).kind, 'runner-failure')
      t.notOk(fs.existsSync(at('ws/made')), 'nothing written in the replacement')
      const fresh = createLocalSandboxProvider({ backend }).confine([SH, '-c', 'echo x > made'], { mode: 'workspace-write', workspaceRoot: at('ws') })
      t.equal(run(fresh, { cwd: at('ws'), wrap: user.wrap }).code, 0, 'control: a fresh confine writes the replacement')
      t.ok(fs.existsSync(at('ws/made')))
    })
  }
}

// RENAME_EXCHANGE swaps two directories in one step: a pinned grant whose
// name now holds the other directory is refused.
const EXCHANGE = 'import ctypes, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n' +
  'sys.exit(0 if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) == 0 else ctypes.get_errno())'

for (const user of users()) {
  t.test(`a pinned directory exchanged with another after confine is refused [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return // (a Sandy policy)
    const at = layout(t, user, { 'ws/x': '', 'data/file': 'data\n', 'secret/file': 'secret\n' })
    const policy = base().grant(at('ws'), 'read_write', 'subtree').grant(at('data'), 'read', 'subtree')
    const c = confinePolicy([SH, '-c', `cat ${at('data/file')}`], policy, { cwd: at('ws') })
    t.equal(run(c, { cwd: at('ws'), wrap: user.wrap }).stdout, 'data\n', 'runs while nothing changed')
    t.equal(spawnSync('python3', ['-c', EXCHANGE, at('data'), at('secret')]).status, 0, 'the host exchanged the two directories')
    const r = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(r.code, 125, `refused (${r.stderr.trim()})`)
    t.notMatch(r.stdout, /secret/)
    t.equal(run(confinePolicy([SH, '-c', `cat ${at('data/file')}`], policy, { cwd: at('ws') }), { cwd: at('ws'), wrap: user.wrap }).stdout, 'secret\n',
      'control: a fresh confine grants what the name holds now')
  })
}

t.test('a pinned path overmounted after confine is refused', { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} host mounts: this run is not root` }, async (t) => {
  if (backendsFor(t, users()[0], ['sandy']).length === 0) return // (a Sandy policy)
  const user = users()[0]
  const at = layout(t, user, { 'ws/x': '', 'data/file': 'data\n' })
  const policy = base().grant(at('ws'), 'read_write', 'subtree').grant(at('data'), 'read', 'subtree')
  const c = confinePolicy([SH, '-c', `ls ${at('data')}`], policy, { cwd: at('ws') })
  spawnSync('mount', ['-t', 'tmpfs', 'sandy-over', at('data')])
  t.teardown(() => spawnSync('umount', ['-l', at('data')]))
  fs.writeFileSync(at('data/planted'), '')
  const r = run(c, { cwd: at('ws'), wrap: user.wrap })
  t.equal(r.code, 125, `refused (${r.stderr.trim()})`)
  t.match(r.stderr, /pin\[\d+\] changed since confine/)
  t.equal(run(confinePolicy([SH, '-c', `ls ${at('data')}`], policy, { cwd: at('ws') }), { cwd: at('ws'), wrap: user.wrap }).stdout, 'planted\n',
    'control: a fresh confine sees the mount')
})

// A pin belongs to one entry: re-pointing a writable grant's symlink onto
// a path the policy pins for another (read-only) entry does not move the
// write access there (second review of issue 9).
for (const user of users()) {
  t.test(`a writable grant re-pointed onto another pinned path is refused [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return // (a Sandy policy)
    const at = layout(t, user, { 'ws/x': '', 'scratch/x': '', 'ro/file': 'ro\n', 'links/out': { symlink: 'scratch' } })
    const policy = base().grant(at('ws'), 'read_write', 'subtree').grant(at('links/out'), 'read_write', 'subtree').grant(at('ro'), 'read', 'subtree')
    const c = confinePolicy([SH, '-c', `echo x > ${at('scratch/f')} && echo WROTE`], policy, { cwd: at('ws') })
    const first = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(first.stdout, 'WROTE\n', `the first run wrote scratch/ (${first.stderr})`)
    repoint(at('links/out'), at('ro'))
    const again = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(again.code, 125, 'the cached argv now fails before running')
    t.match(again.stderr, /grants(\[\d+\] is|:) not what confine resolved/)
    t.notOk(fs.existsSync(at('ro/f')), 'the read-only directory was not written')
    const fresh = confinePolicy([SH, '-c', `echo x > ${at('ro/f')}`], policy, { cwd: at('ws') })
    t.equal(run(fresh, { cwd: at('ws'), wrap: user.wrap }).code, 0, 'control: a fresh confine grants what the link names now')
    t.ok(fs.existsSync(at('ro/f')))
  })
}

// A grant's pin carries its access and scope: merging one entry and
// splitting another since confine keeps every count and every key's path,
// but not their access (third review of issue 9).
for (const user of users()) {
  t.test(`entries merged and split since confine cannot carry write access to a read-only grant [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return // (a Sandy policy)
    const at = layout(t, user, { 'reference/file': 'ref\n', 'ws/x': '', 'scratch/x': '', 'links/b': { symlink: 'scratch' }, 'links/s1': { symlink: 'scratch' } })
    const policy = base().grant(at('reference'), 'read', 'subtree').grant(at('ws'), 'read_write', 'subtree')
      .grant(at('links/b'), 'read_write', 'subtree').grant(at('links/s1'), 'read_write', 'subtree')
    const c = confinePolicy([SH, '-c', `echo x > ${at('reference/f')} 2>/dev/null && echo WROTE; true`], policy, { cwd: at('ws') })
    const first = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(first.stdout, '', `the first run could not write reference/ (${first.stderr})`)
    repoint(at('links/b'), at('reference'))
    const again = run(c, { cwd: at('ws'), wrap: user.wrap })
    t.equal(again.code, 125, `the cached argv now fails before running (${again.stderr.trim()})`)
    t.notOk(fs.existsSync(at('reference/f')), 'reference/ was not written')
    const fresh = confinePolicy([SH, '-c', `echo x > ${at('reference/f')} && echo WROTE`], policy, { cwd: at('ws') })
    t.equal(run(fresh, { cwd: at('ws'), wrap: user.wrap }).stdout, 'WROTE\n', 'control: a fresh confine grants write through what links/b names now')
  })
}
