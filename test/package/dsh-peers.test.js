'use strict'
// sandy-native/dsh and the dsh releases around it: the peer ranges of
// package.json, read by npm's own semver (default options, as npm reads a
// peer range) against the versions the registry listed
// (test/fixtures/dsh-published.json, written by `npm view NAME versions
// --json`: the test does not ask the network).
const t = require('tap')
const semver = require('semver')
const pkg = require('../../package.json')
const published = require('../fixtures/dsh-published.json')

const SANDBOX = '@deepseek-ai/dsh-sandbox'
const POLICY = '@deepseek-ai/dsh-sandbox-policy'
const CORDIS = '@deepseek-ai/cordis'

t.test('the peer ranges accept every published version of the peers, and refuse the versions around them', async (t) => {
  const peers = pkg.peerDependencies
  t.same(Object.keys(peers).sort(), [CORDIS, SANDBOX, POLICY], 'the three peers')
  t.equal(peers[POLICY], peers[SANDBOX], 'dsh publishes its two packages together: one range for both')
  for (const [name, versions] of Object.entries(published.peers)) {
    t.ok(versions.length > 0, `${name}: published versions are listed`)
    for (const v of versions) t.ok(semver.satisfies(v, peers[name]), `${name}@${v} satisfies ${peers[name]}`)
  }
  // outside: before the line the adapter was written for, a patch line
  // without a clause, the next minor or major, a prerelease of a release
  // before the range
  const outside = {
    [SANDBOX]: ['0.0.0', '0.0.1-rc.0', '0.0.2', '0.0.2-rc.1', '0.1.0-rc.7', '0.1.1-rc.1', '0.1.2-rc.1', '0.1.5-rc.1', '0.2.0-rc.1', '0.2.0', '1.0.0'],
    [CORDIS]: ['3.9.9', '4.0.0', '4.0.5-rc.1', '4.1.0-rc.1', '5.0.0']
  }
  outside[POLICY] = outside[SANDBOX]
  for (const [name, versions] of Object.entries(outside)) {
    for (const v of versions) t.notOk(semver.satisfies(v, peers[name]), `${name}@${v} is outside ${peers[name]}`)
  }
  // the releases of each line after its first prerelease
  for (const v of ['0.0.1', '0.1.0', '0.1.0-rc.9', '0.1.1', '0.1.1-rc.3', '0.1.4', '0.1.5-rc.3', '0.1.9']) {
    t.ok(semver.satisfies(v, peers[SANDBOX]), `${SANDBOX}@${v} would be accepted`)
  }
  for (const v of ['4.0.5', '4.9.0']) t.ok(semver.satisfies(v, peers[CORDIS]), `${CORDIS}@${v} would be accepted`)
})

// dsh publishes its packages at one version, a line at a time; the sandbox
// packages have not followed every line yet (0.1.1-rc.2 and 0.1.5-rc.2 are
// published for other dsh packages only). A dsh-sandbox published with any
// of them must be accepted, or a current dsh install conflicts with this
// package; the lines before the adapter's first (0.1.0-rc.6, rc.7) are not.
t.test('a dsh-sandbox at the version of any dsh release since 0.1.0-rc.8 is accepted', async (t) => {
  const range = pkg.peerDependencies[SANDBOX]
  const seen = new Set()
  for (const [name, versions] of Object.entries(published.dsh)) {
    for (const v of versions) {
      seen.add(v)
      const expected = v === '0.0.1-rc.1' || semver.gte(v, '0.1.0-rc.8')
      t.equal(semver.satisfies(v, range), expected, `${name}@${v}: ${expected ? 'accepted' : 'refused'}`)
    }
  }
  t.ok(seen.has('0.1.1-rc.2') && seen.has('0.1.5-rc.2'), 'both later prerelease lines are among them')
  // why each prerelease line has a clause of its own: a prerelease
  // satisfies a range only through a comparator on its own major.minor.patch
  t.notOk(semver.satisfies('0.1.1-rc.2', '>=0.1.0-rc.8 <0.2.0'), 'control: one wide clause refuses 0.1.1-rc.2')
  t.notOk(semver.satisfies('0.1.1-rc.2', '^0.1.0-rc.8'), 'control: so does a caret range')
})

