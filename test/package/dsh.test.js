'use strict'
// The real consumer: dsh's published packages (devDependencies at exact
// versions), a cordis context with sandy-native/dsh as ctx.sandbox and
// ctx.sandboxPolicy, and dsh's bash tool driving real commands
// (test/fixtures/dsh-harness.mjs), on every usable backend, as root and as
// uid 65534. What the test reads of dsh's tool result: `value.sandbox`
// ({ mode, denied, enforcement }), the denial marker dsh appends to the
// text (`sandboxDenialMarker(mode)`: "[sandbox: file access denied under
// MODE mode]"), and for a runner failure `isError` with
// `error.info.code === 'SANDBOX_UNAVAILABLE'`, which dsh's tool registry
// sets only for an error that is `instanceof` its HarnessError.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { users, backendsFor, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')

// dsh's stack starts several processes per call: more than tap's default.
t.setTimeout(patience(600000))

const HARNESS = path.join(__dirname, '..', 'fixtures', 'dsh-harness.mjs')
const BROKEN = path.join(__dirname, '..', 'fixtures', 'broken-launcher.sh')
const OVERRIDE = path.join(__dirname, '..', 'helpers', 'launcher-override.js')

const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-dsh-'))
fs.chmodSync(dir, 0o755)
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

function ownDir (user, name) {
  const d = path.join(dir, name)
  fs.mkdirSync(d, { recursive: true })
  fs.chownSync(d, user.uid, user.gid)
  return d
}

// One harness run as user; its JSON report.
function harness (user, input, { broken = false } = {}) {
  const node = broken ? [process.execPath, '-r', OVERRIDE] : [process.execPath]
  const argv = [...user.wrap, ...node, HARNESS, JSON.stringify(input)]
  const env = withSanitizerEnv({ PATH: '/usr/bin:/bin', HOME: input.dshHome, ...(broken ? { SANDY_TEST_LAUNCHER: BROKEN } : {}) })
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: input.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout))
      } catch {
        reject(new Error(`the harness failed (exit ${code}): ${stderr.slice(-2000)}`))
      }
    })
  })
}

function unconfined (user, script, cwd) {
  return new Promise((resolve) => {
    const argv = [...user.wrap, '/bin/sh', '-c', script]
    spawn(argv[0], argv.slice(1), { cwd, stdio: 'ignore' }).on('close', resolve)
  })
}

const DENIED = (mode) => `[sandbox: file access denied under ${mode} mode]`

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`dsh's bash tool through sandy-native/dsh, ${backend} [${user.name}]`, async (t) => {
      const ws = ownDir(user, `ws-${backend}-${user.uid}`)
      const outside = ownDir(user, `outside-${backend}-${user.uid}`)
      const dshHome = ownDir(user, `home-${backend}-${user.uid}`)
      const out = await harness(user, {
        config: { mode: 'read-only', workspaceRoot: ws, backend },
        cwd: ws,
        dshHome,
        calls: [
          { args: { command: 'echo a > inside' } },
          { args: { command: 'echo x > /dev/null && echo ok' } },
          { args: { command: 'echo a > inside', sandbox_permissions: 'workspace-write', justification: 'the test writes its workspace' } },
          { setMode: 'workspace-write', args: { command: `echo b > ${outside}/f` } },
          { args: { command: 'echo c > inside2' } },
          { args: { command: 'readlink /proc/self/ns/pid; echo "pid $$"; ls /proc | grep -c "^[0-9]"' } }
        ]
      })
      t.same(out.marker, { readOnly: DENIED('read-only'), workspaceWrite: DENIED('workspace-write') }, 'dsh\'s markers, as this test spells them')
      t.equal(out.policy.workspaceRoot, ws)
      t.match(out.policy.sessionId, /\S/, 'the session id is carried')
      const [ro, sink, escalated, beside, write, pids] = out.results
      t.same(ro.sandbox, { mode: 'read-only', denied: true, enforcement: ro.sandbox.enforcement }, 'read-only: the write is a sandbox denial')
      t.ok(ro.text.includes(DENIED('read-only')), 'with dsh\'s denial marker in the tool result')
      t.notOk(ro.isError)
      t.equal(sink.text, 'ok\n', 'read-only writes /dev/null')
      t.same([escalated.isError, escalated.sandbox.mode, escalated.sandbox.denied], [false, 'workspace-write', false], 'an approved workspace-write retry runs')
      t.equal(fs.readFileSync(path.join(ws, 'inside'), 'utf8'), 'a\n', 'and its write lands')
      t.same([beside.sandbox.mode, beside.sandbox.denied], ['workspace-write', true], 'workspace-write (the session\'s own mode now): a write outside is denied')
      t.ok(beside.text.includes(DENIED('workspace-write')))
      t.notOk(fs.existsSync(path.join(outside, 'f')), 'nothing outside')
      t.equal(write.sandbox.denied, false)
      t.equal(fs.readFileSync(path.join(ws, 'inside2'), 'utf8'), 'c\n', 'a write inside lands')
      t.equal(ro.sandbox.enforcement, backend === 'landlock' ? 'partial' : 'full')
      // dsh expects its bubblewrap provider's commands to run in a private
      // PID namespace: so do this package's, but at the Landlock-only level
      const [ns, own, listed] = pids.text.trim().split('\n')
      const host = fs.readlinkSync('/proc/self/ns/pid')
      if (backend === 'landlock') {
        t.equal(ns, host, 'landlock: the host\'s PID namespace (the level\'s partial note says so)')
      } else {
        t.not(ns, host, `${backend}: a PID namespace of its own (${pids.text.trim()})`)
        t.match(own, /^pid [1-9]$/, 'in which the shell has one of the first numbers')
        t.ok(Number(listed) < 10, `and its /proc lists its own few processes (${listed})`)
      }
      // the same writes, unconfined
      t.equal(await unconfined(user, `echo b > ${outside}/f && echo a > ${ws}/unconfined`, ws), 0, 'unconfined, both writes succeed')
    })

    t.test(`a launcher refusing before the command is dsh's runner failure, ${backend} [${user.name}]`, async (t) => {
      const ws = ownDir(user, `broken-ws-${backend}-${user.uid}`)
      const dshHome = ownDir(user, `broken-home-${backend}-${user.uid}`)
      const out = await harness(user, {
        config: { mode: 'workspace-write', workspaceRoot: ws, backend },
        cwd: ws,
        dshHome,
        calls: [{ args: { command: 'echo a > f' } }]
      }, { broken: true })
      const [r] = out.results
      t.ok(r.isError, 'a tool error, not an ordinary task failure')
      t.same(r.error.info, { name: 'SandboxUnavailableError', code: 'SANDBOX_UNAVAILABLE' })
      t.match(r.error.message, /Runner failure: sandy-launcher: fatal: PreparationFailed: broken on purpose/)
      t.notOk(fs.existsSync(path.join(ws, 'f')), 'nothing ran')
    })
  }
}

