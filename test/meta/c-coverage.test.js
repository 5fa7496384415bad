'use strict'
// The launcher's C, measured (issue 11). Its coverage build
// (csrc/Makefile's coverage, csrc/test/launcher_hooks.c) runs the whole
// confinement suite, then walks fault injection through every call its
// code makes in a set of scenarios, as root and as uid 65534: the Nth
// call fails, for every N. Whatever fails, the run must end as a runner
// failure (nothing ran) or with the command confined as promised; a run
// that is neither is a finding. The per-file line coverage is printed and
// held to test/coverage-floors.json (floors only rise: when the printed
// figures are higher, raise them there, one point under what was
// measured, since a few branches depend on timing), and
// every failure site of the view, the namespaces, Landlock, seccomp and
// apply must have been reached (a site the source marks "(unreachable:
// why)" is excused and listed). The shipped launcher must contain none of
// the hooks.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const sandy = require('../..')
const { users, confineAs, withSanitizerEnv } = require('../helpers/sandbox.js')
const { runSuite, suiteFiles } = require('../helpers/layer-runs.js')
const { patience } = require('../helpers/patience.js')
const { report, format } = require('../../scripts/coverage-report.js')
const { verifiedLauncherPath } = require('../../lib/binding.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')

// (one run of the suite per build, or the suite and the fault walks: far
// more than the runner's default per-file time)
t.setTimeout(patience(1800000))
const floors = require('../coverage-floors.json')
const ROOT_ONLY = process.getuid() !== 0 && `${UNCOVERED} the C coverage run: it walks faults as root and as uid 65534`
// The files whose every failure site must be reached.
const EVERY_FAILURE = ['csrc/linux/mount_view.c', 'csrc/linux/namespaces.c', 'csrc/linux/landlock.c', 'csrc/linux/seccomp.c', 'csrc/linux/apply.c',
  'csrc/linux/processes.c']

function run (argv, { wrap, cwd, env, timeout = patience(20000) }) {
  const full = [...wrap, ...argv]
  return new Promise((resolve) => {
    const child = spawn(full[0], full.slice(1), { cwd, env: withSanitizerEnv(env), stdio: ['ignore', 'pipe', 'pipe'], timeout })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

// A scratch tree of the user's: a workspace, a file outside it.
function scratch (t, user) {
  const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-faults-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const d of ['ws', 'ws/denied', 'ws/deep', 'ws/deep/er', 'ws/deep/er/denied', 'ro', 'exact', 'exact/sub', 'locked', 'locked/u']) fs.mkdirSync(path.join(dir, d))
  for (const f of ['outside', 'ws/keep', 'ro/file', 'locked/u/secret', 'locked/u/beside']) fs.writeFileSync(path.join(dir, f), 'x\n')
  // a repository, whose missing names the seam's scenarios watch
  execFileSync('git', ['init', '-q', path.join(dir, 'ws')])
  execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir])
  fs.chmodSync(dir, 0o755)
  // root's, searchable but not listable (a shared /home at 0711)
  execFileSync('chown', ['0:0', path.join(dir, 'locked')])
  fs.chmodSync(path.join(dir, 'locked'), 0o711)
  return dir
}

// The command of every scenario: it says it ran, then tries what no
// scenario allows.
const probe = (outside) => ['/bin/sh', '-c', `echo RAN; echo x >> ${outside} && echo ESCAPED-WRITE; unshare -U true 2>/dev/null && echo ESCAPED-UNSHARE; exit 0`]