t.test('the dsh versions the tests install are inside the peer ranges', async (t) => {
  for (const name of [CORDIS, SANDBOX, POLICY]) {
    const pinned = pkg.devDependencies[name]
    t.ok(semver.valid(pinned), `${name}: devDependencies pin one version (${pinned})`)
    t.ok(semver.satisfies(pinned, pkg.peerDependencies[name]), `${name}@${pinned} satisfies the peer range`)
    t.equal(require(`${name}/package.json`).version, pinned, `${name}@${pinned} is what node_modules holds`)
  }
})

// The other published line, and the oldest cordis accepted, installed from
// the registry into a scratch project beside a copy of this package (the
// rest of the suite runs dsh 0.1.0-rc.8 with cordis 4.0.4, the
// devDependencies). npm's default peer resolution cannot install this
// line (its dsh-sandbox-policy names a dsh-agent@^0.0.1-rc.1 that is not
// published): --legacy-peer-deps, with the peers dsh-sandbox loads named.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { installPackage } = require('../helpers/package-copy')

const NPM = path.resolve(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
// Children run without the runner's hooks and coverage, and without the
// npm_ settings of the npx that started tap.
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE' && !/^npm_/i.test(k)))
const me = { uid: process.getuid(), gid: process.getgid() }

const OTHER_LINE = {
  [CORDIS]: '4.0.1',
  [SANDBOX]: '0.0.1-rc.1',
  [POLICY]: '0.0.1-rc.1',
  '@deepseek-ai/dsh-llm': '0.0.1-rc.1',
  '@deepseek-ai/dsh-invariants': '0.0.1-rc.1',
  '@deepseek-ai/dsh-timeout': '0.0.1-rc.1',
  '@deepseek-ai/dsh-brand': '0.0.1-rc.1',
  '@deepseek-ai/dsh-attachment': '0.0.1-rc.1'
}

// The host: dsh's classes from its own node_modules, the plugin applied,
// a session's mode written by dsh's own setSandboxMode, a command confined
// and run in each mode, and a refusal.
const HOST = `
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { Context } from '@deepseek-ai/cordis'
import { SandboxProvider, SandboxUnavailableError } from '@deepseek-ai/dsh-sandbox'
import { SandboxPolicyService, setSandboxMode } from '@deepseek-ai/dsh-sandbox-policy'
import { HarnessError } from '@deepseek-ai/dsh-llm'
import sandy, { SandySandboxProvider } from 'sandy-native/dsh'

const ws = process.argv[2]
const require = createRequire(import.meta.url)
const out = { versions: {} }
for (const name of ['@deepseek-ai/cordis', '@deepseek-ai/dsh-sandbox', '@deepseek-ai/dsh-sandbox-policy']) {
  out.versions[name] = require(name + '/package.json').version
}
const ctx = new Context()
await ctx.plugin(sandy, { mode: 'workspace-write', workspaceRoot: ws })
out.classes = [ctx.sandbox instanceof SandboxProvider, ctx.sandboxPolicy instanceof SandboxPolicyService]
const session = { id: 's1', header: { cwd: ws }, events: [], append (type, data) { this.events.push({ type, data }) } }
out.before = ctx.sandboxPolicy.resolve({ session })
setSandboxMode(session, 'read-only')
out.after = ctx.sandboxPolicy.resolve({ session })
const run = (mode, file) => {
  const c = ctx.sandbox.confine(['/bin/sh', '-c', 'echo x > ' + file], { mode, workspaceRoot: ws, sessionId: 's1' })
  const r = spawnSync(c.argv[0], c.argv.slice(1), { cwd: ws, encoding: 'utf8' })
  return { status: r.status, written: fs.existsSync(path.join(ws, file)) }
}
out.write = run('workspace-write', 'inside')
out.readOnly = run('read-only', 'refused')
const forced = new Context()
await forced.plugin(SandySandboxProvider, { backend: 'seatbelt' })
try {
  forced.sandbox.confine(['true'], { mode: 'read-only', workspaceRoot: ws })
} catch (err) {
  out.refusal = [err instanceof SandboxUnavailableError, err instanceof HarnessError, err.code]
}
console.log(JSON.stringify(out))
`

t.test(`the other published line: ${SANDBOX}@${OTHER_LINE[SANDBOX]} with ${CORDIS}@${OTHER_LINE[CORDIS]}, from the registry`, async (t) => {
  for (const name of [CORDIS, SANDBOX, POLICY]) {
    t.ok(published.peers[name].includes(OTHER_LINE[name]), `${name}@${OTHER_LINE[name]} is a published version`)
    t.not(OTHER_LINE[name], pkg.devDependencies[name], `${name}: not the version the rest of the suite runs`)
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-dsh-line-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'host', private: true, dependencies: OTHER_LINE }))
  const install = spawnSync(process.execPath, [NPM, 'install', '--no-audit', '--no-fund', '--no-package-lock', '--prefer-offline', '--ignore-scripts', '--legacy-peer-deps'],
    { cwd: dir, env: ENV, encoding: 'utf8' })
  t.equal(install.status, 0, `npm install from the registry (${install.stderr.slice(-600)})`)
  if (install.status !== 0) return
  installPackage(dir, me)
  fs.writeFileSync(path.join(dir, 'host.mjs'), HOST)
  const ws = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-dsh-line-ws-'))
  t.teardown(() => fs.rmSync(ws, { recursive: true, force: true }))
  const r = spawnSync(process.execPath, ['host.mjs', ws], { cwd: dir, env: ENV, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout)
  t.same(out.versions, { [CORDIS]: OTHER_LINE[CORDIS], [SANDBOX]: OTHER_LINE[SANDBOX], [POLICY]: OTHER_LINE[POLICY] }, 'the host loads that line')
  t.same(out.classes, [true, true], 'ctx.sandbox and ctx.sandboxPolicy are instances of its classes')
  t.same(out.before, { mode: 'workspace-write', workspaceRoot: ws, sessionId: 's1' }, 'the configured mode, the session\'s root')
  t.equal(out.after.mode, 'read-only', 'the mode its setSandboxMode wrote')
  t.same(out.write, { status: 0, written: true }, 'workspace-write: a write in the workspace lands')
  t.equal(out.readOnly.written, false, 'read-only: it does not')
  t.not(out.readOnly.status, 0, 'and the command fails')
  t.same(out.refusal, [true, true, 'SANDBOX_UNAVAILABLE'], 'a refusal is its SandboxUnavailableError, a HarnessError')
})