// In this process: the adapter's classes as dsh's code sees them.
t.test('the adapter as dsh sees it: services, errors, configuration', async (t) => {
  const { Context } = await import('@deepseek-ai/cordis')
  const { SandboxProvider, SandboxUnavailableError } = await import('@deepseek-ai/dsh-sandbox')
  const { SandboxPolicyService, setSandboxMode } = await import('@deepseek-ai/dsh-sandbox-policy')
  const { HarnessError } = await import('@deepseek-ai/dsh-llm')
  const { SessionStore } = await import('@deepseek-ai/dsh-session')
  const adapter = await import('sandy-native/dsh')
  t.equal(adapter.default.name, 'sandy-native')
  t.equal(adapter.default.apply, adapter.apply)

  const ws = fs.mkdtempSync(path.join(dir, 'inproc-'))
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(adapter.default, { mode: 'workspace-write', workspaceRoot: ws })
  t.ok(ctx.sandbox instanceof SandboxProvider, 'ctx.sandbox is a dsh SandboxProvider')
  t.ok(ctx.sandboxPolicy instanceof SandboxPolicyService, 'ctx.sandboxPolicy is dsh\'s policy service')
  t.equal(ctx.sandboxPolicy.defaultMode, 'workspace-write')
  const c = ctx.sandbox.confine(['true'], { mode: 'read-only', workspaceRoot: ws, sessionId: 's' })
  t.ok(path.basename(c.argv[0]).startsWith('sandy-launcher'), 'confined by this package')
  t.same(ctx.sandbox.probe().selected, 'sandy')

  // dsh's Session: root from header.cwd, mode from the last sandbox/mode event
  const cwd = fs.mkdtempSync(path.join(dir, 'session-'))
  const session = ctx.sessions.create(undefined, { meta: { cwd: `${cwd}/.` } })
  t.same(ctx.sandboxPolicy.resolve({ session }), { mode: 'workspace-write', workspaceRoot: cwd, sessionId: session.id })
  setSandboxMode(session, 'read-only')
  t.equal(ctx.sandboxPolicy.resolve({ session }).mode, 'read-only', 'the session\'s own mode')
  t.equal(ctx.sandboxPolicy.resolve({ session, mode: 'danger-full-access' }).mode, 'danger-full-access', 'an approved mode outranks it')
  t.same(ctx.sandboxPolicy.resolve(), { mode: 'workspace-write', workspaceRoot: ws }, 'agentless: the configured root')
  t.same(ctx.sandboxPolicy.resolve({ session: { id: 'no-cwd' } }), { mode: 'workspace-write', workspaceRoot: ws, sessionId: 'no-cwd' }, 'a session without a header or events: the configured root')

  // a polluted prototype chooses neither a mode nor a root
  Object.prototype.cwd = '/etc' // eslint-disable-line no-extend-native
  Object.prototype.mode = 'danger-full-access' // eslint-disable-line no-extend-native
  try {
    t.same(ctx.sandboxPolicy.resolve({ session: { id: 'p', header: {} } }), { mode: 'workspace-write', workspaceRoot: ws, sessionId: 'p' })
  } finally {
    delete Object.prototype.cwd
    delete Object.prototype.mode
  }

  // a refusal is dsh's own error class
  const forced = new Context()
  await forced.plugin(adapter.SandySandboxProvider, { backend: process.getuid() === 0 ? 'landlock' : 'seatbelt' })
  const err = t.throws(() => forced.sandbox.confine(['true'], { mode: 'read-only', workspaceRoot: ws }))
  t.ok(err instanceof SandboxUnavailableError, 'dsh\'s SandboxUnavailableError')
  t.ok(err instanceof HarnessError, 'a HarnessError, which dsh\'s tool registry reports with its code')
  t.equal(err.code, 'SANDBOX_UNAVAILABLE')
  t.match(err.message, /sandbox mode "read-only" is requested .* Runner failure: the \w+ backend is not usable on this host; \w+: /)
  // other errors pass through as they are
  t.throws(() => forced.sandbox.confine([], { mode: 'read-only', workspaceRoot: ws }), TypeError)

  // dsh's runner names: runnerCommand with runnerFailureSignatures
  const runner = new Context()
  await runner.plugin(adapter.SandySandboxProvider, { runnerCommand: ['/usr/bin/env'], runnerFailureSignatures: ['env: '] })
  const rc = runner.sandbox.confine(['true'], { mode: 'read-only', workspaceRoot: ws })
  t.same([rc.argv, rc.enforcement, rc.runnerFailureRules], [['/usr/bin/env', 'true'], 'partial', [{ fatalSignatures: ['env: '] }]],
    'the runner gets the command alone, so it cannot tell the modes apart: partial')
  const full = new Context()
  await full.plugin(adapter.SandySandboxProvider, { runnerCommand: ['/usr/bin/env'], runnerFailureSignatures: ['env: '], runnerEnforcement: 'full' })
  t.equal(full.sandbox.confine(['true'], { mode: 'read-only', workspaceRoot: ws }).enforcement, 'full', 'unless the operator says full')
  const writable = new Context()
  await writable.plugin(adapter.SandySandboxProvider, { writableRoots: [cwd] })
  t.same(writable.sandbox.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).writableRoots, [cwd])
  // the protections pass as they are (docs/api.md, "Protected reads")
  const secret = path.join(ws, 'dsh-secret')
  fs.writeFileSync(secret, 'x')
  const shielded = new Context()
  await shielded.plugin(adapter.SandySandboxProvider, { protect: [], denyRead: [secret], keepEnv: ['CI_TOKEN'] })
  const sa = shielded.sandbox.confine(['true'], { mode: 'read-only', workspaceRoot: ws }).argv
  t.same(sa.filter((w, i) => sa[i - 1] === '--deny-read'), [fs.realpathSync(secret)], 'denyRead alone, no preset')
  t.same(sa.filter((w, i) => sa[i - 1] === '--keep-env'), ['CI_TOKEN'], 'keepEnv')
  // and the protected writes (docs/protected-writes.md)
  spawnSync('git', ['init', '-q', ws])
  const guarded = new Context()
  await guarded.plugin(adapter.SandySandboxProvider, { backend: 'sandy' })
  const ga = guarded.sandbox.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).argv
  t.ok(ga.includes(path.join(fs.realpathSync(ws), '.git', 'config')), "by default a repository's config is kept")
  const open = new Context()
  await open.plugin(adapter.SandySandboxProvider, { backend: 'sandy', protectWrites: [], allowHomeWorkspace: false })
  const oa = open.sandbox.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).argv
  t.notOk(oa.includes(path.join(fs.realpathSync(ws), '.git', 'config')), 'protectWrites: [] passes as it is')
})

t.test('the adapter refuses a configuration it cannot honour', async (t) => {
  const adapter = await import('sandy-native/dsh')
  const { Context } = await import('@deepseek-ai/cordis')
  for (const [config, message] of [
    [{ runnerCommand: ['/usr/bin/env'] }, /runnerCommand and runnerFailureSignatures go together/],
    [{ runnerFailureSignatures: ['x'] }, /go together/],
    [{ runnerCommand: '/usr/bin/env', runnerFailureSignatures: ['x'] }, /must be arrays/],
    [{ runnerComand: ['/usr/bin/env'] }, /unknown config key "runnerComand"/],
    [{ runnerEnforcement: 'full' }, /runnerEnforcement goes with runnerCommand/],
    [null, /config must be an object/]
  ]) {
    const ctx = new Context()
    await t.rejects(async () => adapter.apply(ctx, config), { name: 'TypeError', message })
  }
  // with nothing configured: dsh's defaults
  const ctx = new Context()
  await adapter.apply(ctx)
  t.equal(ctx.sandboxPolicy.defaultMode, 'read-only')
})
