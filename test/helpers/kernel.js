'use strict'
// What the kernel the tests run on offers, measured or derived without
// the package: the suite expects what this kernel gives (the kernel matrix
// runs it on several), never what the machine it was written on gave.
const fs = require('node:fs')
const { spawnSync } = require('node:child_process')

// The Landlock ABI each kernel line introduced (the kernel's
// Documentation/userspace-api/landlock.rst); later lines may add more.
const ABI_SINCE = [['5.13', 1], ['5.19', 2], ['6.2', 3], ['6.7', 4], ['6.10', 5], ['6.12', 6], ['6.15', 7]]

const release = () => fs.readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim()

function lineOf (r) {
  const [major, minor] = r.split('.').map((n) => parseInt(n, 10))
  return major * 1000 + minor
}

// The ABI a kernel of release r has with Landlock enabled: exactly the
// table's when a later line is in the table, at least the last entry's
// otherwise ({ abi, exact }).
function expectedAbi (r = release()) {
  let abi = 0
  let exact = false
  for (const [line, n] of ABI_SINCE) {
    if (lineOf(line) <= lineOf(r)) abi = n
    else exact = true
  }
  return { abi, exact }
}

// landlock_create_ruleset(NULL, 0, flags) made by perl, not by us: system
// call 444 on x86_64 and arm64 alike. flags 1: the ABI; 2: the errata.
function syscallAbi (flags = 1) {
  const r = spawnSync('perl', ['-e', `my $v = syscall(444, 0, 0, ${flags}); print $v < 0 ? 0 : $v`], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`perl could not ask the kernel: ${r.stderr}`)
  return Number(r.stdout)
}

// An exact pattern for a literal string (a kernel release such as
// 6.12.95+deb12-amd64 has more than dots to escape).
const literal = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

module.exports = { ABI_SINCE, release, expectedAbi, syscallAbi, literal }
