#!/usr/bin/env node
'use strict'
// Builds the launcher, csrc/launcher + csrc/linux + csrc/core, as one
// static executable, and records its SHA-256 beside it (lib/launcher-copy.js
// makes copies only from bytes that match). It is not a binding.gyp target:
// gyp builds every target with one compiler, and the launcher's is another.
//
//   node scripts/build-launcher.js [--arch=x64|arm64] [--libc=musl|host]
//                                  [--debug] [--sanitize] [--out=DIR]
//
// The toolchains, as data below:
//   musl  Debian's musl-tools for this host's arch, or the cross compiler
//         with musl-dev:<arch>'s specs for the other: the prebuilds'. musl
//         ships no Linux UAPI headers, so the kernel's (linux-libc-dev, or
//         the cross toolchain's copy) are put on the include path alone,
//         without the rest of glibc's /usr/include.
//   host  the host's own compiler and libc, linked statically (glibc's
//         libc.a on Debian, musl on Alpine): a from-source build where
//         musl-tools is not installed.
// Default: musl when its toolchain is installed, else host. --sanitize
// (the ASan/UBSan build) is host, dynamic, unstripped. Release output is
// stripped; --debug keeps symbols and writes build/Debug.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawnSync } = require('node:child_process')
const { sources } = require('./sources')
const { TRIPLET, onPath } = require('./tools')

const root = path.resolve(__dirname, '..')
const FLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-D_GNU_SOURCE']
const SANITIZE = ['-fsanitize=address,undefined', '-fno-sanitize-recover=undefined', '-fno-omit-frame-pointer', '-O1', '-g']

const DEB_ARCH = { x64: 'amd64', arm64: 'arm64' }

// The musl toolchain that builds for arch on this host: the native
// musl-gcc with the host's UAPI headers, or the cross compiler with
// musl-dev:<arch>'s specs and the cross toolchain's UAPI headers.
function muslToolchain (arch) {
  const tri = TRIPLET[arch]
  const musl = tri.replace('-gnu', '-musl')
  if (arch === process.arch) {
    return {
      cc: ['musl-gcc'],
      uapi: { linux: '/usr/include/linux', asm: `/usr/include/${tri}/asm`, 'asm-generic': '/usr/include/asm-generic' },
      needs: 'musl-tools and linux-libc-dev'
    }
  }
  return {
    cc: [`${tri}-gcc`, '-specs', `/usr/lib/${musl}/musl-gcc.specs`],
    uapi: { linux: `/usr/${tri}/include/linux`, asm: `/usr/${tri}/include/asm`, 'asm-generic': `/usr/${tri}/include/asm-generic` },
    needs: `gcc-${tri.replace('_', '-')}, libc6-dev-${DEB_ARCH[arch]}-cross and musl-dev:${DEB_ARCH[arch]}`
  }
}

function option (name, fallback) {
  const arg = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))
  return arg ? arg.slice(name.length + 3) : fallback
}

// Whether the musl toolchain for arch is installed: its compiler, any file
// its arguments name, and the UAPI headers.
function muslReady (arch) {
  const t = muslToolchain(arch)
  return onPath(t.cc[0]) && t.cc.slice(1).every((a) => !a.startsWith('/') || fs.existsSync(a)) &&
    Object.values(t.uapi).every((d) => fs.existsSync(d))
}

// A private include directory holding only the kernel's UAPI trees.
function uapiDir (arch) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sandy-uapi-${arch}-`))
  for (const [name, target] of Object.entries(muslToolchain(arch).uapi)) fs.symlinkSync(target, path.join(dir, name))
  return dir
}

function fail (message) {
  process.stderr.write(`build-launcher: ${message}\n`)
  process.exit(1)
}

function main () {
  const args = process.argv.slice(2)
  const known = /^--(arch|libc|out)=|^--(debug|sanitize)$/
  const bad = args.find((a) => !known.test(a))
  if (bad !== undefined) fail(`unknown argument ${bad} (see the header of scripts/build-launcher.js)`)
  if (process.platform !== 'linux') fail('the launcher is Linux only')
  const debug = args.includes('--debug')
  const sanitize = args.includes('--sanitize')
  const arch = option('arch', process.arch)
  if (!['x64', 'arm64'].includes(arch)) fail(`no launcher build for ${arch} (x64, arm64)`)
  const libc = option('libc', !sanitize && muslReady(arch) ? 'musl' : 'host')
  if (!['musl', 'host'].includes(libc)) fail(`--libc is musl or host, not ${libc}`)
  if (libc === 'musl' && sanitize) fail('the sanitizer build uses the host toolchain')
  if (libc === 'musl' && !muslReady(arch)) fail(`the musl toolchain for ${arch} is missing: install ${muslToolchain(arch).needs}`)
  if (libc === 'host' && arch !== process.arch) fail(`building for ${arch} on ${process.arch} needs --libc=musl`)
  const out = path.resolve(option('out', path.join(root, 'build', debug ? 'Debug' : 'Release')))

  const cc = libc === 'musl' ? muslToolchain(arch).cc : [process.env.CC || 'cc']
  const flags = [...FLAGS]
  let uapi = null
  if (libc === 'musl') {
    uapi = uapiDir(arch)
    flags.push('-isystem', uapi)
  }
  if (sanitize) flags.push(...SANITIZE)
  else flags.push(...(debug ? ['-O0', '-g'] : ['-O2', '-s']), '-static')
  const files = [...sources('launcher'), ...sources('core')].map((f) => path.join(root, f))
  fs.mkdirSync(out, { recursive: true })
  const exe = path.join(out, 'sandy-launcher')
  const tmp = `${exe}.tmp`
  const r = spawnSync(cc[0], [...cc.slice(1), ...flags, '-o', tmp, ...files], { stdio: 'inherit' })
  if (uapi !== null) fs.rmSync(uapi, { recursive: true, force: true })
  if (r.error || r.status !== 0) fs.rmSync(tmp, { force: true })
  if (r.error) fail(`cannot run ${cc[0]}: ${r.error.code} (install ${libc === 'musl' ? muslToolchain(arch).needs : 'build-essential'})`)
  if (r.status !== 0) {
    fail(`${cc[0]} failed to build the launcher, which links statically: install ` +
      (libc === 'musl' ? muslToolchain(arch).needs : 'musl-tools (Debian, Ubuntu), or your libc\'s static archive ' +
        '(libc6-dev on Debian, glibc-static on Fedora, musl-dev on Alpine) and the Linux UAPI headers ' +
        '(linux-libc-dev, kernel-headers, linux-headers)'))
  }
  fs.chmodSync(tmp, 0o755)
  // the digest of the bytes this build wrote, recorded before they take
  // the launcher's name (a reader in between sees a mismatch: refused)
  const digest = crypto.createHash('sha256').update(fs.readFileSync(tmp)).digest('hex')
  fs.writeFileSync(`${exe}.sha256.tmp`, digest + '\n')
  fs.renameSync(`${exe}.sha256.tmp`, `${exe}.sha256`)
  fs.renameSync(tmp, exe)
  console.log(`launcher: ${path.relative(process.cwd(), exe) || exe} (${arch}, ${libc === 'musl' ? 'musl' : 'host libc'}, ` +
    `${sanitize ? 'sanitized' : 'static'}${!sanitize && !debug ? ', stripped' : ''})`)
}

main()
