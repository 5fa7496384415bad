'use strict'
// An argv larger than the kernel accepts fails to spawn with E2BIG, which
// classification cannot tell from any other failure to start (issue 9
// item 7): confine refuses a confined argv above ARGV_MAX_BYTES, with a
// clear error, and one just below it runs.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const sandy = require('../..')
const { ARGV_MAX_BYTES } = require('../../lib/launcher-protocol.js')
const { addon } = require('../../lib/binding.js')

// A directory whose path is close to the 4,095-byte bound.
function longDir (t) {
  const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-limits-'))
  t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))
  let p = base
  while (p.length < 3800) p = path.join(p, 'd'.repeat(200))
  fs.mkdirSync(p, { recursive: true })
  return p
}

const policyWith = (dir, n) => {
  let p = new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
  for (let i = 0; i < n; i++) p = p.grant(dir, 'read', 'subtree')
  return p
}

t.test('confinePolicy refuses an argv above the stated size; one below runs', async (t) => {
  const dir = longDir(t)
  const big = policyWith(dir, 300)
  t.throws(() => sandy.confinePolicy(['/usr/bin/true'], big, { cwd: '/usr' }),
    { kind: 'InvalidPolicy', message: new RegExp(`^InvalidPolicy: the confined argv would take \\d+ bytes, more than the ${ARGV_MAX_BYTES} a spawn is allowed here$`) })
  const small = sandy.confinePolicy(['/usr/bin/true'], policyWith(dir, 200), { cwd: '/usr' })
  const r = spawnSync(small.argv[0], small.argv.slice(1), { cwd: '/usr' })
  t.equal(r.status, 0, 'just below the limit, the argv spawns and runs')
  // control: the largest policy the bounds allow makes an argv the kernel
  // refuses outright
  const words = addon.confinePolicy(policyWith(dir, 1000).toNative(), Buffer.from('/usr'), 'ab'.repeat(16), []).argv
  const raw = spawnSync(small.argv[0], [...words, '--', '/usr/bin/true'], { cwd: '/usr' })
  t.equal(raw.error && raw.error.code, 'E2BIG', 'unchecked, such an argv fails to spawn with E2BIG')
})

t.test('the provider refuses an argv above the stated size', async (t) => {
  const provider = sandy.createLocalSandboxProvider({ backend: 'sandy' })
  const words = Array.from({ length: 400 }, () => 'x'.repeat(3000))
  t.throws(() => provider.confine(['/usr/bin/echo', ...words], { mode: 'read-only', workspaceRoot: '/usr' }),
    { name: 'RangeError', message: /^the confined argv would take \d+ bytes, more than the \d+ a spawn is allowed here$/ })
  t.throws(() => provider.confine(['/usr/bin/echo', 'y'.repeat(200 * 1024)], { mode: 'read-only', workspaceRoot: '/usr' }),
    { name: 'RangeError', message: /^word \d+ of the confined argv is longer than the 131071 bytes the kernel takes for one$/ })
  t.equal(spawnSync('/usr/bin/echo', ['y'.repeat(200 * 1024)]).error.code, 'E2BIG', 'control: unconfined, such a word fails to spawn')
  const c = provider.confine(['/usr/bin/true', ...words.slice(0, 200)], { mode: 'read-only', workspaceRoot: '/usr' })
  t.equal(spawnSync(c.argv[0], c.argv.slice(1), { cwd: '/usr' }).status, 0, 'half of it runs')
})
