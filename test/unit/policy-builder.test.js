'use strict'
// The builder and the document agree: builder -> toJSON -> JSON text ->
// fromJson gives the same policy, and so does fromJson -> toJSON ->
// fromJson. Builders never change the policy they are called on, validate
// their enum and type arguments, and neither building nor parsing looks at
// the filesystem.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const {
  SandboxPolicy,
  AccessMode,
  PathScope,
  NetworkPolicy,
  PolicyDocumentError,
  SandboxError
} = require('../..')

const viaText = (policy) => SandboxPolicy.fromJson(JSON.stringify(policy))
const viaBuffer = (policy) => SandboxPolicy.fromJson(Buffer.from(JSON.stringify(policy, null, 2)))

function sample () {
  return new SandboxPolicy(NetworkPolicy.BlockAll)
    .allowSubprocesses()
    .grant('workspace', AccessMode.ReadWrite, PathScope.Subtree)
    .allowExecute('workspace', PathScope.Subtree)
    .grant('/usr', AccessMode.Read, PathScope.Subtree)
    .grant('/etc/hosts', AccessMode.Read, PathScope.Exact)
    .allowExecute('/usr/bin/env', PathScope.Exact)
    .denySubtree('workspace/credentials')
    .denyWriteExact('workspace/settings.json')
}

t.test('enum values are the document words', async (t) => {
  t.same(AccessMode, { Read: 'read', ReadWrite: 'read_write' })
  t.same(PathScope, { Exact: 'exact', Subtree: 'subtree' })
  t.same(NetworkPolicy, { AllowAll: 'allow_all', BlockAll: 'block_all' })
  t.ok(Object.isFrozen(AccessMode) && Object.isFrozen(PathScope) && Object.isFrozen(NetworkPolicy))
})

t.test('builder -> toJSON -> JSON text -> fromJson is the same policy', async (t) => {
  const p = sample()
  const j = p.toJSON()
  t.same(j, {
    schema_version: 1,
    network: 'block_all',
    allow_subprocesses: true,
    grants: [
      { path: 'workspace', access: 'read_write', scope: 'subtree' },
      { path: '/usr', access: 'read', scope: 'subtree' },
      { path: '/etc/hosts', access: 'read', scope: 'exact' }
    ],
    executable_grants: [
      { path: 'workspace', scope: 'subtree' },
      { path: '/usr/bin/env', scope: 'exact' }
    ],
    deny_subtrees: ['workspace/credentials'],
    deny_write_exact: ['workspace/settings.json']
  }, 'toJSON is the version 1 document, in builder order')
  t.equal(JSON.stringify(p), JSON.stringify(j), 'JSON.stringify uses toJSON')
  t.same(viaText(p).toJSON(), j, 'compact text')
  t.same(viaBuffer(p).toJSON(), j, 'indented text in a Buffer')
  const q = viaText(p)
  t.equal(q.network, 'block_all')
  t.equal(q.allowsSubprocesses, true)
})

t.test('every combination of the top-level choices round-trips', async (t) => {
  for (const network of Object.values(NetworkPolicy)) {
    for (const sub of [false, true]) {
      let p = new SandboxPolicy(network)
      if (sub) p = p.allowSubprocesses()
      const back = viaText(p)
      t.same(back.toJSON(), p.toJSON(), `${network}, subprocesses ${sub}`)
      t.equal(back.network, network)
      t.equal(back.allowsSubprocesses, sub)
    }
  }
  for (const access of Object.values(AccessMode)) {
    for (const scope of Object.values(PathScope)) {
      const p = new SandboxPolicy(NetworkPolicy.AllowAll).grant('x', access, scope).allowExecute('y', scope)
      t.same(viaText(p).toJSON(), p.toJSON(), `${access} ${scope}`)
    }
  }
})

