'use strict'
// The seam over every usable Linux backend: real spawns in both modes, as
// root and as an unprivileged user. Every denied write is also shown to
// succeed unconfined, and to leave nothing behind on the host.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const sandy = require('../..')
const { users, plainNodeEnv, confineAs } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')

const { createLocalSandboxProvider, classifyExit, classifySpawnError, SandboxUnavailableError } = sandy
const BACKENDS = ['sandy', 'bwrap', 'landlock']
const usable = BACKENDS.filter((b) => sandy.probe().backends[b].usable)
// the Landlock-only level is not offered to uid 0 (the probe says why)
const ROOT = process.geteuid() === 0
// Set when this file re-runs itself as an unprivileged process for one
// backend (the Landlock-only level is not offered to uid 0).
const only = process.env.SANDY_TEST_ONLY_BACKEND
const NOBODY = ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']

function run (argv, { cwd, wrap = [], timeout = patience(15000), env: extra = {} } = {}) {
  const full = [...wrap, ...argv]
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin', ...extra }
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
    const child = spawn(full[0], full.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', (error) => resolve({ error, code: null, signal: null, stdout, stderr }))
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

// A base the unprivileged user can reach, outside /tmp: the private /tmp of
// workspace-write would otherwise hide the siblings these tests aim at.
function base (t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'sandy-provider-')))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// workspace, a sibling outside it, and a symlink from inside to the sibling
function layout (dir, user) {
  const ws = path.join(dir, `ws-${user.uid}`)
  const sibling = path.join(dir, `sibling-${user.uid}`)
  fs.mkdirSync(ws)
  fs.mkdirSync(sibling)
  fs.symlinkSync(sibling, path.join(ws, 'out'))
  for (const d of [ws, sibling]) fs.chownSync(d, user.uid, user.gid)
  fs.lchownSync(path.join(ws, 'out'), user.uid, user.gid)
  return { ws, sibling }
}

const sh = (script) => ['/bin/sh', '-c', script]

