#!/usr/bin/env node
'use strict'
// `npm test [-- --strict]`: the whole suite, in stages, each timed.
//  1. the tap suite against the normal build (root and, inside the tests,
//     an unprivileged user);
//  2. an ASan/UBSan build of the addon and launcher, checked to link the
//     sanitizer runtimes;
//  3. the same suite against that build (switched off with
//     SANDY_TEST_NO_ASAN=1 for quick local runs, which strict mode refuses).
// On macOS, one stage instead: the files of test/darwin/subset.js (the
// seatbelt backend run for real, and what needs neither Linux nor the
// launcher), without coverage.
// Then what could not be covered, the stage times, and one closing line
// "N passed, N failed, N skipped" computed from the real results
// (scripts/test-verdict.js says how strict mode judges them).
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { judge } = require('./test-verdict.js')
const { runTap: runTapOnce } = require('./tap-results.js')
const { slowdown } = require('./slowdown.js')

const root = path.resolve(__dirname, '..')
const strict = process.argv.slice(2).includes('--strict')
const unknown = process.argv.slice(2).filter((a) => a !== '--strict')
if (unknown.length > 0) {
  console.error(`usage: npm test [-- --strict] (unknown argument ${unknown[0]})`)
  process.exit(2)
}

// Each file's time limit, package.json's 300 s on the machine it was set
// on, and every limit the tests scale (test/helpers/patience.js), grow as
// much as this machine is slower (scripts/slowdown.js), measured once here.
const SLOWDOWN = slowdown()
const FILE_TIMEOUT = Math.ceil(require('../package.json').tap.timeout * SLOWDOWN)

function runTap (cwd, env, extraArgs = []) {
  const r = runTapOnce(cwd, { ...process.env, ...env }, [`--timeout=${FILE_TIMEOUT}`, ...extraArgs])
  let counts = r.counts
  if (counts === null) {
    console.log('# no results were reported')
    counts = { pass: 0, fail: 1 }
  }
  // A non-zero exit with no failed assertion (coverage below 100%, a crashed
  // file) is still a failure.
  if (r.status !== 0 && counts.fail === 0) {
    counts.fail = 1
    counts.fails = [{ file: 'tap', name: `exited ${r.status} with no failed assertion (coverage below its floor, or a crash)` }]
  }
  return counts
}

const ASAN = path.join(root, 'build-asan')
const sanitized = [path.join(ASAN, 'build', 'Release', 'sandy.node'), path.join(ASAN, 'build', 'Release', 'sandy-launcher')]

function runtimesOf (file) {
  const ldd = spawnSync('ldd', [file], { encoding: 'utf8' }).stdout || ''
  return [...ldd.matchAll(/(\/\S*lib(asan|ubsan)\.so\S*)/g)].map((m) => ({ path: m[1], name: m[2] }))
}

// Both sanitized binaries must link both runtimes, or the stage would test
// an ordinary build under a misleading name.
function buildAsan () {
  const r = spawnSync('bash', [path.join(__dirname, 'build-asan.sh')], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) return { pass: 0, fail: 1, fails: [{ file: 'build-asan.sh', name: `exited ${r.status}` }] }
  let fail = 0
  for (const file of sanitized) {
    const names = new Set(runtimesOf(file).map((x) => x.name))
    const ok = names.has('asan') && names.has('ubsan')
    console.log(`${ok ? 'ok' : 'not ok'} - ${path.relative(root, file)} links the ASan and UBSan runtimes`)
    if (!ok) fail++
  }
  return { pass: sanitized.length - fail, fail, files: {} }
}

