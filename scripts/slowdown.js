'use strict'
// How many times slower than the machine the suite's time limits were set
// on this one is, never below 1: the few limits that must exist (a
// spawned command's timeout, so that a hung one fails its case and is
// ended; a test file's own time limit) are multiplied by it
// (test/helpers/patience.js), so that a machine running the suite under
// qemu's software emulation, 7 to 9 times slower, gives them 7 to 9 times
// longer. Nothing the tests assert depends on it.
//
// SANDY_TEST_SLOWDOWN, a number, is taken as it is; otherwise this process
// measures once, and sets the variable so that what it starts does not
// measure again (scripts/test.js measures before the tap runs). The
// measure: the best of five deflates of the same 1 MiB (compiled C, no
// JIT to warm), against the 20 ms it takes on the machine the limits were
// set on (2 cores, idle). A busy machine measures slower too, which only
// lengthens the limits, as its commands take longer.
const zlib = require('node:zlib')

const REFERENCE_MS = 20

function measure () {
  const buf = Buffer.alloc(1 << 20)
  for (let i = 0, s = 1; i < buf.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    buf[i] = (s >>> 24) & 0x3f
  }
  let best = Infinity
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint()
    zlib.deflateSync(buf, { level: 6 })
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6)
  }
  return best
}

function slowdown () {
  const given = Number(process.env.SANDY_TEST_SLOWDOWN)
  if (given >= 1) return given
  const factor = Math.max(1, Math.round(measure() / REFERENCE_MS * 10) / 10)
  process.env.SANDY_TEST_SLOWDOWN = String(factor)
  return factor
}

module.exports = { slowdown, measure, REFERENCE_MS }

if (require.main === module) console.log(`${slowdown()} (deflate: ${measure().toFixed(1)} ms, reference ${REFERENCE_MS} ms)`)
