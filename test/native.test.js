'use strict'
// The C-level checks, counted with the rest: the Landlock and seccomp unit
// programs (each rule against an unfiltered run), a bounded libFuzzer run of
// the policy document parser, cppcheck at warning level, and a compile check
// of the macOS sources.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const root = path.join(__dirname, '..')

function run (argv, extraEnv = {}) {
  return new Promise((resolve) => {
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS')), ...extraEnv }
    const child = spawn(argv[0], argv.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => { output += d })
    child.stderr.on('data', (d) => { output += d })
    child.on('close', (code) => resolve({ code, output }))
  })
}

// Each line of the C harness (csrc/test/harness.h: "ok   WHAT", "FAIL WHAT",
// "skip WHAT (WHY)") becomes one assertion here, so its skips and failures
// are counted and judged with the rest; each program's own closing line
// "NAME: N passed, N failed, N skipped" must agree with what was read.
function harness (t, output) {
  const seen = { passed: 0, failed: 0, skipped: 0 }
  for (const line of output.split('\n')) {
    const m = /^(ok {2}|FAIL|skip) (.*)$/.exec(line)
    if (!m) continue
    const [key, report] = { FAIL: ['failed', t.fail], skip: ['skipped', t.skip] }[m[1]] || ['passed', t.pass]
    seen[key]++
    report.call(t, `C: ${m[2]}`)
  }
  const claimed = { passed: 0, failed: 0, skipped: 0 }
  for (const m of output.matchAll(/^\S+: (\d+) passed, (\d+) failed, (\d+) skipped$/gm)) {
    claimed.passed += Number(m[1])
    claimed.failed += Number(m[2])
    claimed.skipped += Number(m[3])
  }
  return { seen, claimed }
}

t.test('Landlock and seccomp C tests', async (t) => {
  const r = await run(['bash', 'scripts/c-tests.sh'])
  t.equal(r.code, 0, r.output.slice(-3000))
  t.match(r.output, /c-tests: all passed/)
  const { seen, claimed } = harness(t, r.output)
  // (c-tests.sh prints two "ok" lines of its own: the seccomp filters and
  // lib/vocabulary.js are current)
  t.same({ ...seen, passed: seen.passed - 2 }, claimed, 'every result the C programs counted was read')
  t.ok(claimed.passed > 50, `${claimed.passed} C checks passed`)
})

t.test('the policy document parser survives a bounded fuzz run', async (t) => {
  const r = await run(['bash', 'scripts/fuzz.sh', process.env.SANDY_FUZZ_SECONDS || '15'])
  t.equal(r.code, 0, r.output.slice(-3000))
})

t.test('cppcheck finds no warnings in the C sources', async (t) => {
  const r = await run(['cppcheck', '--quiet', '--error-exitcode=1', '--enable=warning,portability,performance',
    '--std=c11', '-D__linux__', '-D__x86_64__', '-D_GNU_SOURCE', '--suppress=missingIncludeSystem',
    'csrc/', 'fuzz/'])
  t.equal(r.code, 0, r.output)
})

t.test('the macOS sources compile on Linux (syntax and warnings)', async (t) => {
  // the addon's files as macOS builds them: its own, the core, darwin/
  // (__linux__ undefined, so no Linux-only branch is taken)
  const { sources } = require('../scripts/sources.js')
  const files = [...sources('addon'), ...sources('core'), ...sources('addon-darwin')]
  const include = [path.resolve(process.execPath, '..', '..', 'include', 'node'), '/usr/include/node']
    .find((d) => fs.existsSync(path.join(d, 'node_api.h')))
  for (const f of files) {
    const r = await run(['gcc', '-std=c11', '-Wall', '-Wextra', '-Werror', '-D_GNU_SOURCE', '-U__linux__', `-I${include}`,
      `-I${path.join(root, 'deps', 'cjson')}`, '-fsyntax-only', f])
    t.equal(r.code, 0, `${f}: ${r.output}`)
  }
})

// glibc 2.33 made stat, lstat and fstat versioned symbols of their own:
// one direct call raised the glibc the addon needs from 2.17 to 2.33. The
// C code asks through sandy_stat (csrc/core/stat.h, statx by number), so
// the newest symbol version the addon needs stays GLIBC_2.17 (clock_gettime),
// cJSON's static copy included. (Node 20's own floor is 2.28.)
const GLIBC_MAX = [2, 17]

t.test('the addon needs no glibc symbol newer than GLIBC_2.17', async (t) => {
  const { addonPath } = require('../lib/binding.js')
  const r = await run(['objdump', '-T', addonPath])
  t.equal(r.code, 0, r.output.slice(-1000))
  const newer = []
  let versions = 0
  for (const m of r.output.matchAll(/\(GLIBC_(\d+)\.(\d+)(?:\.(\d+))?\)\s+(\S+)/g)) {
    versions++
    const [major, minor] = [Number(m[1]), Number(m[2])]
    if (major > GLIBC_MAX[0] || (major === GLIBC_MAX[0] && minor > GLIBC_MAX[1])) newer.push(`${m[4]}@GLIBC_${m[1]}.${m[2]}`)
  }
  t.ok(versions > 10, `${versions} versioned glibc symbols read`)
  t.same(newer, [], 'no symbol needs a newer glibc')
})

t.test('the launcher depends on no shared library; the addon only on libc', async (t) => {
  const { addonPath, launcherPath } = require('../lib/binding.js')
  const launcher = await run(['ldd', launcherPath()])
  t.match(launcher.output, /not a dynamic executable/, launcher.output)
  const addon = await run(['ldd', addonPath])
  t.equal(addon.code, 0)
  // cJSON is linked in statically (scripts/fetch-cjson.sh); libseccomp is
  // only in the launcher. What is left: the vDSO, libc, the loader, and at
  // most libm, libpthread or libdl.
  const libs = addon.output.split('\n').map((l) => l.trim().split(/\s+/)[0]).filter(Boolean)
  t.ok(libs.some((l) => /^libc\.so\.\d+$/.test(l)), `libc is linked: ${libs.join(' ')}`)
  const others = libs.filter((l) => !/^(linux-vdso|linux-gate)\.so\.\d+$|^(libc|libm|libpthread|libdl)\.so\.\d+$|^\/\S*\/ld-linux[-\w.]*\.so\.\d+$/.test(l))
  t.same(others, [], 'nothing but libc, the loader and libm/libpthread/libdl')
})
