'use strict'
// Edges of the JS layer that the process-level suites do not reach in this
// process: a missing launcher seen by the provider, Buffer inputs, a
// bubblewrap that would lie inside the workspace, and the protections a
// backend cannot keep.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const sandy = require('../..')
const { launcherPath } = require('../../lib/binding.js')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-edges-'))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

t.test('launcherPath: a clear error when missing or not executable', async (t) => {
  t.throws(() => launcherPath(dir), { code: 'SANDY_LAUNCHER_UNUSABLE', message: /is missing/ })
  fs.writeFileSync(path.join(dir, 'sandy-launcher'), '', { mode: 0o644 })
  t.throws(() => launcherPath(dir), { code: 'SANDY_LAUNCHER_UNUSABLE', message: /is not executable/ })
  t.match(launcherPath(), /sandy-launcher$/)
})

t.test('a provider whose launcher is unusable never selects a launcher backend', async (t) => {
  const { createLocalSandboxProvider } = t.mockRequire('../../lib/provider.js', {
    '../../lib/binding.js': {
      ...require('../../lib/binding.js'),
      verifiedLauncherPath: () => { throw new Error('the sandy launcher is missing (test)') }
    }
  })
  const report = createLocalSandboxProvider().probe()
  t.equal(report.selected, null, 'bwrap runs the launcher as its guard: nothing is left')
  // (as root, landlock is unusable for its own reason already)
  for (const name of process.geteuid() === 0 ? ['sandy', 'bwrap'] : ['sandy', 'bwrap', 'landlock']) {
    const c = report.candidates.find((x) => x.name === name)
    t.equal(c.usable, false)
    t.match(c.reason, /launcher is missing/)
  }
  const forced = createLocalSandboxProvider({ backend: 'sandy' })
  t.throws(() => forced.confine(['true'], { mode: 'read-only', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE' })
})

t.test('bubblewrap inside the workspace is refused', async (t) => {
  const provider = sandy.createLocalSandboxProvider({ backend: 'bwrap' })
  const bwrapDir = path.dirname(sandy.probe().bwrap.path)
  t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: bwrapDir }),
    { code: 'SANDBOX_UNAVAILABLE', message: /bubblewrap lies inside a writable directory/ })
})

t.test('Buffer cwd and stderr inputs', async (t) => {
  const policy = new sandy.SandboxPolicy('block_all').grant(dir, 'read', 'subtree')
  t.equal(policy.resolve({ cwd: Buffer.from(dir) }).cwd, fs.realpathSync(dir))
  t.throws(() => policy.resolve({ cwd: 42 }), TypeError)
  t.throws(() => policy.resolve({ cwd: Buffer.from('relative') }), TypeError)
  t.throws(() => policy.resolve({ cwd: Buffer.from(`${dir}\0x`) }), /NUL/)
  const confined = { argv: ['/x'], enforcement: 'full', denialSignatures: ['denied here'], runnerFailureRules: [] }
  t.equal(sandy.classifyExit(confined, { code: 1, stderr: Buffer.from('x: denied here\n') }).kind, 'denied')
  t.equal(sandy.classifyExit(confined, { code: 1, stderr: null }).kind, 'ordinary')
})

t.test('confinePolicy: "Cannot fork" is a denial only where subprocesses are forbidden', async (t) => {
  const policy = new sandy.SandboxPolicy('block_all').grant(dir, 'read_write', 'subtree')
  const strict = sandy.confinePolicy(['true'], policy, { cwd: dir })
  const forking = sandy.confinePolicy(['true'], policy.allowSubprocesses(), { cwd: dir })
  t.ok(strict.denialSignatures.includes('Cannot fork'))
  t.notOk(forking.denialSignatures.includes('Cannot fork'))
  t.match(strict.runnerFailureRules, [{ allowedExitCodes: [125], fatalSignatures: [/^\[run [0-9a-f]{32}\]$/] }])
  t.same(forking.denialSignatures, sandy.createLocalSandboxProvider({ backend: 'sandy' })
    .confine(['true'], { mode: 'read-only', workspaceRoot: dir }).denialSignatures, 'the same dialect as the seam\'s sandy backend')
})

