'use strict'
// sandy-native/dsh's peers (lib/dsh.mjs): dsh's packages, which the
// adapter's classes extend and its errors are, loaded from where this
// package is installed. One clear error when any is missing, naming them
// and the install command with package.json's ranges.
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

module.exports = { PEERS, installCommand, missingPackage, importPeers }
