'use strict'
// Which build a stage of `npm test` exercises (scripts/test.js sets
// SANDY_TEST_STAGE to "main" or "asan"): the sanitizer stage must load a
// sanitized addon, spawn a sanitized launcher, and hand that launcher the
// sanitizer settings; the main stage the shipped, static launcher.
const t = require('tap')
const fs = require('node:fs')
const { spawnSync } = require('node:child_process')
const { addonPath, launcherPath } = require('../../lib/binding.js')
const { run, users, SandboxPolicy, AccessMode, PathScope, NetworkPolicy } = require('../helpers/sandbox.js')

const asan = process.env.SANDY_TEST_STAGE === 'asan'
function ldd (file) {
  const r = spawnSync('ldd', [file], { encoding: 'utf8' })
  return `${r.stdout || ''}${r.stderr || ''}`
}

t.test(`the ${asan ? 'sanitized' : 'shipped'} addon and launcher are the ones in use`, async (t) => {
  require('../..').probe()
  const maps = fs.readFileSync('/proc/self/maps', 'utf8')
  t.ok(maps.includes(fs.realpathSync(addonPath)), 'the addon this stage built is loaded')
  if (asan) {
    t.match(addonPath, /\/build-asan\//, 'from the sanitizer build')
    t.match(ldd(addonPath), /libasan\.so[\s\S]*libubsan\.so|libubsan\.so[\s\S]*libasan\.so/, 'the addon links both runtimes')
    t.match(ldd(launcherPath()), /libasan\.so[\s\S]*libubsan\.so|libubsan\.so[\s\S]*libasan\.so/, 'the launcher links both runtimes')
    t.match(process.env.ASAN_OPTIONS, /abort_on_error=1/, 'the stage sets the ASan options')
    t.match(process.env.UBSAN_OPTIONS, /halt_on_error=1/, 'and the UBSan options')
  } else {
    t.notMatch(maps, /libasan/, 'no sanitizer runtime in this process')
    t.match(ldd(launcherPath()), /not a dynamic executable/, 'the launcher is the static one')
  }
})

// The escape helpers give commands a minimal environment: the sanitizer
// settings must be in it, or the sanitized launcher would run with ASan's
// defaults (no abort on error, leak checks on) in that stage.
for (const user of users()) {
  t.test(`the launcher receives this stage's sanitizer settings [${user.name}]`, async (t) => {
    const policy = new SandboxPolicy(NetworkPolicy.BlockAll)
      .grant('/usr', AccessMode.Read, PathScope.Subtree).allowExecute('/usr', PathScope.Subtree)
    const r = await run(user, { argv: ['/usr/bin/env'], policy, cwd: '/usr' })
    t.equal(r.code, 0, r.stderr)
    t.ok(r.confined && r.argv.length > 1, 'the command ran confined')
    for (const k of ['ASAN_OPTIONS', 'UBSAN_OPTIONS']) {
      if (process.env[k] !== undefined) t.match(r.stdout, new RegExp(`^${k}=${process.env[k]}$`, 'm'), `${k} reached the launcher and the command`)
      else t.notOk(asan, `${k} is unset, which only the main stage allows`)
    }
  })
}