t.test('with no usable backend at all, auto fails closed with every reason', async (t) => {
  const report = structuredClone(sandy.probe())
  for (const v of Object.values(report.backends)) Object.assign(v, { usable: false, enforcement: null, reason: 'switched off (test)' })
  const { createLocalSandboxProvider } = t.mockRequire('../../lib/provider.js', { '../../lib/probe.js': { probe: () => report } })
  const err = t.throws(() => createLocalSandboxProvider().confine(['true'], { mode: 'read-only', workspaceRoot: dir }))
  t.equal(err.code, 'SANDBOX_UNAVAILABLE')
  t.match(err.message, /no usable sandbox backend/)
  t.equal(err.reasons.length, 4)
})

// The Landlock-only level keeps no socket out of reach, and it refuses
// uid 0, so this process (root in CI) never sees it usable: a probe that
// says it is, as it does for any other user, reaches the provider's
// choices about protections a backend cannot keep. What the kernel then
// does is test/confinement/protected-reads.test.js's, as uid 65534.
t.test('a backend that cannot keep a protection: noted, dropped from the defaults, refused when asked for', async (t) => {
  const report = structuredClone(sandy.probe())
  Object.assign(report.backends.landlock, { usable: true, enforcement: 'partial', reason: 'Landlock (test)' })
  const { createLocalSandboxProvider } = t.mockRequire('../../lib/provider.js', { '../../lib/probe.js': { probe: () => report } })
  const request = { mode: 'workspace-write', workspaceRoot: dir }
  const landlock = createLocalSandboxProvider({ backend: 'landlock' })
  t.equal(landlock.probe().candidates.find((c) => c.name === 'landlock').reason, 'Landlock (test); it does not keep host-sockets out of reach; it does not keep git\'s hooks and config or a home\'s start-up files read-only (protected writes); a protected path the host replaces during a run ends the run (watched: a window of one signal and a kill remains)', 'its verdict says what it leaves, and what a replacement by the host meets')
  t.equal(createLocalSandboxProvider({ backend: 'sandy' }).probe().candidates.find((c) => c.name === 'sandy').reason.includes('does not keep'), false, 'control: the sandy backend keeps them all')
  const defaults = landlock.confine(['true'], request)
  t.equal(defaults.argv[0], sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], request).argv[0], 'the defaults confine: host-sockets is dropped, not asked for')
  const asked = t.throws(() => createLocalSandboxProvider({ backend: 'landlock', protect: ['host-sockets'] }).confine(['true'], request))
  t.match(asked, { code: 'SANDBOX_UNAVAILABLE', message: 'the landlock backend cannot keep the host-sockets preset out of reach' })
  const socket = path.join(dir, 'agent.sock')
  const server = require('node:net').createServer().listen(socket)
  await new Promise((resolve) => server.once('listening', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const named = t.throws(() => createLocalSandboxProvider({ backend: 'landlock', protect: [], denyRead: [socket] }).confine(['true'], request))
  t.match(named, { code: 'SANDBOX_UNAVAILABLE', message: 'the landlock backend cannot keep a socket options.denyRead names out of reach' })
  const file = path.join(dir, 'secret')
  fs.writeFileSync(file, 'x')
  t.ok(createLocalSandboxProvider({ backend: 'landlock', protect: [], denyRead: [file] }).confine(['true'], request).argv, 'control: a file it names is kept')
  // (no backend here lacks a keeper of the secret variables; one that did
  // would say so in the same note)
  const real = require('../../lib/binding.js')
  const addon = { ...real.addon }
  addon.backendDialect = (name) => {
    const d = real.addon.backendDialect(name)
    return name === 'landlock' ? { ...d, protections: { ...d.protections, environment: null } } : d
  }
  const without = t.mockRequire('../../lib/provider.js', { '../../lib/probe.js': { probe: () => report }, '../../lib/binding.js': { ...real, addon } })
  t.match(without.createLocalSandboxProvider({ backend: 'landlock' }).probe().candidates.find((c) => c.name === 'landlock').reason,
    /; it does not keep host-sockets, secret variables out of reach; it does not keep git's hooks/)
})

t.test('a denyRead path that does not exist is the caller\'s error, named by index', async (t) => {
  const err = t.throws(() => sandy.createLocalSandboxProvider({ denyRead: [dir, path.join(dir, 'no-such-file')] })
    .confine(['true'], { mode: 'read-only', workspaceRoot: dir }))
  t.ok(err instanceof RangeError, 'a RangeError, as for any option out of range')
  t.equal(err.message, 'options.denyRead[1] cannot be resolved', 'which entry, never its path')
})

t.test('a denyRead file with another name is refused: the host cannot keep it', async (t) => {
  const file = path.join(dir, 'linked-secret')
  fs.writeFileSync(file, 'x')
  const provider = sandy.createLocalSandboxProvider({ backend: 'sandy', protect: [], denyRead: [file] })
  const request = { mode: 'read-only', workspaceRoot: dir }
  t.ok(provider.confine(['true'], request).argv, 'control: with one name it is kept')
  fs.linkSync(file, path.join(dir, 'other-name'))
  const err = t.throws(() => provider.confine(['true'], request))
  t.match(err, { code: 'SANDBOX_UNAVAILABLE', message: /^a protected file \(options\.denyRead\[0\]\) has another hard link/ })
  t.notOk(err.message.includes(dir), 'no path in the message')
})

t.test('toJSON refuses what no document can hold; fromJson reports a lone surrogate as Parse', async (t) => {
  const base = new sandy.SandboxPolicy('block_all')
  t.throws(() => JSON.stringify(base.grant('a\0b', 'read', 'exact')), { kind: 'InvalidPolicy', message: /grants\[0\]: path cannot be written/ })
  t.throws(() => JSON.stringify(base.denySubtree('')), { kind: 'InvalidPolicy', message: /deny_subtrees\[0\]/ })
  t.throws(() => JSON.stringify(base.denyWriteExact('x\ud800')), { kind: 'InvalidPolicy' })
  let many = base
  for (let i = 0; i <= sandy.limits.sectionEntries; i++) many = many.allowExecute(`/x${i}`, 'exact')
  t.throws(() => JSON.stringify(many), { kind: 'InvalidPolicy', message: /executable_grants: more entries/ })
  const err = t.throws(() => sandy.SandboxPolicy.fromJson('{\n  "network": "x\ud800"}'))
  t.ok(err instanceof sandy.PolicyDocumentError)
  t.match(err, { kind: 'Parse', line: 2, column: 16 })
  t.match(t.throws(() => sandy.SandboxPolicy.fromJson('\udc00')), { kind: 'Parse', line: 1, column: 1 })
  t.match(t.throws(() => sandy.SandboxPolicy.fromJson('{"a":"\ud83d\ude00\udbff"}')), { kind: 'Parse', line: 1, column: 11 })
  t.match(t.throws(() => sandy.SandboxPolicy.fromJson('x'.repeat(70000) + '\ud800')), { kind: 'TooLarge' }, 'size first')
})

t.test('isWithin: component by component, the root holding every path', async (t) => {
  const { isWithin } = require('../../lib/paths.js')
  t.equal(isWithin('/', '/'), true)
  t.equal(isWithin('/', '/usr/bin'), true, 'the root holds every path')
  t.equal(isWithin('/a', '/a'), true)
  t.equal(isWithin('/a', '/a/b'), true)
  t.equal(isWithin('/a', '/ab'), false, 'a longer name is not beneath')
  t.equal(isWithin('/a', '/a/..b'), true, '"..b" is a name, not a step up')
  t.equal(isWithin('/a/b', '/a/b/../c'), false, 'normalized first')
  t.equal(isWithin('/a/', '/a/b'), true, 'a trailing slash changes nothing')
})