// node is not instrumented: the runtimes the sanitized launcher links are
// preloaded into node, and scripts/asan-preload.js keeps them out of the
// other programs the tests spawn. The sanitizer options reach the launcher
// through the tests' spawn environments (test/helpers/sandbox.js).
// The preload is required from a copy in /tmp, which every test leaves in
// view (some hide /var/tmp, /var/cache or the checkout's own place from
// the node processes they start); preloadDir is removed after the stage.
function sanitizerEnv (preloadDir) {
  const preload = path.join(preloadDir, 'asan-preload.js')
  fs.copyFileSync(path.join(__dirname, 'asan-preload.js'), preload)
  fs.chmodSync(preloadDir, 0o755)
  fs.chmodSync(preload, 0o644)
  return {
    LD_PRELOAD: [...new Set(runtimesOf(sanitized[1]).map((x) => x.path))].join(':'),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --require ${preload}`.trim(),
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
    SANDY_TEST_STAGE: 'asan'
  }
}

// What has nothing to add against the sanitized addon: the checks that
// build and run their own binaries (layer builds, Landlock ABI caps, C
// tests, fuzzing), and
// those of documents, the package (its prebuilds and the installed
// tarball: the shipped, unsanitized binaries), types, the CI workflow
// (which build-asan/ does not copy), the test net itself, and dsh's stack
// (the adapter is JavaScript over the provider the suite already runs
// there; dsh's processes are its own; dsh-peers.test.js's scratch projects
// start node and npm without the sanitizer preload), and the benchmark's
// table (it measures what the suite has run).
const NOT_UNDER_ASAN = ['layers.test.js', 'c-coverage.test.js', 'native.test.js', 'threat-model.test.js', 'code-map.test.js', 'layering.test.js', 'docs.test.js', 'package.test.js',
  'strict.test.js', 'types.test.js', 'prebuild.test.js', 'install.test.js', 'workflow.test.js', 'dsh.test.js', 'dsh-peers.test.js',
  'abi-caps.test.js', 'bench.test.js', 'apparmor.test.js']

const stages = []
function stage (name, fn) {
  console.log(`\n# stage: ${name}`)
  const started = process.hrtime.bigint()
  const counts = fn()
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(`# stage: ${name}: ${seconds.toFixed(1)} s`)
  stages.push({ name, seconds, counts })
  return counts
}

console.log(`# this machine: ${SLOWDOWN} times the reference's time (scripts/slowdown.js); each file may take ${FILE_TIMEOUT} s`)
if (process.platform === 'darwin') {
  const files = require('../test/darwin/subset.js')
  stage('darwin subset', () => runTap(root, { SANDY_TEST_STAGE: 'darwin' }, ['--disable-coverage', ...files]))
} else {
  linuxStages()
}

function linuxStages () {
  stage('suite', () => runTap(root, { SANDY_TEST_STAGE: 'main' }))
  if (process.env.SANDY_TEST_NO_ASAN === '1') {
    for (const name of ['ASan/UBSan build', 'suite under ASan/UBSan']) {
      stages.push({ name, seconds: 0, disabled: 'SANDY_TEST_NO_ASAN=1' })
    }
  } else if (stage('ASan/UBSan build', buildAsan).fail === 0) {
    const files = fs.readdirSync(path.join(root, 'test'), { recursive: true })
      .filter((f) => f.endsWith('.test.js') && !NOT_UNDER_ASAN.includes(path.basename(f)))
      .map((f) => path.join('test', f))
      .sort()
    console.log(`# not run under ASan/UBSan (no sanitized code in them): ${NOT_UNDER_ASAN.join(', ')}`)
    const preloadDir = fs.mkdtempSync('/tmp/sandy-asan-')
    try {
      stage('suite under ASan/UBSan', () => runTap(ASAN, sanitizerEnv(preloadDir), ['--disable-coverage', ...files]))
    } finally {
      fs.rmSync(preloadDir, { recursive: true, force: true })
    }
  }
}

const verdict = judge({ stages, strict, uid: process.getuid(), allowlist: require('../test/allowed-skips.js') })
console.log('')
for (const line of verdict.lines) console.log(line)
fs.writeFileSync(path.join(root, '.test-results'), verdict.closing + '\n')
console.log(verdict.closing)
process.exit(verdict.ok ? 0 : 1)