function scenarios (user, dir) {
  const ws = path.join(dir, 'ws')
  const cmd = probe(path.join(dir, 'outside'))
  const seam = (backend, mode) => () => confineAs(user, backend, cmd, { mode, workspaceRoot: ws })
  let policy = new sandy.SandboxPolicy('block_all').allowSubprocesses()
  for (const d of ['/usr', '/bin', '/lib', '/lib64']) policy = policy.grant(d, 'read', 'subtree').allowExecute(d, 'subtree')
  policy = policy.grant(ws, 'read_write', 'subtree').grant(path.join(dir, 'ro'), 'read', 'subtree')
    .grant('/dev/null', 'read_write', 'exact')
    // (an exact directory no mount covers: the view's placeholder)
    .grant(path.join(dir, 'exact'), 'read', 'exact')
    .denySubtree(path.join(ws, 'denied')).denyWriteExact(path.join(ws, 'keep'))
    .denySubtree(path.join(ws, 'deep', 'er', 'denied'))
    // a deny beneath a directory that cannot be listed: at the Landlock-only
    // level only the entries on the way to it get rules
    .grant(path.join(dir, 'locked'), 'read', 'subtree').denySubtree(path.join(dir, 'locked', 'u', 'secret'))
  const sandyPolicy = () => sandy.confinePolicy(cmd, policy, { cwd: ws })
  const list = [
    ['sandy, workspace-write', seam('sandy', 'workspace-write')],
    ['sandy, read-only', seam('sandy', 'read-only')],
    ['a Sandy policy with denies, blocked network', sandyPolicy],
    ['bwrap, workspace-write', seam('bwrap', 'workspace-write')]
  ]
  if (user.uid !== 0) {
    list.push(['the Landlock-only level', seam('landlock', 'workspace-write')])
    // the same Sandy policy at the Landlock-only level (denies expanded
    // into sibling rules): the level word added to confine's argv
    list.push(['a Sandy policy with denies, Landlock-only', () => landlockOnly(sandyPolicy())])
  }
  return list
}

function landlockOnly (c) {
  const end = c.argv.indexOf('--')
  return { ...c, argv: [...c.argv.slice(0, end), '--landlock-only', ...c.argv.slice(end)] }
}

// States no single failing call produces, each run once: the launcher must
// end with its fatal line, naming the reason.
function states (user, dir) {
  const ws = path.join(dir, 'ws')
  const base = ['--sandy-policy-v1', '--network', 'block_all', '--subprocesses',
    '--grant', 'read', 'subtree', '/usr', '--execute', 'subtree', '/usr']
  const list = [
    ['a second thread', { SANDY_TEST_THREAD: '1' }, [...base, '--grant', 'read', 'subtree', ws], /not single-threaded/],
    ['no Landlock', { SANDY_TEST_LANDLOCK_ABI: '0' }, [...base, '--grant', 'read', 'subtree', ws], /landlock is not available/],
    ['Landlock ABI 3 with a blocked network', { SANDY_TEST_LANDLOCK_ABI: '3' }, [...base, '--grant', 'read', 'subtree', ws], /cannot block TCP/],
    ['Landlock ABI 5', { SANDY_TEST_LANDLOCK_ABI: '5' }, [...base, '--grant', 'read', 'subtree', ws], /cannot scope signals/],
    ['a temp area inside a grant', {}, [...base, '--grant', 'read_write', 'subtree', ws, '--tmpfs', path.join(ws, 'deep')], /temp area inside a grant/]
  ]
  if (user.uid === 0) {
    list.push(['uid 0 at the Landlock-only level', {}, [...base, '--grant', 'read', 'subtree', ws, '--landlock-only'], /does not confine uid 0/])
  } else {
    list.push(['more rules than Landlock takes', {}, [...base, '--grant', 'read_write', 'subtree', ws, '--deny-subtree', path.join(ws, 'many', 'x0'), '--landlock-only'], /more than 1024 rules/])
    // (the provider never asks it: protected writes are not kept there)
    const git = fs.statSync(path.join(ws, '.git'))
    list.push(['a watched name at the Landlock-only level', {}, [...base, '--grant', 'read', 'subtree', ws, '--landlock-only', '--watch', path.join(ws, '.git'), `${git.dev}:${git.ino}`, 'commondir'], /watched names need the full level/])
  }
  return list
}

// ws/many: 1,100 directories, one of them denied, so the expansion into
// its siblings exceeds Landlock's rule cap.
function manySiblings (ws, user) {
  const many = path.join(ws, 'many')
  fs.mkdirSync(many)
  for (let i = 0; i < 1100; i++) fs.mkdirSync(path.join(many, `x${i}`))
  execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, many])
}


