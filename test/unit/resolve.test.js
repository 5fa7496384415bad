'use strict'
// Resolution against real temporary trees: one working-directory snapshot,
// canonical grants, two-spelling denies, UTF-8, root, Linux exact
// read_write, deduplication, bounds, cwd coverage. Every temporary path
// carries a secret-looking name, and every error is checked for it.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { SandboxPolicy, SandboxError, limits } = require('../..')

const SECRET = 'SECRET-hunter2-k3y'
const CHECKOUT = path.resolve(__dirname, '..', '..')

// One tree for the whole file; world-traversable so that the unprivileged
// case below reaches exactly the directory it is meant to be refused.
const made = fs.mkdtempSync(path.join(os.tmpdir(), `sandy-${SECRET}-`))
fs.chmodSync(made, 0o755)
const root = fs.realpathSync(made)
t.teardown(() => fs.rmSync(made, { recursive: true, force: true }))

const at = (...parts) => path.join(root, ...parts)
const bytesAt = (...parts) => Buffer.concat([Buffer.from(root + '/'), ...parts.map((p) => Buffer.from(p))])

// Layout:
//   work/sub/          work/file           workX/
//   real/target/inner  real/file
//   links/ln -> real/target   links/lnfile -> real/file   links/lnroot -> /
//   links/lnparent -> real    links/loop -> links/loop
for (const d of ['work/sub', 'workX', 'real/target/inner', 'links', 'many']) fs.mkdirSync(at(d), { recursive: true })
fs.writeFileSync(at('work/file'), 'x')
fs.writeFileSync(at('real/file'), 'x')
fs.symlinkSync(at('real/target'), at('links/ln'))
fs.symlinkSync(at('real/file'), at('links/lnfile'))
fs.symlinkSync('/', at('links/lnroot'))
fs.symlinkSync(at('real'), at('links/lnparent'))
fs.symlinkSync('loop', at('links/loop'))

const policy = () => new SandboxPolicy('block_all')
const resolve = (p, cwd = root) => p.resolve({ cwd })

// Asserts an InvalidPolicy (or other kind) whose message matches and whose
// message and properties carry no path.
function refused (t, fn, pattern, kind = 'InvalidPolicy') {
  let err
  try {
    fn()
  } catch (e) {
    err = e
  }
  t.ok(err instanceof SandboxError, 'throws a SandboxError')
  if (!(err instanceof SandboxError)) return
  t.equal(err.kind, kind)
  t.match(err.message, pattern)
  noPath(t, err.message + JSON.stringify({ ...err }))
}

function noPath (t, text) {
  t.notOk(text.includes(SECRET), 'no path in the error')
  t.notOk(text.includes(os.tmpdir() + '/'), 'no temporary directory in the error')
}

t.test('relative paths are joined to the given cwd snapshot', async (t) => {
  const r = resolve(policy().grant('sub', 'read', 'subtree').grant('../real/file', 'read', 'exact'), at('work'))
  t.equal(r.cwd, at('work'))
  t.same(r.grants, [
    { path: at('work/sub'), access: 'read', scope: 'subtree' },
    { path: at('real/file'), access: 'read', scope: 'exact' }
  ])
  const other = resolve(policy().grant('target', 'read', 'subtree'), at('real'))
  t.equal(other.grants[0].path, at('real/target'))
  refused(t, () => resolve(policy().grant('sub', 'read', 'subtree'), at('workX')), /^InvalidPolicy: grants\[0\]: path does not exist$/)
})

t.test('the cwd snapshot is canonical and relative paths follow the real directory', async (t) => {
  const r = resolve(policy().grant('..', 'read', 'subtree'), at('links/ln'))
  t.equal(r.cwd, at('real/target'))
  t.equal(r.grants[0].path, at('real'), '.. of a symlinked cwd is the real parent')
})

t.test('without a cwd the process working directory is the snapshot', async (t) => {
  const r = policy().grant('.', 'read', 'subtree').resolve()
  t.equal(r.cwd, fs.realpathSync(process.cwd()))
  t.equal(r.grants[0].path, fs.realpathSync(process.cwd()))
})

