'use strict'
// The test net itself: real tap runs of small fixture files
// (test/strict-fixtures/), counted as the suite's runs are and judged
// by the suite's own verdict, must fail strict mode for an empty file, a
// file whose tests all skip, a todo, an unlisted skip, a switched-off
// stage and a non-root run, and must pass it for a recorded, allowlisted
// gap. Without strict mode the same runs pass, with the findings printed.
// The kernel guests' runs without tap's runner count as tap's do.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { judge, UNCOVERED } = require('../../scripts/test-verdict.js')
const { runTap, runPlain } = require('../../scripts/tap-results.js')
const { plainNodeEnv } = require('../helpers/sandbox.js')
const allowlist = require('../allowed-skips.js')
const { patience } = require('../helpers/patience.js')

const root = path.join(__dirname, '..', '..')
const FIXTURES = path.join(__dirname, '..', 'strict-fixtures')

// A scratch project (so a run's .tap/ data stays apart from the outer
// run's) using the checkout's node_modules.
function scratch (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-strict-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', tap: { plugin: ['!@tapjs/typescript'] } }))
  return dir
}

// One tap run of the named fixtures, from a scratch project, counted as the
// suite's runs are (scripts/tap-results.js: tap's JSON report of the run).
function tapRun (t, names, status = 0) {
  const dir = scratch(t)
  const r = runTap(dir, plainNodeEnv(), ['--disable-coverage', ...names.map((n) => path.join(FIXTURES, `${n}.js`))], { stdio: 'ignore' })
  t.equal(r.status, status, `tap itself exits ${status} on the fixtures ${names.join(', ')}`)
  t.not(r.counts, null, 'tap reported the run')
  // (tap names each file relative to the directory it ran in)
  return { ...r.counts, cwd: dir }
}

const verdicts = (counts, extra = {}) => [true, false].map((strict) =>
  judge({ stages: [{ name: 'fixtures', seconds: 1, counts }], strict, uid: 0, allowlist, ...extra }))

const CLOSING = /^\d+ passed, \d+ failed, \d+ skipped$/

// One run of every fixture; a second of the allowlisted gap alone.
const all = tapRun(t, ['empty', 'skipped', 'todo', 'unlisted', 'uncovered'])
const gapOnly = tapRun(t, ['uncovered'])

for (const [fixture, problem] of [
  ['empty', /empty\.js: no test passed in it/],
  ['skipped', /skipped\.js: no test passed in it/],
  ['todo', /todo\.js: todo "this is for later"/],
  ['unlisted', /unlisted\.js: skip not on the allowlist: "not covered: bwrap backend: bubblewrap is not installed"/]
]) {
  t.test(`strict mode fails on ${fixture}.js; plain mode only warns`, async (t) => {
    t.equal(all.fail, 0, 'no assertion failed')
    const [strict, plain] = verdicts(all)
    t.notOk(strict.ok, 'strict: the run fails')
    t.match(strict.closing, CLOSING)
    t.notMatch(strict.closing, / 0 failed/, 'strict: the closing line counts the problems as failures')
    t.ok(strict.problems.some((p) => problem.test(p)), 'strict names the problem')
    t.ok(plain.ok, 'plain: the run passes')
    t.match(plain.closing, / 0 failed, [1-9]\d* skipped$/, 'plain: the skips are in the closing line')
    t.ok(plain.lines.some((l) => problem.test(l)), 'plain: the problem is printed')
  })
}

t.test('a recorded, allowlisted gap passes strict mode and is named', async (t) => {
  const [strict] = verdicts(gapOnly)
  t.ok(strict.ok, `strict passes (${strict.problems.join('; ')})`)
  t.equal(strict.closing, '1 passed, 0 failed, 1 skipped')
  t.ok(strict.lines.includes('Not covered in this run:'), 'the gap is listed')
  t.ok(strict.lines.some((l) => /^ {2}- landlock backend as root: /.test(l)), 'by backend and user')
  t.notOk(verdicts(all)[0].problems.some((p) => p.includes('uncovered.js')), 'and is no problem beside others')
})

t.test('a failed assertion is named by file and subtests in the closing lines', async (t) => {
  const failing = tapRun(t, ['failing'], 1)
  t.equal(failing.fail, 1)
  t.equal(failing.fails.length, 1)
  t.equal(path.resolve(failing.cwd, failing.fails[0].file), path.join(FIXTURES, 'failing.js'))
  t.equal(failing.fails[0].name, 'outer > inner > one is two')
  const [strict] = verdicts(failing)
  t.notOk(strict.ok)
  const at = strict.lines.indexOf('Failed:')
  t.ok(at >= 0, 'a Failed: section')
  t.equal(strict.lines[at + 1], `  - fixtures: ${failing.fails[0].file}: outer > inner > one is two`)
  t.notOk(verdicts(gapOnly)[0].lines.includes('Failed:'), 'no such section when nothing failed')
})