// Walks N = 1 .. (calls of a clean run), failing the Nth call each time.
async function walk (t, launcher, confined, { wrap, cwd, covDir, alloc }) {
  const argv = [launcher, ...confined.argv.slice(1)]
  const env = { PATH: '/usr/bin:/bin', SANDY_COVERAGE_DIR: covDir, ...(alloc ? { SANDY_FAULT_ALLOC: '1' } : {}) }
  const clean = await run(argv, { wrap, cwd, env: { ...env, SANDY_FAULT_AT: '0' } })
  const counts = [...clean.stderr.matchAll(/sandy-fault: calls (\d+)/g)].map((m) => Number(m[1]))
  const total = counts.length > 0 ? Math.max(...counts) : 0
  t.match(clean.stdout, /^RAN$/m, `a clean run runs the command (${clean.stderr.trim().slice(0, 200)})`)
  t.notMatch(clean.stdout, /ESCAPED/, 'and confines it')
  const outcome = { failed: 0, confined: 0, bad: [] }
  for (let n = 1; n <= total; n += 2) {
    const batch = [n, n + 1].filter((k) => k <= total)
    const results = await Promise.all(batch.map((k) => run(argv, { wrap, cwd, env: { ...env, SANDY_FAULT_AT: String(k) } })))
    results.forEach((r, i) => {
      const kind = sandy.classifyExit(confined, { code: r.code, signal: r.signal, stderr: r.stderr }).kind
      if (/ESCAPED/.test(r.stdout)) outcome.bad.push(`call ${batch[i]}: escaped (${r.stdout.trim()})`)
      else if (kind === 'runner-failure') outcome.failed++
      else if (/^RAN$/m.test(r.stdout) && r.code === 0) outcome.confined++
      else outcome.bad.push(`call ${batch[i]}: exit ${r.code}, neither a runner failure nor a confined run (${r.stderr.trim().slice(0, 160)})`)
    })
  }
  return { total, ...outcome }
}

