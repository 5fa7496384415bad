'use strict'
// Lower Landlock ABIs on this kernel (issue 28). A test build of the
// launcher takes the kernel's ABI as at most N (csrc/Makefile's abi-caps,
// -DSANDY_TEST_LANDLOCK_ABI_CAP=N in csrc/linux/landlock.c), and the probe
// is the launcher's (the addon runs its --sandy-probe-v1 and judges the
// report), so a capped build's probe reports what a kernel with that ABI
// would. For each cap, as root and as uid 65534, with the host probe asking
// that build (test/helpers/launcher-override.js, SANDY_TEST_LAUNCHER_PROBE):
// the probe reports the capped ABI; below the package's minimum
// (SANDY_LANDLOCK_MIN_ABI, 6) the sandy and landlock backends are
// unusable with a reason naming the ABI found and needed, confine throws
// SANDBOX_UNAVAILABLE for them and, left to choose, confines with another
// backend or throws, and the launcher itself refuses an argv made for
// them; at the minimum they are usable and a write outside the workspace
// is refused where the same write unconfined succeeds. A cap above the
// kernel's ABI changes nothing (lower only), and the shipped launcher is
// not capped and holds none of the knob.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync, execFileSync } = require('node:child_process')

const sandy = require('../..')
const { addon, verifiedLauncherPath } = require('../../lib/binding.js')
const { users, confineAs, plainNodeEnv, withSanitizerEnv } = require('../helpers/sandbox.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')

const ROOT = path.join(__dirname, '..', '..')
const MAKE = ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc')]
const OVERRIDE = path.join(__dirname, '..', 'helpers', 'launcher-override.js')
// (SANDY_LANDLOCK_MIN_ABI in csrc/core/protocol.h: today's rule)
const MIN_ABI = 6
const CAPS = [1, 2, 3, 4, 5, 6]
// a cap above any kernel's ABI: the build must take the kernel's own
const ABOVE = 99
// what only a capped build holds (its ruleset check's message)
const MARKER = 'capped at Landlock ABI'