// Without the peers: one error, naming what is missing and the install
// command. Run in a scratch project holding a copy of this package and
// some of dsh's packages (links to this checkout's), importing the
// adapter by name as a user would.
const IMPORT = `
try {
  await import('sandy-native/dsh')
  console.log(JSON.stringify({ loaded: true }))
} catch (err) {
  console.log(JSON.stringify({ code: err.code, message: err.message, missing: err.missing, cause: err.cause?.code }))
}
`

function scratchWith (t, linked) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-dsh-peers-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "host", "private": true }\n')
  installPackage(dir, me)
  fs.mkdirSync(path.join(dir, 'node_modules', '@deepseek-ai'))
  for (const name of linked) fs.symlinkSync(path.dirname(require.resolve(`${name}/package.json`)), path.join(dir, 'node_modules', name))
  return dir
}

t.test('importing sandy-native/dsh without its peers: one error naming them and the install command', async (t) => {
  const ranges = pkg.peerDependencies
  const command = `npm install '${CORDIS}@${ranges[CORDIS]}' '${SANDBOX}@${ranges[SANDBOX]}' '${POLICY}@${ranges[POLICY]}'`
  for (const [linked, missing] of [
    [[], [CORDIS, SANDBOX, POLICY]],
    [[CORDIS, SANDBOX], [POLICY]],
    [[SANDBOX, POLICY], [CORDIS]]
  ]) {
    const dir = scratchWith(t, linked)
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT], { cwd: dir, env: ENV, encoding: 'utf8' })
    t.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    const what = `with ${linked.length === 0 ? 'none' : linked.join(', ')}`
    t.equal(out.code, 'SANDY_DSH_PEER_MISSING', `${what}: the adapter's code, not ERR_MODULE_NOT_FOUND`)
    t.same(out.missing, missing, `${what}: it names ${missing.join(', ')}`)
    t.equal(out.cause, 'ERR_MODULE_NOT_FOUND', 'Node\'s error is its cause')
    t.ok(out.message.startsWith(`sandy-native/dsh needs dsh's packages installed beside it, and cannot find ${missing.join(', ')} from ${path.join(dir, 'node_modules', 'sandy-native', 'lib', 'dsh.mjs')}; `), out.message)
    t.ok(out.message.endsWith(`; install them with: ${command}`), 'the install command, with the peer ranges')
  }
  // with all three: it loads
  const dir = scratchWith(t, [CORDIS, SANDBOX, POLICY])
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT], { cwd: dir, env: ENV, encoding: 'utf8' })
  t.same(JSON.parse(r.stdout), { loaded: true }, 'control: with the three peers it loads')
  // the command is one a shell runs as npm install with three arguments
  const words = spawnSync('sh', ['-c', `set -- ${command.slice('npm install '.length)}; printf '%s\\n' "$@"`], { encoding: 'utf8' }).stdout.trim().split('\n')
  t.same(words, [CORDIS, SANDBOX, POLICY].map((n) => `${n}@${ranges[n]}`), 'the command\'s quoting holds each range as one word')
})

