'use strict'
// The command line as a user meets it (issue 14): `--version`, help that
// fits 80 columns with an example per command, usage errors that exit 2
// and name the flag, other errors that name what the user gave and never a
// policy's contents (a policy file's parse error as FILE:LINE:COLUMN),
// `sandy run --verbose`, and the warning every partial run prints.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { main, COMMANDS, help, commandHelp } = require('../../lib/cli.js')
const { runCommand, announce } = require('../../lib/cli-run.js')

const CLI = path.join(__dirname, '..', '..', 'bin', 'sandy')
const VERSION = require('../../package.json').version
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE'))
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-cli-'))
fs.chmodSync(dir, 0o755)
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

function capture () {
  const o = { out: '', err: '' }
  return { o, io: { out: (s) => { o.out += s }, err: (s) => { o.err += s } } }
}

t.test('sandy --version prints the package version', async (t) => {
  for (const flag of ['--version', '-V']) {
    const r = spawnSync(process.execPath, [CLI, flag], { encoding: 'utf8', env })
    t.equal(r.status, 0)
    t.equal(r.stdout, `sandy-native ${VERSION}\n`, flag)
  }
})

t.test('every help text fits 80 columns, and each command has an example', async (t) => {
  const texts = { 'sandy --help': help() }
  for (const name of Object.keys(COMMANDS)) {
    texts[`sandy help ${name}`] = commandHelp(name)
    const c = capture()
    t.equal(await main([name, '--help'], c.io), 0)
    t.equal(c.o.out, commandHelp(name), `sandy ${name} --help is sandy help ${name}`)
    t.match(commandHelp(name), new RegExp(`\nExample:\n {2}sandy ${name} `), `sandy help ${name} has an example`)
  }
  for (const [what, text] of Object.entries(texts)) {
    const long = text.split('\n').filter((l) => l.length > 80)
    t.same(long, [], `${what}: no line over 80 columns`)
    const usage = text.slice(0, text.indexOf('\n\n')).split('\n')
    t.same(usage.filter((l) => (l.match(/\[/g) || []).length !== (l.match(/\]/g) || []).length), [], `${what}: no optional part split across usage lines`)
  }
  t.match(commandHelp('run'), /\[--allow-write DIR\]\.\.\./, 'a repeatable option says so')
  // control: the check sees a long line
  t.ok('x'.repeat(81).split('\n').some((l) => l.length > 80))
  for (const args of [['--help'], ['-h'], ['help'], ['help', 'help']]) {
    const c = capture()
    t.equal(await main(args, c.io), 0)
    t.equal(c.o.out, help(), `sandy ${args.join(' ')}`)
  }
  const c = capture()
  t.equal(await main(['help', 'run'], c.io), 0)
  t.equal(c.o.out, commandHelp('run'))
})