// Without a view chmod and chown are ungoverned, which for root reaches
// every file it owns: a root provider does not offer the Landlock-only
// level, and the launcher refuses uid 0 there too. Its cases run in an
// unprivileged re-run of this file.
function landlockFromRoot () {
  t.test('landlock backend, from a root process', async (t) => {
    const dir = base(t)
    const ws = path.join(dir, 'ws')
    fs.mkdirSync(ws, { mode: 0o777 })
    const forced = createLocalSandboxProvider({ backend: 'landlock' })
    const err = t.throws(() => forced.confine(['true'], { mode: 'read-only', workspaceRoot: ws }))
    t.equal(err.code, 'SANDBOX_UNAVAILABLE')
    t.match(err.reasons.join('\n'), /landlock: the Landlock-only level does not confine uid 0/)
    // as a plain node script, without this runner's hooks and variables
    const plain = Object.fromEntries(Object.keys(process.env).filter((k) => !(k in plainNodeEnv())).map((k) => [k, undefined]))
    const again = await run([...NOBODY, process.execPath, __filename], { cwd: '/', timeout: patience(120000), env: { ...plain, SANDY_TEST_ONLY_BACKEND: 'landlock' } })
    t.equal(again.code, 0, `the landlock cases pass as uid 65534 (${again.stdout.split('\n').filter((l) => /not ok/.test(l)).join('; ')})`)
    t.match(again.stdout, /^ok \d+ - landlock backend/m, 'the landlock backend\'s cases ran')
    t.notMatch(again.stdout, /# (SKIP|TODO)/i, 'and none was skipped')
    // an argv made by an unprivileged provider, run as root
    const file = path.join(ws, 'root-ran')
    const script = `console.log(JSON.stringify(require(${JSON.stringify(path.join(__dirname, '..', '..'))}).createLocalSandboxProvider({ backend: 'landlock' }).confine(['/bin/sh', '-c', 'echo x > ${file}'], { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(ws)} })))`
    const made = await run([...NOBODY, process.execPath, '-e', script], { cwd: '/', env: plain })
    const c = JSON.parse(made.stdout)
    const r = await run(c.argv, { cwd: ws })
    t.equal(r.code, 125, r.stderr)
    t.match(r.stderr, /^sandy-launcher: fatal: Unsupported: the Landlock-only level does not confine uid 0/)
    t.equal(classifyExit(c, r).kind, 'runner-failure')
    t.notOk(fs.existsSync(file), 'nothing ran')
  })
}

for (const backend of BACKENDS) {
  if (only && backend !== only) continue
  if (backend === 'landlock' && ROOT) {
    landlockFromRoot()
    continue
  }
  if (!usable.includes(backend)) {
    t.skip(`${UNCOVERED} ${backend} backend: ${sandy.probe().backends[backend].reason}`)
    continue
  }
  t.test(`${backend} backend`, async (t) => {
    const provider = createLocalSandboxProvider({ backend })
    const dir = base(t)
    for (const user of users()) {
      const { ws, sibling } = layout(dir, user)
      const hostTmp = path.join('/tmp', `sandy-provider-${process.pid}-${backend}-${user.uid}`)
      t.teardown(() => fs.rmSync(hostTmp, { force: true }))
      const confined = (mode, argv) => provider.confine(argv, { mode, workspaceRoot: ws }).argv

      t.test(`${user.name}: workspace-write writes the workspace`, async (t) => {
        const file = path.join(ws, 'inside')
        const r = await run(confined('workspace-write', sh(`echo data > ${file}`)), { cwd: ws, wrap: user.wrap })
        t.equal(r.code, 0, r.stderr)
        t.equal(fs.readFileSync(file, 'utf8'), 'data\n')
        fs.rmSync(file)
      })

      const outside = [
        ['the host /tmp', hostTmp],
        ['a sibling of the workspace', path.join(sibling, 'f')],
        ['a symlink out of the workspace', path.join(ws, 'out', 'via-link')]
      ]
      for (const mode of ['read-only', 'workspace-write']) {
        for (const [what, target] of outside) {
          t.test(`${user.name}: ${mode} cannot write ${what}`, async (t) => {
            const landed = target.startsWith(path.join(ws, 'out')) ? path.join(sibling, 'via-link') : target
            const c = provider.confine(sh(`echo data > ${target}`), { mode, workspaceRoot: ws })
            const r = await run(c.argv, { cwd: ws, wrap: user.wrap })
            t.notOk(fs.existsSync(landed), 'nothing appears on the host')
            if (r.code !== 0) t.equal(classifyExit(c, r).kind, 'denied', r.stderr)
            else t.equal(what, 'the host /tmp', 'only a private /tmp may accept the write')
            const bare = await run(sh(`echo data > ${target}`), { cwd: ws, wrap: user.wrap })
            t.equal(bare.code, 0, 'the same write succeeds unconfined')
            t.ok(fs.existsSync(landed))
            fs.rmSync(landed)
          })
        }

        t.test(`${user.name}: ${mode} can write /dev/null`, async (t) => {
          const r = await run(confined(mode, sh('echo x > /dev/null && echo ok')), { cwd: ws, wrap: user.wrap })
          t.equal(r.code, 0, r.stderr)
          t.equal(r.stdout, 'ok\n')
        })

        t.test(`${user.name}: ${mode} ordinary failures stay ordinary`, async (t) => {
          const c = provider.confine(sh('echo oops >&2; exit 1'), { mode, workspaceRoot: ws })
          const r = await run(c.argv, { cwd: ws, wrap: user.wrap })
          t.equal(r.code, 1)
          t.equal(classifyExit(c, r).kind, 'ordinary')
          const missing = provider.confine(['no-such-command-sandy'], { mode, workspaceRoot: ws })
          const m = await run(missing.argv, { cwd: ws, wrap: user.wrap })
          t.equal(m.code, 127, m.stderr)
          t.equal(classifyExit(missing, m).kind, 'ordinary')
        })
      }

      t.test(`${user.name}: read-only denies workspace writes`, async (t) => {
        const file = path.join(ws, 'ro')
        const c = provider.confine(sh(`echo data > ${file}`), { mode: 'read-only', workspaceRoot: ws })
        const r = await run(c.argv, { cwd: ws, wrap: user.wrap })
        t.not(r.code, 0)
        t.notOk(fs.existsSync(file))
        t.same(classifyExit(c, r).kind, 'denied', r.stderr)
        const bare = await run(sh(`echo data > ${file}`), { cwd: ws, wrap: user.wrap })
        t.equal(bare.code, 0)
        fs.rmSync(file)
      })
    }
  })
}

// the unprivileged re-run covers its backend's cases only
if (only) return

t.test('this host has the three Linux backends', async (t) => {
  t.same(usable, ROOT ? ['sandy', 'bwrap'] : BACKENDS, 'sandy, bwrap and (not for root) landlock are usable here (CI installs bubblewrap)')
  if (ROOT) t.match(sandy.probe().backends.landlock.reason, /does not confine uid 0/)
  if (!ROOT) t.equal(sandy.probe().backends.landlock.enforcement, 'partial')
})

t.test('each backend speaks its own denial dialect', async (t) => {
  const dir = os.tmpdir()
  const dialect = (backend) => createLocalSandboxProvider({ backend }).confine(['true'], { mode: 'read-only', workspaceRoot: dir }).denialSignatures
  t.same(dialect('sandy'), ['Permission denied', 'Read-only file system', 'Operation not permitted'])
  t.same(dialect('bwrap'), ['Read-only file system', 'Permission denied'])
  if (process.geteuid() !== 0) t.same(dialect('landlock'), ['Permission denied', 'Operation not permitted'], 'no view, no EROFS')
})

// The process looked at belongs to the user who looks, and runs outside
// the sandbox: unconfined, that user can list its root. Confined, /proc
// is the command's PID namespace's own, in which the process has no
// entry (test/confinement/escape-processes.test.js has the rest of the boundary).
for (const user of users()) {
  t.test(`reads everywhere includes /proc, without other processes' roots [${user.name}]`, async (t) => {
    const dir = base(t)
    // (it sleeps until the teardown ends it, and waits for its end: a
    // sleep of 60 s could end before a slow run looks at it)
    const [cmd, ...args] = [...user.wrap, '/bin/sleep', '3600']
    const host = spawn(cmd, args, { stdio: 'ignore' })
    const ended = new Promise((resolve) => host.on('close', resolve))
    t.teardown(async () => {
      host.kill()
      await ended
    })
    await new Promise((resolve) => host.on('spawn', resolve))
    // (until it is sleep itself, not setpriv about to exec it: root's
    // process, whose root nobody may not list)
    while (!fs.readFileSync(`/proc/${host.pid}/cmdline`, 'latin1').startsWith('/bin/sleep\0')) await new Promise(setImmediate)
    const look = sh(`head -1 /proc/self/status && ls /proc/${host.pid}/root/`)
    const bare = await run(look, { cwd: dir, wrap: user.wrap })
    t.equal(bare.code, 0, `unconfined, the root of process ${host.pid} is listed (${bare.stderr.trim()})`)
    t.match(bare.stdout, /\netc\n/)
    const c = createLocalSandboxProvider({ backend: 'sandy' }).confine(look, { mode: 'read-only', workspaceRoot: dir })
    const r = await run(c.argv, { cwd: dir, wrap: user.wrap })
    t.match(r.stdout, /^Name:/, r.stderr)
    t.notMatch(r.stdout, /\netc\n/, 'confined, nothing is listed')
    t.match(r.stderr, new RegExp(`/proc/${host.pid}/root.*No such file or directory`), 'the process is not in its /proc')
  })
}

// The launcher's policy for the seam's modes (csrc/backends/sandy.c): every
// top-level directory read and executable, but the kernel's trees
// (csrc/core/vocabulary.h) read only.
t.test('the seam\'s modes read the kernel\'s trees and never execute from them', async (t) => {
  for (const backend of usable.filter((b) => b !== 'bwrap')) {
    const argv = createLocalSandboxProvider({ backend }).confine(['true'], { mode: 'read-only', workspaceRoot: os.tmpdir() }).argv
    const words = (flag, p) => argv.some((w, i) => w === p && argv[i - 1] === 'subtree' && argv[i - 2] === (flag === '--grant' ? 'read' : '--execute'))
    for (const tree of ['/proc', '/sys']) {
      t.ok(words('--grant', tree), `${backend}: ${tree} is read`)
      t.notOk(words('--execute', tree), `${backend}: ${tree} is not executable`)
    }
    t.ok(words('--grant', '/usr') && words('--execute', '/usr'), `${backend}: /usr is read and executable`)
  }
})

t.test('arbitration follows the design order and is cached', async (t) => {
  const provider = createLocalSandboxProvider()
  const report = provider.probe()
  t.equal(report.selected, 'sandy')
  t.same(report.candidates.map((c) => c.name), ['sandy', 'bwrap', 'landlock', 'seatbelt'])
  t.equal(report.candidates[3].usable, false)
  t.match(report.candidates[3].reason, /macOS/)
  report.selected = 'changed'
  t.equal(provider.probe().selected, 'sandy', 'the cached report cannot be edited')
  const c = provider.confine(['true'], { mode: 'read-only', workspaceRoot: os.tmpdir() })
  t.equal(c.enforcement, 'full')
  t.ok(Object.isFrozen(c) && Object.isFrozen(c.argv))
  t.equal(c.argv.at(-1), 'true')
})

// Which backend made an argv is on the argv itself (issue 31): what the
// provider's probe().selected says, for every usable backend (landlock, not
// offered to root, from a process of uid 65534), an operator's runner and
// confinePolicy's launcher.
t.test('a ConfinedArgv names the backend that made it', async (t) => {
  const request = { mode: 'read-only', workspaceRoot: os.tmpdir() }
  for (const backend of usable) {
    const provider = createLocalSandboxProvider({ backend })
    t.equal(provider.confine(['true'], request).backend, backend, `${backend}: named`)
    t.equal(provider.probe().selected, backend, `${backend}: as probe().selected`)
  }
  const auto = createLocalSandboxProvider()
  t.equal(auto.confine(['true'], request).backend, auto.probe().selected, "auto: the one it selected ('sandy')")
  if (ROOT) t.equal(confineAs(users().at(-1), 'landlock', ['true'], request).backend, 'landlock', 'landlock, made by uid 65534')
  const runner = { argv: ['/usr/bin/env', '--'], runnerFailureSignatures: ['operator-runner: refused'], enforcement: 'partial' }
  t.equal(createLocalSandboxProvider({ runner }).confine(['true'], request).backend, 'runner', 'an operator\'s runner')
  t.equal(sandy.confinePolicy(['true'], new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree'), { cwd: '/usr' }).backend, 'sandy', 'confinePolicy: the launcher')
})

t.test('options and policies are validated', async (t) => {
  t.throws(() => createLocalSandboxProvider(null), TypeError)
  t.throws(() => createLocalSandboxProvider({ backend: 'docker' }), RangeError)
  t.throws(() => createLocalSandboxProvider({ backend: 'runner' }), TypeError)
  const good = { argv: ['/usr/bin/env'], runnerFailureSignatures: ['runner: fatal'], enforcement: 'partial' }
  t.throws(() => createLocalSandboxProvider({ runner: 'x' }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, argv: [] } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, runnerFailureSignatures: [] } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, runnerFailureSignatures: [''] } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, runnerFailureSignatures: ['a\nb'] } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, runnerFailureSignatures: 'x' } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, denialSignatures: [' '] } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, enforcement: 'total' } }), TypeError)
  t.throws(() => createLocalSandboxProvider({ runnner: good }), { name: 'TypeError', message: /unknown key "runnner"/ }, 'a misspelt option is refused')
  t.throws(() => createLocalSandboxProvider({ runner: { ...good, denialSignature: ['x'] } }), /unknown key/)

  const provider = createLocalSandboxProvider()
  const root = os.tmpdir()
  t.throws(() => provider.confine([], { mode: 'read-only', workspaceRoot: root }), TypeError)
  t.throws(() => provider.confine('ls', { mode: 'read-only', workspaceRoot: root }), TypeError)
  t.throws(() => provider.confine(['a\0b'], { mode: 'read-only', workspaceRoot: root }), TypeError)
  t.throws(() => provider.confine(['true'], null), TypeError)
  t.throws(() => provider.confine(['true'], { mode: 'danger-full-access', workspaceRoot: root }), { name: 'RangeError', message: /spawns its argv itself/ })
  t.throws(() => provider.confine(['true'], { mode: 'write', workspaceRoot: root }), RangeError)
  t.throws(() => provider.confine(['true'], { mode: 'read-only', workspaceRoot: 'relative' }), TypeError)
  t.throws(() => provider.confine(['true'], { mode: 'read-only', workspaceRoot: '' }), TypeError)
  t.throws(() => provider.confine(['true'], { mode: 'read-only', workspaceRoot: '/no/such/root' }), RangeError)
  t.throws(() => provider.confine(['true'], { mode: 'read-only', workspaceRoot: '/etc/hostname' }), /not a directory/)
  t.throws(() => provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: '/' }), RangeError)
})

