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
const { spawn, spawnSync } = require('node:child_process')

const TAP = path.join(__dirname, '..', 'node_modules', '.bin', 'tap')

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
  const r = spawnSync(TAP, ['--reporter=tap', ...args], { cwd, env, stdio })
  return { status: r.status, counts: replay(cwd, env, args.filter((a) => !a.startsWith('-'))) }
}

// The counts of the files' saved results (.tap/test-results), through
// tap's JSON report; null when no report came.
function replay (cwd, env, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-tap-report-'))
  const file = path.join(dir, 'report.json')
  spawnSync(TAP, ['replay', '--reporter=json', `--reporter-file=${file}`, '--disable-coverage', ...files], { cwd, env, stdio: 'ignore' })
  let counts = null
  try {
    counts = countReport(JSON.parse(fs.readFileSync(file, 'utf8')))
  } catch {}
  fs.rmSync(dir, { recursive: true, force: true })
  return counts
}

// The processes that hold file open, by /proc (those this process may
// look at: all of them, as root).
function holders (file) {
  const out = []
  for (const pid of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let fds = []
    try { fds = fs.readdirSync(`/proc/${pid}/fd`) } catch { continue }
    for (const fd of fds) {
      let target = null
      try { target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`) } catch {}
      if (target === file) { out.push(Number(pid)); break }
    }
  }
  return out
}

// A test file's stream in runPlain's streams folder, by its path relative
// to the run's directory, and back (null: not a stream's name).
const streamName = (file) => `${file.replaceAll('/', '__')}.tap`
const streamFile = (name) => name.endsWith('.tap') ? name.slice(0, -4).replaceAll('__', '/') : null

// Runs each test file in cwd as a plain Node script (a tap test prints its
// own TAP), `jobs` at a time, without tap's runner: under emulation its
// start of each file (its loaders) takes longer than many files' tests.
// Each file's TAP goes as it comes to a file in `streams` (a folder; its
// name is the file's path with "/" as "__"), not through a pipe that a
// process the file left could hold open, and once the file has exited to
// where tap's runner saves it, so the same replay counts it, and to `log`
// (where stderr goes too). A file that exits non-zero or is killed with no
// failure of its own counted, or that prints no TAP, is one failure more;
// one that outlives its bound, cannot be started, or leaves a process
// holding its output (what that writes later would go uncounted; it is
// killed), is one failure more whatever it printed. timeoutS bounds each file: tap's own timeout inside
// it, then SIGKILL graceS later (a file blocked in a synchronous call
// never sees a gentler signal).
// Resolves to { status: 0 when every file exited 0, counts, seconds: { file: s } }.
async function runPlain (cwd, env, files, { jobs = 2, timeoutS = 1800, graceS = 60, log, streams }) {
  const exits = {}
  const seconds = {}
  const silent = new Set()
  const overdue = {}
  const queue = [...files]
  fs.mkdirSync(streams, { recursive: true })
  const one = (file) => new Promise((resolve) => {
    const started = process.hrtime.bigint()
    const stream = path.join(streams, streamName(file))
    const out = fs.openSync(stream, 'w')
    const err = fs.openSync(log, 'a')
    const child = spawn(process.execPath, [file], {
      cwd, env: { ...env, TAP_TIMEOUT: String(timeoutS) }, stdio: ['ignore', out, err]
    })
    fs.closeSync(out)
    fs.closeSync(err)
    const timer = setTimeout(() => {
      overdue[file] = `was killed after ${timeoutS + graceS} s`
      child.kill('SIGKILL')
    }, (timeoutS + graceS) * 1000)
    let ended = false
    const end = (code, signal) => {
      if (ended) return
      ended = true
      clearTimeout(timer)
      const tap = fs.readFileSync(stream)
      const saved = path.join(cwd, '.tap', 'test-results', `${file}.tap`)
      fs.mkdirSync(path.dirname(saved), { recursive: true })
      fs.writeFileSync(saved, tap)
      fs.appendFileSync(log, `# Subtest: ${file}\n${tap}\n`)
      exits[file] = signal ? `killed by ${signal}` : code === 0 ? null : `exited ${code}`
      const left = holders(stream)
      if (left.length > 0 && !overdue[file]) overdue[file] = `left ${left.length} process(es) writing to its output`
      for (const pid of left) try { process.kill(pid, 'SIGKILL') } catch {}
      if (tap.length === 0) silent.add(file)
      seconds[file] = Number(process.hrtime.bigint() - started) / 1e9
      resolve()
    }
    child.on('exit', end)
    // (the other errors, a failed kill, leave its exit to come)
    child.on('error', (e) => {
      if (child.pid !== undefined) return
      overdue[file] = `could not be started (${e.code})`
      end(null, null)
    })
  })
  const lane = async () => { while (queue.length > 0) await one(queue.shift()) }
  await Promise.all(Array.from({ length: jobs }, lane))
  const counts = replay(cwd, env, files)
  if (counts) {
    for (const file of files) {
      const own = counts.files[file]
      const why = overdue[file] ?? (!own || silent.has(file) ? 'printed no TAP' : exits[file] && own.fail === 0 ? exits[file] : null)
      if (why) {
        counts.fail++
        counts.files[file] = { ...(own || { pass: 0, skip: 0, todo: 0 }), fail: (own?.fail || 0) + 1 }
        counts.fails.push({ file, name: `the file ${why}` })
      }
    }
  }
  return { status: files.every((f) => exits[f] === null) ? 0 : 1, counts, seconds }
}

module.exports = { countReport, runTap, runPlain, streamName, streamFile }
