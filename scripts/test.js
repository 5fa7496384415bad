#!/usr/bin/env node
'use strict'
// `npm test`: the whole suite, as CI runs it.
//  1. the tap suite against the normal build (root and, inside the tests,
//     an unprivileged user);
//  2. the same suite against an ASan/UBSan build of the addon and launcher
//     (skipped with SANDY_TEST_NO_ASAN=1 for quick local runs);
// then one closing line "N passed, N failed" computed from the real results.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
const tap = path.join(root, 'node_modules', '.bin', 'tap')

function runTap (label, cwd, env, extraArgs = []) {
  const countFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-count-')), 'counts.json')
  console.log(`\n# ${label}`)
  const r = spawnSync(tap, ['--reporter', path.join(__dirname, 'tap-count.js'), ...extraArgs], {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, ...env, SANDY_TAP_COUNT_FILE: countFile }
  })
  let counts = { pass: 0, fail: 1 }
  try {
    counts = JSON.parse(fs.readFileSync(countFile, 'utf8'))
  } catch {
    console.log(`# ${label}: no results were reported`)
  }
  // A non-zero exit with no failed assertion (coverage below 100%, a crashed
  // file) is still a failure.
  if (r.status !== 0 && counts.fail === 0) counts.fail = 1
  return counts
}

// node is not instrumented: the runtimes the sanitized launcher links are
// preloaded into node, and scripts/asan-preload.js keeps them out of the
// other programs the tests spawn.
function sanitizerEnv () {
  const launcher = path.join(root, 'build-asan', 'build', 'Release', 'sandy-launcher')
  const ldd = spawnSync('ldd', [launcher], { encoding: 'utf8' }).stdout
  const runtimes = [...ldd.matchAll(/(\/\S*lib(?:asan|ubsan)\.so\S*)/g)].map((m) => m[1])
  return {
    LD_PRELOAD: runtimes.join(':'),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --require ${path.join(__dirname, 'asan-preload.js')}`.trim(),
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1'
  }
}

function buildAsan () {
  const r = spawnSync('bash', [path.join(__dirname, 'build-asan.sh')], { cwd: root, stdio: 'inherit' })
  return r.status === 0
}

const total = { pass: 0, fail: 0 }
function add (c) {
  total.pass += c.pass
  total.fail += c.fail
}

add(runTap('suite', root, {}))
if (process.env.SANDY_TEST_NO_ASAN !== '1') {
  if (buildAsan()) {
    // The checks that build and run their own binaries (layer builds, C
    // tests, fuzzing) have nothing to add against the sanitized addon.
    const files = fs.readdirSync(path.join(root, 'test'))
      .filter((f) => f.endsWith('.test.js') && !['layers.test.js', 'native.test.js'].includes(f))
      .map((f) => path.join('test', f))
    add(runTap('suite under ASan/UBSan', path.join(root, 'build-asan'), sanitizerEnv(), ['--disable-coverage', ...files]))
  } else {
    console.log('# the ASan/UBSan build failed')
    total.fail += 1
  }
}
const line = `${total.pass} passed, ${total.fail} failed`
fs.writeFileSync(path.join(root, '.test-results'), line + '\n')
console.log(line)
process.exit(total.fail === 0 ? 0 : 1)