// [args, the first line on stderr] for usage errors: status 2, and the
// second line points to the command's help.
const USAGE = [
  [['frobnicate'], 'sandy: unknown command frobnicate'],
  [['help', 'nope'], 'sandy: help: no command nope'],
  [['help', 'run', 'probe'], 'sandy: help: no command run probe'],
  [['probe', 'x'], 'sandy probe: unexpected argument x'],
  [['probe', '--', 'x'], 'sandy probe: unexpected argument x'],
  [['probe', '--root'], 'sandy probe: --root needs a value'],
  [['probe', '--json=yes'], 'sandy probe: --json takes no value'],
  [['run', '--mode', 'x', '--', 'true'], 'sandy run: --mode must be read-only or workspace-write, not x'],
  [['run', '--mode', 'danger-full-access', '--', 'true'], 'sandy run: --mode danger-full-access would run the command unconfined: run it without sandy'],
  [['run', '--mode', 'read-only', 'echo', 'hi'], 'sandy run: echo is not an option: the command goes after --, as in `sandy run --mode read-only -- echo hi`'],
  [['run', '--mode', 'read-only', "it's", 'a b'], "sandy run: 'it'\\''s' is not an option: the command goes after --, as in `sandy run --mode read-only -- 'it'\\''s' 'a b'`"],
  [['run', '--mode', 'read-only', 'x', '--', 'true'], 'sandy run: unexpected argument x'],
  [['run', '--mode', 'read-only', '--', ''], 'sandy run: the command after -- is an empty word'],
  [['run', '--root', '-x', '--mode', 'read-only', '--', 'true'], 'sandy run: --root takes a value starting with - only joined to it, as --root=-VALUE'],
  [['run'], 'sandy run: give either --policy FILE.json or --mode MODE'],
  [['--version', 'x'], 'sandy: --version takes no argument'],
  [['run', '--mode', 'read-only'], 'sandy run: a command is required after --, as in `sandy run --mode workspace-write -- sh -c \'echo ok > here.txt\'`'],
  [['run', '--mode', 'read-only', '--'], 'sandy run: a command is required after --, as in `sandy run --mode workspace-write -- sh -c \'echo ok > here.txt\'`'],
  [['run', '--bogus', '--', 'true'], 'sandy run: unknown option --bogus'],
  [['run', '--mode'], 'sandy run: --mode needs a value'],
  [['run', '--mode=', '--', 'true'], 'sandy run: --mode needs a non-empty value'],
  [['run', '--mode', 'read-only', '--mode', 'read-only', '--', 'true'], 'sandy run: --mode given twice'],
  [['run', '--verbose=yes', '--mode', 'read-only', '--', 'true'], 'sandy run: --verbose takes no value'],
  [['run', '--backend', 'nope', '--mode', 'read-only', '--', 'true'], 'sandy run: --backend must be one of auto, sandy, bwrap, landlock, seatbelt, not nope'],
  [['run', '--', 'true'], 'sandy run: give either --policy FILE.json or --mode MODE'],
  [['run', '--policy', '/p.json', '--mode', 'read-only', '--', 'true'], 'sandy run: give either --policy FILE.json or --mode MODE'],
  [['run', '--policy', '/p.json', '--root', '/', '--', 'true'], 'sandy run: --root, --backend and --allow-write go with --mode, not --policy (a policy grants its own writes)'],
  [['run', '--policy', '/p.json', '--deny-read', '/x', '--', 'true'], 'sandy run: --deny-read, --protect, --no-protect, --keep-env, --protect-write, --no-protect-writes and --allow-home go with --mode, not --policy (a policy grants and denies by itself)'],
  [['run', '--mode', 'workspace-write', '--protect-write', 'hooks', '--', 'true'], 'sandy run: --protect-write must be one of git, startup, not hooks'],
  [['run', '--mode', 'workspace-write', '--protect-write', 'git', '--no-protect-writes', '--', 'true'], 'sandy run: give --protect-write NAME or --no-protect-writes, not both'],
  [['run', '--policy', '/p.json', '--keep-env', 'A', '--', 'true'], 'sandy run: --deny-read, --protect, --no-protect, --keep-env, --protect-write, --no-protect-writes and --allow-home go with --mode, not --policy (a policy grants and denies by itself)'],
  [['run', '--mode', 'read-only', '--no-protect', '--protect', 'credentials', '--', 'true'], 'sandy run: give --protect PRESET or --no-protect, not both'],
  [['run', '--mode', 'read-only', '--protect', 'passwords', '--', 'true'], 'sandy run: --protect must be one of credentials, host-sockets, not passwords'],
  [['run', '--mode', 'read-only', '--root', '/no/such/dir', '--', 'true'], 'sandy run: --root /no/such/dir: no such directory (ENOENT)'],
  [['run', '--mode', 'read-only', '--cwd', '/etc/passwd', '--', 'true'], 'sandy run: --cwd /etc/passwd: not a directory']
]