t.test('a configured runner wraps the argv with the operator prefix and one rule', async (t) => {
  const runner = { argv: ['/usr/bin/env', '--'], runnerFailureSignatures: ['operator-runner: refused'], enforcement: 'partial' }
  const provider = createLocalSandboxProvider({ runner })
  t.equal(provider.probe().selected, 'runner')
  const c = provider.confine(['true'], { mode: 'read-only', workspaceRoot: os.tmpdir() })
  t.same(c.argv, ['/usr/bin/env', '--', 'true'])
  t.equal(c.enforcement, 'partial')
  t.same(c.runnerFailureRules, [{ fatalSignatures: ['operator-runner: refused'] }])
  t.same(c.denialSignatures, [])
  t.equal(classifyExit(c, { code: 1, stderr: 'OPERATOR-RUNNER: REFUSED: policy\n' }).kind, 'runner-failure')
  const auto = createLocalSandboxProvider({ runner, backend: 'auto' })
  t.equal(auto.probe().selected, 'sandy', "with backend 'auto' the runner is the last candidate")
})

t.test('broken runners are runner failures or SANDBOX_UNAVAILABLE, never an unconfined run', async (t) => {
  const dir = base(t)
  const marker = path.join(dir, 'ran')
  const cmd = sh(`echo ran > ${marker}`)

  t.test('an operator argv that does not exist', async (t) => {
    const provider = createLocalSandboxProvider({ runner: { argv: [path.join(dir, 'no-runner')], runnerFailureSignatures: ['x'], enforcement: 'full' } })
    const c = provider.confine(cmd, { mode: 'read-only', workspaceRoot: dir })
    const r = await run(c.argv, { cwd: dir })
    t.equal(r.error.code, 'ENOENT')
    const e = classifySpawnError(c, r.error, { cwd: dir })
    t.ok(e instanceof SandboxUnavailableError)
    t.equal(e.cause, r.error)
    t.notOk(fs.existsSync(marker))
  })

  t.test('a launcher that is not executable', async (t) => {
    // A private copy of the package whose launcher lost its execute bit.
    const copy = path.join(dir, 'pkg')
    const root = path.join(__dirname, '..', '..')
    const release = path.dirname(require('../../lib/binding.js').addonPath)
    fs.mkdirSync(path.join(copy, 'build', 'Release'), { recursive: true })
    fs.cpSync(path.join(root, 'lib'), path.join(copy, 'lib'), { recursive: true })
    fs.copyFileSync(path.join(root, 'package.json'), path.join(copy, 'package.json'))
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'))
    for (const f of ['sandy.node', 'sandy-launcher']) fs.copyFileSync(path.join(release, f), path.join(copy, 'build', 'Release', f))
    fs.chmodSync(path.join(copy, 'build', 'Release', 'sandy-launcher'), 0o644)
    const script = `const s = require(${JSON.stringify(copy)}); try { s.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }); console.log('confined') } catch (e) { console.log(e.code, e.reasons.join('|')) }`
    const r = await run([process.execPath, '-e', script])
    t.match(r.stdout, /^SANDBOX_UNAVAILABLE .*sandy: the sandy launcher is not executable/, r.stderr)
    const auto = `const s = require(${JSON.stringify(copy)}); try { s.createLocalSandboxProvider().confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }) } catch (e) { console.log(e.code, e.reasons.join('|')) }`
    t.match((await run([process.execPath, '-e', auto])).stdout, /^SANDBOX_UNAVAILABLE sandy: the sandy launcher is not executable.*\|bwrap: the sandy launcher is not executable/,
      'bwrap needs the launcher too (as its descriptor guard): nothing is left')
  })

  t.test('the launcher refusing before exec is a runner failure', async (t) => {
    const provider = createLocalSandboxProvider({ backend: 'sandy' })
    const c = provider.confine(cmd, { mode: 'workspace-write', workspaceRoot: path.join(dir) })
    // /dev is not part of the view: the working directory cannot be entered.
    const r = await run(c.argv, { cwd: '/dev' })
    t.equal(r.code, 125)
    t.same(classifyExit(c, r), { kind: 'runner-failure', detail: r.stderr.trim() })
    t.notOk(fs.existsSync(marker))
  })

  t.test('bubblewrap, or the launcher guarding it, refusing before exec is a runner failure', async (t) => {
    const gone = path.join(dir, 'gone')
    fs.mkdirSync(gone)
    const bwrap = createLocalSandboxProvider({ backend: 'bwrap' })
    const c = bwrap.confine(cmd, { mode: 'workspace-write', workspaceRoot: gone })
    fs.rmdirSync(gone)
    const r = await run(c.argv, { cwd: dir })
    t.equal(r.code, 125, 'the guard finds the root gone')
    t.match(r.stderr, /a writable root changed since confine/)
    t.equal(classifyExit(c, r).kind, 'runner-failure', r.stderr)
    // bubblewrap's own refusal (here: a bind whose source does not exist)
    const ro = bwrap.confine(cmd, { mode: 'read-only', workspaceRoot: dir })
    const missingDev = await run([...ro.argv.slice(0, ro.argv.indexOf('--dev')), '--ro-bind', path.join(dir, 'no-such-dir'), '/mnt', ...ro.argv.slice(ro.argv.indexOf('--dev'))], { cwd: dir })
    t.equal(missingDev.code, 1)
    t.match(missingDev.stderr, /^bwrap: /)
    t.equal(classifyExit(ro, missingDev).kind, 'runner-failure', missingDev.stderr)
    t.notOk(fs.existsSync(marker))
  })

  t.test('a forced backend that is not usable throws', async (t) => {
    const p = createLocalSandboxProvider({ backend: 'seatbelt' })
    const err = t.throws(() => p.confine(['true'], { mode: 'read-only', workspaceRoot: dir }))
    t.ok(err instanceof SandboxUnavailableError)
    t.equal(err.code, 'SANDBOX_UNAVAILABLE')
    t.match(err.message, /seatbelt backend is not usable/)
    t.ok(err.reasons.some((r) => /^seatbelt: .*macOS/.test(r)))
  })
})

t.test('100 concurrent confined runs with different roots each write only their own root', async (t) => {
  const dir = base(t)
  const provider = createLocalSandboxProvider()
  const roots = Array.from({ length: 100 }, (_, i) => {
    const r = path.join(dir, `root-${i}`)
    fs.mkdirSync(r)
    return r
  })
  const results = await Promise.all(roots.map((root, i) => {
    const neighbour = roots[(i + 1) % roots.length]
    const c = provider.confine(sh(`echo ${i} > ${root}/mine; echo ${i} > ${neighbour}/theirs-${i}`), { mode: 'workspace-write', workspaceRoot: root })
    return run(c.argv, { cwd: root, timeout: patience(60000) })
  }))
  roots.forEach((root, i) => {
    t.equal(fs.readFileSync(path.join(root, 'mine'), 'utf8'), `${i}\n`)
    t.notOk(fs.readdirSync(root).some((f) => f.startsWith('theirs-')), `root ${i} holds no neighbour's file`)
    t.not(results[i].code, 0)
  })
})
