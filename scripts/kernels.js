#!/usr/bin/env node
'use strict'
// The kernel matrix: the security-relevant part of the suite run on the
// kernels people have, each booted in a virtual machine (docs/ci.md,
// "Kernel matrix", says what runs where and how to add a kernel).
//
//   npm run test:kernels [-- --kernel NAME ...] [--cache DIR] [--self-check]
//
// (--guest FILE, a program of the checkout, runs instead of the guest's
// own: a shell inside a kernel to look around while fixing something)
//
// For each kernel of test/kernels/kernels.json (or those named):
//  1. resolve: the versioned kernel that Debian's linux-image-ARCH depends
//     on in the kernel's suite, through an apt configuration of our own
//     (the host's sources are never touched, nothing is installed);
//  2. fetch and extract its packages, cached under --cache (default
//     /var/cache/sandy-kernels), which holds nothing else;
//  3. build the guest: an initramfs of busybox, test/kernels/init and the
//     kernel's own modules for virtio, 9p, overlay and ext4; an ext4 image
//     of the checkout (mke2fs -d: the device and inode numbers the launcher
//     pins are a real file system's, not 9p's); an empty ext4 scratch disk
//     for /tmp;
//  4. boot it under qemu (KVM when it boots there, else emulation) with the
//     host's root shared read-only, run test/kernels/guest inside, and read
//     what it wrote to the results folder.
// Then one table: kernel x user x (the probe's verdict per backend, the
// checks and tests passed / failed / skipped). Any failure, a kernel that
// cannot be fetched, or a guest that does not boot or finish, is a failure
// of the whole run, with its reason. --self-check also runs the newest
// kernel against a launcher with Landlock switched off (csrc/Makefile's
// layers), whose cell must turn red: the matrix proves it can fail.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync, spawn } = require('node:child_process')

const { judge } = require('./test-verdict.js')
const { streamFile } = require('./tap-results.js')

const ROOT = path.resolve(__dirname, '..')
const LIST = require('../test/kernels/kernels.json').kernels
const ALLOWED_SKIPS = require('../test/allowed-skips.js')
// (crc32c: ext4 asks the crypto API for it by name, not as a dependency;
// where it is a module it must be loaded first. loop: escape-exec.test.js
// confines a block device, as on the host)
const MODULES = ['virtio_pci', 'virtio_mmio', 'virtio_blk', '9pnet_virtio', '9p', 'overlay', 'crc32c_generic', 'ext4', 'loop']
const OPTIONAL = new Set(['virtio_pci', 'virtio_mmio', 'crc32c_generic'])
const QEMU = {
  amd64: { bin: 'qemu-system-x86_64', machine: ['-M', 'q35'], console: 'ttyS0', busybox: '/bin/busybox' },
  arm64: { bin: 'qemu-system-aarch64', machine: ['-M', 'virt', '-cpu', 'max,pauth-impdef=on'], console: 'ttyAMA0' }
}
// Generous: emulation runs the suite 7 to 9 times slower than the host.
const GUEST_LIMIT_S = 45 * 60

function fail (message) {
  process.stderr.write(`test:kernels: ${message}\n`)
  process.exit(1)
}

