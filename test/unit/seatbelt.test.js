'use strict'
// The seatbelt backend's words where no Mac is (csrc/test/seatbelt_test.c
// checks the profiles themselves): the argv's shape for both modes, the
// temp directory, paths only as parameters, the shim run here for real
// (the part of the argv after sandbox-exec's "--" is plain /bin/sh), the
// dialect judged by classifyExit, and a provider given a darwin probe:
// what it confines and what it refuses (nothing here runs sandbox-exec;
// on a Mac the probe checks the kernel's answers first, csrc/darwin/probe.c,
// and test/darwin/seatbelt.darwin.js runs the words for real).
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { seatbeltArgv } = require('../../lib/seatbelt.js')
const binding = require('../../lib/binding.js')
const { classifyExit } = require('../..')

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
  t.match(a[2], /^\(version 1\)\n\(allow default\)\n\(deny file-write\* file-link file-clone\)\n/)
  t.same([...a.slice(3, 6), ...a.slice(7)], ['--', '/bin/sh', '-c', 'sandy-native', 'ls', '-l'])
  t.match(a[6], /; exec "\$@"$/, 'the shim unsets the secret variables, then starts the command')
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
  t.same([...a.slice(3, 10), ...a.slice(11)], ['-D', `WORKSPACE_ROOT=${root}`, '-D', `TEMP_DIR=${temp}`, '--', '/bin/sh', '-c',
    temp, 'make'])
  t.match(a[10], /; TMPDIR="\$0"; export TMPDIR; exec "\$@"$/)
  t.notOk(a[2].includes(root) || a[2].includes(temp), 'no path in the profile text')
  t.match(a[2], /\(subpath \(param "WORKSPACE_ROOT"\)\)/)
  t.match(a[2], /\(subpath \(param "TEMP_DIR"\)\)/)
  t.equal(a[2], binding.addon.seatbeltArgv('workspace-write', '/x', '/y', [], [], [])[2], 'the profile does not depend on the paths')
})

t.test('workspace-write: the directories above a protected read inside the workspace cannot be renamed', async (t) => {
  const reads = [{ path: path.join(dir, 'cfg', 'deep', 'secret'), kind: 'file' }, { path: '/Users/me/.ssh/id_ed25519', kind: 'file' }]
  const a = seatbeltArgv({ mode: 'workspace-write', root: dir }, ['true'], { tmpdir, reads })
  t.teardown(() => fs.rmSync(a[a.indexOf('--') - 1].slice('TEMP_DIR='.length), { recursive: true, force: true }))
  const defs = a.filter((w, i) => a[i - 1] === '-D')
  const kept = defs.filter((d) => d.startsWith('KEPT_')).map((d) => d.slice(d.indexOf('=') + 1)).sort()
  t.same(kept, [path.join(dir, 'cfg'), path.join(dir, 'cfg', 'deep')], 'each directory between the root and the read, and none outside the workspace')
  for (const d of defs.filter((x) => x.startsWith('KEPT_'))) {
    t.ok(a[2].includes(`(deny file-write-unlink file-write-create\n  (literal (param "${d.slice(0, d.indexOf('='))}")))`), `${d}: no removal or rename`)
  }
  const ro = seatbeltArgv({ mode: 'read-only', root: dir }, ['true'], { tmpdir, reads })
  t.notOk(ro.some((w) => w.startsWith('KEPT_')), 'read-only writes nothing, so renames nothing: no rule')
})