t.test('fromJson -> toJSON -> fromJson is stable, defaults filled in', async (t) => {
  const source = '{"network":"allow_all","schema_version":1,"deny_write_exact":["b"],"grants":[{"scope":"exact","access":"read","path":"a"}]}'
  const once = SandboxPolicy.fromJson(source)
  const j = once.toJSON()
  t.same(j, {
    schema_version: 1,
    network: 'allow_all',
    allow_subprocesses: false,
    grants: [{ path: 'a', access: 'read', scope: 'exact' }],
    executable_grants: [],
    deny_subtrees: [],
    deny_write_exact: ['b']
  })
  const twice = viaText(once)
  t.same(twice.toJSON(), j)
  t.same(viaText(twice).toJSON(), j)
})

t.test('repeated and overlapping entries are kept as written', async (t) => {
  const p = new SandboxPolicy(NetworkPolicy.BlockAll)
    .grant('a', AccessMode.Read, PathScope.Subtree)
    .grant('a', AccessMode.Read, PathScope.Subtree)
    .grant('a', AccessMode.ReadWrite, PathScope.Subtree)
    .denySubtree('a')
    .denySubtree('a')
  const back = viaText(p).toJSON()
  t.equal(back.grants.length, 3)
  t.equal(back.deny_subtrees.length, 2)
  t.same(back, p.toJSON())
})

t.test('builders leave the original policy unchanged', async (t) => {
  const base = new SandboxPolicy(NetworkPolicy.BlockAll)
  const before = JSON.stringify(base)
  const a = base.grant('a', AccessMode.Read, PathScope.Exact)
  const b = base.allowSubprocesses()
  const c = base.denySubtree('d').denyWriteExact('w').allowExecute('x', PathScope.Exact)
  t.equal(JSON.stringify(base), before, 'base unchanged')
  t.not(a, base)
  t.equal(a.toJSON().grants.length, 1)
  t.equal(b.toJSON().grants.length, 0, 'siblings do not share entries')
  t.equal(b.allowsSubprocesses, true)
  t.equal(base.allowsSubprocesses, false)
  t.equal(c.toJSON().deny_subtrees.length, 1)
  t.equal(a.toJSON().deny_subtrees.length, 0)
  t.ok(Object.isFrozen(base) && Object.isFrozen(a) && Object.isFrozen(c), 'policies are frozen')

  const parsed = SandboxPolicy.fromJson('{"schema_version":1,"network":"block_all","grants":[{"path":"g","access":"read","scope":"exact"}]}')
  const parsedBefore = JSON.stringify(parsed)
  parsed.grant('more', AccessMode.ReadWrite, PathScope.Subtree).allowSubprocesses()
  t.equal(JSON.stringify(parsed), parsedBefore, 'a parsed policy is immutable too')

  // The emitted document is a copy: editing it does not reach the policy.
  const j = parsed.toJSON()
  j.grants.push({ path: 'evil', access: 'read_write', scope: 'subtree' })
  j.network = 'allow_all'
  j.grants[0].access = 'read_write'
  t.equal(JSON.stringify(parsed), parsedBefore, 'editing toJSON output changes nothing')
  t.throws(() => { parsed.extra = 1 }, TypeError, 'no new properties (strict mode)')
})

t.test('enum and type arguments are validated', async (t) => {
  const p = new SandboxPolicy(NetworkPolicy.BlockAll)
  t.throws(() => new SandboxPolicy(), TypeError, 'network required')
  t.throws(() => new SandboxPolicy('none'), TypeError)
  t.throws(() => new SandboxPolicy('BLOCK_ALL'), TypeError, 'enum words are case-sensitive')
  t.throws(() => p.grant('a', 'write', PathScope.Exact), TypeError)
  t.throws(() => p.grant('a', AccessMode.Read, 'recursive'), TypeError)
  t.throws(() => p.grant('a', undefined, PathScope.Exact), TypeError)
  t.throws(() => p.grant('a', AccessMode.Read), TypeError, 'scope required')
  t.throws(() => p.grant(42, AccessMode.Read, PathScope.Exact), TypeError)
  t.throws(() => p.grant(null, AccessMode.Read, PathScope.Exact), TypeError)
  t.throws(() => p.grant({ path: 'a' }, AccessMode.Read, PathScope.Exact), TypeError)
  t.throws(() => p.allowExecute('a', 'read'), TypeError)
  t.throws(() => p.allowExecute(undefined, PathScope.Exact), TypeError)
  t.throws(() => p.denySubtree(7), TypeError)
  t.throws(() => p.denyWriteExact([]), TypeError)
  t.equal(JSON.stringify(p), JSON.stringify(new SandboxPolicy(NetworkPolicy.BlockAll)), 'failed calls change nothing')
})

