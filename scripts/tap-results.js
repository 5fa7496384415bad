'use strict'
// One tap run and what scripts/test.js judges of it. The run prints tap's
// own TAP reporter's stream; then `tap replay --reporter=json` reads the
// same run's saved results (.tap/test-results) and writes tap's JSON
// report, a tree of suites (test files, then subtests) and cases
// (assertions), from which the counts are taken:
//   { pass, fail, skip, todo,                 counts of LEAF assertions
//     files: { name: { pass, fail, skip, todo } },  the same per test file
//     skips: [{ file, name, reason }], todos: [{ file, name, reason }],
//     fails: [{ file, name }] }   name: the subtests' names below the
//                                 file, then the assertion's, joined by ' > '
// A suite is not counted again beside its cases, except a failed one with
// no failed case of its own (a crashed file, a coverage shortfall), which
// is one failure, and a skipped one with none (a file with no test at all,
// `1..0`, or a subtest skipped as a whole), which is one skip.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const KINDS = ['pass', 'fail', 'skip', 'todo']

function add (counts, kind, file, names, reason) {
  counts[kind]++
  if (!counts.files[file]) counts.files[file] = Object.fromEntries(KINDS.map((k) => [k, 0]))
  counts.files[file][kind]++
  if (kind === 'fail') counts.fails.push({ file, name: names.join(' > ') })
  if (kind === 'skip' || kind === 'todo') {
    counts[`${kind}s`].push({ file, name: names[names.length - 1], reason: typeof reason === 'string' ? reason : '' })
  }
}

// Counts the suite's cases and subtests; the number of failures among them.
function walk (suite, file, names, counts) {
  let failed = 0
  for (const c of suite.cases || []) {
    const kind = c.todo ? 'todo' : c.skip ? 'skip' : c.ok ? 'pass' : 'fail'
    add(counts, kind, file, [...names, c.name], c.todo || c.skip)
    if (kind === 'fail') failed++
  }
  for (const s of suite.suites || []) {
    const below = file === null ? [] : [...names, s.name]
    const inner = walk(s, file === null ? s.name : file, below, counts)
    const empty = (s.cases || []).length === 0 && (s.suites || []).length === 0
    const own = below.length > 0 ? below : [s.name]
    if (empty && (s.skip || s.todo || (s.plan && s.plan.skipAll))) {
      add(counts, s.todo ? 'todo' : 'skip', file === null ? s.name : file, own, s.todo || s.skip || s.plan.skipReason)
    } else if (s.ok === false && inner === 0) {
      add(counts, 'fail', file === null ? s.name : file, own)
      failed++
    }
    failed += inner
  }
  return failed
}

// The counts of tap's JSON report of a whole run.
function countReport (report) {
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0, files: {}, skips: [], todos: [], fails: [] }
  walk(report, null, [], counts)
  return counts
}

// Runs tap in cwd with args (test files and options), its TAP stream to
// this process's stdout (or to `stdio`), then replays the run as JSON:
// { status: tap's exit status, counts }, counts null when no report came.
function runTap (cwd, env, args, { stdio = 'inherit' } = {}) {
  const tap = path.join(__dirname, '..', 'node_modules', '.bin', 'tap')
  const r = spawnSync(tap, ['--reporter=tap', ...args], { cwd, env, stdio })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-tap-report-'))
  const file = path.join(dir, 'report.json')
  const files = args.filter((a) => !a.startsWith('-'))
  spawnSync(tap, ['replay', '--reporter=json', `--reporter-file=${file}`, '--disable-coverage', ...files], { cwd, env, stdio: 'ignore' })
  let counts = null
  try {
    counts = countReport(JSON.parse(fs.readFileSync(file, 'utf8')))
  } catch {}
  fs.rmSync(dir, { recursive: true, force: true })
  return { status: r.status, counts }
}

module.exports = { countReport, runTap }
