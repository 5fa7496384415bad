'use strict'
// Ubuntu's AppArmor restriction of unprivileged user namespaces
// (docs/apparmor.md): the profile that allows them for this package's
// shipped launcher alone, for `sandy apparmor`. It names one path, the
// resolved launcher of a root-owned install, and only where that file and
// every directory above it are root's alone: a profile naming a path a
// user can write would hand user namespaces to any program put there.
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const binding = require('./binding')
const { chainProblem, fileProblem } = require('./launcher-copy')

const NAME = 'sandy-native-launcher'
const TARGET = `/etc/apparmor.d/${NAME}`
// AppArmor reads *, ?, [, {, ^ and more in an attachment as a pattern:
// a path of these bytes only is matched as itself.
const PLAIN = /^(\/[A-Za-z0-9._+-]+)+$/

// The profile's text for launcher (resolved, absolute, plain).
function profileText (launcher) {
  if (!PLAIN.test(launcher)) throw new RangeError('the launcher\'s path holds a byte AppArmor would read as a pattern')
  return '# sandy-native: user namespaces for its launcher alone (docs/apparmor.md)\n' +
    'abi <abi/4.0>,\ninclude <tunables/global>\n\n' +
    `profile ${NAME} ${launcher} flags=(unconfined) {\n` +
    `  userns,\n  include if exists <local/${NAME}>\n}\n`
}

// The resolved shipped launcher, or why a profile may not name it.
function shippedLauncher () {
  const file = fs.realpathSync(binding.launcherPath())
  const why = chainProblem(path.dirname(file), 0) ?? fileProblem(fs.lstatSync(file, { bigint: true }), 0)
  if (why !== null) {
    return { file: null, why: `the launcher is not root's alone (${why}): install sandy-native root-owned (sudo npm install -g sandy-native) and run this command from there` }
  }
  return { file, why: null }
}

// Writes the profile to TARGET and loads it (root only): 0, or a message.
function install (text) {
  if (process.geteuid() !== 0) return 'only root can install an AppArmor profile (sudo sandy apparmor --install)'
  const tmp = `${TARGET}.${process.pid}.tmp`
  try {
    fs.writeFileSync(tmp, text, { mode: 0o644, flag: 'wx' })
    fs.renameSync(tmp, TARGET)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    return `cannot write ${TARGET} (${err.code})`
  }
  const r = spawnSync('apparmor_parser', ['-r', '-W', TARGET], { encoding: 'utf8' })
  if (r.error) return `${TARGET} written, but apparmor_parser cannot run (${r.error.code}): load it with \`apparmor_parser -r ${TARGET}\``
  if (r.status !== 0) return `${TARGET} written, but apparmor_parser refused it: ${(r.stderr || '').trim().split('\n').pop()}`
  return null
}

module.exports = { profileText, shippedLauncher, install, TARGET, NAME }
