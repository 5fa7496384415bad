'use strict'
// The bundled declarations compile under --strict against a file that uses
// every exported type, and name exactly what lib/ exports at run time.
const t = require('tap')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const sandy = require('../..')

t.test('types/index.d.ts compiles with tsc --noEmit --strict', async (t) => {
  const tsc = path.join(__dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc')
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '-p', path.join(__dirname, '..', 'types')], { encoding: 'utf8' })
  t.equal(r.status, 0, r.stdout + r.stderr)
})

t.test('types/dsh.d.ts (sandy-native/dsh) compiles with dsh\'s own types, and names what the adapter exports', async (t) => {
  const tsc = path.join(__dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc')
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '-p', path.join(__dirname, '..', 'types', 'dsh')], { encoding: 'utf8' })
  t.equal(r.status, 0, r.stdout + r.stderr)
  const dts = require('node:fs').readFileSync(path.join(__dirname, '..', '..', 'types', 'dsh.d.ts'), 'utf8')
  const adapter = await import('sandy-native/dsh')
  for (const name of Object.keys(adapter).filter((k) => k !== 'default')) {
    t.match(dts, new RegExp(`export declare (const|class|function) ${name}\\b`), `${name} is declared`)
  }
  t.match(dts, /export default plugin/)
})

t.test('every runtime export is declared', async (t) => {
  const fs = require('node:fs')
  const dts = fs.readFileSync(path.join(__dirname, '..', '..', 'types', 'index.d.ts'), 'utf8')
  for (const name of Object.keys(sandy)) {
    t.match(dts, new RegExp(`export declare (const|class|function) ${name}\\b`), `${name} is declared`)
  }
})
