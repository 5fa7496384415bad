#!/usr/bin/env node
'use strict'
// The window a host's replacement of a denied path leaves
// (docs/deny-durability.md): a confined perl loop opens the denied file
// as fast as it can and prints whatever it reads; the host renames a new
// file over the name, and the launcher's outer process ends the run. Per
// replacement: the time from the host's rename() to the launcher's end as
// this process sees it (an upper bound: it includes the reaping and this
// event loop), and how many reads of the new file the loop made before it
// was killed. Beside it, in the same run, the same loop unconfined for
// the same number of milliseconds: how many reads a window that long
// would allow. Never fails on time.
//   node bench/deny-window.js [replacements]   (default 1000)
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { SandboxPolicy, confinePolicy } = require('..')

const runs = Number(process.argv[2] || 1000)
const ws = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-bench-window-'))
const secret = path.join(ws, 'secret.txt')
const policy = new SandboxPolicy('block_all')
  .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
  .grant('/dev/null', 'read_write', 'exact').grant(ws, 'read_write', 'subtree').denySubtree(secret)
// (perl-base is in every Debian system; its loop costs a few microseconds)
const SPIN = ['/usr/bin/perl', '-e', '$| = 1; print "ready\\n"; while (1) { if (open(my $f, "<", "secret.txt")) { my $l = <$f>; print $l if defined $l; close $f } }']

const ms = (a, b) => Number(b - a) / 1e6

function once (argv, replace) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let at = null
    child.stdout.on('data', (d) => {
      out += d
      if (at === null && out.startsWith('ready\n')) at = replace(child)
    })
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, at, end: process.hrtime.bigint(), reads: out.split('\n').filter((l) => l === 'NEW').length }))
  })
}

function rename () {
  fs.writeFileSync(path.join(ws, 'new'), 'NEW\n')
  const at = process.hrtime.bigint()
  fs.renameSync(path.join(ws, 'new'), secret)
  return at
}

const quantile = (a, q) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * q))]

async function main () {
  const windows = []
  const leaked = []
  let ended = 0
  for (let i = 0; i < runs; i++) {
    fs.writeFileSync(secret, 'old\n')
    const c = confinePolicy(SPIN, policy, { cwd: ws })
    const r = await once(c.argv, () => rename())
    windows.push(ms(r.at, r.end))
    leaked.push(r.reads)
    if (r.code === 125) ended++
  }
  // the same loop unconfined, killed as long after the rename as the
  // median confined run ended
  const median = quantile(windows, 0.5)
  fs.writeFileSync(secret, 'old\n')
  const free = await once(SPIN, (child) => {
    const at = rename()
    setTimeout(() => child.kill('SIGKILL'), median)
    return at
  })
  const sorted = [...leaked].sort((x, y) => x - y)
  console.log(`A denied file replaced by the host during a run, ${runs} replacements (sandy backend, full level):`)
  console.log(`  runs ended by the launcher (runner failure, exit 125)  ${ended} of ${runs}`)
  console.log(`  rename() to the launcher's end, ms                     median ${median.toFixed(2)}, p90 ${quantile(windows, 0.9).toFixed(2)}, p99 ${quantile(windows, 0.99).toFixed(2)}, max ${Math.max(...windows).toFixed(2)}`)
  console.log(`  runs whose loop read the new file before it ended      ${leaked.filter((n) => n > 0).length} of ${runs} (reads per run: median ${sorted[Math.floor(runs / 2)]}, max ${sorted[runs - 1]})`)
  console.log(`  the same loop unconfined, ${median.toFixed(2)} ms after the rename   ${free.reads} reads of the new file`)
}

main().finally(() => fs.rmSync(ws, { recursive: true, force: true }))
