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

const ROOT = path.resolve(__dirname, '..')
const LIST = require('../test/kernels/kernels.json').kernels
// (crc32c: ext4 asks the crypto API for it by name, not as a dependency;
// where it is a module it must be loaded first)
const MODULES = ['virtio_pci', 'virtio_mmio', 'virtio_blk', '9pnet_virtio', '9p', 'overlay', 'crc32c_generic', 'ext4']
const OPTIONAL = new Set(['virtio_pci', 'virtio_mmio', 'crc32c_generic'])
const QEMU = {
  amd64: { bin: 'qemu-system-x86_64', machine: ['-M', 'q35'], console: 'ttyS0', busybox: '/bin/busybox' },
  arm64: { bin: 'qemu-system-aarch64', machine: ['-M', 'virt', '-cpu', 'max'], console: 'ttyAMA0' }
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
    download: (pkgs, into) => run('apt-get', [...opts, '-q', 'download', ...pkgs], { cwd: into })
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
  const boot = path.join(dir, 'root', 'boot')
  const image = fs.readdirSync(boot).find((f) => /^(vmlinuz|vmlinux)-/.test(f))
  const config = fs.readdirSync(boot).find((f) => f.startsWith('config-'))
  if (!image || !config) throw new Error(`the packages of ${resolved.release} hold no kernel image or config under /boot`)
  // (/lib/modules before trixie, /usr/lib/modules since)
  const modules = ['lib', 'usr/lib'].map((d) => path.join(dir, 'root', d, 'modules', resolved.release)).find((d) => fs.existsSync(d))
  if (!modules) throw new Error(`the packages of ${resolved.release} hold no modules`)
  return { dir, kernel: path.join(boot, image), config: fs.readFileSync(path.join(boot, config), 'utf8'), modules }
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

function builtIn (kernel, name) {
  const symbol = { virtio_blk: 'VIRTIO_BLK', '9pnet_virtio': 'NET_9P_VIRTIO', '9p': '9P_FS', overlay: 'OVERLAY_FS', ext4: 'EXT4_FS', virtio_pci: 'VIRTIO_PCI' }[name]
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

function qemuArgs (k, kernel, initramfs, disks, results, accel, guest) {
  return [
    ...QEMU[k.arch].machine, '-accel', accel, ...(k.arch === 'amd64' ? ['-cpu', 'max'] : []),
    '-smp', String(Math.min(os.availableParallelism(), 4)), '-m', '4096', '-nographic', '-no-reboot', '-nic', 'none',
    '-kernel', kernel.kernel, '-initrd', initramfs, '-append', kernelLine(k, guest),
    '-drive', `file=${disks.checkout},format=raw,if=virtio`,
    '-drive', `file=${disks.scratch},format=raw,if=virtio`,
    '-virtfs', 'local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap',
    '-virtfs', `local,path=${results},mount_tag=results,security_model=none,multidevs=remap`
  ]
}

// Boots and waits for qemu to end: killed when the guest has not written
// its "booted" mark within bootLimitS (a kernel that hangs) or has not
// finished within GUEST_LIMIT_S. { booted, timedOut, seconds }
function boot (k, args, consoleLog, results, bootLimitS) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint()
    const out = fs.openSync(consoleLog, 'w')
    const child = spawn(QEMU[k.arch].bin, args, { stdio: ['ignore', out, out] })
    const booted = () => fs.existsSync(path.join(results, 'booted'))
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

// KVM where it boots Debian's kernels (here it does not: the nested
// hypervisor refuses them), emulation otherwise; decided by the first boot
// and kept for the run.
let accelChoice = null
function accelerators () {
  if (accelChoice) return [accelChoice]
  try {
    fs.closeSync(fs.openSync('/dev/kvm', 'r+'))
    return ['kvm', 'tcg,thread=multi']
  } catch {
    return ['tcg,thread=multi']
  }
}

module.exports = { stanza, dependsOf, parseArgs, kernelLine }

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
  const rows = []
  for (const k of kernels) rows.push(await runKernel(apt, opts, k))
  if (opts.selfCheck) {
    run('make', ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc'), 'layers', `O=${path.join(ROOT, 'build', 'kernel-selfcheck')}`, 'LAYERS=view+landlock'])
    const newest = LIST.find((k) => k.name === 'newest')
    rows.push(await runKernel(apt, opts, newest, { label: 'newest, no seccomp', selfCheck: true }))
  }
  printTable(rows)
  // One line for .ci/run: the guests' counts; a kernel that failed without
  // a failed test (no boot, no fetch) is one failure; the self-check's
  // cell is one pass when it turned red, as it must, one failure if not.
  const total = { pass: 0, fail: 0, skip: 0 }
  for (const r of rows) {
    const c = r.summary?.counts
    if (r.selfCheck || !c) total[r.ok ? 'pass' : 'fail']++
    else {
      total.pass += c.pass
      total.skip += c.skip
      total.fail += c.fail > 0 ? c.fail : r.ok ? 0 : 1
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
    const initramfs = buildInitramfs(k, kernel, work)
    const disks = buildDisks(work)
    const guest = opts.guest || (k.run === 'smoke' ? 'test/kernels/smoke' : 'test/kernels/guest')
    let r
    for (const accel of accelerators()) {
      const results = path.join(work, `results-${accel.split(',')[0]}`)
      fs.mkdirSync(results)
      const args = qemuArgs(k, kernel, initramfs, disks, results, accel, guest)
      if (variant.selfCheck) args[args.indexOf('-append') + 1] += ' sandy.selfcheck=1'
      r = await boot(k, args, path.join(work, 'console.log'), results, accel === 'kvm' ? 60 : 300)
      r.results = results
      r.accel = accel.split(',')[0]
      if (r.booted) break
      console.log(`# ${row.name}: no boot with ${r.accel}${accel === 'kvm' ? ', emulating instead' : ''}`)
    }
    accelChoice = accelChoice || (r.booted ? (r.accel === 'kvm' ? 'kvm' : 'tcg,thread=multi') : null)
    row.accel = r.accel
    row.bootSeconds = r.seconds
    const read = (f) => fs.existsSync(path.join(r.results, f)) ? fs.readFileSync(path.join(r.results, f), 'utf8') : null
    const status = read('status')?.trim() ?? null
    row.summary = read('summary.json') === null ? null : JSON.parse(read('summary.json'))
    const text = fs.readFileSync(path.join(work, 'console.log'), 'utf8')
    const counts = row.summary?.counts
    if (!r.booted) row.why = 'the guest did not boot'
    else if (r.timedOut) row.why = `the guest did not finish in ${GUEST_LIMIT_S} s`
    else if (status === null) row.why = 'the guest never finished its program'
    else if (status !== '0' || !counts) row.why = `the guest's program exited ${status}`
    else if (variant.selfCheck) row.why = counts.fail > 0 && counts.pass > 0 ? null : 'the weakened launcher passed: the matrix could not have failed'
    else if (counts.fail > 0) row.why = `${counts.fail} failed`
    else if (counts.pass === 0) row.why = 'nothing passed'
    row.ok = row.why === null
    const from = text.indexOf('# sandy probe as root')
    const shown = row.ok && from >= 0 ? text.slice(from) : text.split('\n').slice(-80).join('\n')
    process.stdout.write(`\n# ${row.name}: the guest's console${row.ok ? '' : ', last lines'}:\n${shown.split('\n').map((l) => `#   ${l}`).join('\n')}\n`)
  } catch (err) {
    row.why = err.message
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  row.seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(`# kernel ${row.name}${row.release ? ` (${row.release})` : ''}: ${row.ok ? 'ok' : `FAILED: ${row.why}`} in ${row.seconds.toFixed(0)} s`)
  return row
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
        first ? r.seconds.toFixed(0) : '', first ? (r.ok ? (r.selfCheck ? 'ok (red, as it must be)' : 'ok') : `FAILED: ${r.why}`) : ''])
    }
  }
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)))
  console.log('\n# kernel matrix')
  for (const l of lines) console.log(l.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd())
}
