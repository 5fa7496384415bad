#!/usr/bin/env node
'use strict'
// What confinement costs per command: a bare spawn of /bin/true next to the
// same spawn through each usable backend, measured in one run with the
// variants interleaved (so drift on a busy machine hits all alike), reported
// as medians and ratios to the bare spawn. Never fails on time.
//   node bench/spawn.js [rounds]   (default 200)
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const sandy = require('..')

const rounds = Number(process.argv[2] || 200)
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-bench-'))
const argv = ['/bin/true']

const variants = [['bare', argv]]
for (const backend of ['sandy', 'landlock', 'bwrap']) {
  if (!sandy.probe().backends[backend].usable) continue
  // the Landlock-only level refuses uid 0 (README, "Backends")
  if (backend === 'landlock' && process.getuid() === 0) continue
  const provider = sandy.createLocalSandboxProvider({ backend })
  for (const mode of ['read-only', 'workspace-write']) {
    variants.push([`${backend} ${mode}`, provider.confine(argv, { mode, workspaceRoot: root }).argv])
  }
}
const launcherOnly = sandy.confinePolicy(argv, new sandy.SandboxPolicy(sandy.NetworkPolicy.AllowAll)
  .grant('/usr', sandy.AccessMode.Read, sandy.PathScope.Subtree)
  .allowExecute('/usr', sandy.PathScope.Subtree)
  .grant(root, sandy.AccessMode.ReadWrite, sandy.PathScope.Subtree), { cwd: root })
variants.push(['sandy, minimal policy', launcherOnly.argv])

const samples = new Map(variants.map(([name]) => [name, []]))
for (let i = 0; i < rounds; i++) {
  for (const [name, words] of variants) {
    const start = process.hrtime.bigint()
    const r = spawnSync(words[0], words.slice(1), { cwd: root, stdio: 'ignore' })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}`)
    samples.get(name).push(ms)
  }
}
fs.rmSync(root, { recursive: true, force: true })

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]
const bare = quantile(samples.get('bare'), 0.5)
console.log(`spawnSync of /bin/true, ${rounds} rounds, medians (p90) on ${os.cpus().length} cores`)
for (const [name, xs] of samples) {
  const median = quantile(xs, 0.5)
  console.log(`${name.padEnd(28)} ${median.toFixed(2).padStart(7)} ms (p90 ${quantile(xs, 0.9).toFixed(2).padStart(6)})  x${(median / bare).toFixed(2)}  +${(median - bare).toFixed(2)} ms`)
}
