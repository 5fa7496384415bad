#!/usr/bin/env node
'use strict'
// Writes test/layer-table.json: which layers stop which case of the
// confinement suite, measured by running the suite against every launcher
// build of csrc/Makefile's layers. Run it as root (the suite's cases run
// as root and as uid 65534) after adding or changing a confinement test;
// review the diff: a case that moved to fewer layers is a finding.
//   node scripts/layer-table.js [--write]
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { BUILDS, runSuite, deriveEntry } = require('../test/helpers/layer-runs.js')

const TABLE = path.join(__dirname, '..', 'test', 'layer-table.json')

async function main () {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-layer-table-'))
  fs.chmodSync(out, 0o755)
  try {
    execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(__dirname, '..', 'csrc'), '-j2', 'layers', `O=${out}`, `LAYERS=${BUILDS.join(' ')}`],
      { stdio: ['ignore', 'ignore', 'inherit'] })
    const observed = new Map()
    for (const build of BUILDS) {
      const started = Date.now()
      const cases = await runSuite(path.join(out, `sandy-launcher-${build}`))
      process.stderr.write(`${build}: ${cases.size} cases in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
      for (const [name, passed] of cases) {
        if (!observed.has(name)) observed.set(name, {})
        observed.get(name)[build] = passed
      }
    }
    const cases = {}
    let bad = 0
    for (const name of [...observed.keys()].sort()) {
      const seen = observed.get(name)
      const missing = BUILDS.filter((b) => !(b in seen))
      const entry = missing.length === 0 ? deriveEntry(seen) : null
      if (entry === null) {
        bad++
        process.stderr.write(`no table entry fits ${name}: ${JSON.stringify(seen)}\n`)
        continue
      }
      cases[name] = entry
    }
    const table = { builds: BUILDS, cases }
    if (process.argv.includes('--write')) fs.writeFileSync(TABLE, JSON.stringify(table, null, 1) + '\n')
    else process.stdout.write(JSON.stringify(table, null, 1) + '\n')
    process.exitCode = bad === 0 ? 0 : 1
  } finally {
    fs.rmSync(out, { recursive: true, force: true })
  }
}

main()
