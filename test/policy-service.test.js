'use strict'
// ctx.sandboxPolicy.resolve: precedence, root fallback and canonical roots.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createSandboxPolicyService } = require('..')

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-service-')))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
const sessionDir = path.join(dir, 'session')
const configDir = path.join(dir, 'config')
const target = path.join(dir, 'elsewhere', 'deep')
fs.mkdirSync(sessionDir)
fs.mkdirSync(configDir)
fs.mkdirSync(target, { recursive: true })
fs.symlinkSync(target, path.join(dir, 'link'))

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
  t.throws(() => svc.resolve({ session: {} }), { name: 'TypeError', message: /session must be an object with a cwd/ })
  t.throws(() => svc.resolve({ session: null }), TypeError)
  t.throws(() => svc.resolve({ session: { cwd: path.join(dir, 'missing') } }), { name: 'RangeError', message: /ENOENT/ })
  fs.writeFileSync(path.join(dir, 'file'), '')
  t.throws(() => svc.resolve({ session: { cwd: path.join(dir, 'file') } }), { message: /not a directory/ })
})