function run (cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts })
  if (r.error) throw new Error(`cannot run ${cmd}: ${r.error.code}`)
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 3).join(' ')} failed (exit ${r.status}): ${(r.stderr || '').trim().split('\n').slice(-3).join(' / ')}`)
  return r.stdout
}

function parseArgs (argv) {
  const opts = { kernels: [], cache: '/var/cache/sandy-kernels', selfCheck: false, guest: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--kernel' && i + 1 < argv.length) opts.kernels.push(argv[++i])
    else if (a === '--cache' && i + 1 < argv.length) opts.cache = path.resolve(argv[++i])
    else if (a === '--self-check') opts.selfCheck = true
    else if (a === '--guest' && i + 1 < argv.length) opts.guest = path.relative(ROOT, path.resolve(argv[++i]))
    else fail(`usage: test:kernels [--kernel NAME ...] [--cache DIR] [--self-check] [--guest FILE] (unknown argument ${a})`)
  }
  for (const k of opts.kernels) {
    if (!LIST.some((x) => x.name === k)) fail(`no kernel named ${k} in test/kernels/kernels.json (${LIST.map((x) => x.name).join(', ')})`)
  }
  return opts
}

// ---- apt, ours alone ------------------------------------------------------

function aptOptions (dir) {
  return [
    '-o', `Dir::Etc::SourceList=${dir}/sources.list`, '-o', 'Dir::Etc::SourceParts=/dev/null',
    '-o', `Dir::State::Lists=${dir}/lists`, '-o', `Dir::State::Status=${dir}/status`,
    '-o', `Dir::Cache=${dir}/cache`, '-o', 'Dir::Etc::Preferences=/dev/null',
    '-o', `Dir::Etc::PreferencesParts=${dir}/preferences.d`, '-o', 'Debug::NoLocking=1',
    '-o', 'APT::Sandbox::User=root',
    ...[...new Set(LIST.map((k) => k.arch))].flatMap((a) => ['-o', `APT::Architectures::=${a}`])
  ]
}

function aptSetup (cache) {
  const dir = path.join(cache, 'apt')
  for (const d of ['lists/partial', 'cache/archives/partial', 'preferences.d']) fs.mkdirSync(path.join(dir, d), { recursive: true })
  fs.writeFileSync(path.join(dir, 'status'), '')
  const arches = [...new Set(LIST.map((k) => k.arch))].join(',')
  const suites = [...new Set(LIST.map((k) => k.suite))]
  fs.writeFileSync(path.join(dir, 'sources.list'), suites.map((s) =>
    `deb [arch=${arches} signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian ${s} main\n`).join(''))
  const opts = aptOptions(dir)
  run('apt-get', [...opts, '-q', 'update'])
  return {
    show: (pkg) => run('apt-cache', [...opts, 'show', pkg]),
    download: (pkgs, into) => run('apt-get', [...opts, '-q', 'download', ...pkgs], { cwd: into }),
    // the packages an install of names from suite would unpack on an
    // empty arch system, as name:arch=version
    closure: (arch, suite, names) => run('apt-get', [...opts, '-o', `APT::Architecture=${arch}`, '-o', 'APT::Install-Recommends=false',
      '-s', '-t', suite, 'install', ...names]).split('\n').map((l) => /^Inst (\S+) \((\S+) .*\[(\S+)\]\)/.exec(l)).filter(Boolean)
      .map((m) => `${m[1].split(':')[0]}${m[3] === 'all' ? '' : `:${arch}`}=${m[2]}`)
  }
}

// The first stanza of `apt-cache show`'s answer, as fields.
function stanza (text) {
  const fields = {}
  let key = null
  for (const line of text.split('\n\n')[0].split('\n')) {
    if (/^\s/.test(line) && key) fields[key] += '\n' + line.trim()
    else {
      const m = /^([\w-]+):\s?(.*)$/.exec(line)
      if (m) { key = m[1]; fields[key] = m[2] }
    }
  }
  return fields
}

// The packages that make the kernel: the versioned image the metapackage
// depends on, followed through linux-image-*, linux-binary-* and
// linux-modules-* dependencies (Debian splits the newer ones).
function resolveKernel (apt, k) {
  const meta = stanza(apt.show(`linux-image-${k.arch}/${k.suite}`))
  const seen = new Map()
  const queue = [meta.Depends || '']
  while (queue.length > 0) {
    for (const alt of queue.shift().split(',')) {
      const m = /^\s*(linux-(?:image|binary|modules)-(\d[^\s:(]*))(?::\w+)?\s*\(=\s*([^)\s]+)\)/.exec(alt.split('|')[0])
      if (!m || seen.has(m[1])) continue
      seen.set(m[1], m[3])
      queue.push(stanza(apt.show(`${m[1]}:${k.arch}=${m[3]}`)).Depends || '')
    }
  }
  const image = [...seen.keys()].find((p) => p.startsWith('linux-image-'))
  if (!image) throw new Error(`linux-image-${k.arch} in ${k.suite} depends on no versioned kernel image`)
  const release = image.slice('linux-image-'.length)
  if (!new RegExp(k.release).test(release)) throw new Error(`${k.suite} now gives kernel ${release}, which does not match ${k.release}: update test/kernels/kernels.json`)
  return { release, packages: [...seen].map(([p, v]) => `${p}:${k.arch}=${v}`) }
}

function fetchKernel (apt, cache, k, resolved) {
  const dir = path.join(cache, 'kernels', `${k.arch}-${resolved.release}`)
  const done = path.join(dir, '.complete')
  if (!fs.existsSync(done)) {
    fs.rmSync(dir, { recursive: true, force: true })
    const debs = path.join(dir, 'debs')
    fs.mkdirSync(debs, { recursive: true })
    apt.download(resolved.packages, debs)
    for (const deb of fs.readdirSync(debs)) run('dpkg-deb', ['-x', path.join(debs, deb), path.join(dir, 'root')])
    fs.rmSync(debs, { recursive: true })
    fs.writeFileSync(done, resolved.packages.join('\n') + '\n')
  }
  // (/lib/modules before trixie, /usr/lib/modules since; the image and
  // its config in /boot, or, since 7.x, the image beside the modules and
  // no config)
  const modules = ['lib', 'usr/lib'].map((d) => path.join(dir, 'root', d, 'modules', resolved.release)).find((d) => fs.existsSync(d))
  if (!modules) throw new Error(`the packages of ${resolved.release} hold no modules`)
  const boot = path.join(dir, 'root', 'boot')
  const inBoot = (re) => fs.existsSync(boot) ? fs.readdirSync(boot).find((f) => re.test(f)) : undefined
  const image = inBoot(/^vmlinu[zx]-/) ? path.join(boot, inBoot(/^vmlinu[zx]-/)) : path.join(modules, 'vmlinuz')
  if (!fs.existsSync(image)) throw new Error(`the packages of ${resolved.release} hold no kernel image`)
  const config = inBoot(/^config-/) ? fs.readFileSync(path.join(boot, inBoot(/^config-/)), 'utf8') : null
  return { dir, kernel: image, config, modules }
}

// ---- the guest's initramfs ------------------------------------------------

function moduleIndex (modulesDir) {
  const index = new Map()
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (/\.ko(\.xz|\.zst|\.gz)?$/.test(e.name)) index.set(e.name.replace(/\.ko(\.\w+)?$/, '').replace(/-/g, '_'), p)
    }
  }
  if (fs.existsSync(modulesDir)) walk(modulesDir)
  return index
}

function moduleBytes (file) {
  if (file.endsWith('.xz')) return Buffer.from(run('xz', ['-dc', file], { encoding: 'buffer' }))
  if (file.endsWith('.zst')) return Buffer.from(run('zstd', ['-dc', file], { encoding: 'buffer' }))
  if (file.endsWith('.gz')) return require('node:zlib').gunzipSync(fs.readFileSync(file))
  return fs.readFileSync(file)
}

// What a module needs loaded first: its .modinfo "depends=" field.
function dependsOf (bytes) {
  const at = bytes.indexOf('\0depends=')
  if (at < 0) return []
  const end = bytes.indexOf(0, at + 1)
  return bytes.subarray(at + 9, end).toString().split(',').filter(Boolean).map((n) => n.replace(/-/g, '_'))
}

// The modules to load, each after those it depends on; what the kernel
// has built in needs nothing, what it lacks entirely is an error.
function moduleOrder (kernel) {
  const index = moduleIndex(kernel.modules)
  const order = []
  const visit = (name, wanted) => {
    if (order.some((m) => m.name === name)) return
    const file = index.get(name)
    if (!file) {
      if (wanted && !builtIn(kernel, name)) throw new Error(`the kernel has no module ${name} and does not build it in`)
      return
    }
    const bytes = moduleBytes(file)
    for (const dep of dependsOf(bytes)) visit(dep, true)
    order.push({ name, bytes })
  }
  for (const m of MODULES) visit(m, !OPTIONAL.has(m))
  return order
}

// (without a config to read, a module the packages lack is taken as built
// in: if it is not, the guest's init fails, naming what it could not mount)
function builtIn (kernel, name) {
  if (kernel.config === null) return true
  const symbol = { virtio_blk: 'VIRTIO_BLK', '9pnet_virtio': 'NET_9P_VIRTIO', '9p': '9P_FS', overlay: 'OVERLAY_FS', ext4: 'EXT4_FS', virtio_pci: 'VIRTIO_PCI', loop: 'BLK_DEV_LOOP' }[name]
  if (symbol === undefined) return true
  return new RegExp(`^CONFIG_${symbol}=y$`, 'm').test(kernel.config)
}

function buildInitramfs (k, kernel, work) {
  const dir = path.join(work, 'initramfs')
  for (const d of ['bin', 'modules', 'proc', 'sys', 'dev']) fs.mkdirSync(path.join(dir, d), { recursive: true })
  fs.copyFileSync(busyboxFor(k, work), path.join(dir, 'bin', 'busybox'))
  fs.chmodSync(path.join(dir, 'bin', 'busybox'), 0o755)
  fs.copyFileSync(path.join(ROOT, 'test', 'kernels', 'init'), path.join(dir, 'init'))
  fs.chmodSync(path.join(dir, 'init'), 0o755)
  const order = moduleOrder(kernel)
  for (const m of order) fs.writeFileSync(path.join(dir, 'modules', `${m.name}.ko`), m.bytes)
  fs.writeFileSync(path.join(dir, 'modules', 'order'), order.map((m) => `${m.name}.ko\n`).join(''))
  const out = path.join(work, 'initramfs.cpio')
  const list = run('find', ['.', '-mindepth', '1'], { cwd: dir })
  run('busybox', ['cpio', '-o', '-H', 'newc', '-R', '0:0', '-F', out], { cwd: dir, input: list })
  return out
}

// amd64 guests take the host's busybox-static; another architecture's is
// its own Debian package, fetched like the kernel.
function busyboxFor (k, work) {
  if (QEMU[k.arch].busybox) return QEMU[k.arch].busybox
  throw new Error(`no busybox for ${k.arch} guests yet`)
}

// ---- the smoke guests: a root of their own architecture --------------

// What a smoke guest's root holds besides the package: node and what it
// loads, busybox (the shell and init), bubblewrap, so that its backend is
// judged too, and util-linux's setpriv (libcap-ng0), taken alone.
const SMOKE_PACKAGES = ['nodejs', 'busybox-static', 'bubblewrap', 'libcap-ng0']
const NODE_ARCH = { amd64: 'x64', arm64: 'arm64' }

// An initramfs that is the guest's whole root: k.root's packages for
// k.arch unpacked without their scripts, /usr merged, the package as users
// install it (the prebuild this checkout builds, no build/), and
// test/kernels/smoke-init and smoke.js.
function buildSmokeRoot (apt, k, work) {
  const pkg = path.join(work, 'package')
  run(process.execPath, [path.join(ROOT, 'scripts', 'prebuild.js'), `--arch=${NODE_ARCH[k.arch]}`, pkg])
  const debs = path.join(work, 'debs')
  fs.mkdirSync(debs)
  const setpriv = stanza(apt.show(`util-linux:${k.arch}/${k.root}`))
  apt.download([...apt.closure(k.arch, k.root, SMOKE_PACKAGES), `util-linux:${k.arch}=${setpriv.Version}`], debs)
  const root = path.join(work, 'root')
  for (const deb of fs.readdirSync(debs)) {
    if (!deb.startsWith('util-linux_')) {
      run('dpkg-deb', ['-x', path.join(debs, deb), root])
      continue
    }
    const x = path.join(work, 'util-linux')
    run('dpkg-deb', ['-x', path.join(debs, deb), x])
    fs.mkdirSync(path.join(root, 'usr', 'bin'), { recursive: true })
    fs.copyFileSync(path.join(x, 'usr', 'bin', 'setpriv'), path.join(root, 'usr', 'bin', 'setpriv'))
    fs.chmodSync(path.join(root, 'usr', 'bin', 'setpriv'), 0o755)
  }
  // a merged /usr: the programs' interpreter is /lib/ld-linux-*.so.1
  for (const d of ['bin', 'sbin', 'lib']) {
    fs.mkdirSync(path.join(root, 'usr', d), { recursive: true })
    const top = path.join(root, d)
    if (fs.existsSync(top) && !fs.lstatSync(top).isSymbolicLink()) {
      fs.cpSync(top, path.join(root, 'usr', d), { recursive: true, verbatimSymlinks: true })
      fs.rmSync(top, { recursive: true })
    }
    if (!fs.existsSync(top)) fs.symlinkSync(`usr/${d}`, top)
  }
  for (const d of ['doc', 'man', 'locale', 'lintian', 'info']) fs.rmSync(path.join(root, 'usr', 'share', d), { recursive: true, force: true })
  for (const d of ['proc', 'sys', 'dev', 'run', 'root', 'etc', 'var/cache', 'home', 'opt/smoke']) fs.mkdirSync(path.join(root, d), { recursive: true })
  for (const d of ['tmp', 'var/tmp']) {
    fs.mkdirSync(path.join(root, d), { recursive: true })
    fs.chmodSync(path.join(root, d), 0o1777)
  }
  fs.writeFileSync(path.join(root, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n')
  fs.writeFileSync(path.join(root, 'etc', 'group'), 'root:x:0:\nnogroup:x:65534:\n')
  fs.writeFileSync(path.join(root, 'etc', 'hosts'), '127.0.0.1 localhost\n')
  const installed = path.join(root, 'opt', 'sandy-native')
  for (const part of ['package.json', 'lib', 'bin']) fs.cpSync(path.join(ROOT, part), path.join(installed, part), { recursive: true })
  fs.cpSync(path.join(pkg, 'prebuilds'), path.join(installed, 'prebuilds'), { recursive: true })
  fs.cpSync(path.join(ROOT, 'node_modules', 'node-gyp-build'), path.join(installed, 'node_modules', 'node-gyp-build'), { recursive: true })
  fs.copyFileSync(path.join(ROOT, 'test', 'kernels', 'smoke-init'), path.join(root, 'init'))
  fs.chmodSync(path.join(root, 'init'), 0o755)
  fs.copyFileSync(path.join(ROOT, 'test', 'kernels', 'smoke.js'), path.join(root, 'opt', 'smoke', 'smoke.js'))
  const out = path.join(work, 'root.cpio')
  run('busybox', ['cpio', '-o', '-H', 'newc', '-R', '0:0', '-F', out], { cwd: root, input: run('find', ['.', '-mindepth', '1'], { cwd: root }) })
  fs.rmSync(root, { recursive: true })
  return out
}

// What the smoke run printed on the console: its TAP, and the probe's
// facts and verdicts per user (smoke.js's "# facts" and "# verdict" lines).
function smokeSummary (text, release) {
  const lines = text.replace(/\r/g, '').split('\n')
  const counts = { pass: 0, fail: 0, skip: 0, fails: [], skips: [] }
  const probes = {}
  for (const l of lines) {
    let m
    if ((m = /^(not )?ok \d+ - (.*)$/.exec(l))) {
      if (m[1]) { counts.fail++; counts.fails.push({ file: 'smoke.js', name: m[2] }) } else counts.pass++
    } else if ((m = /^# skip (\S+) (.*)$/.exec(l))) {
      counts.skip++
      counts.skips.push({ file: 'smoke.js', name: m[1], reason: m[2] })
    } else if ((m = /^# facts (\S+) .*landlockAbi=(\d+)/.exec(l))) {
      probes[m[1]] = { ...probes[m[1]], landlockAbi: Number(m[2]) }
    } else if ((m = /^# verdict (\S+) (\S+) usable=(\w+) enforcement=\S+ reason=(.*)$/.exec(l))) {
      const p = probes[m[1]] = { backends: {}, ...probes[m[1]] }
      p.backends = { ...p.backends, [m[2]]: { usable: m[3] === 'true', reason: m[4] } }
    }
  }
  for (const who of ['root', 'nobody']) {
    if (!lines.includes(`# end ${who} plan-ok`)) { counts.fail++; counts.fails.push({ file: 'smoke.js', name: `the ${who} run did not complete its plan` }) }
  }
  return { release, probes, counts }
}

