'use strict'
// A polluted Object.prototype chooses nothing: every public entry point
// gives the same answer with every option name (and an array hole's index)
// set on Object.prototype as without, whether the pollution is enumerable
// (an assignment) or not (defineProperty). Each run is a fresh Node
// process: the answers are computed, the prototype polluted, the same
// calls made again, and both sets printed. Nonces are normalised; nothing
// is spawned after the pollution (Node's own child_process reads its
// options through the prototype).
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { users, plainNodeEnv, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')

const ROOT = path.join(__dirname, '..', '..')
const NODE = ['/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath]

// What each call answers: its result, or the error's class and message.
const SCRIPT = (ws, how) => `
  const fs = require('node:fs')
  const path = require('node:path')
  const sandy = require(${JSON.stringify(ROOT)})
  const ws = ${JSON.stringify(ws)}
  const norm = (v) => JSON.parse(JSON.stringify(v, (k, x) => typeof x === 'string' ? x.replace(/[0-9a-f]{32}/g, 'NONCE') : x))
  const answer = (f) => { try { return norm(f()) } catch (e) { return { threw: e.constructor.name, message: norm(e.message) } } }
  // (one confine before anything: the launcher is verified and probed
  // unpolluted, so that its spawns happen now)
  const p0 = sandy.createLocalSandboxProvider()
  const confined = p0.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws })
  sandy.probe()
  const launcher = confined.argv[0]
  const spawnError = () => Object.assign(new Error('spawnSync ' + launcher + ' ENOENT'), { errno: -2 })
  const calls = {
    'createLocalSandboxProvider()': () => sandy.createLocalSandboxProvider().confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }),
    'createLocalSandboxProvider({})': () => sandy.createLocalSandboxProvider({}).confine(['true'], { mode: 'read-only', workspaceRoot: ws }),
    'provider.probe()': () => p0.probe(),
    'provider.probe({ workspaceRoot })': () => p0.probe({ workspaceRoot: ws }),
    'provider.confine, argv with a hole': () => p0.confine(['/bin/echo', , 'x'], { mode: 'read-only', workspaceRoot: ws }), // eslint-disable-line no-sparse-arrays
    'provider.confine, policy with its keys only': () => p0.confine(['true'], Object.assign(Object.create({}), { mode: 'read-only', workspaceRoot: ws })),
    'createLocalSandboxProvider({ writableRoots: hole })': () => sandy.createLocalSandboxProvider({ writableRoots: [, ws] }), // eslint-disable-line no-sparse-arrays
    'confinePolicy(argv, policy)': () => sandy.confinePolicy(['true'], new sandy.SandboxPolicy('block_all').grant('sub', 'read_write', 'subtree').grant(ws, 'read', 'subtree'), { cwd: ws }),
    'confinePolicy(argv, policy) without options': () => sandy.confinePolicy(['true'], new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree')),
    'confinePolicy(argv, policy, {})': () => sandy.confinePolicy(['true'], new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree'), {}),
    'SandboxPolicy.resolve()': () => new sandy.SandboxPolicy('block_all').grant('sub', 'read', 'subtree').resolve(),
    'SandboxPolicy.resolve({})': () => new sandy.SandboxPolicy('block_all').grant('sub', 'read', 'subtree').resolve({}),
    'SandboxPolicy.fromJson, no optional keys': () => sandy.SandboxPolicy.fromJson('{"schema_version":1,"network":"block_all"}').toJSON(),
    'SandboxPolicy builders': () => new sandy.SandboxPolicy('allow_all').grant(ws, 'read', 'exact').allowExecute(ws, 'subtree').denySubtree(ws + '/d').denyWriteExact(ws + '/f').toJSON(),
    'createSandboxPolicyService().resolve()': () => sandy.createSandboxPolicyService({ mode: 'workspace-write', workspaceRoot: ws }).resolve(),
    'createSandboxPolicyService().resolve({})': () => sandy.createSandboxPolicyService({ mode: 'workspace-write', workspaceRoot: ws }).resolve({}),
    'createSandboxPolicyService().resolve({ session })': () => sandy.createSandboxPolicyService({ mode: 'read-only', workspaceRoot: ws }).resolve({ session: { id: 's' } }),
    'createSandboxPolicyService({ workspaceRoot })': () => sandy.createSandboxPolicyService({ workspaceRoot: ws }).resolve(),
    'classifyExit(confined, { code })': () => sandy.classifyExit(confined, { code: 1 }),
    'classifyExit(confined, {})': () => sandy.classifyExit(confined, {}),
    'classifyExit(rules of its keys only)': () => sandy.classifyExit({ runnerFailureRules: [{ fatalSignatures: ['fatal'] }], denialSignatures: [] }, { code: 2, stderr: 'ordinary\\n' }),
    'classifyExit(rules with a hole)': () => sandy.classifyExit({ runnerFailureRules: [, { fatalSignatures: ['fatal'] }], denialSignatures: [] }, { code: 2 }), // eslint-disable-line no-sparse-arrays
    'classifySpawnError(confined, err)': () => sandy.classifySpawnError(confined, spawnError(), { cwd: ws }),
    'classifySpawnError(confined, err) without options': () => sandy.classifySpawnError(confined, spawnError()),
    'new SandboxUnavailableError(message)': () => { const e = new sandy.SandboxUnavailableError('m'); return { reasons: e.reasons, cause: Object.hasOwn(e, 'cause') } },
    'probe()': () => sandy.probe()
  }
  const polluted = {
    cwd: '/', launcher: '/bin/sh', report: { selected: 'sandy', candidates: [] }, runner: { argv: ['/usr/bin/env'], runnerFailureSignatures: ['x'], enforcement: 'full' },
    backend: 'landlock', writableRoots: ['/var/tmp'], mode: 'danger-full-access', workspaceRoot: '/etc',
    session: { id: 'evil', cwd: '/etc', sandboxMode: 'danger-full-access' }, sandboxMode: 'danger-full-access', id: 'evil', header: { cwd: '/etc' }, events: [],
    code: 'ENOENT', signal: 'SIGKILL', stderr: 'fatal\\n', path: launcher, syscall: 'spawnSync', argv: ['/bin/sh'],
    denialSignatures: ['ordinary'], runnerFailureRules: [{ fatalSignatures: ['ordinary'] }], fatalSignatures: ['ordinary'], allowedExitCodes: [2], informationalLines: ['ordinary'],
    reasons: ['evil'], cause: 'evil', network: 'allow_all', allowSubprocesses: true, grants: [{ path: '/', access: 'read', scope: 'exact' }],
    executableGrants: [{ path: '/', scope: 'subtree' }], denySubtrees: [], denyWriteExact: [], 0: '/bin/evil', 1: '/bin/evil',
    runnerCommand: ['/usr/bin/env'], runnerFailureSignatures: ['x'], runnerEnforcement: 'full', defaultMode: 'danger-full-access',
    protectWrites: [], allowHomeWorkspace: true
  }
  const run = () => Object.fromEntries(Object.entries(calls).map(([k, f]) => [k, answer(f)]))
  const before = run()
  for (const [k, v] of Object.entries(polluted)) {
    if (${JSON.stringify(how)} === 'enumerable') Object.prototype[k] = v
    else Object.defineProperty(Object.prototype, k, { value: v, enumerable: false, configurable: true, writable: true })
  }
  const after = run()
  for (const k of Object.keys(polluted)) delete Object.prototype[k]
  process.stdout.write(JSON.stringify({ before, after }))`

// The dsh adapter, as dsh loads it (an ES module with dsh's cordis).
const DSH_SCRIPT = (ws, how) => `
  const { Context } = await import('@deepseek-ai/cordis')
  const adapter = await import('sandy-native/dsh')
  const ws = ${JSON.stringify(ws)}
  const answer = async (f) => { try { return JSON.parse(JSON.stringify(await f())) } catch (e) { return { threw: e.constructor.name } } }
  const plugin = async (config) => { const ctx = new Context(); await adapter.apply(ctx, config); return ctx }
  const seen = async (config) => {
    const ctx = await plugin(config)
    const c = ctx.sandbox.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws })
    return { mode: ctx.sandboxPolicy.defaultMode, root: ctx.sandboxPolicy.workspaceRoot, resolved: ctx.sandboxPolicy.resolve(), argv0: c.argv[0].replace(/[0-9a-f]{64}/, 'SHA'), enforcement: c.enforcement, writableRoots: c.writableRoots }
  }
  const calls = {
    'apply(ctx, {})': () => seen({}),
    'apply(ctx, { workspaceRoot })': () => seen({ workspaceRoot: ws }),
    'apply(ctx, { mode, workspaceRoot })': () => seen({ mode: 'workspace-write', workspaceRoot: ws })
  }
  const polluted = { runnerCommand: ['/usr/bin/env'], runnerFailureSignatures: ['x'], runnerEnforcement: 'full', writableRoots: ['/var/tmp'], backend: 'landlock', mode: 'danger-full-access', workspaceRoot: '/etc', cwd: '/etc', header: { cwd: '/etc' }, id: 'evil' }
  const run = async () => { const out = {}; for (const [k, f] of Object.entries(calls)) out[k] = await answer(f); return out }
  const before = await run()
  for (const [k, v] of Object.entries(polluted)) {
    if (${JSON.stringify(how)} === 'enumerable') Object.prototype[k] = v
    else Object.defineProperty(Object.prototype, k, { value: v, enumerable: false, configurable: true, writable: true })
  }
  const after = await run()
  for (const k of Object.keys(polluted)) delete Object.prototype[k]
  process.stdout.write(JSON.stringify({ before, after }))`

function runScript (user, args, cwd) {
  const argv = [...user.wrap, ...NODE, ...args]
  const r = spawnSync(argv[0], argv.slice(1), { cwd, env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8', timeout: patience(120000) })
  try {
    return JSON.parse(r.stdout)
  } catch {
    return { crashed: `${r.status} ${r.stderr.slice(0, 600)}` }
  }
}

function workspace (t, user) {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-proto-')))
  fs.mkdirSync(path.join(ws, 'sub'))
  // (a repository: protected writes give a workspace-write confine words
  // a polluted protectWrites would take away)
  require('node:child_process').spawnSync('git', ['init', '-q', ws])
  require('node:child_process').spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, ws])
  fs.chmodSync(ws, 0o755)
  t.teardown(() => fs.rmSync(ws, { recursive: true, force: true }))
  return ws
}

for (const user of users()) {
  for (const how of ['enumerable', 'non-enumerable']) {
    t.test(`a polluted Object.prototype (${how}) chooses nothing in the public API [${user.name}]`, async (t) => {
      const ws = workspace(t, user)
      const got = runScript(user, ['-e', SCRIPT(ws, how)], ws)
      t.notOk(got.crashed, `the script ran (${got.crashed})`)
      for (const k of Object.keys(got.before || {})) t.same(got.after[k], got.before[k], `${k}: the same answer`)
      // (the control: the calls answer something, and pollution reaches
      // what is read through the prototype)
      t.ok(got.before && got.before['createLocalSandboxProvider()'].argv, 'unpolluted, the provider confines')
    })

    t.test(`a polluted Object.prototype (${how}) chooses nothing in the dsh adapter [${user.name}]`, async (t) => {
      const ws = workspace(t, user)
      const got = runScript(user, ['--input-type=module', '-e', DSH_SCRIPT(ws, how)], ROOT)
      t.notOk(got.crashed, `the script ran (${got.crashed})`)
      for (const k of Object.keys(got.before || {})) {
        t.notOk(got.before[k].threw, `${k}: unpolluted, it plugs in (${got.before[k].threw})`)
        // dsh's configuration schema (schemastery) walks a configuration's
        // keys with for...in: an enumerable polluted key makes cordis throw
        // before any service exists, which chooses nothing either
        if (how === 'enumerable' && got.after[k].threw) t.pass(`${k}: dsh refuses the configuration (${got.after[k].threw})`)
        else t.same(got.after[k], got.before[k], `${k}: the same services, mode, root and confined argv`)
      }
    })
  }
}
