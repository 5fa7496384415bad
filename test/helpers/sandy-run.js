'use strict'
// `sandy run` as a process, for the tests: lib/cli.js dispatches `run` to
// the same function. Usage: node sandy-run.js --policy F [--cwd D] -- CMD
// With SANDY_TEST_LAUNCHER set it runs that launcher build instead
// (launcher-override.js), as the rest of the suite does.
require('./launcher-override.js')
const { runCommand } = require('../../lib/cli-run.js')

const io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }
runCommand(process.argv.slice(2), io).then((code) => { process.exitCode = code })