t.test('over the kept paths\' bound: refused, naming the bound, leaving no temp directory', async (t) => {
  const { LAUNCHER } = require('../../lib/vocabulary.js')
  const own = fs.mkdtempSync(path.join(dir, 'bound-'))
  const writes = Array.from({ length: LAUNCHER.seatbeltWritesMax + 1 }, (_, i) => ({ path: path.join(dir, `k${i}`), kind: 'file' }))
  const err = t.throws(() => seatbeltArgv({ mode: 'workspace-write', root: dir }, ['true'], { tmpdir: () => own, writes }), { code: 'SANDBOX_UNAVAILABLE' })
  t.match(err.message, `at most ${LAUNCHER.seatbeltWritesMax}`)
  t.same(fs.readdirSync(own), [], 'nothing made')
  const at = seatbeltArgv({ mode: 'workspace-write', root: dir }, ['true'], { tmpdir: () => own, writes: writes.slice(1) })
  t.equal(at.filter((w) => w.startsWith('KEPT_')).length, LAUNCHER.seatbeltWritesMax, 'control: at the bound, every one a parameter')
  // an error of the addon's own removes the temp directory too
  t.throws(() => seatbeltArgv({ mode: 'workspace-write', root: dir }, ['true'], { tmpdir: () => own, writes: [{ path: 'relative', kind: 'file' }] }))
  t.equal(fs.readdirSync(own).length, 1, 'only the accepted call\'s temp directory is left')
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

// A provider on a host whose probe says what a Mac's would.
// volume(root): the answer of the workspace-write check made inside a
// workspace (csrc/darwin/probe.c), recorded in volumes.
function darwinProvider (t, seatbelt, options, volume = () => null) {
  const volumes = []
  const darwin = structuredClone(require('../../lib/probe.js').probe())
  darwin.platform = 'darwin'
  for (const name of Object.keys(darwin.backends)) darwin.backends[name] = { usable: false, enforcement: null, reason: 'not Linux' }
  darwin.backends.seatbelt = seatbelt
  let probes = 0
  // macOS has no launcher: verifying one fails there
  const real = require('../../lib/binding.js')
  const addon = Object.create(real.addon, { seatbeltVolume: { value: (root) => { volumes.push(root.toString()); return volume(root.toString()) } } })
  const noLauncher = Object.create(real, { verifiedLauncherPath: { value: () => { throw new Error('no launcher on macOS') } }, addon: { value: addon } })
  const mocks = { '../../lib/probe.js': { probe: () => { probes++; return darwin } }, '../../lib/binding.js': noLauncher }
  const { createLocalSandboxProvider } = t.mockRequire('../../lib/provider.js', mocks)
  const { confinePolicy } = t.mockRequire('../../lib/confine.js', { ...mocks, '../../lib/policy.js': require('../../lib/policy.js') })
  return { provider: createLocalSandboxProvider(options), probes: () => probes, volumes, confinePolicy }
}
const USABLE = { usable: true, enforcement: 'partial', reason: '/usr/bin/sandbox-exec enforced both profiles on the probe\'s writes' }

t.test('a darwin provider protects credential files, host sockets and secret variables', async (t) => {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-sb-home-')))
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }))
  fs.mkdirSync(path.join(home, '.ssh'))
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'key')
  fs.writeFileSync(path.join(home, '.ssh', 'known_hosts'), 'hosts')
  fs.mkdirSync(path.join(home, '.gnupg', 'private-keys-v1.d'), { recursive: true })
  const sock = path.join(home, 'agent.sock')
  const server = await new Promise((resolve) => { const s = require('node:net').createServer().listen(sock, () => resolve(s)) })
  t.teardown(() => server.close())
  const saved = { HOME: process.env.HOME, SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK }
  Object.assign(process.env, { HOME: home, SSH_AUTH_SOCK: sock })
  t.teardown(() => { for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v } })
  const { provider } = darwinProvider(t, USABLE, { keepEnv: ['KEEP_TOKEN'] })
  const c = provider.confine(['env'], { mode: 'read-only', workspaceRoot: dir })
  const defs = c.argv.filter((w, i) => c.argv[i - 1] === '-D')
  const named = (p) => defs.find((d) => d.endsWith(`=${p}`))
  for (const p of [path.join(home, '.ssh', 'id_ed25519'), path.join(home, '.gnupg', 'private-keys-v1.d'), sock]) {
    t.ok(named(p), `a parameter for ${path.relative(home, p)}`)
    const param = named(p).split('=')[0]
    t.ok(c.argv[2].includes(`(param "${param}")`), 'and a rule for it in the profile')
  }
  t.notOk(named(path.join(home, '.ssh', 'known_hosts')), 'known_hosts has none')
  t.match(c.argv[2], new RegExp(`\\(subpath \\(param "${named(path.join(home, '.gnupg', 'private-keys-v1.d')).split('=')[0]}"\\)\\)`), 'a directory by subpath')
  t.match(c.argv[2], new RegExp(`\\(deny network-outbound \\(literal \\(param "${named(sock).split('=')[0]}"\\)\\)\\)`), 'a socket\'s connect denied')
  // the shim, run here by /bin/sh as sandbox-exec would run it
  const tail = c.argv.slice(c.argv.indexOf('--') + 1)
  const r = spawnSync(tail[0], tail.slice(1), { env: { PATH: '/usr/bin:/bin', GITHUB_TOKEN: 'x', OPENAI_API_KEY: 'y', SSH_AUTH_SOCK: sock, KEEP_TOKEN: 'k', PLAIN: 'p' }, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  const seen = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  t.notOk('GITHUB_TOKEN' in seen || 'OPENAI_API_KEY' in seen || 'SSH_AUTH_SOCK' in seen, 'the secret variables are unset')
  t.equal(seen.KEEP_TOKEN, 'k', 'a kept one stays')
  t.equal(seen.PLAIN, 'p', 'others pass')
})

