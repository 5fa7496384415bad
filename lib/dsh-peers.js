'use strict'
// sandy-native/dsh's peers (lib/dsh.mjs): dsh's packages, which the
// adapter's classes extend and its errors are, loaded from where this
// package is installed. One clear error when any is missing, naming them
// and the install command with package.json's ranges. And, at the
// plugin's apply, the check that the host loads these very copies.
const fs = require('node:fs')
const path = require('node:path')
const { createRequire } = require('node:module')
const { peerDependencies } = require('../package.json')

const PEERS = Object.freeze(Object.keys(peerDependencies))

// The npm command that installs the peers, each at its range (quoted for
// a POSIX shell: a range holds spaces, '<', '>' and '|').
function installCommand () {
  return `npm install ${PEERS.map((name) => `'${name}@${peerDependencies[name]}'`).join(' ')}`
}

// The package an import could not find, from Node's ERR_MODULE_NOT_FOUND
// ("Cannot find package 'NAME' imported from FILE"), else undefined: a
// file missing inside an installed package is another failure.
function missingPackage (err) {
  if (err === null || typeof err !== 'object' || err.code !== 'ERR_MODULE_NOT_FOUND') return undefined
  const m = /^Cannot find package '([^']+)' imported from /.exec(String(err.message))
  return m === null ? undefined : m[1]
}

// Each peer's module, by name, imported with `load` (the adapter's own
// import(), so they resolve from where it is installed). A peer that is
// missing, or one a peer imports (dsh-llm under dsh-sandbox, where npm was
// told not to install peers), is collected with the others and thrown as
// one Error, code SANDY_DSH_PEER_MISSING, its `missing` the names; any
// other failure is thrown as it is.
async function importPeers (load, from) {
  const modules = {}
  const missing = []
  let cause
  for (const name of PEERS) {
    try {
      modules[name] = await load(name)
    } catch (err) {
      const pkg = missingPackage(err)
      if (pkg === undefined) throw err
      if (!missing.includes(pkg)) missing.push(pkg)
      cause ??= err
    }
  }
  if (missing.length === 0) return modules
  const named = missing.map((pkg) => PEERS.includes(pkg) ? pkg : `${pkg} (which dsh's packages import)`)
  const e = new Error(`sandy-native/dsh needs dsh's packages installed beside it, and cannot find ${named.join(', ')} from ${from}; install them with: ${installCommand()}`, { cause })
  e.code = 'SANDY_DSH_PEER_MISSING'
  e.missing = Object.freeze(missing)
  throw e
}

// The file the host program's own imports resolve from: its main module,
// by its real path as Node runs it, or, for `node -e`, `-p`, standard
// input and the REPL, the working directory.
function hostBase ({ argv = process.argv, execArgv = process.execArgv, cwd = process.cwd() } = {}) {
  const evaluated = execArgv.some((a) => /^--(eval|print)(=|$)/.test(a) || /^-[a-zA-Z]*[ep][a-zA-Z]*$/.test(a))
  const main = argv[1]
  if (evaluated || main === undefined || main === '-') return path.join(cwd, '[eval]')
  const file = path.resolve(cwd, main)
  try {
    return fs.realpathSync(file)
  } catch {
    return file
  }
}

// The directory of the copy of package `name` that resolves from file
// `from` (as Node resolves it: by real path, unless --preserve-symlinks),
// or undefined where none does. dsh's packages export their package.json.
function packageDir (from, name) {
  try {
    return path.dirname(createRequire(from).resolve(`${name}/package.json`))
  } catch {
    return undefined
  }
}

function versionAt (dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version
}

// What a second copy of each package breaks: the classes the adapter
// extends, and the error it throws, are not the ones dsh's code checks.
const COPIES = {
  '@deepseek-ai/dsh-sandbox': "its provider would not extend the host's SandboxProvider, nor its refusals be the host's SandboxUnavailableError",
  '@deepseek-ai/dsh-sandbox-policy': "its policy service would not extend the host's SandboxPolicyService"
}

// Throws one Error, code SANDY_DSH_DUPLICATE, `copies` [{ name, host, own }],
// naming the copies' directories and versions, where the copy of a dsh
// package that the host resolves (from `base`) is not the one the adapter
// (the file `own`) loaded: a linked sandy-native checkout with its own
// node_modules, or two versions in one tree. Where the host resolves none,
// there is nothing to compare.
function checkCopies (own, base = hostBase()) {
  const copies = []
  for (const name of Object.keys(COPIES)) {
    const host = packageDir(base, name)
    const mine = packageDir(own, name)
    if (host !== undefined && mine !== undefined && host !== mine) copies.push({ name, host, own: mine })
  }
  if (copies.length === 0) return
  const at = (dir) => `${dir} (${versionAt(dir) ?? 'no version'})`
  const each = copies.map((c) => `${c.name}: the host's is ${at(c.host)}, resolved from ${base}, and sandy-native/dsh's is ${at(c.own)}, so ${COPIES[c.name]}`)
  const e = new Error(`sandy-native/dsh: two copies of dsh's packages: ${each.join('; ')}. Make them one: \`npm ls ${copies.map((c) => c.name).join(' ')}\` shows where each comes from (a linked sandy-native checkout resolves dsh's packages from its own node_modules: install the package, or its packed tarball, instead)`)
  e.code = 'SANDY_DSH_DUPLICATE'
  e.copies = Object.freeze(copies.map((c) => Object.freeze(c)))
  throw e
}

module.exports = { PEERS, installCommand, missingPackage, importPeers, hostBase, checkCopies }