// A command that can write the parent of the host's working directory
// renames it and leaves a symlink at the old name: Node's process.cwd()
// (cached until chdir) would then name the link's target, the kernel's
// cwd is the moved directory. The next default snapshot must be the
// kernel's (review of issue 13, F1).
t.test('without a cwd the snapshot is the kernel\'s working directory, not Node\'s cached one', async (t) => {
  const base = fs.mkdtempSync(path.join(root, 'cwdswap-'))
  fs.mkdirSync(path.join(base, 'ws', 'sub'), { recursive: true })
  fs.mkdirSync(path.join(base, 'elsewhere'))
  const script = `
    const { SandboxPolicy, AccessMode, PathScope, createSandboxPolicyService } = require(${JSON.stringify(CHECKOUT)})
    const { execFileSync } = require('child_process')
    process.cwd() // cached now
    execFileSync('/bin/sh', ['-c', 'mv ../sub ../moved && ln -s ../elsewhere ../sub'])
    const grant = new SandboxPolicy('block_all').grant('.', AccessMode.ReadWrite, PathScope.Subtree).resolve().grants[0].path
    const root = createSandboxPolicyService({ mode: 'workspace-write' }).resolve({}).workspaceRoot
    console.log(JSON.stringify({ cached: process.cwd(), grant, root }))`
  const r = spawnSync(process.execPath, ['-e', script], { cwd: path.join(base, 'ws', 'sub'), encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
  t.equal(r.status, 0, r.stderr)
  const got = JSON.parse(r.stdout)
  t.equal(got.cached, path.join(base, 'ws', 'sub'), 'control: Node\'s cached cwd still names the old spelling, now a link elsewhere')
  t.equal(got.grant, path.join(base, 'ws', 'moved'), 'a relative grant covers the directory the process is in')
  t.equal(got.root, path.join(base, 'ws', 'moved'), 'and so does the policy service\'s default workspace root')
})

t.test('the cwd must be an absolute existing directory', async (t) => {
  t.throws(() => policy().resolve({ cwd: 'relative/dir' }), TypeError)
  t.throws(() => policy().resolve({ cwd: '.' }), TypeError)
  refused(t, () => resolve(policy(), at('work/file')), /^InvalidPolicy: cwd: not a directory$/)
  refused(t, () => resolve(policy(), at('missing')), /^InvalidPolicy: cwd: path does not exist$/)
  const bad = Buffer.concat([bytesAt('badcwd-'), Buffer.from([0xff])])
  fs.mkdirSync(bad)
  refused(t, () => policy().resolve({ cwd: bad }), /^InvalidPolicy: cwd: resolved path is not valid UTF-8$/)
})

t.test('a symlink grant resolves to its target', async (t) => {
  const r = resolve(policy()
    .grant('links/ln', 'read', 'subtree')
    .grant(at('links/lnfile'), 'read', 'exact')
    .allowExecute('links/lnfile', 'exact'))
  t.same(r.grants.map((g) => g.path), [at('real/target'), at('real/file')])
  t.same(r.executableGrants, [{ path: at('real/file'), scope: 'exact' }])
})

t.test('symlink/.. is the parent of the target, not the lexical parent', async (t) => {
  const r = resolve(policy().grant('links/ln/..', 'read', 'subtree').allowExecute('links/ln/../file', 'exact'))
  t.equal(r.grants[0].path, at('real'))
  t.not(r.grants[0].path, at('links'))
  t.equal(r.executableGrants[0].path, at('real/file'))
})

t.test('a deny on a symlink keeps the lexical and the canonical spelling', async (t) => {
  const r = resolve(policy()
    .denySubtree('links/ln')
    .denySubtree(at('links/ln/'))
    .denyWriteExact('links/lnfile'))
  t.same(r.denySubtrees, [{ canonical: at('real/target'), lexical: at('links/ln') }], 'a trailing slash is not a component')
  t.same(r.denyWriteExact, [{ canonical: at('real/file'), lexical: at('links/lnfile') }])
})

t.test('a deny on a plain path has no lexical spelling', async (t) => {
  const r = resolve(policy()
    .denySubtree('work/sub')
    .denySubtree('links/lnparent/target')
    .denySubtree('links/ln/.')
    .denySubtree('links/ln/inner/..')
    .denyWriteExact('work/file'))
  t.same(r.denySubtrees, [
    { canonical: at('work/sub') },
    { canonical: at('real/target') }
  ], 'symlinked parents resolve; "." and ".." keep only the canonical spelling; duplicates collapse')
  t.same(r.denyWriteExact, [{ canonical: at('work/file') }])
  for (const d of [...r.denySubtrees, ...r.denyWriteExact]) t.notOk('lexical' in d)
})

t.test('every path must exist', async (t) => {
  refused(t, () => resolve(policy().grant('work', 'read', 'subtree').grant('nope', 'read', 'subtree')), /^InvalidPolicy: grants\[1\]: path does not exist$/)
  refused(t, () => resolve(policy().allowExecute(at('nope/deeper'), 'exact')), /^InvalidPolicy: executable_grants\[0\]: path does not exist$/)
  refused(t, () => resolve(policy().denySubtree('links/ln/nope')), /^InvalidPolicy: deny_subtrees\[0\]: path does not exist$/)
  refused(t, () => resolve(policy().denyWriteExact('work/file/x')), /^InvalidPolicy: deny_write_exact\[0\]: path does not exist/)
  refused(t, () => resolve(policy().grant('links/loop', 'read', 'exact')), /^InvalidPolicy: grants\[0\]: too many levels of symbolic links$/)
})

t.test('empty paths and NUL bytes are refused', async (t) => {
  refused(t, () => resolve(policy().grant('', 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: path is empty$/)
  refused(t, () => resolve(policy().denyWriteExact(Buffer.alloc(0))), /^InvalidPolicy: deny_write_exact\[0\]: path is empty$/)
  // The bytes before the NUL name an existing directory: truncating would succeed.
  refused(t, () => resolve(policy().grant(at('work') + '\0/sub', 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: path contains a NUL byte$/)
  refused(t, () => resolve(policy().denySubtree(Buffer.concat([bytesAt('work'), Buffer.from([0])]))), /^InvalidPolicy: deny_subtrees\[0\]: path contains a NUL byte$/)
})

t.test('paths must be valid UTF-8', async (t) => {
  const name = Buffer.from([0x66, 0xff])
  const bad = Buffer.concat([bytesAt(''), name])
  fs.mkdirSync(bad)
  fs.symlinkSync(bad, at('via-link'))

  refused(t, () => resolve(policy().grant(bad, 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: path is not valid UTF-8$/)
  // Resolves to a UTF-8 directory: only the input check refuses it.
  refused(t, () => resolve(policy().grant(Buffer.concat([bad, Buffer.from('/..')]), 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: path is not valid UTF-8$/)
  refused(t, () => resolve(policy().grant('via-link', 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: resolved path is not valid UTF-8$/)
  refused(t, () => resolve(policy().allowExecute('via-link', 'subtree')), /^InvalidPolicy: executable_grants\[0\]: resolved path is not valid UTF-8$/)
  refused(t, () => resolve(policy().denySubtree('via-link')), /^InvalidPolicy: deny_subtrees\[0\]: resolved path is not valid UTF-8$/)
  refused(t, () => resolve(policy().grant('work/\ud800', 'read', 'subtree')), /InvalidPolicy/)

  // Overlong, surrogate and beyond-U+10FFFF encodings name real directories.
  for (const seq of [[0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf0, 0x80, 0x80, 0xaf], [0x61, 0xe2, 0x82]]) {
    const p = Buffer.concat([bytesAt('u-'), Buffer.from(seq)])
    fs.mkdirSync(p)
    refused(t, () => resolve(policy().grant(p, 'read', 'exact')), /^InvalidPolicy: grants\[0\]: path is not valid UTF-8$/)
  }
  const fine = at('ok-\u00e9-\u20ac-\u{1f600}')
  fs.mkdirSync(fine)
  t.equal(resolve(policy().grant(Buffer.from(fine), 'read', 'exact')).grants[0].path, fine, 'well-formed multibyte UTF-8 is accepted')
})

t.test('paths are bounded in length', async (t) => {
  const long = 'a'.repeat(limits.pathBytes + 1)
  refused(t, () => resolve(policy().grant(long, 'read', 'exact')), /^InvalidPolicy: grants\[0\]: path is too long$/)
  // A relative path within the bound that exceeds it once joined.
  const rel = './'.repeat((limits.pathBytes - 1) / 2)
  t.equal(Buffer.byteLength(rel), limits.pathBytes - 1)
  refused(t, () => resolve(policy().grant(rel, 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: path is too long once joined to the working directory$/)
  t.same(resolve(policy().grant(rel, 'read', 'exact'), '/').grants, [{ path: '/', access: 'read', scope: 'exact' }], 'joined to / it still fits')
})

t.test('the root may only be granted exact read', async (t) => {
  t.same(resolve(policy().grant('/', 'read', 'exact')).grants, [{ path: '/', access: 'read', scope: 'exact' }])
  const cases = [
    [policy().grant('/', 'read', 'subtree'), /^InvalidPolicy: grants\[0\]: the root may only be granted exact read$/],
    [policy().grant('/', 'read_write', 'exact'), /^InvalidPolicy: grants\[0\]: the root may only be granted exact read$/],
    [policy().grant('/', 'read_write', 'subtree'), /^InvalidPolicy: grants\[0\]: the root may only be granted exact read$/],
    [policy().grant('links/lnroot', 'read', 'subtree'), /^InvalidPolicy: grants\[0\]: the root may only/],
    [policy().grant(root + '/..'.repeat(40), 'read', 'subtree'), /^InvalidPolicy: grants\[0\]: the root may only/],
    [policy().allowExecute('/', 'exact'), /^InvalidPolicy: executable_grants\[0\]: the root cannot be granted execution$/],
    [policy().allowExecute('//', 'subtree'), /^InvalidPolicy: executable_grants\[0\]: the root cannot be granted execution$/],
    [policy().denySubtree('/'), /^InvalidPolicy: deny_subtrees\[0\]: the root cannot be denied$/],
    [policy().denySubtree('links/lnroot'), /^InvalidPolicy: deny_subtrees\[0\]: the root cannot be denied$/],
    [policy().denyWriteExact('/'), /^InvalidPolicy: deny_write_exact\[0\]: the root cannot be denied$/],
    [policy().denyWriteExact('links/lnroot/.'), /^InvalidPolicy: deny_write_exact\[0\]: the root cannot be denied$/]
  ]
  for (const [p, pattern] of cases) refused(t, () => resolve(p), pattern)
})

t.test('exact read_write grants of regular files and directories are refused on Linux', { skip: process.platform !== 'linux' }, async (t) => {
  refused(t, () => resolve(policy().grant('work/file', 'read_write', 'exact')), /^InvalidPolicy: grants\[0\]: exact read_write grants of regular files are not supported on Linux$/)
  refused(t, () => resolve(policy().grant('links/lnfile', 'read_write', 'exact')), /^InvalidPolicy: grants\[0\]: exact read_write/)
  // the view cannot make a directory's node writable without its entries
  refused(t, () => resolve(policy().grant('work/sub', 'read_write', 'exact')), /^InvalidPolicy: grants\[0\]: exact read_write grants of directories are not supported on Linux$/)
  const r = resolve(policy()
    .grant('work/sub', 'read', 'exact')
    .grant('/dev/null', 'read_write', 'exact')
    .grant('work/file', 'read', 'exact')
    .grant('work', 'read_write', 'subtree'))
  t.same(r.grants, [
    { path: at('work/sub'), access: 'read', scope: 'exact' },
    { path: '/dev/null', access: 'read_write', scope: 'exact' },
    { path: at('work/file'), access: 'read', scope: 'exact' },
    { path: at('work'), access: 'read_write', scope: 'subtree' }
  ])
})

t.test('deduplication', async (t) => {
  const r = resolve(policy()
    .grant('work', 'read', 'subtree')
    .grant('real', 'read_write', 'subtree')
    .grant(at('work'), 'read_write', 'subtree')
    .grant('work', 'read', 'exact')
    .grant('links/ln', 'read', 'subtree')
    .grant('real/target', 'read', 'subtree')
    .grant('real/', 'read', 'subtree')
    .allowExecute('real/file', 'exact')
    .allowExecute('links/lnfile', 'exact')
    .allowExecute('real/file', 'subtree')
    .denySubtree('work/sub')
    .denySubtree(at('work/sub/'))
    .denySubtree('links/ln')
    .denySubtree('links/ln')
    .denySubtree('real/target')
    .denyWriteExact('work/file')
    .denyWriteExact('work/../work/file'))
  t.same(r.grants, [
    { path: at('work'), access: 'read_write', scope: 'subtree' },
    { path: at('real'), access: 'read_write', scope: 'subtree' },
    { path: at('work'), access: 'read', scope: 'exact' },
    { path: at('real/target'), access: 'read', scope: 'subtree' }
  ], 'read_write subsumes read for one path and scope; exact and subtree stay distinct; first-seen order')
  t.same(r.executableGrants, [
    { path: at('real/file'), scope: 'exact' },
    { path: at('real/file'), scope: 'subtree' }
  ])
  t.same(r.denySubtrees, [
    { canonical: at('work/sub') },
    { canonical: at('real/target'), lexical: at('links/ln') },
    { canonical: at('real/target') }
  ])
  t.same(r.denyWriteExact, [{ canonical: at('work/file') }])
})

t.test('inputs and effective rules are bounded', async (t) => {
  const max = limits.effectiveRules
  let p = policy()
  for (let i = 0; i < max; i++) p = p.grant('work', i % 2 ? 'read' : 'read_write', 'subtree')
  t.same(resolve(p).grants, [{ path: at('work'), access: 'read_write', scope: 'subtree' }], 'the bound itself is allowed')
  // Judged before deduplication: one more entry is refused even though it
  // would collapse into the same rule.
  refused(t, () => resolve(p.grant('work', 'read', 'subtree')), /^InvalidPolicy: policy: too many entries$/)
  refused(t, () => resolve(p.denySubtree('nope')), /^InvalidPolicy: policy: too many entries$/) // before any filesystem work

  // A deny with two spellings is two native rules.
  const half = max / 2
  for (let i = 0; i <= half; i++) {
    fs.mkdirSync(at('many', `d${i}`))
    fs.symlinkSync(at('many', `d${i}`), at('many', `l${i}`))
  }
  let denies = policy()
  for (let i = 0; i < half; i++) denies = denies.denySubtree(`many/l${i}`)
  t.equal(resolve(denies).denySubtrees.length, half, 'exactly the bound')
  refused(t, () => resolve(denies.denyWriteExact(`many/d${half}`)), /^InvalidPolicy: policy: too many effective rules after resolution$/) // one more single-spelling rule
  refused(t, () => resolve(denies.denyWriteExact(`many/l${half}`)), /^InvalidPolicy: policy: too many effective rules after resolution$/)
})

t.test('coversCwd', async (t) => {
  const cwd = at('work')
  const covers = (p, c = cwd) => resolve(p, c).coversCwd
  t.equal(covers(policy()), false, 'no grant')
  t.equal(covers(policy().grant(root, 'read', 'subtree')), true, 'subtree of an ancestor')
  t.equal(covers(policy().grant('.', 'read', 'subtree')), true, 'subtree of cwd itself')
  t.equal(covers(policy().grant('.', 'read', 'exact')), true, 'exact grant of cwd')
  t.equal(covers(policy().grant('..', 'read', 'exact')), false, 'exact grant of the parent')
  t.equal(covers(policy().grant('sub', 'read', 'subtree')), false, 'a child does not cover')
  t.equal(covers(policy().grant(at('work'), 'read', 'subtree'), at('workX')), false, '/a/b does not contain /a/bX')
  t.equal(covers(policy().allowExecute('.', 'subtree')), false, 'execute grants are not file grants')
  t.equal(covers(policy().grant('/', 'read', 'exact')), false, 'exact root read covers only /')
  t.equal(covers(policy().grant('/', 'read', 'exact'), '/'), true)
  t.equal(covers(policy().grant(root, 'read', 'subtree').denySubtree('.')), false, 'denied itself')
  t.equal(covers(policy().grant(root, 'read', 'subtree').denySubtree(root)), false, 'inside a denied subtree')
  t.equal(covers(policy().grant(root, 'read', 'subtree').denySubtree(at('links/lnparent')), at('real/target')), false, 'denied through its canonical spelling')
  t.equal(covers(policy().grant(root, 'read', 'subtree').denySubtree('../workX')), true, 'a sibling with a common prefix does not hide it')
  t.equal(covers(policy().grant(root, 'read', 'subtree').denyWriteExact('.')), true, 'deny_write_exact does not hide it')
})

// The child is a plain node: no test-runner hooks that write into the
// checkout (the runner re-adds NODE_OPTIONS to spawned environments, hence
// also `env -u` below).
function cleanEnv () {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (k !== 'NODE_OPTIONS' && !k.startsWith('TAP') && !k.startsWith('_TAP')) env[k] = v
  return env
}

t.test('an unprivileged user is refused untraversable paths without learning them', async (t) => {
  const locked = at('locked')
  fs.mkdirSync(at('locked', 'inner'), { recursive: true })
  fs.chmodSync(locked, 0o700)
  const open = at('open')
  fs.mkdirSync(open)
  if (process.getuid() !== 0) {
    fs.chmodSync(locked, 0o000)
    t.teardown(() => fs.chmodSync(locked, 0o700))
    let traversable = true
    try { fs.accessSync(at('locked', 'inner')) } catch { traversable = false }
    if (traversable) return t.skip('this user can traverse any directory')
    refused(t, () => resolve(policy().grant(at('locked', 'inner'), 'read', 'subtree')), /^InvalidPolicy: grants\[0\]: path is not accessible$/)
    return
  }
  const script = `
    const { SandboxPolicy } = require(${JSON.stringify(CHECKOUT)})
    const [cwd, target] = process.argv.slice(1)
    const run = (p) => { try { return { ok: p.resolve({ cwd }) } } catch (e) { return { error: { name: e.name, kind: e.kind, message: e.message, props: { ...e } } } } }
    console.log(JSON.stringify({
      locked: run(new SandboxPolicy('block_all').grant(target, 'read', 'subtree')),
      lockedDeny: run(new SandboxPolicy('block_all').denySubtree(target)),
      open: run(new SandboxPolicy('block_all').grant('open', 'read', 'subtree'))
    }))`
  const res = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'env', '-u', 'NODE_OPTIONS', process.execPath, '-e', script, root, at('locked', 'inner')], { encoding: 'utf8', cwd: '/', env: cleanEnv() })
  t.equal(res.status, 0, res.stderr)
  const out = JSON.parse(res.stdout)
  t.same(out.open.ok.grants, [{ path: open, access: 'read', scope: 'subtree' }], 'the same user resolves a reachable path')
  for (const [key, section] of [['locked', 'grants'], ['lockedDeny', 'deny_subtrees']]) {
    t.equal(out[key].error.name, 'SandboxError')
    t.equal(out[key].error.kind, 'InvalidPolicy')
    t.equal(out[key].error.message, `InvalidPolicy: ${section}[0]: path is not accessible`)
    noPath(t, JSON.stringify(out[key].error))
  }
})