// In this process, where coverage sees lib/dsh-peers.js.
t.test('lib/dsh-peers.js: what counts as missing, and what passes as it is', async (t) => {
  const peers = require('../../lib/dsh-peers.js')
  t.same(peers.PEERS, [CORDIS, SANDBOX, POLICY])
  const notFound = (name) => Object.assign(new Error(`Cannot find package '${name}' imported from /x/lib/index.js`), { code: 'ERR_MODULE_NOT_FOUND' })
  t.equal(peers.missingPackage(notFound('@deepseek-ai/dsh-llm')), '@deepseek-ai/dsh-llm')
  t.equal(peers.missingPackage(Object.assign(new Error("Cannot find module '/x/lib/index.js' imported from /y.js"), { code: 'ERR_MODULE_NOT_FOUND' })), undefined, 'a file missing inside a package is not a missing package')
  t.equal(peers.missingPackage(new Error("Cannot find package 'x' imported from /y.js")), undefined, 'without the code')
  for (const v of [null, undefined, 'x', 1]) t.equal(peers.missingPackage(v), undefined, `a thrown ${v}`)

  // one imported peer missing one of its own (npm told not to install peers)
  const loads = []
  const err = await t.rejects(peers.importPeers(async (name) => {
    loads.push(name)
    if (name === CORDIS) return { cordis: true }
    throw notFound('@deepseek-ai/dsh-llm')
  }, '/p/lib/dsh.mjs'), { code: 'SANDY_DSH_PEER_MISSING' })
  t.same(loads, [CORDIS, SANDBOX, POLICY], 'every peer is tried')
  t.same(err.missing, ['@deepseek-ai/dsh-llm'], 'a package named once')
  t.match(err.message, /cannot find @deepseek-ai\/dsh-llm \(which dsh's packages import\) from \/p\/lib\/dsh\.mjs; install them with: npm install '@deepseek-ai\/cordis@/)
  t.match(err.cause, { code: 'ERR_MODULE_NOT_FOUND' })
  const two = await t.rejects(peers.importPeers(async (name) => {
    if (name === POLICY) throw notFound(POLICY)
    if (name === SANDBOX) throw notFound(CORDIS)
  }, '/p/lib/dsh.mjs'), { code: 'SANDY_DSH_PEER_MISSING' })
  t.same(two.missing, [CORDIS, POLICY], 'a peer missing, and one missing under another')
  t.match(two.message, /cannot find @deepseek-ai\/cordis, @deepseek-ai\/dsh-sandbox-policy from \/p\/lib\/dsh\.mjs; /, 'peers by their names alone')
  t.match(two.cause.message, /Cannot find package '@deepseek-ai\/cordis'/, 'the first failure is the cause')
  // any other failure passes as it is, at once
  const syntax = new SyntaxError("The requested module '@deepseek-ai/cordis' does not provide an export named 'Service'")
  await t.rejects(peers.importPeers(async () => { throw syntax }, '/p'), syntax)
  // all there: each module by name
  t.same(await peers.importPeers(async (name) => ({ name }), '/p'), Object.fromEntries(peers.PEERS.map((n) => [n, { name: n }])))
})

// Two copies of dsh-sandbox: the host's program resolves one, the adapter
// another. Here a linked checkout (node_modules/sandy-native is this
// checkout, which resolves dsh from its own node_modules) in a project
// whose own dsh-sandbox is a copy of the installed package; the other
// packages are links to this checkout's, so dsh-sandbox alone differs.
const HOST_APPLY = `
import { Context } from '@deepseek-ai/cordis'
import { SandboxProvider } from '@deepseek-ai/dsh-sandbox'
import { SandboxPolicyService } from '@deepseek-ai/dsh-sandbox-policy'
import sandy, { SandySandboxProvider } from 'sandy-native/dsh'

const ctx = new Context()
// what the check is for: whether the adapter's class extends the host's
const out = { extendsHost: SandySandboxProvider.prototype instanceof SandboxProvider }
try {
  await ctx.plugin(sandy, { mode: 'read-only', workspaceRoot: process.cwd() })
  out.applied = true
  out.classes = [ctx.sandbox instanceof SandboxProvider, ctx.sandboxPolicy instanceof SandboxPolicyService]
} catch (err) {
  out.code = err.code
  out.message = err.message
  out.copies = err.copies
  out.registered = [ctx.get('sandbox') !== undefined, ctx.get('sandboxPolicy') !== undefined]
}
console.log(JSON.stringify(out))
`
const ROOT = path.join(__dirname, '..', '..')
const installed = (name) => path.dirname(require.resolve(`${name}/package.json`))

function linkedCheckout (t, { copied }) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-dsh-copies-')))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "host", "private": true }\n')
  fs.mkdirSync(path.join(dir, 'node_modules', '@deepseek-ai'), { recursive: true })
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'sandy-native'))
  for (const name of [CORDIS, SANDBOX, POLICY, '@deepseek-ai/dsh-llm']) {
    const to = path.join(dir, 'node_modules', name)
    if (copied.includes(name)) fs.cpSync(installed(name), to, { recursive: true })
    else fs.symlinkSync(installed(name), to)
  }
  fs.writeFileSync(path.join(dir, 'host.mjs'), HOST_APPLY)
  return dir
}