// Bare `sandy` is a usage error like the others (issue 31): the usage
// goes to stderr and the status is 2, where asking for help answers on
// stdout with 0 (above).
t.test('sandy without a command prints the usage on stderr and exits 2', async (t) => {
  const c = capture()
  t.equal(await main([], c.io), 2, 'status 2')
  t.equal(c.o.err, help(), 'the usage, on stderr')
  t.equal(c.o.out, '', 'nothing on stdout')
  const r = spawnSync(process.execPath, [CLI], { encoding: 'utf8', env })
  t.equal(r.status, 2, 'bin/sandy: status 2')
  t.equal(r.stderr, help(), 'bin/sandy: the usage, on stderr')
  t.equal(r.stdout, '', 'bin/sandy: nothing on stdout')
})

t.test('usage errors exit 2 and name the flag', async (t) => {
  for (const [args, first] of USAGE) {
    const c = capture()
    t.equal(await main(args, c.io), 2, `sandy ${args.join(' ')}: status 2`)
    const [line, hint] = c.o.err.split('\n')
    t.equal(line, first)
    t.match(hint, /^Run `sandy help( \w+)?` for (its usage|the commands)\.$/, 'and where the usage is')
    t.equal(c.o.out, '', 'nothing on stdout')
  }
})

t.test('a policy file is named as given; its contents never', async (t) => {
  const secret = 'SECRET-tok3n'
  const file = (name, text) => {
    const p = path.join(dir, name)
    fs.writeFileSync(p, text)
    return p
  }
  const parse = file('parse.json', `{\n  "schema_version": 1,\n  "grants": [{"path": "/${secret}" "access": "read"}]\n}\n`)
  const version = file('version.json', `{"schema_version": 99, "grants": [{"path": "/${secret}"}]}`)
  const uncovered = file('uncovered.json', JSON.stringify({ schema_version: 1, network: 'block_all', grants: [{ path: '/usr', access: 'read', scope: 'subtree' }] }))
  const cases = [
    [['--policy', parse], new RegExp(`^sandy run: ${parse}:3:\\d+: Parse: `)],
    [['--policy', version], new RegExp(`^sandy run: ${version}: UnsupportedVersion: `)],
    [['--policy', path.join(dir, 'missing.json')], new RegExp(`^sandy run: --policy ${path.join(dir, 'missing.json')}: cannot read it \\(ENOENT\\)\\n$`)],
    [['--policy', uncovered, '--cwd', dir], new RegExp(`^sandy run: ${uncovered}: InvalidPolicy: the working directory must be covered by a grant\\n$`)]
  ]
  for (const [args, want] of cases) {
    const c = capture()
    t.equal(await runCommand([...args, '--', '/bin/true'], c.io), 1, `${path.basename(args[1])}: status 1`)
    t.match(c.o.err, want)
    t.notMatch(c.o.err, /SECRET/, 'the contents are not echoed')
  }
  // a file of any size, or none: read no further than the limit allows
  const { limits } = require('../..')
  const big = file('big.json', ' '.repeat(limits.documentBytes + 10))
  for (const f of [big, '/dev/zero']) {
    const c = capture()
    t.equal(await runCommand(['--policy', f, '--', '/bin/true'], c.io), 1, `${f}: status 1`)
    t.match(c.o.err, new RegExp(`^sandy run: ${f}: TooLarge: `), `${f}: too large, read no further`)
  }
  // an error of another kind than the document's passes through as it is
  const { SandboxPolicy } = require('../../lib/policy')
  const fromJson = SandboxPolicy.fromJson
  SandboxPolicy.fromJson = () => { throw new Error('the addon is gone') }
  const c = capture()
  try {
    t.equal(await runCommand(['--policy', uncovered, '--', '/bin/true'], c.io), 1)
  } finally {
    SandboxPolicy.fromJson = fromJson
  }
  t.equal(c.o.err, 'sandy run: the addon is gone\n')
})

