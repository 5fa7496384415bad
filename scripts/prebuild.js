#!/usr/bin/env node
'use strict'
// Builds prebuilds, the layout node-gyp-build loads first:
// prebuilds/linux-<arch>/ holding the addon (tagged N-API and glibc:
// sandy.napi.glibc.node) and, beside it, the static musl launcher and its
// recorded digest, which lib/binding.js looks for next to the loaded addon.
//
//   node scripts/prebuild.js [--arch=x64|arm64|all] [PACKAGE_DIR]
//
// PACKAGE_DIR defaults to this checkout. Each addon is built afresh from
// the sources, with node-gyp in a scratch copy of the package (for the
// other arch with Debian's cross compiler), never taken from an earlier
// build; the launcher is built with musl (csrc/Makefile's launcher) and
// is the same bytes the checkout's own build made when that build used
// musl too. Every prebuild written is checked (scripts/prebuild-check.js)
// before it counts.
// The matrix (MATRIX below) is what scripts/release.js insists on.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { MATRIX, check } = require('./prebuild-check')
const { TRIPLET, nodedir, nodeGyp } = require('./tools')

const root = path.resolve(__dirname, '..')

function fail (message) {
  process.stderr.write(`prebuild: ${message}\n`)
  process.exit(1)
}

function run (cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts })
  if (r.error) fail(`cannot run ${cmd}: ${r.error.code}`)
  if (r.status !== 0) fail(`${path.basename(cmd)} ${args.slice(0, 2).join(' ')} failed`)
}

// The addon for arch, built in a scratch copy of the package: natively,
// or for the other arch with the cross compiler (gyp takes the compiler
// from CC and LINK, the archiver from AR).
function addonFor (arch, scratch) {
  const copy = path.join(scratch, 'package')
  for (const part of ['binding.gyp', 'package.json', 'csrc', 'scripts']) {
    fs.cpSync(path.join(root, part), path.join(copy, part), { recursive: true })
  }
  fs.symlinkSync(path.join(root, 'deps'), path.join(copy, 'deps'))
  const tri = TRIPLET[arch]
  const env = arch === process.arch
    ? process.env
    : { ...process.env, CC: `${tri}-gcc`, CXX: `${tri}-g++`, LINK: `${tri}-gcc`, AR: `${tri}-ar` }
  run(process.execPath, [nodeGyp(), 'configure', 'build', `--arch=${arch}`, `--nodedir=${nodedir()}`], { cwd: copy, env })
  return path.join(copy, 'build', 'Release', 'sandy.node')
}

function main () {
  const args = process.argv.slice(2)
  const archArg = (args.find((a) => a.startsWith('--arch=')) || `--arch=${process.arch}`).slice(7)
  const rest = args.filter((a) => !a.startsWith('--arch='))
  if (rest.length > 1 || rest.some((a) => a.startsWith('-'))) fail('usage: prebuild.js [--arch=x64|arm64|all] [PACKAGE_DIR]')
  if (process.platform !== 'linux') fail('prebuilds are made on Linux (macOS builds from source)')
  const arches = archArg === 'all' ? MATRIX.map((m) => m.arch) : [archArg]
  if (!arches.every((a) => MATRIX.some((m) => m.arch === a))) fail(`no prebuild for ${archArg} (${MATRIX.map((m) => m.arch).join(', ')}, all)`)
  const target = path.resolve(rest[0] || root)
  run('sh', [path.join(root, 'scripts', 'fetch-cjson.sh')], { stdio: ['ignore', 'ignore', 'inherit'] })
  for (const arch of arches) {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `sandy-prebuild-${arch}-`))
    try {
      const dir = path.join(target, 'prebuilds', `linux-${arch}`)
      fs.rmSync(dir, { recursive: true, force: true })
      fs.mkdirSync(dir, { recursive: true })
      fs.copyFileSync(addonFor(arch, scratch), path.join(dir, 'sandy.napi.glibc.node'))
      run('make', ['-s', '--no-print-directory', '-C', path.join(root, 'csrc'), 'launcher', `ARCH=${arch}`, 'LIBC=musl', `O=${dir}`])
      const problems = check(dir, arch)
      if (problems.length > 0) {
        fs.rmSync(dir, { recursive: true, force: true })
        fail(`linux-${arch} is not fit to ship, removed:\n  ${problems.join('\n  ')}`)
      }
      console.log(`prebuild written to ${dir}`)
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true })
    }
  }
}

main()