t.test('a darwin provider confines through sandbox-exec, with the probe\'s verdict and the dialect', async (t) => {
  // a temp directory of this test's own, which no other file writes into
  // meanwhile (the count below was of the shared one)
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-seatbelt-tmp-'))
  const savedTmp = Object.hasOwn(process.env, 'TMPDIR') ? process.env.TMPDIR : null
  process.env.TMPDIR = tmp
  t.teardown(() => {
    if (savedTmp === null) delete process.env.TMPDIR
    else process.env.TMPDIR = savedTmp
    fs.rmSync(tmp, { recursive: true, force: true })
  })
  const { provider, probes } = darwinProvider(t, USABLE)
  t.equal(provider.probe().selected, 'seatbelt', 'selected where it is usable')
  const before = fs.readdirSync(os.tmpdir()).length
  const ro = provider.confine(['ls', '-l'], { mode: 'read-only', workspaceRoot: dir })
  t.same(ro.argv.slice(0, 2), ['/usr/bin/sandbox-exec', '-p'])
  const tail = ro.argv.slice(ro.argv.indexOf('--'))
  t.same([...tail.slice(0, 3), ...tail.slice(4)], ['--', '/bin/sh', '-c', 'sandy-native', 'ls', '-l'])
  t.match(tail[3], /; exec "\$@"$/)
  t.equal(ro.enforcement, 'partial', 'the probe\'s verdict, not a promise')
  t.same(ro.denialSignatures, ['Operation not permitted'])
  t.same(ro.runnerFailureRules, binding.addon.backendDialect('seatbelt').runnerFailureRules)
  t.same(ro.writableRoots, [])
  t.equal(ro.backend, 'seatbelt', 'and says which backend made it')
  t.ok(Object.isFrozen(ro) && Object.isFrozen(ro.argv), 'frozen like every ConfinedArgv')
  t.equal(fs.readdirSync(os.tmpdir()).length, before, 'read-only makes no temp directory')
  const ws = provider.confine(['make'], { mode: 'workspace-write', workspaceRoot: path.join(dir, '.') })
  t.equal(ws.argv[4], `WORKSPACE_ROOT=${dir}`, 'the canonical root as a parameter')
  t.match(ws.argv[6], /^TEMP_DIR=/)
  const temp = ws.argv[6].slice('TEMP_DIR='.length)
  t.equal(path.dirname(temp), fs.realpathSync(os.tmpdir()), 'a temp directory of its own, under the canonical temp directory')
  t.teardown(() => fs.rmSync(temp, { recursive: true, force: true }))
  t.same(ws.argv.slice(-1), ['make'])
  provider.confine(['true'], { mode: 'read-only', workspaceRoot: dir })
  t.equal(probes(), 1, 'the host is probed once for the provider (no launcher to wait for)')
  const here = require('../../lib/provider.js').createLocalSandboxProvider().probe()
  if (process.platform === 'darwin') {
    t.equal(here.selected === 'seatbelt', here.candidates.find((c) => c.name === 'seatbelt').usable, 'on this Mac: selected exactly when its probe held')
  } else {
    t.not(here.selected, 'seatbelt', `never selected on ${process.platform}`)
  }
})