// landlock_create_ruleset(NULL, 0, flag) made by perl, not by us
// (flag 1: the ABI version, 2: the errata)
const kernel = (flag) => Number(execFileSync('perl', ['-e', `my $v = syscall(444, 0, 0, ${flag}); print $v < 0 ? 0 : $v`], { encoding: 'utf8' }))
const realAbi = kernel(1)
const realErrata = kernel(2)
const LOW_KERNEL = realAbi < MIN_ABI && `${UNCOVERED} Landlock ABI caps: this kernel offers ABI ${realAbi}, below ${MIN_ABI}`

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-abi-caps-'))
fs.chmodSync(out, 0o755)
t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
const build = (cap) => path.join(out, `sandy-launcher-abi${cap}`)
t.before(() => {
  const started = Date.now()
  execFileSync('make', [...MAKE, '-j2', 'abi-caps', `O=${out}`, `CAPS=${[...CAPS, ABOVE].join(' ')}`], { stdio: ['ignore', 'ignore', 'inherit'] })
  t.comment(`${CAPS.length + 1} capped launchers built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
})

// In a node process of the user whose host probe asks the build: the
// report's Landlock facts and verdicts, and what a provider's confine
// gives for each backend asked (argv and backend, or the error's code).
const CHILD = `const [pkg, ws, argv] = process.argv.slice(1)
  const sandy = require(pkg)
  const r = sandy.probe()
  const confine = {}
  for (const backend of ['auto', 'sandy', 'landlock']) {
    try {
      const c = sandy.createLocalSandboxProvider({ backend }).confine(JSON.parse(argv), { mode: 'workspace-write', workspaceRoot: ws })
      confine[backend] = { argv: c.argv, backend: c.backend }
    } catch (err) {
      confine[backend] = { code: err.code, message: err.message }
    }
  }
  process.stdout.write(JSON.stringify({ abi: r.landlockAbi, errata: r.landlockErrata, backends: r.backends, confine }))`

function asUser (user, launcher, ws, argv) {
  const r = spawnSync(user.wrap[0] || process.execPath, [...user.wrap.slice(1), ...(user.wrap.length ? [process.execPath] : []),
    '-r', OVERRIDE, '-e', CHILD, ROOT, ws, JSON.stringify(argv)],
  { cwd: '/', env: plainNodeEnv({ SANDY_TEST_LAUNCHER: launcher, SANDY_TEST_LAUNCHER_PROBE: '1' }), encoding: 'utf8', timeout: 60000 })
  if (r.status !== 0) throw new Error(`the probe as ${user.name} failed: ${r.error || r.stderr}`)
  return JSON.parse(r.stdout)
}

// A workspace and a directory outside it, both the user's.
function trees (user) {
  const base = fs.mkdtempSync(path.join(out, 't-'))
  fs.chmodSync(base, 0o755)
  const ws = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  for (const d of [ws, outside]) fs.mkdirSync(d, { mode: 0o755 })
  execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, base])
  return { ws: fs.realpathSync(ws), outside: fs.realpathSync(outside) }
}

// Writes ws/NAME, then outside/NAME.
const WRITE = ['/bin/sh', '-c', 'echo in > "$1/$3"; echo out > "$2/$3"', 'sh']
const writeArgv = (tr, name) => [...WRITE, tr.ws, tr.outside, name]

function run (user, argv) {
  const full = [...user.wrap, ...argv]
  const r = spawnSync(full[0], full.slice(1), { cwd: '/', env: withSanitizerEnv({ PATH: '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' }), encoding: 'utf8', timeout: 20000 })
  return { code: r.status, signal: r.signal, stderr: r.stderr }
}

// The confined argv writes inside the workspace and is refused outside;
// the same command unconfined writes both.
function confinedWrite (t, user, tr, argv, name, which) {
  const r = run(user, argv)
  t.not(r.code, 0, `${which}: the confined command fails (exit ${r.code}, ${JSON.stringify(r.stderr.slice(0, 300))})`)
  t.equal(r.code === 125, false, `${which}: not a runner failure: the command ran`)
  t.equal(fs.readFileSync(path.join(tr.ws, name), 'utf8'), 'in\n', `${which}: the write inside the workspace landed`)
  t.notOk(fs.existsSync(path.join(tr.outside, name)), `${which}: the write outside the workspace was refused`)
  const u = run(user, writeArgv(tr, `${name}-bare`))
  t.equal(u.code, 0, `${which}: unconfined, the same command succeeds (${JSON.stringify(u.stderr.slice(0, 300))})`)
  t.equal(fs.readFileSync(path.join(tr.outside, `${name}-bare`), 'utf8'), 'out\n', `${which}: unconfined, the write outside lands`)
}

t.test('the shipped launcher is not capped', { skip: LOW_KERNEL }, async (t) => {
  const report = sandy.probe()
  t.equal(report.landlockAbi, realAbi, `the probe reports the kernel's ABI (${realAbi}, as perl measured)`)
  t.equal(report.landlockErrata, realErrata, `and its errata (0x${realErrata.toString(16)})`)
  for (const [what, file] of [['the verified copy', verifiedLauncherPath()], ['the build', path.join(ROOT, 'build', 'Release', 'sandy-launcher')]]) {
    t.notOk(fs.readFileSync(file, 'latin1').includes(MARKER), `no "${MARKER}" in ${what}`)
  }
  // (control: the check finds it where it is)
  t.ok(fs.readFileSync(build(CAPS[0]), 'latin1').includes(MARKER), `"${MARKER}" in a capped build`)
  const recipe = (target, more) => execFileSync('make', ['-n', ...MAKE, target, `O=${out}/dry`, ...more], { encoding: 'utf8' })
  t.notMatch(recipe('launcher', []), /SANDY_TEST/, 'the launcher target defines no SANDY_TEST_ switch')
  t.match(recipe('abi-caps', ['CAPS=3']), /-DSANDY_TEST_LANDLOCK_ABI_CAP=3/, '(the abi-caps target does)')
})

t.test('a cap above the kernel\'s ABI changes nothing', { skip: LOW_KERNEL }, async (t) => {
  // (the addon's probe of a given launcher, as lib/probe.js asks the verified one)
  const report = addon.probe(build(ABOVE), null)
  t.equal(report.landlockAbi, realAbi, `a build capped at ${ABOVE} reports the kernel's ABI ${realAbi}`)
  t.equal(report.landlockErrata, realErrata, 'and the kernel\'s errata')
  t.ok(report.backends.sandy.usable, 'the sandy backend is usable')
})

for (const user of users()) {
  for (const cap of CAPS) {
    t.test(`Landlock ABI capped at ${cap} [${user.name}]`, { skip: LOW_KERNEL }, async (t) => {
      const tr = trees(user)
      const got = asUser(user, build(cap), tr.ws, writeArgv(tr, 'w'))
      t.equal(got.abi, cap, `the probe reports ABI ${cap}`)
      t.equal(got.errata, cap < realAbi ? 0 : realErrata, 'and no erratum of the kernel\'s newer ABI')
      if (cap < MIN_ABI) {
        const why = new RegExp(`Landlock ABI ${cap} found, ${MIN_ABI} needed`)
        for (const b of ['sandy', 'landlock']) {
          t.notOk(got.backends[b].usable, `the ${b} backend is unusable`)
          t.match(got.backends[b].reason, why, `the ${b} backend's reason names the ABI found and needed`)
          t.equal(got.confine[b].code, 'SANDBOX_UNAVAILABLE', `confine with the ${b} backend throws SANDBOX_UNAVAILABLE`)
        }
        // left to choose: another backend, confined, or none at all
        const auto = got.confine.auto
        if (auto.code !== undefined) {
          t.equal(auto.code, 'SANDBOX_UNAVAILABLE', 'confine throws SANDBOX_UNAVAILABLE')
        } else {
          t.notOk(['sandy', 'landlock'].includes(auto.backend), `confine picks another backend (${auto.backend})`)
          confinedWrite(t, user, tr, auto.argv, 'w', auto.backend)
        }
        return
      }
      t.ok(got.backends.sandy.usable, 'the sandy backend is usable')
      t.equal(got.confine.auto.backend, 'sandy', 'confine picks it')
      confinedWrite(t, user, tr, got.confine.auto.argv, 'w', 'sandy')
      if (user.uid !== 0) {
        t.ok(got.backends.landlock.usable, 'the landlock backend is usable')
        const tr2 = trees(user)
        const again = asUser(user, build(cap), tr2.ws, writeArgv(tr2, 'l'))
        t.equal(again.confine.landlock.backend, 'landlock', 'confine with it')
        confinedWrite(t, user, tr2, again.confine.landlock.argv, 'l', 'landlock')
      }
    })
  }
}

// Whatever the probe says, the capped launcher refuses an argv made for
// the backends that need the minimum ABI: the plan asks the same
// function, and nothing runs.
t.test('a capped launcher refuses to run below the minimum', { skip: LOW_KERNEL }, async (t) => {
  for (const user of users()) {
    const tr = trees(user)
    const made = [['sandy', sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(writeArgv(tr, 'r'), { mode: 'workspace-write', workspaceRoot: tr.ws })]]
    if (user.uid !== 0) made.push(['landlock', confineAs(user, 'landlock', writeArgv(tr, 'r'), { mode: 'workspace-write', workspaceRoot: tr.ws })])
    for (const [backend, c] of made) {
      for (const cap of CAPS.filter((c) => c < MIN_ABI)) {
        const r = run(user, [build(cap), ...c.argv.slice(1)])
        t.equal(r.code, 125, `${backend}, ABI ${cap}, ${user.name}: exit 125`)
        t.match(r.stderr, new RegExp(`sandy-launcher: fatal: .*landlock ABI ${cap} cannot`), `${backend}, ABI ${cap}, ${user.name}: the fatal line names the ABI`)
      }
      t.same(fs.readdirSync(tr.ws), [], `${backend}, ${user.name}: nothing was written`)
    }
  }
})