t.test('strict mode fails a switched-off stage and a run that is not root', async (t) => {
  const off = judge({
    stages: [{ name: 'suite', seconds: 1, counts: gapOnly }, { name: 'suite under ASan/UBSan', seconds: 0, disabled: 'SANDY_TEST_NO_ASAN=1' }],
    strict: true,
    uid: 0,
    allowlist
  })
  t.notOk(off.ok)
  t.match(off.problems.join('\n'), /stage "suite under ASan\/UBSan" was switched off \(SANDY_TEST_NO_ASAN=1\)/)
  t.match(off.lines.at(-1), /suite under ASan\/UBSan off; total/, 'the stage times show it off')
  const [user, userPlain] = verdicts(gapOnly, { uid: 1000 })
  t.notOk(user.ok)
  t.match(user.problems.join('\n'), /not run as root \(uid 1000\)/)
  t.ok(userPlain.ok, 'plain mode runs as any user')
  t.ok(userPlain.lines.some((l) => /root and uid 65534: this run is uid 1000/.test(l)), 'and says which users it did not cover')
})

t.test('every allowlist entry has a pattern and says why; one without does not pass', async (t) => {
  t.ok(allowlist.length > 0)
  for (const e of allowlist) {
    t.ok(e.match instanceof RegExp, `${e.match} is a pattern`)
    t.ok(typeof e.why === 'string' && e.why.length > 40, `${e.match} says why`)
    t.ok(e.match.source.startsWith(`^${UNCOVERED}`) || e.file, `${e.match} names a gap or one file`)
  }
  const bad = judge({ stages: [{ name: 's', seconds: 1, counts: gapOnly }], strict: true, uid: 0, allowlist: [{ match: /^not covered:/ }] })
  t.notOk(bad.ok)
  t.match(bad.problems.join('\n'), /an entry without a pattern or a reason/)
})

t.test('files run without tap\'s runner are counted as tap counts them, and an exit, a silence or a file past its bound is a failure', async (t) => {
  const names = ['failing', 'skipped', 'todo', 'unlisted', 'uncovered']
  const dir = scratch(t)
  fs.symlinkSync(FIXTURES, path.join(dir, 't'))
  const log = path.join(dir, 'log')
  const streams = path.join(dir, 'streams')
  const plain = await runPlain(dir, plainNodeEnv(), names.map((n) => `t/${n}.js`), { log, streams })
  const tap = runTap(dir, plainNodeEnv(), ['--disable-coverage', ...names.map((n) => `t/${n}.js`)], { stdio: 'ignore' })
  const shape = (c) => ({ pass: c.pass, fail: c.fail, skip: c.skip, todo: c.todo, fails: c.fails, skips: c.skips, todos: c.todos })
  t.same(shape(plain.counts), shape(tap.counts), 'the same counts, failures and skips as tap\'s runner')
  t.equal(plain.status, 1, 'a failing file makes the status 1')
  t.match(fs.readFileSync(log, 'utf8'), /# Subtest: t\/failing\.js\n[^]*not ok 1 - one is two/, 'the streams are in the log')
  t.same(Object.keys(plain.seconds).sort(), names.map((n) => `t/${n}.js`).sort(), 'each file is timed')
  t.match(fs.readFileSync(path.join(streams, 't__failing.js.tap'), 'utf8'), /^TAP version 14\n[^]*# time=[\d.]+ms\n$/, 'and its stream kept apart')

  const odd = await runPlain(dir, plainNodeEnv(), ['t/exits.js', 't/empty.js'], { log, streams })
  t.equal(odd.status, 1)
  t.equal(odd.counts.pass, 1, 'the exiting file\'s assertion passed')
  t.same(odd.counts.fails, [{ file: 't/exits.js', name: 'the file exited 3' }, { file: 't/empty.js', name: 'the file printed no TAP' }],
    'a file that exits non-zero with no failure counted, and one that prints no TAP, each fail')
  t.equal(odd.counts.fail, 2)

  // (a bound of 1 s, then 1 s of grace: the file's own assertion passed,
  // and it would have gone on to exit 0)
  const stuck = await runPlain(dir, plainNodeEnv(), ['t/blocks.js'], { log, streams, timeoutS: 1, graceS: 1 })
  t.equal(stuck.counts.pass, 1, 'the blocked file\'s assertion passed')
  // (and tap's replay fails its cut-off stream as well)
  t.ok(stuck.counts.fails.some((f) => f.file === 't/blocks.js' && f.name === 'the file was killed after 2 s'), 'a file past its bound fails, killed')
  t.ok(stuck.seconds['t/blocks.js'] < 600, 'and did not run to its end')

  const leaves = await runPlain(dir, plainNodeEnv(), ['t/leaves.js'], { log, streams })
  t.equal(leaves.counts.pass, 1, 'the leaving file\'s assertion passed')
  t.same(leaves.counts.fails, [{ file: 't/leaves.js', name: 'the file left 1 process(es) writing to its output' }],
    'a file that leaves a process holding its output fails')
  const running = () => fs.readdirSync('/proc').some((p) => {
    try { return /^\d+$/.test(p) && fs.readFileSync(`/proc/${p}/cmdline`, 'latin1') === '/bin/sleep\x00631\x00' } catch { return false }
  })
  for (const until = Date.now() + patience(10000); running() && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 10))
  t.notOk(running(), 'and that process is ended')
})
