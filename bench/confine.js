#!/usr/bin/env node
'use strict'
// What confine() itself costs once the process has verified its launcher
// (docs/launcher-copy.md: a digest once per process, no process started
// after that), from a small Node process and from one holding 300 MB,
// beside a bare spawnSync of /bin/true in the same process (what a
// process started per call would cost there), and beside a confine()
// with no protected reads (protect: []: what finding the presets' paths
// costs, docs/api.md, "Protected reads"), and beside one with no
// protected writes (protectWrites: []: what searching a workspace of 500
// directories with a git repository costs, docs/protected-writes.md).
// Each in a fresh Node process; medians; never fails on time.
//   node bench/confine.js [calls]   (default 300)
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const calls = Number(process.argv[2] || 300)
const pkg = path.join(__dirname, '..')
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-bench-confine-'))
spawnSync('git', ['init', '-q', ws])
for (let i = 0; i < 500; i++) fs.mkdirSync(path.join(ws, `d${i % 25}`, `e${i}`), { recursive: true })
const script = `
  const { spawnSync } = require('node:child_process')
  const held = Number(process.argv[1]) > 0 ? Buffer.alloc(Number(process.argv[1]) * 1024 * 1024, 1) : null
  const sandy = require(${JSON.stringify(pkg)})
  const p = sandy.createLocalSandboxProvider({ backend: 'sandy' })
  const bare = sandy.createLocalSandboxProvider({ backend: 'sandy', protect: [] })
  const nowrites = sandy.createLocalSandboxProvider({ backend: 'sandy', protectWrites: [] })
  const opts = { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(ws)} }
  p.confine(['true'], opts)
  bare.confine(['true'], opts)
  nowrites.confine(['true'], opts)
  const us = (f) => { const t0 = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t0) / 1e3 }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]
  const confine = []
  const unprotected = []
  const unwatched = []
  const spawn = []
  for (let i = 0; i < ${calls}; i++) {
    confine.push(us(() => p.confine(['true'], opts)))
    unprotected.push(us(() => bare.confine(['true'], opts)))
    unwatched.push(us(() => nowrites.confine(['true'], opts)))
    if (i % 10 === 0) spawn.push(us(() => spawnSync('/bin/true')))
  }
  process.stdout.write(JSON.stringify({ confine: median(confine), unprotected: median(unprotected), unwatched: median(unwatched), spawn: median(spawn), held: held ? held.length : 0 }))`
try {
  console.log(`confine() after the first call, median of ${calls} calls (sandy backend, workspace-write):`)
  for (const [name, mb] of [['small Node process', 0], ['Node process holding 300 MB', 300]]) {
    const r = spawnSync(process.execPath, ['-e', script, String(mb)], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`the ${name} failed: ${r.stderr}`)
    const m = JSON.parse(r.stdout)
    console.log(`  ${name.padEnd(28)} confine() ${m.confine.toFixed(1)} us; bare spawnSync ${m.spawn.toFixed(1)} us (confine = ${(m.confine / m.spawn).toFixed(3)} x a spawn)`)
    console.log(`  ${''.padEnd(28)} with the default presets x${(m.confine / m.unprotected).toFixed(2)} one with protect: [] (${m.unprotected.toFixed(1)} us)`)
    console.log(`  ${''.padEnd(28)} with the protected writes x${(m.confine / m.unwatched).toFixed(2)} one with protectWrites: [] (${m.unwatched.toFixed(1)} us)`)
  }
} finally {
  fs.rmSync(ws, { recursive: true, force: true })
}
