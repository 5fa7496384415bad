#!/usr/bin/env node
'use strict'
// Packs a release tarball, and refuses to unless it is complete: every
// prebuild of the matrix (scripts/prebuild-check.js) present and fit to
// ship, nothing else under prebuilds/, the precompiled seccomp programs
// the launchers were built from current with their rules
// (csrc/Makefile's seccomp-filters), and cJSON's pinned Debian source in deps/
// (so a from-source install needs no network). Not a prepack hook:
// `npm pack` in a checkout and git installs keep working without prebuilds.
//
//   node scripts/prebuild.js --arch=all
//   node scripts/release.js [--pack-destination=DIR]
//
// Prints the tarball's path last.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { MATRIX, check } = require('./prebuild-check')

const root = path.resolve(__dirname, '..')

function refuse (problems) {
  process.stderr.write(`release: refusing to pack:\n  ${problems.join('\n  ')}\n` +
    'build the matrix with `node scripts/prebuild.js --arch=all` (docs/development.md, "Releasing")\n')
  process.exit(1)
}

function npmCli () {
  const file = process.env.npm_execpath ||
    path.resolve(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
  if (!fs.existsSync(file)) refuse(['npm not found next to node'])
  return file
}

// What the tarball must and must not hold, as patterns over its listing.
const MUST = [
  ...MATRIX.flatMap(({ arch }) => ['sandy.napi.glibc.node', 'sandy-launcher', 'sandy-launcher.sha256']
    .map((f) => new RegExp(`^prebuilds/linux-${arch}/${f.replace(/\./g, '\\.')}$`))),
  /^LICENSE$/, /^licenses\/cJSON\.txt$/, /^deps\/cjson_[^/]+\.dsc$/, /^deps\/cjson_[^/]+\.orig\.tar\.gz$/,
  /^deps\/cjson_[^/]+\.debian\.tar\.xz$/, /^types\/index\.d\.ts$/, /^lib\/index\.mjs$/
]
const MUST_NOT = [/^csrc\/test\//, /^test\//, /^build\//, /^deps\/cjson\//, /^node_modules\//, /\.o$/]

function main () {
  const args = process.argv.slice(2)
  const dest = (args.find((a) => a.startsWith('--pack-destination=')) || `--pack-destination=${root}`).slice(19)
  if (args.some((a) => !a.startsWith('--pack-destination='))) refuse(['usage: release.js [--pack-destination=DIR]'])

  const problems = MATRIX.flatMap(({ arch }) => check(path.join(root, 'prebuilds', `linux-${arch}`), arch)
    .map((p) => `linux-${arch}: ${p}`))
  let present = []
  try {
    present = fs.readdirSync(path.join(root, 'prebuilds'))
  } catch {}
  const stray = present.filter((d) => !MATRIX.some(({ arch }) => d === `linux-${arch}`))
  if (stray.length > 0) problems.push(`prebuilds/ holds ${stray.join(', ')}, which the matrix does not`)
  const filters = path.join(os.tmpdir(), `sandy-release-filters-${process.pid}.h`)
  const gen = spawnSync('make', ['-s', '-C', path.join(root, 'csrc'), 'seccomp-filters', `OUT=${filters}`], { stdio: ['ignore', 'ignore', 'inherit'] })
  let current = false
  try {
    current = gen.status === 0 && fs.readFileSync(filters).equals(fs.readFileSync(path.join(root, 'csrc', 'linux', 'seccomp_filters.h')))
  } catch {}
  fs.rmSync(filters, { force: true })
  if (!current) problems.push('csrc/linux/seccomp_filters.h is not what its rules generate (make -C csrc seccomp-filters OUT=$PWD/csrc/linux/seccomp_filters.h)')
  const cjson = spawnSync('sh', [path.join(root, 'scripts', 'fetch-cjson.sh')], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (cjson.status !== 0) problems.push('cJSON\'s pinned source is not in deps/ and could not be fetched')
  if (problems.length > 0) refuse(problems)

  const r = spawnSync(process.execPath, [npmCli(), 'pack', '--json', `--pack-destination=${dest}`],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (r.status !== 0) refuse(['npm pack failed'])
  const [info] = JSON.parse(r.stdout)
  const listed = info.files.map((f) => f.path)
  const wrong = [
    ...MUST.filter((re) => !listed.some((f) => re.test(f))).map((re) => `the tarball lacks ${re.source}`),
    ...listed.filter((f) => MUST_NOT.some((re) => re.test(f))).map((f) => `the tarball holds ${f}`)
  ]
  const tarball = path.join(dest, info.filename)
  if (wrong.length > 0) {
    fs.rmSync(tarball, { force: true })
    refuse(wrong)
  }
  console.log(tarball)
}

main()