t.test('a darwin provider refuses what it cannot confine', async (t) => {
  const unusable = darwinProvider(t, { usable: false, enforcement: null, reason: '/usr/bin/sandbox-exec let a write outside the workspace land' })
  const err = t.throws(() => unusable.provider.confine(['true'], { mode: 'read-only', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE' })
  t.throws(() => unusable.provider.confine(['true'], { mode: 'read-only', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE' })
  t.equal(unusable.probes(), 2, 'with nothing usable and no launcher, each confine asks again')
  t.ok(err.reasons.includes('seatbelt: /usr/bin/sandbox-exec let a write outside the workspace land'), 'a probe whose writes did not hold: nothing is confined, and why')
  const roots = darwinProvider(t, USABLE, { writableRoots: [dir] }).provider
  t.match(t.throws(() => roots.confine(['true'], { mode: 'workspace-write', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE' }).reasons,
    ['seatbelt: writableRoots are not supported'], 'writable roots beside the workspace: refused, never dropped')
  t.equal(roots.confine(['true'], { mode: 'read-only', workspaceRoot: dir }).argv[0], '/usr/bin/sandbox-exec', 'read-only ignores them, as elsewhere')
  const { provider } = darwinProvider(t, USABLE)
  // bash, macOS's /bin/sh, reads the shim's first word as exec's option
  const bash = spawnSync('bash', ['-c', 'exec "$@"', 'x', '-l', 'echo', 'ran echo'], { encoding: 'utf8' })
  t.equal(bash.stdout, 'ran echo\n', 'why: bash\'s exec takes -l as its own option and runs another command')
  t.throws(() => provider.confine(['-l', 'echo'], { mode: 'read-only', workspaceRoot: dir }), { name: 'RangeError', message: /argv\[0\] must not start with "-"/ })
  // the directory of the shell the shim runs (Debian's /bin/sh is a link
  // to /usr/bin/dash): a workspace holding it could replace it
  const holder = path.dirname(fs.realpathSync('/bin/sh'))
  t.match(t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: holder }), { code: 'SANDBOX_UNAVAILABLE' }).reasons,
    ['seatbelt: the workspace root holds sandbox-exec or the shell its shim runs'], `a workspace holding the shell (${holder}) is refused`)
  t.equal(provider.confine(['true'], { mode: 'read-only', workspaceRoot: holder }).argv[0], '/usr/bin/sandbox-exec', 'control: read-only there is fine')
  // an argv the size bound refuses leaves no temp directory behind (in a
  // $TMPDIR of this test's own)
  const own = path.join(dir, 'own-tmpdir')
  fs.mkdirSync(own)
  const savedTmp = process.env.TMPDIR
  process.env.TMPDIR = own
  try {
    t.throws(() => provider.confine(['true', 'x'.repeat(1100000)], { mode: 'workspace-write', workspaceRoot: dir }), { name: 'RangeError' })
    t.throws(() => provider.confine(['true', 'x'.repeat(1100000)], { mode: 'read-only', workspaceRoot: dir }), { name: 'RangeError' })
    t.same(fs.readdirSync(own), [], 'a refused argv leaves no temp directory')
    provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: dir })
    t.equal(fs.readdirSync(own).length, 1, 'control: an accepted one leaves its own')
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = savedTmp
  }
  // a $TMPDIR that is not there: refused by its code, never its path
  const missing = path.join(dir, 'no-such-tmpdir')
  const saved = process.env.TMPDIR
  process.env.TMPDIR = missing
  try {
    const e = t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE', message: /cannot make its temp directory \(ENOENT\)/ })
    t.notOk(JSON.stringify({ m: e.message, r: e.reasons }).includes(missing), 'the error names no path')
  } finally {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  }
})

t.test('workspace-write is confined only where the probe\'s check held inside the workspace', async (t) => {
  const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-sb-volume-')))
  t.teardown(() => fs.rmSync(other, { recursive: true, force: true }))
  const own = path.join(other, 'tmpdir')
  fs.mkdirSync(own)
  const saved = Object.hasOwn(process.env, 'TMPDIR') ? process.env.TMPDIR : null
  process.env.TMPDIR = own
  t.teardown(() => { if (saved === null) delete process.env.TMPDIR; else process.env.TMPDIR = saved })
  const missed = '/usr/bin/sandbox-exec refused a write into the workspace in this workspace'
  const { provider, volumes } = darwinProvider(t, USABLE, {}, (root) => root === other ? 'refused a write into the workspace' : null)
  provider.confine(['true'], { mode: 'read-only', workspaceRoot: other })
  t.same(volumes, [], 'read-only asks nothing: it allows no write')
  const c = provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: path.join(dir, '.') })
  provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: dir })
  t.same(volumes, [dir], 'the canonical root is checked, once per process')
  t.equal(c.argv[4], `WORKSPACE_ROOT=${dir}`, 'and it is the root the profile gets')
  const before = fs.readdirSync(own).length
  const err = t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: other }), { code: 'SANDBOX_UNAVAILABLE' })
  t.same(err.reasons, [`seatbelt: ${missed}`], 'a workspace where the check did not hold: refused, saying which check')
  t.notOk(JSON.stringify({ m: err.message, r: err.reasons }).includes(other), 'no path in the error')
  t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: other }), { code: 'SANDBOX_UNAVAILABLE' })
  t.same(volumes, [dir, other, other], 'one that did not hold is asked again (a full disk passes)')
  t.equal(fs.readdirSync(own).length, before, 'a refused workspace leaves no temp directory')
  t.equal(provider.confine(['true'], { mode: 'read-only', workspaceRoot: other }).argv[0], '/usr/bin/sandbox-exec', 'read-only there stays confined')
  t.match(provider.probe({ workspaceRoot: other }).warnings, [/does not hold in this workspace .*refused a write into the workspace there.*confine refuses workspace-write/], 'provider.probe({ workspaceRoot }) says so')
  t.notOk(provider.probe({ workspaceRoot: dir }).warnings.some((w) => /seatbelt/.test(w)), 'and says nothing where it held')
  // the addon's own: a question for macOS alone, of an absolute path
  t.equal(binding.addon.seatbeltVolume(Buffer.from(dir)), process.platform === 'darwin' ? null : 'is macOS only')
  t.throws(() => binding.addon.seatbeltVolume(Buffer.from('relative')), { name: 'RangeError', message: /absolute path/ })
  t.throws(() => binding.addon.seatbeltVolume(dir), { code: 'ESANDYNAPI' }, 'a path as bytes only')
})

t.test('Sandy policies stay Unsupported on macOS', async (t) => {
  const { confinePolicy } = darwinProvider(t, USABLE)
  const { SandboxPolicy } = require('../../lib/policy.js')
  const policy = new SandboxPolicy('block_all').grant(dir, 'read', 'subtree')
  const err = t.throws(() => confinePolicy(['/bin/true'], policy, { cwd: dir }), { name: 'SandboxError', kind: 'Unsupported' })
  t.match(err.message, /not Linux/, 'because the sandy backend is not usable there')
})