t.test('unicode and awkward paths round-trip exactly', async (t) => {
  const paths = [
    'caf\u00e9/\u65e5\u672c\u8a9e/\u{1F600}',
    '/tmp/space and "quotes" and \\backslash\\',
    'line\nbreak\ttab\u0001control\u007fdel',
    'sep\u2028arators\u2029',
    '\u{10FFFF}/\uFFFD/\u0800',
    '../relative/./path//double'
  ]
  let p = new SandboxPolicy(NetworkPolicy.BlockAll)
  for (const s of paths) {
    p = p.grant(s, AccessMode.Read, PathScope.Subtree).allowExecute(s, PathScope.Exact).denySubtree(s).denyWriteExact(s)
  }
  for (const back of [viaText(p), viaBuffer(p)]) {
    const j = back.toJSON()
    t.same(j.grants.map((g) => g.path), paths)
    t.same(j.executable_grants.map((g) => g.path), paths)
    t.same(j.deny_subtrees, paths)
    t.same(j.deny_write_exact, paths)
  }
  // The same paths written as \u escapes, every character escaped.
  const escaped = (s) => '"' + [...s].map((ch) => {
    const cp = ch.codePointAt(0)
    if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0')
    const v = cp - 0x10000
    return '\\u' + (0xd800 + (v >> 10)).toString(16) + '\\u' + (0xdc00 + (v & 0x3ff)).toString(16)
  }).join('') + '"'
  const source = `{"schema_version":1,"network":"block_all","deny_subtrees":[${paths.map(escaped).join(',')}]}`
  t.same(SandboxPolicy.fromJson(source).toJSON().deny_subtrees, paths, 'fully escaped form decodes to the same paths')
})

t.test('Buffer paths that are UTF-8 round-trip as strings', async (t) => {
  const p = new SandboxPolicy(NetworkPolicy.BlockAll).denySubtree(Buffer.from('b\u00fcffer'))
  t.same(viaText(p).toJSON().deny_subtrees, ['b\u00fcffer'])
  const raw = new SandboxPolicy(NetworkPolicy.BlockAll).denySubtree(Buffer.from([0x61, 0xff]))
  t.throws(() => raw.toJSON(), SandboxError, 'a non-UTF-8 path cannot be written to a document')
})

// The types say Uint8Array (no @types/node needed): a plain one works
// wherever a Buffer does, copied when given.
t.test('a plain Uint8Array is a path and a cwd, like a Buffer', async (t) => {
  const bytes = new Uint8Array([0x2f, 0x75, 0x73, 0x72]) // /usr
  const p = new SandboxPolicy(NetworkPolicy.BlockAll).grant(bytes, AccessMode.Read, PathScope.Subtree)
  bytes[1] = 0x78
  t.same(p.toNative().grants[0].path, Buffer.from('/usr'), 'kept as a copy')
  t.same(viaText(p).toJSON().grants[0].path, '/usr')
  const view = new Uint8Array([0x21, 0x2f, 0x75, 0x73, 0x72]).subarray(1)
  t.same(p.resolve({ cwd: view }), p.resolve({ cwd: '/usr' }), 'a cwd view reads only its own bytes')
  t.throws(() => p.grant(new Uint16Array([1]), AccessMode.Read, PathScope.Exact), { name: 'TypeError', message: 'path must be a string, a Buffer or a Uint8Array' })
  t.throws(() => p.resolve({ cwd: 7 }), { name: 'TypeError', message: 'cwd must be a string, a Buffer or a Uint8Array' })
})

