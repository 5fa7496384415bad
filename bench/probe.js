#!/usr/bin/env node
'use strict'
// What the first probe costs, in a fresh Node process each round (the
// cache is per process): the whole of probe(), and its two parts measured
// on their own in the same round: verifying the launcher copy, and running
// the launcher's --sandy-probe-v1 and judging its report. Medians over the
// rounds; never fails on time (issue 12 asks the first probe to stay under
// 50 ms: this says where it stands).
//   node bench/probe.js [rounds]   (default 20)
const { spawnSync } = require('node:child_process')
const path = require('node:path')

const rounds = Number(process.argv[2] || 20)
const pkg = path.join(__dirname, '..')
const script = `
  const s = require(${JSON.stringify(pkg)}); const b = require(${JSON.stringify(path.join(pkg, 'lib', 'binding.js'))})
  const ms = (f) => { const t0 = process.hrtime.bigint(); const v = f(); return [Number(process.hrtime.bigint() - t0) / 1e6, v] }
  const [whole] = ms(() => s.probe())
  const [verify, launcher] = ms(() => b.verifiedLauncherPath())
  const [ask] = ms(() => b.addon.probe(launcher, null))
  process.stdout.write(JSON.stringify({ whole, verify, ask }))`
const env = { ...process.env }
delete env.NODE_OPTIONS

const samples = { whole: [], verify: [], ask: [] }
for (let i = 0; i < rounds; i++) {
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env })
  if (r.status !== 0) throw new Error(r.stderr)
  const o = JSON.parse(r.stdout)
  for (const k of Object.keys(samples)) samples[k].push(o[k])
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]
const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
console.log(`first probe(), median of ${rounds} fresh processes: ${m.whole.toFixed(1)} ms, ${(m.whole / 50).toFixed(2)} of the 50 ms asked`)
console.log(`  its parts, measured again: verifying the launcher copy ${m.verify.toFixed(1)} ms (${(m.verify / m.whole).toFixed(2)}), ` +
  `running the launcher's probe and judging ${m.ask.toFixed(1)} ms (${(m.ask / m.whole).toFixed(2)})`)
