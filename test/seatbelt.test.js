'use strict'
// The seatbelt backend's words where no Mac is (csrc/test/seatbelt_test.c
// checks the profiles themselves): the argv's shape for both modes, the
// temp directory, paths only as parameters, the shim run here for real
// (the part of the argv after sandbox-exec's "--" is plain /bin/sh), the
// dialect judged by classifyExit, and a provider that would select
// seatbelt refusing until the profile has run on a Mac.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { seatbeltArgv } = require('../lib/seatbelt.js')
const binding = require('../lib/binding.js')
const { classifyExit } = require('..')

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-seatbelt-')))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

const tmpReal = path.join(dir, 'private-T')
fs.mkdirSync(tmpReal)
const tmpLink = path.join(dir, 'T')
fs.symlinkSync(tmpReal, tmpLink)
const tmpdir = () => tmpLink

t.test('read-only: sandbox-exec by absolute path, the fixed profile, no parameter', async (t) => {
  const a = seatbeltArgv({ mode: 'read-only', root: '/Users/me/p' }, ['ls', '-l'], { tmpdir })
  t.same(a.slice(0, 2), ['/usr/bin/sandbox-exec', '-p'])
  t.match(a[2], /^\(version 1\)\n\(allow default\)\n\(deny file-write\* file-link\)\n/)
  t.same(a.slice(3), ['--', '/bin/sh', '-c', 'exec "$@"', 'sandy-native', 'ls', '-l'])
  t.notOk(a.some((w) => w.includes('/Users/me/p')), 'the root is not used at all')
  t.same(fs.readdirSync(tmpReal), [], 'no temp directory')
})

t.test('workspace-write: the root and a temp directory of its own, as parameters', async (t) => {
  const root = '/Users/me/a "quoted" (dir)\nwith a newline'
  const a = seatbeltArgv({ mode: 'workspace-write', root }, ['make'], { tmpdir })
  const made = fs.readdirSync(tmpReal)
  t.equal(made.length, 1, 'one temp directory, under the canonical temp directory')
  const temp = path.join(tmpReal, made[0])
  t.equal(fs.statSync(temp).mode & 0o777, 0o700, 'private to its user')
  t.same(a.slice(3), ['-D', `WORKSPACE_ROOT=${root}`, '-D', `TEMP_DIR=${temp}`, '--', '/bin/sh', '-c',
    'TMPDIR="$0"; export TMPDIR; exec "$@"', temp, 'make'])
  t.notOk(a[2].includes(root) || a[2].includes(temp), 'no path in the profile text')
  t.match(a[2], /\(subpath \(param "WORKSPACE_ROOT"\)\)/)
  t.match(a[2], /\(subpath \(param "TEMP_DIR"\)\)/)
  t.equal(a[2], binding.addon.seatbeltArgv('workspace-write', '/x', '/y')[2], 'the profile does not depend on the paths')
})

t.test('the shim, run here: TMPDIR, arguments as given, a missing command is 127', async (t) => {
  const shim = (words) => words.slice(words.indexOf('--') + 1)
  const ws = seatbeltArgv({ mode: 'workspace-write', root: dir }, ['/bin/sh', '-c', 'printf "%s|%s|%s" "$TMPDIR" "$1" "$2"', 'x', 'a b', '$HOME'], { tmpdir })
  const r = spawnSync(shim(ws)[0], shim(ws).slice(1), { encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.equal(r.stdout, `${ws[ws.indexOf('--') + 4]}|a b|$HOME`)
  const ro = seatbeltArgv({ mode: 'read-only', root: dir }, ['sandy-no-such-command'], { tmpdir })
  const m = spawnSync(shim(ro)[0], shim(ro).slice(1), { encoding: 'utf8' })
  t.equal(m.status, 127, 'the shell\'s 127')
  t.notMatch(m.stderr, /^sandbox-exec: /m)
})

t.test('the dialect: EPERM is a denial, sandbox-exec\'s own refusals are runner failures', async (t) => {
  const d = binding.addon.backendDialect('seatbelt')
  const confined = { argv: ['/usr/bin/sandbox-exec'], enforcement: 'full', ...d }
  t.same(d.denialSignatures, ['Operation not permitted'])
  t.equal(classifyExit(confined, { code: 71, stderr: 'sandbox-exec: sandbox_apply: Operation not permitted\n' }).kind, 'runner-failure')
  t.equal(classifyExit(confined, { code: 65, stderr: 'sandbox-exec: unbound variable: X at <input string>, line 1, column 2\n' }).kind, 'runner-failure')
  t.equal(classifyExit(confined, { code: 1, stderr: 'touch: /etc/x: Operation not permitted\n' }).kind, 'denied')
  t.equal(classifyExit(confined, { code: 71, stderr: 'touch: /etc/x: Operation not permitted\n' }).kind, 'denied', 'a command\'s own 71 is no runner failure')
  t.equal(classifyExit(confined, { code: 127, stderr: 'sh: exec: nope: not found\n' }).kind, 'ordinary', 'a missing command stays ordinary')
})

t.test('a provider that selects seatbelt refuses until its profile has run on a Mac', async (t) => {
  const real = require('../lib/probe.js').probe()
  const darwin = structuredClone(real)
  darwin.platform = 'darwin'
  for (const name of Object.keys(darwin.backends)) darwin.backends[name] = { usable: false, enforcement: null, reason: 'not Linux' }
  darwin.backends.seatbelt = { usable: true, enforcement: 'full', reason: 'sandbox-exec applied a trivial profile' }
  const { createLocalSandboxProvider } = t.mockRequire('../lib/provider.js', { '../lib/probe.js': { probe: () => darwin } })
  const p = createLocalSandboxProvider()
  t.equal(p.probe().selected, 'seatbelt', 'selected where it is usable')
  const err = t.throws(() => p.confine(['true'], { mode: 'read-only', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE' })
  t.match(err.reasons, ['seatbelt: never run on a Mac'])
  t.not(require('../lib/provider.js').createLocalSandboxProvider().probe().selected, 'seatbelt', 'never selected on Linux')
})