// ---- the guest's disks ----------------------------------------------------

function sizeOf (dir) {
  return Number(run('du', ['-sb', '--exclude=.kernels', dir]).split('\t')[0])
}

function buildDisks (work) {
  const checkout = path.join(work, 'checkout.img')
  const mib = Math.ceil(sizeOf(ROOT) * 1.5 / (1 << 20)) + 512
  run('mke2fs', ['-q', '-F', '-t', 'ext4', '-E', 'root_owner=0:0', '-d', ROOT, checkout, `${mib}M`])
  const scratch = path.join(work, 'scratch.img')
  run('mke2fs', ['-q', '-F', '-t', 'ext4', scratch, '4096M'])
  return { checkout, scratch }
}

// ---- boot -----------------------------------------------------------------

function kernelLine (k, guest) {
  const enc = (s) => s.replace(/[^A-Za-z0-9/._-]/g, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'))
  return `console=${QEMU[k.arch].console} panic=-1 quiet loglevel=4 edd=off sandy.checkout=${enc(ROOT)} sandy.guest=${enc(guest)}`
}

// A suite guest boots the initramfs with the host's root, the disks and
// the results folder; a smoke guest's initramfs is its whole root.
function qemuArgs (k, kernel, initramfs, disks, results, accel, guest) {
  const common = [
    ...QEMU[k.arch].machine, '-accel', accel, ...(k.arch === 'amd64' ? ['-cpu', 'max'] : []),
    '-smp', String(Math.min(os.availableParallelism(), 4)), '-m', '4096', '-nographic', '-no-reboot', '-nic', 'none',
    '-kernel', kernel.kernel, '-initrd', initramfs]
  if (k.run === 'smoke') return [...common, '-append', `console=${QEMU[k.arch].console} rdinit=/init panic=-1 quiet`]
  return [...common, '-append', kernelLine(k, guest),
    '-drive', `file=${disks.checkout},format=raw,if=virtio`,
    '-drive', `file=${disks.scratch},format=raw,if=virtio`,
    '-virtfs', 'local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap',
    '-virtfs', `local,path=${results},mount_tag=results,security_model=none,multidevs=remap`
  ]
}

// Boots and waits for qemu to end: killed when the guest has not shown
// that it booted (a suite guest's "booted" mark, a smoke guest's second
// stage on the console) within bootLimitS (a kernel that hangs) or has
// not finished within GUEST_LIMIT_S. { booted, timedOut, seconds }
function boot (k, args, consoleLog, results, bootLimitS) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint()
    const out = fs.openSync(consoleLog, 'w')
    const child = spawn(QEMU[k.arch].bin, args, { stdio: ['ignore', out, out] })
    const booted = k.run === 'smoke'
      ? () => fs.readFileSync(consoleLog, 'utf8').includes('guest: stage 2')
      : () => fs.existsSync(path.join(results, 'booted'))
    let timedOut = false
    const kill = () => { timedOut = true; child.kill('SIGKILL') }
    const bootTimer = setTimeout(() => { if (!booted()) kill() }, bootLimitS * 1000)
    const timer = setTimeout(kill, GUEST_LIMIT_S * 1000)
    child.on('close', () => {
      clearTimeout(bootTimer)
      clearTimeout(timer)
      fs.closeSync(out)
      resolve({ booted: booted(), timedOut, seconds: Number(process.hrtime.bigint() - started) / 1e9 })
    })
  })
}

