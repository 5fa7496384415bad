'use strict'
// patience(ms): a time limit the tests must have (a spawned command's
// timeout, a file's own time limit), set on the reference machine,
// multiplied by how much slower this one is (scripts/slowdown.js: 7 to 9
// under qemu's software emulation, 1 on a machine as fast). No assertion
// compares a duration with it: it only ends what hangs.
const { slowdown } = require('../../scripts/slowdown.js')

function patience (ms) {
  return Math.ceil(ms * slowdown())
}

module.exports = { patience }