t.test('two copies of dsh-sandbox: apply fails, naming both', async (t) => {
  const dir = linkedCheckout(t, { copied: [SANDBOX] })
  const hostCopy = path.join(dir, 'node_modules', SANDBOX)
  const ownCopy = installed(SANDBOX)
  const version = require(`${SANDBOX}/package.json`).version
  // the program as a file, and as `node -e` from the project's directory
  for (const [how, argv, base] of [
    ['node host.mjs', ['host.mjs'], path.join(dir, 'host.mjs')],
    ['node -e', ['--input-type=module', '-e', HOST_APPLY], path.join(dir, '[eval]')]
  ]) {
    const r = spawnSync(process.execPath, argv, { cwd: dir, env: ENV, encoding: 'utf8' })
    t.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    t.equal(out.extendsHost, false, `${how}: the tree has two copies (the adapter's provider does not extend the host's SandboxProvider)`)
    t.equal(out.code, 'SANDY_DSH_DUPLICATE', `${how}: ctx.plugin rejects with the adapter's code`)
    t.same(out.copies, [{ name: SANDBOX, host: hostCopy, own: ownCopy }], `${how}: the two copies, the host's first`)
    t.ok(out.message.startsWith(`sandy-native/dsh: two copies of dsh's packages: ${SANDBOX}: the host's is ${hostCopy} (${version}), resolved from ${base}, and sandy-native/dsh's is ${ownCopy} (${version}), so its provider would not extend the host's SandboxProvider, nor its refusals be the host's SandboxUnavailableError. `), out.message)
    t.match(out.message, `\`npm ls ${SANDBOX}\` shows where each comes from`, 'and how to find why')
    t.same(out.registered, [false, false], `${how}: neither service is registered`)
  }
  // control: the same project with the checkout's own copy linked
  const one = linkedCheckout(t, { copied: [] })
  const r = spawnSync(process.execPath, ['host.mjs'], { cwd: one, env: ENV, encoding: 'utf8' })
  t.same(JSON.parse(r.stdout), { extendsHost: true, applied: true, classes: [true, true] }, 'control: one copy, and the services are instances of the host\'s classes')
})

