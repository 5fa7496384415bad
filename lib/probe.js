'use strict'
// The host probe, run once per process and cached; callers get a deep copy
// so the cache cannot be edited. On Linux the facts come from the launcher
// itself (csrc/addon/probe.c runs `sandy-launcher --sandy-probe-v1`), the
// verified copy every argv would start with: a launcher that is missing,
// not executable or not the one this package built leaves every Linux
// backend unusable, with the reason. `sandy probe`, provider.probe() and
// confinePolicy all read this one report.
const binding = require('./binding')

let cached = null

function measure () {
  let launcher = null
  let problem = null
  try {
    launcher = binding.verifiedLauncherPath()
  } catch (err) {
    problem = err.message
  }
  return binding.addon.probe(launcher, problem)
}

function probe () {
  if (cached === null) cached = measure()
  return structuredClone(cached)
}

module.exports = { probe }
