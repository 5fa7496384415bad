'use strict'
// Preloaded (node -r) into a test process when SANDY_TEST_LAUNCHER names a
// test build of the launcher (csrc/Makefile's layers): every confined argv
// the package produces, through confinePolicy, a provider (both Linux
// backends: bubblewrap's starts with the launcher as its guard) or the CLI,
// then starts that build instead of the verified copy. The words after it
// do not depend on which build reads them. With SANDY_TEST_LAUNCHER_PROBE=1
// the host probe asks that build too (the addon's probe of a given
// launcher), so that what it reports usable is what the build can do: the
// Landlock ABI caps (test/meta/abi-caps.test.js). The layer builds keep
// the verified copy's probe, whose facts they share. Test-only; nothing
// in lib/ knows of it.
const path = require('node:path')

const build = process.env.SANDY_TEST_LAUNCHER
if (build) {
  if (!path.isAbsolute(build)) throw new Error('SANDY_TEST_LAUNCHER must be an absolute path')
  if (process.env.SANDY_TEST_LAUNCHER_PROBE === '1') {
    // (before anything that reads it is loaded: lib/ takes probe() when
    // its modules load)
    const hostProbe = require('../../lib/probe.js')
    const binding = require('../../lib/binding.js')
    let report = null
    hostProbe.probe = () => structuredClone(report ?? (report = binding.addon.probe(build, null)))
  }
  const confine = require('../../lib/confine.js')
  const provider = require('../../lib/provider.js')
  const swap = (c) => {
    if (!path.basename(c.argv[0]).startsWith('sandy-launcher')) return c
    return Object.freeze({ ...c, argv: Object.freeze([build, ...c.argv.slice(1)]) })
  }
  const { confinePolicy } = confine
  confine.confinePolicy = (...args) => swap(confinePolicy(...args))
  const { createLocalSandboxProvider } = provider
  provider.createLocalSandboxProvider = (...args) => {
    const p = createLocalSandboxProvider(...args)
    return Object.freeze({ ...p, confine: (...a) => swap(p.confine(...a)) })
  }
}
