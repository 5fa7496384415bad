'use strict'
// Every layer proven on its own (issue 11). The confinement suite (the
// escape files and the hardening tests, the CLI's `sandy run` included)
// runs against a launcher build for every set of layers
// (csrc/Makefile's layers: none, each alone, each pair, all three), and
// every case's outcome is compared with test/layer-table.json, which says
// which layers stop it. A case that a build's layers must stop but that
// gets through fails, and so does any drift between the table and what
// ran (a case stopped where the table says it cannot be, a case missing
// from either). The build that confines nothing must fail every case the
// table says some layer stops. The meta-test removes one seccomp rule and
// shows that the comparison notices. After changing a confinement test,
// regenerate the table: node scripts/layer-table.js --write.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { BUILDS, runSuite, predicted } = require('../helpers/layer-runs.js')
const { patience } = require('../helpers/patience.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')

// (one run of the suite per build, or the suite and the fault walks: far
// more than the runner's default per-file time)
t.setTimeout(patience(1800000))
const table = require('../layer-table.json')
const MAKE = ['-s', '--no-print-directory', '-C', path.join(__dirname, '..', '..', 'csrc')]
const ROOT_ONLY = process.getuid() !== 0 && `${UNCOVERED} the per-layer comparison: its table holds the cases of root and uid 65534, so it runs as root`

// The comparison of one build's outcomes with the table: cases that got
// through although the build's layers must stop them, cases stopped
// although the table says these layers cannot, and cases not in both.
function compare (build, outcomes, names = Object.keys(table.cases)) {
  const leaked = []
  const unexpected = []
  const missing = []
  for (const name of names) {
    if (!outcomes.has(name)) {
      missing.push(name)
      continue
    }
    const want = predicted(table.cases[name], build)
    if (want && !outcomes.get(name)) leaked.push(name)
    if (!want && outcomes.get(name)) unexpected.push(name)
  }
  const unknown = [...outcomes.keys()].filter((n) => !(n in table.cases))
  return { leaked, unexpected, missing, unknown }
}

const list = (names) => names.length === 0 ? 'none' : names.slice(0, 12).join('; ') + (names.length > 12 ? `; and ${names.length - 12} more` : '')

t.test('each set of layers stops exactly what the table says', { skip: ROOT_ONLY }, async (t) => {
  t.same(table.builds, BUILDS, 'the table covers every build')
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-layers-'))
  fs.chmodSync(out, 0o755)
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
  execFileSync('make', [...MAKE, '-j2', 'layers', `O=${out}`, `LAYERS=${BUILDS.join(' ')}`], { stdio: ['ignore', 'ignore', 'inherit'] })
  const deny = Object.entries(table.cases).filter(([, e]) => !(e.length === 1 && e[0].length === 0)).map(([n]) => n)
  t.ok(deny.length > 100, `${deny.length} of ${Object.keys(table.cases).length} cases are stopped by some layer`)
  for (const build of BUILDS) {
    const started = Date.now()
    const failures = new Map()
    const outcomes = await runSuite(path.join(out, `sandy-launcher-${build}`), undefined, undefined, failures)
    const { leaked, unexpected, missing, unknown } = compare(build, outcomes)
    t.comment(`${build}: ${outcomes.size} cases in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    // (what a case that got through said, so that a failure here explains itself)
    for (const name of leaked) t.comment(`${build}: ${name} got through:\n${failures.get(name)}`)
    t.same(leaked, [], `${build}: no case its layers must stop got through (${list(leaked)})`)
    t.same(unexpected, [], `${build}: no case was stopped that the table says these layers cannot stop (${list(unexpected)})`)
    t.same(missing, [], `${build}: every case of the table ran (${list(missing)})`)
    t.same(unknown, [], `${build}: every case that ran is in the table (${list(unknown)})`)
    if (build === 'none') {
      const stopped = deny.filter((n) => outcomes.get(n))
      t.same(stopped, [], `the build that confines nothing stops none of the ${deny.length} cases (${list(stopped)})`)
    }
  }
})

// One rule of one layer removed: `unshare` left out of seccomp's
// always-denied list. Run against that build, the comparison must name the
// cases that rule alone stops.
t.test('the comparison notices one seccomp rule removed', { skip: ROOT_ONLY }, async (t) => {
  const build = 'view+landlock+seccomp'
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-layers-meta-'))
  fs.chmodSync(out, 0o755)
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
  execFileSync('make', [...MAKE, 'layers', `O=${out}`, `LAYERS=${build}`,
    'EXTRA_CFLAGS=-DSANDY_SECCOMP_RUNTIME_BUILD \'-DSANDY_TEST_DROP_RULE="unshare"\''],
  { stdio: ['ignore', 'ignore', 'inherit'] })
  const file = 'escape-proc.test.js'
  const outcomes = await runSuite(path.join(out, `sandy-launcher-${build}`), [file])
  const names = Object.keys(table.cases).filter((n) => n.startsWith(`${file} › `))
  const { leaked } = compare(build, outcomes, names)
  t.ok(leaked.length > 0, `the weakened build lets through: ${list(leaked)}`)
  t.ok(leaked.every((n) => /unshare/.test(n)), 'and only cases of the removed rule')
})
