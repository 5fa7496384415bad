'use strict'
// The C-level checks, counted with the rest: the Landlock and seccomp unit
// programs (each rule against an unfiltered run), a bounded libFuzzer run of
// the policy document parser, cppcheck at warning level, and a compile check
// of the macOS sources.
const t = require('tap')
const path = require('node:path')
const { spawn } = require('node:child_process')

const root = path.join(__dirname, '..')

function run (argv) {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS'))
    const child = spawn(argv[0], argv.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => { output += d })
    child.stderr.on('data', (d) => { output += d })
    child.on('close', (code) => resolve({ code, output }))
  })
}

t.test('Landlock and seccomp C tests', async (t) => {
  const r = await run(['bash', 'scripts/c-tests.sh'])
  t.equal(r.code, 0, r.output.slice(-3000))
  t.match(r.output, /c-tests: all passed/)
})

t.test('the policy document parser survives a bounded fuzz run', async (t) => {
  const r = await run(['bash', 'scripts/fuzz.sh', process.env.SANDY_FUZZ_SECONDS || '15'])
  t.equal(r.code, 0, r.output.slice(-3000))
})

t.test('cppcheck finds no warnings in the C sources', async (t) => {
  const r = await run(['cppcheck', '--quiet', '--error-exitcode=1', '--enable=warning,portability,performance',
    '--std=c11', '-D__linux__', '-D__x86_64__', '-D_GNU_SOURCE', '--suppress=missingIncludeSystem',
    '-I', 'csrc', 'csrc/', 'fuzz/'])
  t.equal(r.code, 0, r.output)
})

t.test('the macOS sources compile on Linux (syntax and warnings)', async (t) => {
  const r = await run(['gcc', '-std=c11', '-Wall', '-Wextra', '-Werror', '-D_GNU_SOURCE', '-fsyntax-only', 'csrc/darwin/probe.c'])
  t.equal(r.code, 0, r.output)
})

t.test('the launcher depends on no shared library; the addon not on libseccomp', async (t) => {
  const { addonPath, launcherPath } = require('../lib/binding.js')
  const launcher = await run(['ldd', launcherPath()])
  t.match(launcher.output, /not a dynamic executable/, launcher.output)
  const addon = await run(['ldd', addonPath])
  t.equal(addon.code, 0)
  t.notMatch(addon.output, /libseccomp/, 'libseccomp is only in the launcher, statically')
  t.match(addon.output, /libcjson/, 'cJSON is linked dynamically (Debian ships no libcjson.a)')
})
