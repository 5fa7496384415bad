'use strict'
// The per-layer comparison's machinery (test/meta/layers.test.js, and
// scripts/layer-table.js, which writes test/layer-table.json): run the
// confinement suite against a launcher build, read which cases passed, and
// predict from the table which cases a set of layers must stop.
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { patience } = require('./patience.js')

// (the confinement suite's folder; a case is named by its file's name there)
const TEST_DIR = path.join(__dirname, '..', 'confinement')
const OVERRIDE = path.join(__dirname, 'launcher-override.js')
// Layers, as the builds name them; "base" (keyring, no_new_privs, the
// capability drop) is on in every build but "none".
const LAYERS = ['base', 'view', 'landlock', 'seccomp']
const BUILDS = ['none', 'view', 'landlock', 'seccomp', 'landlock+seccomp', 'view+seccomp', 'view+landlock', 'view+landlock+seccomp']

// The layers a build has on.
function layersOf (build) {
  return build === 'none' ? [] : ['base', ...build.split('+')]
}

// The confinement suite: every escape file and the hardening tests.
function suiteFiles () {
  return fs.readdirSync(TEST_DIR)
    .filter((f) => /^escape-.*\.test\.js$/.test(f) || f === 'hardening.test.js')
    .sort()
}

// The leaf subtests of one file's TAP output (a subtest holding subtests
// of its own is not a case), as "file › parent › name" → passed. failures,
// when given, gets each failed case's own lines (its assertions, and the
// diagnostics below its result), so that a comparison can show why.
function leafResults (file, tap, failures = null) {
  const out = new Map()
  const stack = []
  const lines = tap.split('\n')
  lines.forEach((line, at) => {
    const open = /^( *)# Subtest: (.*)$/.exec(line)
    if (open) {
      if (stack.length > 0) stack[stack.length - 1].parent = true
      stack.push({ indent: open[1].length, name: open[2], parent: false, at })
      return
    }
    const result = /^( *)(not )?ok \d+ - (.*?)(?: # (time|SKIP|TODO).*)?$/.exec(line)
    const top = stack[stack.length - 1]
    if (!result || !top || result[1].length !== top.indent) return
    stack.pop()
    // (a skipped case proves nothing either way: it is left out)
    if (top.parent || result[4] === 'SKIP') return
    const name = [file, ...stack.map((s) => s.name), top.name].join(' › ')
    out.set(name, !result[2])
    if (failures && result[2]) {
      let end = at + 1
      while (end < lines.length && lines[end].startsWith(`${result[1]}  `)) end++
      failures.set(name, lines.slice(top.at, end).join('\n').slice(0, 4000))
    }
  })
  return out
}

function cleanEnv (extra) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TAP') && !k.startsWith('_TAP') && k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE'))
  return { ...env, ...extra }
}

// One file, run as a plain node script (it prints TAP) with the launcher
// build preloaded in place of the verified one.
function runFile (file, launcher, { timeout = patience(900000), env = {}, failures = null } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', OVERRIDE, path.join(TEST_DIR, file)], {
      // (tap run as a plain script ends a file at 30 s unless told: the
      // main suite gives each file package.json's 300, the slower builds more)
      env: cleanEnv({ SANDY_TEST_LAUNCHER: launcher, SANDY_LAYER_RUN: '1', TAP_TIMEOUT: String(patience(600)), ...env }),
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout
    })
    let stdout = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.on('close', (code) => resolve({ file, code, cases: leafResults(file, stdout, failures) }))
  })
}

// Every file of the suite (or those given), two at a time; one map of all
// cases. env: more variables for the files (the coverage build's);
// failures: as leafResults'.
async function runSuite (launcher, files = suiteFiles(), env = {}, failures = null) {
  const cases = new Map()
  for (let i = 0; i < files.length; i += 2) {
    const done = await Promise.all(files.slice(i, i + 2).map((f) => runFile(f, launcher, { env, failures })))
    for (const r of done) for (const [k, v] of r.cases) cases.set(k, v)
  }
  return cases
}

// The table's entry for a case: the sets of layers of which any one,
// complete, stops it ([[]]: it passes whatever runs; [] : nothing stops it).
// A build stops the case when it holds every layer of one of the sets.
function predicted (entry, build) {
  const on = layersOf(build)
  return entry.some((set) => set.every((l) => on.includes(l)))
}

// The smallest such entry that agrees with observed {build: passed}, or
// null when none does (the outcome is not monotone in the layers: a case
// that passes with fewer layers and fails with more).
function deriveEntry (observed) {
  const builds = Object.keys(observed)
  const stopping = builds.filter((b) => observed[b]).map(layersOf)
  // minimal sets: drop any that holds another
  const minimal = stopping.filter((s, i) => !stopping.some((o, j) => j !== i && o.length < s.length && o.every((l) => s.includes(l))))
  const unique = [...new Map(minimal.map((s) => [s.slice().sort().join('+'), s.slice().sort()])).values()]
  const entry = unique.sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()))
  return builds.every((b) => predicted(entry, b) === observed[b]) ? entry : null
}

module.exports = { LAYERS, BUILDS, layersOf, suiteFiles, leafResults, runFile, runSuite, predicted, deriveEntry }
