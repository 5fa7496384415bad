'use strict'
// Shared machinery of the escape suite: fixture programs compiled once per
// test file, per-user temporary trees, confined and unconfined runs of the
// identical argv, and host-side snapshots proving nothing changed.
//
// SANDY_TEST_LAUNCHER (absolute path) runs the suite against another
// launcher build, for example one with a layer switched off. It is read
// here only: production code never takes a launcher path from the
// environment.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync, execFileSync } = require('node:child_process')

const { SandboxPolicy, AccessMode, PathScope, NetworkPolicy, createLocalSandboxProvider, probe } = require('../../lib/index.js')
const { confineWith } = require('../../lib/confine.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const { patience } = require('./patience.js')

const FIXTURES = path.join(__dirname, '..', 'fixtures')
const SETPRIV = '/usr/bin/setpriv'
const NOBODY = 65534

// Set by the per-layer comparison (test/helpers/layer-runs.js).
const LAYER_RUN = process.env.SANDY_LAYER_RUN === '1'

function launcherOverride () {
  const p = process.env.SANDY_TEST_LAUNCHER
  if (!p) return undefined
  if (!path.isAbsolute(p)) throw new Error('SANDY_TEST_LAUNCHER must be an absolute path')
  return p
}

// Root runs every case twice: as itself and as nobody. Anyone else runs as
// itself only (it cannot become another user; `npm test` says so at the
// end, and its strict mode fails such a run).
function users () {
  if (process.getuid() !== 0) {
    return [{ name: `uid ${process.getuid()}`, uid: process.getuid(), gid: process.getgid(), wrap: [] }]
  }
  return [
    { name: 'root', uid: 0, gid: 0, wrap: [] },
    {
      name: 'nobody',
      uid: NOBODY,
      gid: NOBODY,
      wrap: [SETPRIV, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups']
    }
  ]
}

// The variables of the sanitizer stage (scripts/test.js) that the spawned
// launcher must see too, whatever environment a test gives it.
const SANITIZER_VARS = ['ASAN_OPTIONS', 'UBSAN_OPTIONS']
function withSanitizerEnv (env) {
  const out = { ...env }
  for (const k of SANITIZER_VARS) if (process.env[k] !== undefined && out[k] === undefined) out[k] = process.env[k]
  return out
}

const ROOT_REFUSED = 'the Landlock-only level refuses uid 0 (no view: chmod and chown would reach every file root owns)'

// The backends a case runs on for a user: those named, less the ones this
// host cannot run or that refuse the user, each of which is recorded as a
// skip that names it ("not covered: ..."), so a run says what it missed.
// A root process's probe never offers the Landlock-only level: for uid
// 65534 the verdict is that user's own probe (asked once), and the case
// confines through confineAs(), whose provider runs as that user.
function backendsFor (t, user, names) {
  const report = probe()
  return names.filter((b) => {
    let why = null
    const verdict = b === 'landlock' && process.geteuid() === 0 && user.uid !== 0 ? nobodyLandlock() : report.backends[b]
    if (b === 'landlock' && user.uid === 0) why = ROOT_REFUSED
    else if (!verdict.usable) why = verdict.reason
    if (why) t.skip(`${UNCOVERED} ${b} backend as ${user.name}: ${why}`)
    return why === null
  })
}

// For a file whose every case confines a Sandy policy (the sandy
// backend): true, with the whole file skipped and the reason named, where
// that backend is not usable (a kernel before Landlock ABI 6: the kernel
// matrix's 6.1); the caller returns at once.
function withoutSandy (t) {
  const v = probe().backends.sandy
  if (v.usable) return false
  t.plan(0, `${UNCOVERED} sandy backend: ${v.reason}`)
  return true
}

let nobodyVerdict = null
function nobodyLandlock () {
  if (nobodyVerdict === null) {
    const script = `process.stdout.write(JSON.stringify(require(process.argv[1]).probe().backends.landlock))`
    const r = spawnSync(SETPRIV, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script, path.join(__dirname, '..', '..')],
      { cwd: '/', env: plainNodeEnv(), encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`the probe as uid ${NOBODY} failed: ${r.stderr}`)
    nobodyVerdict = JSON.parse(r.stdout)
  }
  return nobodyVerdict
}

// The environment of a plain node process of the tests: without tap's
// hooks and variables.
function plainNodeEnv (extra = {}) {
  const env = { ...process.env, ...extra }
  for (const k of Object.keys(env)) {
    if (k.startsWith('TAP') || k.startsWith('_TAP') || k === 'NODE_OPTIONS' || k === 'NODE_V8_COVERAGE') delete env[k]
  }
  return env
}

// provider.confine(argv, request) for an argv the user will run: in this
// process, except for the Landlock-only level, which a root provider does
// not offer: that argv comes from a node process of the user.
function confineAs (user, backend, argv, request) {
  if (backend !== 'landlock' || user.uid === process.geteuid()) return createLocalSandboxProvider({ backend }).confine(argv, request)
  const script = `const [pkg, args] = process.argv.slice(1); const a = JSON.parse(args)
    process.stdout.write(JSON.stringify(require(pkg).createLocalSandboxProvider({ backend: a.backend }).confine(a.argv, a.request)))`
  const r = spawnSync(user.wrap[0], [...user.wrap.slice(1), process.execPath, '-e', script, path.join(__dirname, '..', '..'),
    JSON.stringify({ backend, argv, request })], { cwd: '/', env: plainNodeEnv(), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`confine as ${user.name} failed: ${r.error || r.stderr}`)
  return JSON.parse(r.stdout)
}

// Builds test/fixtures/NAME.c into dir by csrc/Makefile's fixtures
// target: kinds { STATIC, DYNAMIC, SHARED: [NAME] } (SHARED: NAME.so).
function fixtures (dir, kinds) {
  execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(__dirname, '..', '..', 'csrc'), '-j2', 'fixtures', `O=${dir}`,
    ...Object.entries(kinds).map(([kind, names]) => `${kind}=${names.join(' ')}`)], { stdio: ['ignore', 'ignore', 'inherit'] })
}

// Compiles the fixtures into a fresh directory that every user can read
// and execute, with the static ones named in extra beside the usual ones.
// Returns their paths; t.teardown removes everything.
function setup (t, extra = []) {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-escape-'))
  fs.chmodSync(base, 0o755)
  // (a case may leave a directory without write permission: a user who is
  // not root needs it back to remove the tree)
  t.teardown(() => {
    spawnSync('chmod', ['-R', 'u+rwX', base])
    fs.rmSync(base, { recursive: true, force: true })
  })
  const bin = path.join(base, 'bin')
  fs.mkdirSync(bin, { mode: 0o755 })
  const statics = ['op', 'hold', 'nosys', ...extra]
  fixtures(bin, { STATIC: statics, DYNAMIC: ['hello'] })
  const fx = { base, bin: fs.realpathSync(bin) }
  for (const name of [...statics, 'hello']) fx[name] = path.join(bin, name)
  return fx
}

// Builds a tree from {relative: content | null (directory) | {symlink}}
// under a fresh directory owned by the user who will act in it.
function tree (fx, user, spec) {
  const root = fs.mkdtempSync(path.join(fx.base, 't-'))
  fs.chmodSync(root, 0o755)
  for (const [rel, v] of Object.entries(spec)) {
    const p = path.join(root, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    if (v === null) fs.mkdirSync(p, { recursive: true })
    else if (typeof v === 'object' && v.symlink) fs.symlinkSync(v.symlink.replace('@', root), p)
    else if (typeof v === 'object' && v.copy) {
      fs.copyFileSync(v.copy, p)
      fs.chmodSync(p, 0o755)
    } else fs.writeFileSync(p, v, { mode: 0o644 })
  }
  execFileSync('chown', ['-hR', `${user.uid}:${user.gid}`, root])
  return fs.realpathSync(root)
}

// What the host sees of some paths: enough to notice any write, truncate,
// chmod, chown, utime, xattr (ctime) or creation.
function snapshot (paths) {
  const out = {}
  for (const p of paths) {
    let st
    try {
      st = fs.lstatSync(p)
    } catch {
      out[p] = 'absent'
      continue
    }
    const s = { mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs }
    if (st.isFile()) s.content = fs.readFileSync(p, 'latin1')
    if (st.isSymbolicLink()) s.link = fs.readlinkSync(p)
    if (st.isDirectory()) s.entries = fs.readdirSync(p).sort()
    out[p] = s
  }
  return out
}

function confine (argv, policy, cwd) {
  return confineWith(argv, policy, { cwd }, { launcher: launcherOverride() })
}

// Spawns argv (as user, optionally confined, optionally behind a prefix
// such as the hold fixture) and collects its result.
function run (user, { argv, policy = null, cwd, prefix = [], extraFds = [], env, timeout = patience(10000) }) {
  const confined = policy ? confine(argv, policy, cwd) : null
  const inner = confined ? confined.argv : argv
  const full = [...user.wrap, ...prefix, ...inner]
  return new Promise((resolve, reject) => {
    const child = spawn(full[0], full.slice(1), {
      cwd,
      env: withSanitizerEnv(env || { PATH: '/usr/bin', LANG: 'C', LC_ALL: 'C' }),
      stdio: ['ignore', 'pipe', 'pipe', ...extraFds],
      timeout
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, argv: full, confined }))
  })
}

// The policy every case starts from: the fixture programs readable and
// executable, nothing else.
function basePolicy (fx, { network = NetworkPolicy.BlockAll, subprocesses = false } = {}) {
  let p = new SandboxPolicy(network)
    .grant(fx.bin, AccessMode.Read, PathScope.Subtree)
    .allowExecute(fx.bin, PathScope.Subtree)
  if (subprocesses) p = p.allowSubprocesses()
  return p
}

function describe (r) {
  return `exit ${r.code}${r.signal ? ` signal ${r.signal}` : ''}; stdout ${JSON.stringify(r.stdout)}; ` +
    `stderr ${JSON.stringify(r.stderr.slice(0, 400))}`
}

const FAIL_LINE = /^fail (\S+) (E[A-Z0-9]+)$/m

// One escape case, for every user (a Sandy policy: the sandy backend; a
// named skip where it is not usable): the confined run must fail with one of
// the expected errnos (or as `expectConfined` says) and leave the watched
// host paths as they were; the identical unconfined run must succeed.
// build(user) makes a fresh tree each time and returns
// {argv, policy, cwd, prefix?, extraFds?, watch?, errnos?, check?, after?}.
function escapeCase (t, fx, name, build) {
  for (const user of users()) {
    t.test(`${name} [${user.name}]`, async (t) => {
      if (backendsFor(t, user, ['sandy']).length === 0) return
      const c = await build(user)
      const before = snapshot(c.watch || [])
      const r = await run(user, c)
      if (c.expectConfined) {
        c.expectConfined(t, r)
      } else {
        t.equal(r.code, 1, `confined: the action fails (${describe(r)})`)
        const m = FAIL_LINE.exec(r.stdout)
        t.ok(m, 'confined: the action itself reports the failure')
        // (the per-layer runs ask only whether a layer stops the action:
        // which errno a lone layer answers with is not their question)
        if (m && c.errnos && !LAYER_RUN) t.ok(c.errnos.includes(m[2]), `confined: ${m[1]} fails with ${m[2]}, one of ${c.errnos.join(' ')}`)
      }
      t.same(snapshot(c.watch || []), before, 'confined: the host paths are unchanged')
      if (c.after) await c.after(t, 'confined')

      const u = await build(user)
      const uBefore = snapshot(u.watch || [])
      const ur = await run(user, { ...u, policy: null })
      if (u.expectUnconfined) u.expectUnconfined(t, ur)
      else {
        t.equal(ur.code, 0, `unconfined: the same action succeeds (${describe(ur)})`)
        t.match(ur.stdout, /^ok/m, 'unconfined: the action reports success')
      }
      if (u.watchChanges !== false && (u.watch || []).length > 0) {
        t.notSame(snapshot(u.watch), uBefore, 'unconfined: the action visibly changes the host paths')
      }
      if (u.after) await u.after(t, 'unconfined')
    })
  }
}

// An action the policy allows: it must succeed confined and unconfined.
function allowedCase (t, fx, name, build) {
  for (const user of users()) {
    t.test(`${name} [${user.name}]`, async (t) => {
      if (backendsFor(t, user, ['sandy']).length === 0) return
      for (const confined of [true, false]) {
        const c = await build(user)
        const r = await run(user, confined ? c : { ...c, policy: null })
        const which = confined ? 'confined' : 'unconfined'
        t.equal(r.code, 0, `${which}: succeeds (${describe(r)})`)
        t.match(r.stdout, c.stdout || /^ok/m, `${which}: reports success`)
        if (c.after) await c.after(t, which)
      }
    })
  }
}

module.exports = {
  SandboxPolicy,
  AccessMode,
  PathScope,
  NetworkPolicy,
  users,
  setup,
  fixtures,
  tree,
  snapshot,
  confine,
  run,
  basePolicy,
  describe,
  escapeCase,
  allowedCase,
  launcherOverride,
  backendsFor,
  withoutSandy,
  confineAs,
  plainNodeEnv,
  withSanitizerEnv,
  FAIL_LINE
}