t.test('--verbose says which backend runs the command, and how', async (t) => {
  let c = capture()
  t.equal(await runCommand(['--mode', 'read-only', '--verbose', '--cwd', dir, '--', '/bin/true'], c.io), 0)
  t.match(c.o.err, new RegExp(`^sandy: backend sandy, enforcement full, launcher /\\S+/sandy-launcher\\S*, sandy-native ${VERSION.replace(/\./g, '\\.')}\\n$`))
  c = capture()
  t.equal(await runCommand(['--mode', 'read-only', '--backend', 'bwrap', '--verbose', '--cwd', dir, '--', '/bin/true'], c.io), 0)
  t.match(c.o.err, /^sandy: backend bwrap, enforcement full, launcher /)
  const policy = path.join(dir, 'p.json')
  fs.writeFileSync(policy, JSON.stringify({
    schema_version: 1,
    network: 'block_all',
    grants: ['/usr', '/bin', '/lib', '/lib64', dir].map((p) => ({ path: p, access: 'read', scope: 'subtree' })),
    executable_grants: [{ path: '/usr', scope: 'subtree' }]
  }))
  // (in a child with pipes for stdio: a Sandy policy refuses an inherited
  // stdout that is a regular file, as a test runner's may be)
  const r = spawnSync(process.execPath, [CLI, 'run', '--policy', policy, '--verbose', '--cwd', dir, '--', '/bin/true'], { encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  t.match(r.stderr, /^sandy: backend sandy, enforcement full, launcher /)
  c = capture()
  t.equal(await runCommand(['--mode', 'read-only', '--cwd', dir, '--', '/bin/true'], c.io), 0)
  t.equal(c.o.err, '', 'without --verbose, a full run says nothing')
})

t.test('a partial run always warns, naming what is ungoverned', async (t) => {
  const c = capture()
  announce({ verbose: false }, { confined: { enforcement: 'partial', argv: ['/l'] }, backend: 'landlock' }, c.io)
  t.equal(c.o.err, 'sandy: warning: enforcement is partial under the landlock backend: Landlock does not govern chmod, chown, utime or xattr changes, and names inside denied directories stay listable\n')
  // for real: the landlock backend, which a root provider does not offer,
  // as uid 65534
  const wrap = process.getuid() === 0 ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []
  const r = spawnSync(wrap[0] || process.execPath, [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), CLI, 'run', '--mode', 'read-only', '--backend', 'landlock', '--cwd', dir, '--', '/bin/true'],
    { encoding: 'utf8', env: { ...env, HOME: dir } })
  t.equal(r.status, 0, r.stderr)
  t.match(r.stderr, /^sandy: warning: enforcement is partial under the landlock backend: Landlock does not govern chmod/)
})

t.test('an error that is not the user\'s is not a usage error', async (t) => {
  // a working directory removed under the process: the kernel's cwd is gone
  const gone = fs.mkdtempSync(path.join(dir, 'gone-'))
  const here = process.cwd()
  process.chdir(gone)
  fs.rmdirSync(gone)
  try {
    await t.rejects(runCommand(['--mode', 'read-only', '--', '/bin/true'], capture().io), { code: 'ENOENT' })
    await t.rejects(main(['probe'], capture().io), { code: 'ENOENT' })
  } finally {
    process.chdir(here)
  }
})

t.test('sandy probe names a missing launcher instead of failing', async (t) => {
  const binding = require('../../lib/binding.js')
  const launcherPath = binding.launcherPath
  binding.launcherPath = () => { throw new Error('the sandy launcher is missing (test)') }
  const c = capture()
  try {
    t.equal(await main(['probe', '--json'], c.io), 0)
  } finally {
    binding.launcherPath = launcherPath
  }
  t.equal(JSON.parse(c.o.out).package.launcher, 'none: the sandy launcher is missing (test)')
})

t.test('sandy probe shows the launcher and the copy that runs', async (t) => {
  const binding = require('../../lib/binding.js')
  const c = capture()
  t.equal(await main(['probe', '--json'], c.io), 0)
  const pkg = JSON.parse(c.o.out).package
  t.equal(pkg.launcher, binding.launcherPath())
  t.equal(pkg.launcherCopy, binding.verifiedLauncherPath(), 'the copy a confined command runs')
  const v = capture()
  await runCommand(['--mode', 'read-only', '--verbose', '--cwd', dir, '--', '/bin/true'], v.io)
  t.match(v.o.err, `launcher ${pkg.launcherCopy},`, 'the one --verbose names')
})
