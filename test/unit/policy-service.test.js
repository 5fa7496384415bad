'use strict'
// ctx.sandboxPolicy.resolve: precedence, root fallback and canonical roots.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createSandboxPolicyService } = require('../..')

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-service-')))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
const sessionDir = path.join(dir, 'session')
const configDir = path.join(dir, 'config')
const target = path.join(dir, 'elsewhere', 'deep')
fs.mkdirSync(sessionDir)
fs.mkdirSync(configDir)
fs.mkdirSync(target, { recursive: true })
fs.symlinkSync(target, path.join(dir, 'link'))

t.test('a session without a cwd falls back to the configured root, then the working directory', async (t) => {
  t.same(createSandboxPolicyService({ workspaceRoot: configDir }).resolve({ session: {} }), { mode: 'read-only', workspaceRoot: configDir })
  t.same(createSandboxPolicyService().resolve({ session: { sandboxMode: 'workspace-write' } }), { mode: 'workspace-write', workspaceRoot: fs.realpathSync(process.cwd()) })
})

t.test('the session\'s id is carried as the policy\'s sessionId', async (t) => {
  const svc = createSandboxPolicyService({ workspaceRoot: configDir })
  const r = svc.resolve({ session: { cwd: sessionDir, id: 'session-1' } })
  t.same(r, { mode: 'read-only', workspaceRoot: sessionDir, sessionId: 'session-1' })
  t.ok(Object.isFrozen(r))
  t.same(svc.resolve({ session: { id: 'session-2' } }), { mode: 'read-only', workspaceRoot: configDir, sessionId: 'session-2' }, 'without a cwd too')
  t.notOk('sessionId' in svc.resolve({ session: { cwd: sessionDir } }), 'none without an id')
  t.notOk('sessionId' in svc.resolve(), 'none without a session')
})

t.test('explicit mode outranks the session, which outranks configuration', async (t) => {
  const svc = createSandboxPolicyService({ mode: 'workspace-write', workspaceRoot: configDir })
  const session = { cwd: sessionDir, sandboxMode: 'read-only' }
  t.same(svc.resolve({ session, mode: 'danger-full-access' }), { mode: 'danger-full-access', workspaceRoot: sessionDir })
  t.same(svc.resolve({ session }), { mode: 'read-only', workspaceRoot: sessionDir })
  t.same(svc.resolve({ session: { cwd: sessionDir } }), { mode: 'workspace-write', workspaceRoot: sessionDir })
  t.same(svc.resolve({}), { mode: 'workspace-write', workspaceRoot: configDir }, 'agentless calls use the configured root')
  t.same(svc.resolve(), { mode: 'workspace-write', workspaceRoot: configDir })
})

t.test('with nothing configured: read-only and process.cwd()', async (t) => {
  const svc = createSandboxPolicyService()
  t.same(svc.resolve(), { mode: 'read-only', workspaceRoot: fs.realpathSync(process.cwd()) })
  t.ok(Object.isFrozen(svc.resolve()))
})

t.test('the root is canonical with filesystem semantics before lexical normalization', async (t) => {
  const svc = createSandboxPolicyService()
  // lexically, link/.. is `dir`; the kernel runs a process in target/..
  const r = svc.resolve({ session: { cwd: path.join(dir, 'link') + '/..' } })
  t.equal(r.workspaceRoot, path.join(dir, 'elsewhere'))
  t.not(r.workspaceRoot, dir)
  t.equal(svc.resolve({ session: { cwd: path.join(dir, 'link') } }).workspaceRoot, target)
  t.equal(svc.resolve({ session: { cwd: sessionDir + '//./' } }).workspaceRoot, sessionDir)
})

t.test('bad input is a clear error', async (t) => {
  t.throws(() => createSandboxPolicyService({ mode: 'full' }), RangeError)
  t.throws(() => createSandboxPolicyService({ workspaceRoot: 'relative/root' }), TypeError)
  t.throws(() => createSandboxPolicyService({ workspaceRoot: '' }), TypeError)
  t.throws(() => createSandboxPolicyService({ workspaceRoot: 42 }), TypeError)
  const svc = createSandboxPolicyService()
  t.throws(() => svc.resolve({ mode: 'nope' }), RangeError)
  t.throws(() => svc.resolve({ session: { cwd: sessionDir, sandboxMode: 'x' } }), RangeError)
  t.throws(() => svc.resolve({ session: { cwd: 'rel' } }), TypeError)
  t.throws(() => svc.resolve({ session: 'x' }), { name: 'TypeError', message: /request.session must be an object/ })
  t.throws(() => svc.resolve({ session: { cwd: sessionDir, id: 7 } }), { name: 'TypeError', message: /session.id must be a non-empty string/ })
  t.throws(() => svc.resolve({ session: { cwd: sessionDir, id: '' } }), TypeError)
  t.throws(() => svc.resolve({ session: null }), TypeError)
  t.throws(() => svc.resolve({ session: { cwd: path.join(dir, 'missing') } }), { name: 'RangeError', message: /ENOENT/ })
  fs.writeFileSync(path.join(dir, 'file'), '')
  t.throws(() => svc.resolve({ session: { cwd: path.join(dir, 'file') } }), { message: /not a directory/ })
})