// Whether a guest's console shows the kernel's panic (asked of a guest
// that never marked itself booted: test/kernels/init): emulation under
// TCG now and then crashes a kernel while it boots.
function panickedBeforeBoot (text) {
  return /^(\[[ \d.]+\] )?Kernel panic - not syncing/m.test(text)
}

// KVM where it boots Debian's kernels (here it does not: the nested
// hypervisor refuses them), emulation otherwise; decided by the first boot
// of a guest of the host's architecture and kept for the run. Another
// architecture is always emulated.
let accelChoice = null
function accelerators (k) {
  if (NODE_ARCH[k.arch] !== process.arch) return ['tcg,thread=multi']
  if (accelChoice) return [accelChoice]
  try {
    fs.closeSync(fs.openSync('/dev/kvm', 'r+'))
    return ['kvm', 'tcg,thread=multi']
  } catch {
    return ['tcg,thread=multi']
  }
}

module.exports = { stanza, dependsOf, parseArgs, kernelLine, resolveKernel, smokeSummary, hostProblems, unfinished, panickedBeforeBoot, LIST }

if (require.main === module) main().catch((err) => fail(err.message))

async function main () {
  const opts = parseArgs(process.argv.slice(2))
  if (process.getuid() !== 0) fail('run as root (the guests run their tests as root and as uid 65534)')
  for (const tool of ['apt-get', 'dpkg-deb', 'mke2fs', 'busybox', ...new Set(LIST.map((k) => QEMU[k.arch].bin))]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) fail(`${tool} is not installed (scripts/setup.sh installs what the matrix needs)`)
  }
  const kernels = opts.kernels.length ? LIST.filter((k) => opts.kernels.includes(k.name)) : LIST
  fs.mkdirSync(opts.cache, { recursive: true })
  const apt = aptSetup(opts.cache)
  // (launcher-exec.test.js's static glibc launcher, built here: a guest's
  // emulated compiler takes most of a minute for it)
  if (kernels.some((k) => k.run === 'suite')) {
    run('make', ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc'), 'launcher', 'LIBC=host', `O=${path.join(ROOT, 'build', 'kernel-glibc')}`])
  }
  const rows = []
  for (const k of kernels) rows.push(await runKernel(apt, opts, k))
  if (opts.selfCheck) {
    run('make', ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc'), 'layers', `O=${path.join(ROOT, 'build', 'kernel-selfcheck')}`, 'LAYERS=view+landlock'])
    const newest = LIST.find((k) => k.name === 'newest')
    rows.push(await runKernel(apt, opts, newest, { label: 'newest, no seccomp', selfCheck: true }))
  }
  printTable(rows)
  // One line for .ci/run: the guests' counts, each problem the host's
  // strict mode found one failure more; a kernel that failed without a
  // failed test (no boot, no fetch) is one failure; the self-check's
  // cell is one pass when it turned red, as it must, one failure if not.
  const total = { pass: 0, fail: 0, skip: 0 }
  for (const r of rows) {
    const c = r.summary?.counts
    if (r.selfCheck || !c) total[r.ok ? 'pass' : 'fail']++
    else {
      total.pass += c.pass
      total.skip += c.skip
      total.fail += c.fail + (r.problems?.length ?? 0) || (r.ok ? 0 : 1)
    }
  }
  const line = `${total.pass} passed, ${total.fail} failed, ${total.skip} skipped`
  fs.writeFileSync(path.join(ROOT, '.kernel-results'), line + '\n')
  console.log(`# kernel matrix: ${line}`)
  process.exitCode = rows.every((r) => r.ok) ? 0 : 1
}

async function runKernel (apt, opts, k, variant = {}) {
  const started = process.hrtime.bigint()
  const row = { name: variant.label || k.name, kernel: k, selfCheck: Boolean(variant.selfCheck), ok: false, why: null, summary: null }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `sandy-kernel-${k.name}-`))
  try {
    const resolved = resolveKernel(apt, k)
    row.release = resolved.release
    const kernel = fetchKernel(apt, opts.cache, k, resolved)
    const smoke = k.run === 'smoke'
    const initramfs = smoke ? buildSmokeRoot(apt, k, work) : buildInitramfs(k, kernel, work)
    const disks = smoke ? null : buildDisks(work)
    const guest = opts.guest || (k.run === 'smoke' ? 'test/kernels/smoke' : 'test/kernels/guest')
    let r
    for (const accel of accelerators(k)) {
      // (one more boot when the kernel panicked before the guest's program
      // began: an emulation crash, not a finding; the second is final)
      for (let attempt = 1; attempt <= 2; attempt++) {
        const results = path.join(work, `results-${accel.split(',')[0]}-${attempt}`)
        fs.mkdirSync(results)
        const args = qemuArgs(k, kernel, initramfs, disks, results, accel, guest)
        if (variant.selfCheck) args[args.indexOf('-append') + 1] += ' sandy.selfcheck=1'
        r = await boot(k, args, path.join(work, 'console.log'), results, accel === 'kvm' ? 60 : 300)
        r.results = results
        r.accel = accel.split(',')[0]
        if (r.booted || attempt === 2 || !panickedBeforeBoot(fs.readFileSync(path.join(work, 'console.log'), 'utf8'))) break
        console.log(`# ${row.name}: the kernel panicked before the guest began (${r.accel}): booting it once more`)
      }
      if (r.booted) break
      console.log(`# ${row.name}: no boot with ${r.accel}${accel === 'kvm' ? ', emulating instead' : ''}`)
    }
    if (NODE_ARCH[k.arch] === process.arch) accelChoice = accelChoice || (r.booted ? (r.accel === 'kvm' ? 'kvm' : 'tcg,thread=multi') : null)
    row.accel = r.accel
    row.bootSeconds = r.seconds
    const read = (f) => fs.existsSync(path.join(r.results, f)) ? fs.readFileSync(path.join(r.results, f), 'utf8') : null
    const text = fs.readFileSync(path.join(work, 'console.log'), 'utf8')
    const status = smoke ? (text.includes('# guest done') ? '0' : null) : read('status')?.trim() ?? null
    row.summary = smoke ? smokeSummary(text, resolved.release) : read('summary.json') === null ? null : JSON.parse(read('summary.json'))
    const counts = row.summary?.counts
    if (!r.booted) row.why = 'the guest did not boot'
    else if (r.timedOut) row.why = `the guest did not finish in ${GUEST_LIMIT_S} s`
    else if (status === null) row.why = 'the guest never finished its program'
    else if (status !== '0' || !counts) row.why = `the guest's program exited ${status}`
    else if (variant.selfCheck) row.why = counts.fail > 0 && counts.pass > 0 ? null : 'the weakened launcher passed: the matrix could not have failed'
    else if (counts.fail > 0) row.why = `${counts.fail} failed`
    else if (counts.pass === 0) row.why = 'nothing passed'
    else if (k.strict && (row.problems = hostProblems(counts)).length > 0) {
      row.why = `the host's strict mode refuses ${row.problems.length}: ${row.problems.join('; ')}`
    }
    row.ok = row.why === null
    const from = text.indexOf(smoke ? 'guest: stage 2' : '# sandy probe as root')
    const shown = row.ok && from >= 0 ? text.slice(from) : text.split('\n').slice(-80).join('\n')
    process.stdout.write(`\n# ${row.name}: the guest's console${row.ok ? '' : ', last lines'}:\n${shown.split('\n').map((l) => `#   ${l}`).join('\n')}\n`)
    if (!row.ok) for (const [file, tail] of unfinished(path.join(r.results, 'streams'))) {
      process.stdout.write(`\n# ${row.name}: ${file} never finished; its last lines:\n${tail.map((l) => `#   ${l}`).join('\n')}\n`)
    }
  } catch (err) {
    row.why = err.message
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  row.seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(`# kernel ${row.name}${row.release ? ` (${row.release})` : ''}: ${row.ok ? 'ok' : `FAILED: ${row.why}`} in ${row.seconds.toFixed(0)} s`)
  return row
}

// The test files whose TAP stream (the guest's streams/ folder) lacks the
// closing time line tap prints at a file's end: [file, its last lines].
function unfinished (dir) {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).sort().filter((name) => streamFile(name) !== null).map((name) => [streamFile(name), fs.readFileSync(path.join(dir, name), 'utf8')])
    .filter(([, text]) => !/# time=[\d.]+ms\n$/.test(text)).map(([file, text]) => [file, text.split('\n').slice(-40)])
}

// What the host's strict mode (scripts/test-verdict.js) refuses in a
// guest's counts: a skip test/allowed-skips.js does not allow, a file in
// which nothing passed. For the kernels marked strict in the list, those
// offering every backend the host does, where the host's results must hold.
function hostProblems (counts) {
  return judge({ stages: [{ name: 'guest', seconds: 0, counts }], strict: true, uid: 0, allowlist: ALLOWED_SKIPS }).problems
}

function verdict (p, b) {
  if (!p || p.error || !p.backends?.[b]) return '?'
  return p.backends[b].usable ? 'yes' : 'no'
}

// kernel x user: the probe's verdict per backend, the tests (which run
// both users' cases) on the first row of each kernel.
function printTable (rows) {
  const lines = [['KERNEL', 'RELEASE', 'ABI', 'USER', 'SANDY', 'BWRAP', 'LANDLOCK', 'PASSED', 'FAILED', 'SKIPPED', 'SECONDS', 'RESULT']]
  for (const r of rows) {
    const s = r.summary
    for (const user of ['root', 'nobody']) {
      const p = s?.probes?.[user]
      const first = user === 'root'
      lines.push([first ? r.name : '', first ? r.release || '-' : '', p?.landlockAbi ?? '-', user, verdict(p, 'sandy'), verdict(p, 'bwrap'), verdict(p, 'landlock'),
        first ? s?.counts?.pass ?? '-' : '', first ? s?.counts?.fail ?? '-' : '', first ? s?.counts?.skip ?? '-' : '',
        first ? `${r.seconds.toFixed(0)}${s?.seconds ? ` (${s.seconds.toFixed(0)} tests)` : ''}` : '', first ? (r.ok ? (r.selfCheck ? 'ok (red, as it must be)' : 'ok') : `FAILED: ${r.why}`) : ''])
    }
  }
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)))
  console.log('\n# kernel matrix')
  for (const l of lines) console.log(l.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd())
}