// In this process, where coverage sees lib/dsh-peers.js: both packages
// copied, a host that resolves none, an adapter that resolves none, and
// the host program's file in each way Node can be started.
t.test('lib/dsh-peers.js: the copies compared, and the host program\'s file', async (t) => {
  const peers = require('../../lib/dsh-peers.js')
  const own = path.join(ROOT, 'lib', 'dsh.mjs')
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-dsh-copies-')))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const name of [SANDBOX, POLICY]) fs.cpSync(installed(name), path.join(dir, 'node_modules', name), { recursive: true })
  const policyJson = path.join(dir, 'node_modules', POLICY, 'package.json')
  fs.writeFileSync(policyJson, JSON.stringify({ ...JSON.parse(fs.readFileSync(policyJson, 'utf8')), version: undefined }))
  const base = path.join(dir, 'main.mjs')
  const err = t.throws(() => peers.checkCopies(own, base), { code: 'SANDY_DSH_DUPLICATE' })
  t.same(err.copies.map((c) => [c.name, c.host, c.own]), [
    [SANDBOX, path.join(dir, 'node_modules', SANDBOX), installed(SANDBOX)],
    [POLICY, path.join(dir, 'node_modules', POLICY), installed(POLICY)]
  ], 'both packages, each copy by its directory')
  t.match(err.message, `${POLICY}: the host's is ${path.join(dir, 'node_modules', POLICY)} (no version), resolved from ${base}, and sandy-native/dsh's is ${installed(POLICY)} (`)
  t.match(err.message, "so its policy service would not extend the host's SandboxPolicyService. Make them one: `npm ls @deepseek-ai/dsh-sandbox @deepseek-ai/dsh-sandbox-policy`")
  t.ok(Object.isFrozen(err.copies) && Object.isFrozen(err.copies[0]))
  t.equal(peers.checkCopies(own, path.join(ROOT, 'test', 'x.js')), undefined, 'the checkout\'s own program: one copy')
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-dsh-none-'))
  t.teardown(() => fs.rmSync(empty, { recursive: true, force: true }))
  t.equal(peers.checkCopies(own, path.join(empty, 'x.js')), undefined, 'a host that resolves none: nothing to compare')
  t.equal(peers.checkCopies(path.join(empty, 'x.js'), base), undefined, 'an adapter that resolves none: nothing to compare')
  t.equal(peers.checkCopies(own), undefined, 'by default, this process\'s program (this test file): one copy')

  const cwd = dir
  fs.writeFileSync(path.join(dir, 'real.mjs'), '')
  fs.symlinkSync(path.join(dir, 'real.mjs'), path.join(dir, 'link.mjs'))
  for (const [argv, execArgv, expected, what] of [
    [['node', 'link.mjs'], [], path.join(dir, 'real.mjs'), 'the main module by its real path'],
    [['node', 'missing'], [], path.join(dir, 'missing'), 'one that does not resolve as it was given'],
    [['node'], [], path.join(dir, '[eval]'), 'the REPL or standard input'],
    [['node', '-', 'a'], [], path.join(dir, '[eval]'), '`node -`'],
    [['node', 'a'], ['-e', 'x'], path.join(dir, '[eval]'), '-e, whose argv[1] is an argument'],
    [['node', 'a'], ['-pe', 'x'], path.join(dir, '[eval]'), '-pe'],
    [['node', 'a'], ['--eval=x'], path.join(dir, '[eval]'), '--eval='],
    [['node', 'a'], ['--print', 'x'], path.join(dir, '[eval]'), '--print'],
    [['node', 'link.mjs'], ['-r', 'x', '--import', 'y', '--experimental-vm-modules'], path.join(dir, 'real.mjs'), 'other options']
  ]) {
    t.equal(peers.hostBase({ argv, execArgv, cwd }), expected, what)
  }
  t.equal(peers.hostBase(), fs.realpathSync(process.argv[1]), 'by default, this process')
})
