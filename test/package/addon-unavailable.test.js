'use strict'
// The addon loads on first use (lib/binding.js): where it cannot load, the
// pure-JS exports still work and the first call that needs it throws one
// clear error, SANDY_ADDON_UNAVAILABLE, naming what is missing and the fix.
// Each case runs a fresh node against an installed copy of the package
// whose addon is missing, corrupt, or needs a shared library the system
// does not have; the same failures are also made in-process, for lib/.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { installPackage } = require('../helpers/package-copy')
const { addonPath } = require('../../lib/binding.js')

const CODE = 'SANDY_ADDON_UNAVAILABLE'
const FIX = 'run `npm rebuild sandy-native`'

// A copy of the addon whose libc dependency is renamed (same length, in the
// dynamic string table): the loader looks for a library no system has.
// (glibc's name and glibc's loader message: a musl build is not tested.)
function needingMissingLibrary (file) {
  const bytes = fs.readFileSync(addonPath)
  const from = Buffer.from('libc.so.6\0')
  if (bytes.indexOf(from) < 0) throw new Error(`${addonPath} names no libc.so.6`)
  for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) Buffer.from('libq.so.6\0').copy(bytes, at)
  fs.writeFileSync(file, bytes)
}

const CASES = {
  missing: { why: /is missing: no prebuild for \S+ and no build in \S+build\/Release/, breakIt: (f) => fs.rmSync(f) },
  corrupt: { why: /\(\S+sandy\.node\) cannot be loaded: (file too short|invalid ELF header)/, breakIt: (f) => fs.writeFileSync(f, 'not an ELF file\n') },
  'missing shared library': { why: /\(\S+sandy\.node\) needs the shared library libq\.so\.6, which this system does not have/, breakIt: needingMissingLibrary }
}

// Run in the project that depends on the package: require and import by
// name, through package.json's exports.
const SCRIPT = `
const assert = require('node:assert')
const sandy = require('sandy-native')
const out = {}
// the pure-JS exports
const policy = new sandy.SandboxPolicy(sandy.NetworkPolicy.BlockAll)
  .grant('/usr', sandy.AccessMode.Read, sandy.PathScope.Subtree)
  .allowExecute(new Uint8Array(Buffer.from('/usr/bin')), 'subtree')
  .allowSubprocesses().denySubtree('/usr/secret').denyWriteExact('/usr/x')
out.native = policy.toNative().executableGrants[0].path.toString()
const confined = { argv: ['/x'], enforcement: 'full', denialSignatures: ['Permission denied'], runnerFailureRules: [{ fatalSignatures: ['[run n]'] }] }
out.classified = [sandy.classifyExit(confined, { code: 1, stderr: 'sh: Permission denied' }).kind,
  sandy.classifyExit(confined, { code: 125, stderr: new TextEncoder().encode('x [run n]') }).kind]
out.spawnError = sandy.classifySpawnError(confined, Object.assign(new Error('x'), { code: 'ENOENT', path: '/x', syscall: 'spawn /x' }), { cwd: '/' }) instanceof sandy.SandboxUnavailableError
out.service = sandy.createSandboxPolicyService({ mode: 'read-only', workspaceRoot: '/usr' }).resolve().mode
out.errors = [new sandy.SandboxError('InvalidPolicy', 'x').kind, new sandy.PolicyDocumentError({ kind: 'Parse', line: 1, column: 2, message: 'm' }).line]
out.provider = typeof sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine
// every call that needs the addon: the same one error, every time
const needs = {
  probe: () => sandy.probe(),
  confinePolicy: () => sandy.confinePolicy(['/bin/true'], policy, { cwd: '/' }),
  providerConfine: () => sandy.createLocalSandboxProvider().confine(['/bin/true'], { mode: 'read-only', workspaceRoot: '/usr' }),
  providerProbe: () => sandy.createLocalSandboxProvider().probe(),
  fromJson: () => sandy.SandboxPolicy.fromJson('{}'),
  resolve: () => policy.resolve({ cwd: '/' }),
  toJSON: () => JSON.stringify(policy),
  limits: () => sandy.limits.documentBytes
}
out.errorsOf = {}
for (const [name, call] of Object.entries(needs)) {
  try { call(); out.errorsOf[name] = null } catch (err) { out.errorsOf[name] = { code: err.code, message: err.message, cause: !!err.cause } }
}
import('sandy-native').then((esm) => {
  out.esm = esm.SandboxPolicy === sandy.SandboxPolicy && esm.classifyExit === sandy.classifyExit
  process.stdout.write(JSON.stringify(out))
})
`

// Without the runner's coverage hooks: the copy is not lib/.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE'))
const me = { uid: process.getuid(), gid: process.getgid() }

