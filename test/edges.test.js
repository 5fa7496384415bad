'use strict'
// Edges of the JS layer that the process-level suites do not reach in this
// process: a missing launcher seen by the provider, Buffer inputs, and a
// bubblewrap that would lie inside the workspace.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const sandy = require('..')
const { launcherPath } = require('../lib/binding.js')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-edges-'))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

t.test('launcherPath: a clear error when missing or not executable', async (t) => {
  t.throws(() => launcherPath(dir), { code: 'SANDY_LAUNCHER_UNUSABLE', message: /is missing/ })
  fs.writeFileSync(path.join(dir, 'sandy-launcher'), '', { mode: 0o644 })
  t.throws(() => launcherPath(dir), { code: 'SANDY_LAUNCHER_UNUSABLE', message: /is not executable/ })
  t.match(launcherPath(), /sandy-launcher$/)
})

t.test('a provider whose launcher is unusable never selects a launcher backend', async (t) => {
  const { createLocalSandboxProvider } = t.mockRequire('../lib/provider.js', {
    '../lib/binding.js': {
      ...require('../lib/binding.js'),
      launcherPath: () => { throw new Error('the sandy launcher is missing (test)') }
    }
  })
  const report = createLocalSandboxProvider().probe()
  t.equal(report.selected, 'bwrap')
  for (const name of ['sandy', 'landlock']) {
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
    { code: 'SANDBOX_UNAVAILABLE', message: /inside the workspace/ })
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
  const { createLocalSandboxProvider } = t.mockRequire('../lib/provider.js', { '../lib/probe.js': { probe: () => report } })
  const err = t.throws(() => createLocalSandboxProvider().confine(['true'], { mode: 'read-only', workspaceRoot: dir }))
  t.equal(err.code, 'SANDBOX_UNAVAILABLE')
  t.match(err.message, /no usable sandbox backend/)
  t.equal(err.reasons.length, 4)
})