t.test('the section bound applies to what the builder writes', async (t) => {
  let p = new SandboxPolicy(NetworkPolicy.BlockAll)
  for (let i = 0; i < 256; i++) p = p.denyWriteExact(`f${i}`)
  t.equal(viaText(p).toJSON().deny_write_exact.length, 256, '256 entries read back')
  const over = p.denyWriteExact('one-more')
  // no document can hold it, so none is written (a hand-made one is
  // TooManyCapabilities: test/unit/policy-document.test.js)
  t.throws(() => viaText(over), { name: 'SandboxError', kind: 'InvalidPolicy', message: /deny_write_exact: more entries/ })
})

t.test('parsing never touches the filesystem', async (t) => {
  const missing = [
    '/definitely/not/here/sandy-test-' + process.pid,
    'relative/missing/' + process.pid,
    '/proc/self/fd/999999/x',
    '/dev/null/not-a-dir'
  ]
  const source = JSON.stringify({
    schema_version: 1,
    network: 'block_all',
    grants: missing.map((path) => ({ path, access: 'read_write', scope: 'subtree' })),
    executable_grants: missing.map((path) => ({ path, scope: 'exact' })),
    deny_subtrees: missing,
    deny_write_exact: missing
  })
  for (const m of missing) t.notOk(fs.existsSync(m), 'path really does not exist')
  const p = SandboxPolicy.fromJson(source)
  t.same(p.toJSON().grants.map((g) => g.path), missing, 'paths that do not exist parse fine')
  t.same(p.toJSON().deny_write_exact, missing)
  // Building is intent only too.
  t.doesNotThrow(() => new SandboxPolicy(NetworkPolicy.BlockAll).grant(missing[0], AccessMode.Read, PathScope.Exact))
})

// A stronger form of the above where strace exists: between two marker
// writes, a child parses documents naming existing and missing paths, and
// strace sees no file-name system call at all in that window.
t.test('parsing makes no file-name system call (strace)', async (t) => {
  const strace = ['/usr/bin/strace', '/bin/strace'].find((f) => fs.existsSync(f))
  if (!strace) return t.skip('strace not installed')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-strace-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const script = `
    const fs = require('node:fs')
    const { SandboxPolicy } = require(${JSON.stringify(path.resolve(__dirname, '..', '..'))})
    const doc = ${JSON.stringify(JSON.stringify({
      schema_version: 1,
      network: 'block_all',
      grants: [{ path: '/etc/passwd', access: 'read', scope: 'exact' }, { path: dir, access: 'read_write', scope: 'subtree' }],
      executable_grants: [{ path: '/usr/bin/env', scope: 'exact' }],
      deny_subtrees: ['relative/missing', '/no/such/thing'],
      deny_write_exact: [process.cwd()]
    }))}
    SandboxPolicy.fromJson(doc) // warm up: lazy loading happens here
    fs.writeSync(2, 'SANDY-BEGIN\\n')
    for (let i = 0; i < 10; i++) SandboxPolicy.fromJson(doc)
    try { SandboxPolicy.fromJson(doc.replace('block_all', 'nope')) } catch {}
    fs.writeSync(2, 'SANDY-END\\n')
  `
  const log = path.join(dir, 'trace')
  const r = spawnSync(strace, ['-f', '-e', 'trace=%file,write', '-o', log, process.execPath, '-e', script], { encoding: 'utf8' })
  if (r.status !== 0 || !fs.existsSync(log)) return t.skip(`strace could not trace here: ${r.error || (r.stderr || '').slice(0, 200)}`)
  const lines = fs.readFileSync(log, 'utf8').split('\n')
  const begin = lines.findIndex((l) => l.includes('SANDY-BEGIN'))
  const end = lines.findIndex((l) => l.includes('SANDY-END'))
  t.ok(begin >= 0 && end > begin, 'both markers traced')
  const between = lines.slice(begin + 1, end).filter((l) => l.trim() !== '')
  t.same(between, [], 'no file system call while parsing')
})
