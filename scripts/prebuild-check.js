'use strict'
// What a Linux prebuild must be before it ships, checked with readelf
// (binutils reads every architecture's ELF): scripts/prebuild.js runs it on
// each prebuild it writes and scripts/release.js on the whole matrix.
//
//   node scripts/prebuild-check.js DIR ARCH   prints the problems, exits 1
//
// The addon: an ELF shared object for the arch; needs libc (and at most
// libm, libpthread, libdl, the loader) and no glibc symbol newer than
// GLIBC_2.28, Node 20's own floor; exports only the N-API entry points;
// stripped. The launcher: an ELF executable for the arch with no program
// interpreter and no dynamic section (static), stripped, executable, and
// the digest beside it is its own.
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawnSync } = require('node:child_process')

// The prebuilds a release holds. macOS builds from source (README.md, "Supported platforms").
const MATRIX = [
  { arch: 'x64', machine: 'Advanced Micro Devices X86-64', file: 'x86-64' },
  { arch: 'arm64', machine: 'AArch64', file: 'ARM aarch64' }
]
const FILES = ['sandy-launcher', 'sandy-launcher.sha256', 'sandy.napi.glibc.node']
const GLIBC_MAX = [2, 28]
const LIBS = /^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|ld-linux-[\w-]+\.so\.\d)$/
const EXPORTS = ['napi_register_module_v1', 'node_api_module_get_api_version_v1']

function readelf (file, flags) {
  const r = spawnSync('readelf', ['-W', ...flags, file], { encoding: 'utf8' })
  if (r.error) throw new Error(`readelf is missing (binutils): ${r.error.code}`)
  return r.status === 0 ? r.stdout : null
}

// The facts both binaries are judged by.
function elfFacts (file) {
  const header = readelf(file, ['-h', '-l', '-S', '-d'])
  if (header === null) return null
  return {
    machine: (/^\s*Machine:\s*(.+)$/m.exec(header) || [])[1],
    type: (/^\s*Type:\s*(\S+)/m.exec(header) || [])[1],
    interp: /^\s*INTERP\s/m.test(header),
    dynamic: /^\s*DYNAMIC\s/m.test(header),
    stripped: !/\s\.symtab\s/.test(header),
    needed: [...header.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
  }
}

function glibcNewest (file) {
  const versions = [...(readelf(file, ['-V']) || '').matchAll(/Name: GLIBC_(\d+)\.(\d+)/g)].map((m) => [+m[1], +m[2]])
  return versions.reduce((a, b) => (b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]) ? b : a), [0, 0])
}

function exported (file) {
  const syms = readelf(file, ['--dyn-syms']) || ''
  // defined (not UND), global or weak symbols
  return [...syms.matchAll(/^\s*\d+:\s+\S+\s+\d+\s+\w+\s+(GLOBAL|WEAK)\s+\w+\s+(\S+)\s+(\S+)/gm)]
    .filter((m) => m[2] !== 'UND').map((m) => m[3].replace(/@.*$/, ''))
}

function checkAddon (file, want) {
  const f = elfFacts(file)
  if (f === null) return ['the addon is not an ELF file']
  const out = []
  if (f.machine !== want.machine) out.push(`the addon is for ${f.machine}, not ${want.machine}`)
  if (f.type !== 'DYN') out.push('the addon is not a shared object')
  const extra = f.needed.filter((lib) => !LIBS.test(lib))
  if (extra.length > 0) out.push(`the addon needs ${extra.join(', ')} (only libc may be needed)`)
  const [major, minor] = glibcNewest(file)
  if (major > GLIBC_MAX[0] || (major === GLIBC_MAX[0] && minor > GLIBC_MAX[1])) {
    out.push(`the addon needs GLIBC_${major}.${minor} (at most GLIBC_${GLIBC_MAX.join('.')})`)
  }
  const syms = exported(file).filter((s) => !EXPORTS.includes(s))
  if (syms.length > 0) out.push(`the addon exports ${syms.slice(0, 5).join(', ')} (only the N-API entry points)`)
  if (!f.stripped) out.push('the addon is not stripped')
  return out
}

function checkLauncher (file, want) {
  const f = elfFacts(file)
  if (f === null) return ['the launcher is not an ELF file']
  const out = []
  if (f.machine !== want.machine) out.push(`the launcher is for ${f.machine}, not ${want.machine}`)
  if (f.type !== 'EXEC') out.push(`the launcher is ${f.type}, not a static executable`)
  if (f.interp || f.dynamic || f.needed.length > 0) out.push('the launcher is dynamically linked')
  if (!f.stripped) out.push('the launcher is not stripped')
  if ((fs.statSync(file).mode & 0o111) !== 0o111) out.push('the launcher is not executable by everyone')
  const digest = fs.readFileSync(`${file}.sha256`, 'latin1').trim()
  if (crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex') !== digest) {
    out.push('the recorded digest is not the launcher\'s')
  }
  return out
}

// The problems of the prebuild in dir for arch; [] when it may ship.
function check (dir, arch) {
  const want = MATRIX.find((m) => m.arch === arch)
  if (want === undefined) return [`${arch} is not in the matrix`]
  let files
  try {
    files = fs.readdirSync(dir).sort()
  } catch {
    return [`${path.basename(dir)} is missing`]
  }
  if (files.join() !== FILES.join()) return [`${path.basename(dir)} holds ${files.join(', ') || 'nothing'}, not ${FILES.join(', ')}`]
  return [...checkAddon(path.join(dir, 'sandy.napi.glibc.node'), want), ...checkLauncher(path.join(dir, 'sandy-launcher'), want)]
}

module.exports = { MATRIX, GLIBC_MAX, check }

if (require.main === module) {
  const [dir, arch] = process.argv.slice(2)
  if (!dir || !arch) {
    process.stderr.write('usage: prebuild-check.js DIR ARCH\n')
    process.exit(2)
  }
  const problems = check(path.resolve(dir), arch)
  for (const p of problems) console.log(p)
  process.exit(problems.length === 0 ? 0 : 1)
}