// The probe mode under the same walk: a failing call may cost the report a
// fact, never claim one the clean run did not (the probe fails closed),
// and the launcher still answers with a report or its fatal line.
async function probeWalk (launcher, { wrap, covDir }) {
  const env = { PATH: '/usr/bin:/bin', SANDY_COVERAGE_DIR: covDir }
  const fields = (out) => Object.fromEntries(out.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  const isReport = (r) => r.code === 0 && r.stdout.startsWith('sandy-probe-v1\n') && r.stdout.endsWith('\nend\n')
  const clean = await run([launcher, '--sandy-probe-v1'], { wrap, cwd: '/', env: { ...env, SANDY_FAULT_AT: '0' } })
  const counts = [...clean.stderr.matchAll(/sandy-fault: calls (\d+)/g)].map((m) => Number(m[1]))
  const total = counts.length > 0 ? Math.max(...counts) : 0
  const want = fields(clean.stdout)
  const outcome = { total, clean: isReport(clean) && want.user_namespaces === '1', failed: 0, reported: 0, bad: [] }
  for (let n = 1; n <= total; n++) {
    const r = await run([launcher, '--sandy-probe-v1'], { wrap, cwd: '/', env: { ...env, SANDY_FAULT_AT: String(n) } })
    if (r.code === 125 && /^sandy-launcher: fatal: /m.test(r.stderr)) {
      outcome.failed++
      continue
    }
    if (!isReport(r)) {
      outcome.bad.push(`call ${n}: exit ${r.code}, neither a report nor a fatal line`)
      continue
    }
    outcome.reported++
    const got = fields(r.stdout)
    for (const [k, v] of Object.entries(got)) {
      // (root_user restricts: an unreadable uid reads as root)
      const claimed = k === 'root_user' ? v === '0' && want[k] === '1' : v === '1' && want[k] === '0'
      if (claimed) outcome.bad.push(`call ${n}: ${k} claimed`)
    }
    if (Number(got.landlock_abi) > Number(want.landlock_abi)) outcome.bad.push(`call ${n}: a higher Landlock ABI`)
  }
  return outcome
}

t.test('the launcher\'s C: coverage, fault injection, failure sites', { skip: ROOT_ONLY }, async (t) => {
  const build = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-coverage-'))
  const covDir = path.join(build, 'streams')
  fs.mkdirSync(covDir)
  fs.chmodSync(build, 0o755)
  fs.chmodSync(covDir, 0o1777)
  t.teardown(() => fs.rmSync(build, { recursive: true, force: true }))
  execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(__dirname, '..', '..', 'csrc'), '-j2', 'coverage', `O=${build}`], { stdio: ['ignore', 'ignore', 'inherit'] })
  const launcher = path.join(build, 'sandy-launcher-coverage')

  let started = Date.now()
  // (and the target's exec: its $PATH search and shell fallback; the
  // watched names of protected writes; the denies held while the host
  // replaces them)
  const outcomes = await runSuite(launcher, [...suiteFiles(), 'launcher-exec.test.js', 'protected-writes.test.js', 'deny-durability.test.js'], { SANDY_COVERAGE_DIR: covDir })
  const failedCases = [...outcomes].filter(([, ok]) => !ok).map(([n]) => n)
  t.same(failedCases, [], `the confinement suite passes against the coverage build (${outcomes.size} cases)`)
  t.comment(`confinement suite: ${((Date.now() - started) / 1000).toFixed(1)} s`)

  started = Date.now()
  for (const user of users()) {
    const dir = scratch(t, user)
    for (const [name, make] of scenarios(user, dir)) {
      const w = await walk(t, launcher, make(), { wrap: user.wrap, cwd: path.join(dir, 'ws'), covDir })
      t.ok(w.total > 50, `${name} [${user.name}]: ${w.total} calls walked: ${w.failed} runner failures, ${w.confined} confined runs`)
      t.same(w.bad, [], `${name} [${user.name}]: no fault let the command run otherwise`)
    }
  }
  for (const user of users()) {
    const p = await probeWalk(launcher, { wrap: user.wrap, covDir })
    t.ok(p.clean && p.total > 20, `the probe mode [${user.name}]: a clean run reports, ${p.total} calls walked: ${p.reported} reports, ${p.failed} fatal lines`)
    t.same(p.bad, [], `the probe mode [${user.name}]: no fault claimed a fact`)
  }
  for (const user of users()) {
    const dir = scratch(t, user)
    if (user.uid !== 0) {
      manySiblings(path.join(dir, 'ws'), user)
    }
    for (const [name, extra, words, reason] of states(user, dir)) {
      const r = await run([launcher, ...words, '--', '/usr/bin/true'], { wrap: user.wrap, cwd: path.join(dir, 'ws'), env: { PATH: '/usr/bin:/bin', SANDY_COVERAGE_DIR: covDir, ...extra } })
      t.equal(r.code, 125, `${name} [${user.name}]: a runner failure (${r.stderr.trim()})`)
      t.match(r.stderr, reason, `${name} [${user.name}]: for that reason`)
    }
  }
  const bare = await run([launcher], { wrap: [], cwd: '/', env: { PATH: '/usr/bin:/bin', SANDY_COVERAGE_DIR: covDir } })
  t.equal(bare.code, 125, 'no arguments: a runner failure')
  t.match(bare.stderr, /^sandy-launcher: fatal: PreparationFailed: usage: sandy-launcher --sandy-policy-v1 /, 'whose line is the usage')
  const root = users()[0]
  const dir = scratch(t, root)
  const [name, make] = scenarios(root, dir)[2]
  const w = await walk(t, launcher, make(), { wrap: root.wrap, cwd: path.join(dir, 'ws'), covDir, alloc: true })
  t.same(w.bad, [], `${name}, allocations too [root]: ${w.total} calls, no fault let the command run otherwise`)
  t.comment(`fault walks: ${((Date.now() - started) / 1000).toFixed(1)} s`)

  const r = report(build, covDir)
  t.comment(`${r.streams} launcher processes\n${format(r)}`)
  for (const [file, floor] of Object.entries(floors)) {
    t.ok(file in r.files, `${file} was measured`)
    if (file in r.files) t.ok(r.files[file].percent >= floor, `${file}: ${r.files[file].percent}% of lines, floor ${floor}%`)
  }
  t.same(Object.keys(r.files).filter((f) => !(f in floors)), [], 'every measured file has a floor')
  for (const file of EVERY_FAILURE) {
    const f = r.files[file]?.failures
    t.same(f?.unreached, [], `${file}: every failure site reached (${f?.total} sites${f?.excused.length ? `, lines ${f.excused.join(', ')} marked unreachable` : ''})`)
  }
})

t.test('the shipped launcher holds none of the test hooks', async (t) => {
  const shipped = fs.readFileSync(verifiedLauncherPath(), 'latin1')
  for (const word of ['SANDY_FAULT_AT', 'SANDY_COVERAGE_DIR', 'sandy-fault:', '__gcov', 'SANDY_TEST']) {
    t.notOk(shipped.includes(word), `no "${word}" in it`)
  }
})
