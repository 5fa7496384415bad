#!/usr/bin/env node
'use strict'
// What the launcher's libc costs per exec: the same sources built as a
// static musl executable (what ships) and as a static glibc one
// (csrc/Makefile's launcher with LIBC=host), each started with no arguments
// (it prints its usage and exits: an exec and nearly nothing else), beside
// a bare /bin/true, interleaved in one run. Medians and ratios to the bare
// spawn; never fails on time.
//   node bench/launcher-libc.js [rounds]   (default 300)
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const rounds = Number(process.argv[2] || 300)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-bench-libc-'))
const build = (libc) => {
  const out = path.join(dir, libc)
  const r = spawnSync('make', ['-s', '-C', path.join(__dirname, '..', 'csrc'), 'launcher', `LIBC=${libc}`, `O=${out}`], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`building the ${libc} launcher: ${r.stderr}`)
  return path.join(out, 'sandy-launcher')
}
try {
  const variants = [['bare /bin/true', '/bin/true'], ['launcher, static musl (shipped)', build('musl')], ['launcher, static glibc', build('host')]]
  const samples = variants.map(() => [])
  for (let i = 0; i < rounds; i++) {
    variants.forEach(([, file], v) => {
      const t0 = process.hrtime.bigint()
      spawnSync(file, [], { stdio: 'ignore' })
      samples[v].push(Number(process.hrtime.bigint() - t0) / 1e6)
    })
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]
  const bare = median(samples[0])
  console.log(`exec cost by libc, median of ${rounds} spawnSync calls each, interleaved:`)
  variants.forEach(([name, file], v) => {
    const m = median(samples[v])
    console.log(`  ${name.padEnd(34)} ${m.toFixed(3)} ms  ${(m / bare).toFixed(2)} x bare  (${fs.statSync(file).size} bytes)`)
  })
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