for (const [name, c] of Object.entries(CASES)) {
  t.test(`an addon that is ${name}: the pure-JS exports work, the addon's calls throw ${CODE}`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-noaddon-'))
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
    const pkg = installPackage(dir, me)
    fs.cpSync(path.join(__dirname, '..', '..', 'types'), path.join(pkg, 'types'), { recursive: true })
    c.breakIt(path.join(pkg, 'build', 'Release', 'sandy.node'))
    const r = spawnSync(process.execPath, ['-e', SCRIPT], { cwd: dir, encoding: 'utf8', env })
    t.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    t.equal(out.native, '/usr/bin', 'the builders work (a Uint8Array path too)')
    t.same(out.classified, ['denied', 'runner-failure'], 'classifyExit works')
    t.equal(out.spawnError, true, 'classifySpawnError works')
    t.equal(out.service, 'read-only', 'the policy service works')
    t.same(out.errors, ['InvalidPolicy', 1], 'the errors work')
    t.equal(out.provider, 'function', 'a provider can be created (it arbitrates at its first call)')
    t.equal(out.esm, true, 'the ESM entry loads too, with the same classes')
    for (const [call, err] of Object.entries(out.errorsOf)) {
      t.ok(err, `${call} throws`)
      if (!err) continue
      t.equal(err.code, CODE, `${call}: the code`)
      t.match(err.message, /^the sandy-native addon /, `${call}: names the addon`)
      t.match(err.message, c.why, `${call}: names what is missing`)
      t.ok(err.message.includes(FIX), `${call}: names the fix`)
      t.equal(err.cause, true, `${call}: keeps the loader's error as its cause`)
    }
    const help = spawnSync(process.execPath, [path.join(pkg, 'bin', 'sandy'), '--help'], { encoding: 'utf8', env })
    t.equal(help.status, 0, help.stderr)
    t.match(help.stdout, /^sandy \S+: confine the file effects of a command\n\nUsage:\n.*\n {2}probe /s, 'sandy --help works')
    const probe = spawnSync(process.execPath, [path.join(pkg, 'bin', 'sandy'), 'probe'], { encoding: 'utf8', env })
    t.equal(probe.status, 1, 'sandy probe fails')
    t.match(probe.stderr, new RegExp(`^sandy: the sandy-native addon .*${FIX.replace(/[`]/g, '.')}`), 'with the one error')
  })
}

// The same failures in this process, where coverage sees lib/binding.js.
t.test('lib/binding.js names each failure, and loads nothing until asked', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-noaddon-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  let resolved = null
  const load = { resolve: () => { if (resolved === null) throw new Error('No native build was found (test)'); return resolved } }
  const binding = t.mockRequire('../../lib/binding.js', { 'node-gyp-build': load })
  const { limits } = t.mockRequire('../../lib/index.js', { '../../lib/binding.js': binding })
  t.throws(() => binding.addon, { code: CODE, message: /is missing: no prebuild for/, cause: { message: /No native build/ } })
  t.throws(() => binding.verifiedLauncherPath(), { code: CODE }, 'every accessor')
  t.throws(() => limits.pathBytes, { code: CODE }, 'limits too')
  resolved = path.join(dir, 'corrupt.node')
  fs.writeFileSync(resolved, 'not an ELF file\n')
  t.throws(() => binding.addonPath, { code: CODE, message: `the sandy-native addon (${resolved}) cannot be loaded: file too short; ${FIX} (it builds the addon from source when no prebuild fits)` })
  resolved = path.join(dir, 'needs.node')
  needingMissingLibrary(resolved)
  t.throws(() => binding.launcherDigest, { code: CODE, message: /needs the shared library libq\.so\.6, which this system does not have/ })
  // a rebuild made meanwhile is found: a failure is not cached
  resolved = addonPath
  t.equal(binding.addonPath, addonPath)
  t.same(Object.keys(limits), Object.keys(binding.addon.limits()), 'limits has the addon\'s names')
  t.same({ ...limits }, binding.addon.limits(), 'and its values')
})

// Requiring any lib/ module, the ESM entry too, loads no .node file.
t.test('no lib/ module loads the addon when it loads', async (t) => {
  const lib = path.join(__dirname, '..', '..', 'lib')
  const script = `
    const Module = require('node:module')
    const resolve = Module._resolveFilename
    Module._resolveFilename = function (request, ...rest) {
      const file = resolve.call(this, request, ...rest)
      if (file.endsWith('.node')) throw new Error('addon loaded: ' + file)
      return file
    }
    for (const f of require('node:fs').readdirSync(${JSON.stringify(lib)})) if (f.endsWith('.js')) require(${JSON.stringify(lib)} + '/' + f)
    import(${JSON.stringify(path.join(lib, 'index.mjs'))}).then(() => process.stdout.write('loaded'))
  `
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.equal(r.stdout, 'loaded')
})
