'use strict'
// One vocabulary (csrc/core/vocabulary.h, and probe.h's facts): the
// committed lib/vocabulary.js and types/probe-fields.d.ts are what the
// generator prints now, JS reads it without the addon, the TypeScript
// unions name exactly its lists, the probe report and `sandy probe`'s table
// carry every fact, and the words lib/ still spells one at a time are words
// of it.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const root = path.join(__dirname, '..', '..')
const vocabularyFile = path.join(root, 'lib', 'vocabulary.js')
const v = require('../../lib/vocabulary')

const REGENERATE = 'make -C csrc vocabulary OUT=$PWD/lib/vocabulary.js'
const REGENERATE_TYPES = 'make -C csrc probe-types OUT=$PWD/types/probe-fields.d.ts'

// The generator, built once by csrc/Makefile (kept until the file's tests
// end); the path, or null after failing t.
let built = null
function generator (t) {
  if (built !== null) return built
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-vocabulary-'))
  require('tap').teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const cc = spawnSync('make', ['-s', '--no-print-directory', '-C', path.join(root, 'csrc'), 'vocabulary-gen', `O=${dir}`], { encoding: 'utf8' })
  t.equal(cc.status, 0, `the generator compiles\n${cc.stdout}${cc.stderr}`)
  if (cc.status === 0) built = path.join(dir, 'vocabulary-gen')
  return built
}

function generated (t, args) {
  const gen = generator(t)
  if (gen === null) return null
  const r = spawnSync(gen, args, { encoding: 'utf8' })
  t.equal(r.status, 0, `the generator runs\n${r.stderr}`)
  return r.stdout
}

t.test('lib/vocabulary.js is what csrc/gen/vocabulary_gen.c prints', async (t) => {
  const out = generated(t, [])
  if (out === null) return
  const committed = fs.readFileSync(vocabularyFile, 'utf8')
  t.ok(out === committed, `lib/vocabulary.js is current (if not, regenerate it: ${REGENERATE})`)
})

t.test('types/probe-fields.d.ts is what csrc/gen/vocabulary_gen.c prints with `types`', async (t) => {
  const out = generated(t, ['types'])
  if (out === null) return
  const committed = fs.readFileSync(path.join(root, 'types', 'probe-fields.d.ts'), 'utf8')
  t.ok(out === committed, `types/probe-fields.d.ts is current (if not, regenerate it: ${REGENERATE_TYPES})`)
  const bad = spawnSync(generator(t), ['js'], { encoding: 'utf8' })
  t.same([bad.status, bad.stdout], [2, ''], 'an unknown argument prints nothing')
})

// The probe report's fuzz target is handed the wire names as tokens
// (csrc/Makefile, fuzz-probe_report_fuzz): one per field of the list.
t.test('the probe report\'s fuzz dictionary names every wire field', async (t) => {
  const dict = fs.readFileSync(path.join(root, 'fuzz', 'probe_report_fuzz.dict'), 'utf8')
  const tokens = [...dict.matchAll(/^"([a-z0-9_]+)="$/gm)].map((m) => m[1])
  t.same(tokens, v.PROBE_FIELDS.map((f) => f.name), 'the same names in the same order')
})

t.test('every value is frozen, all the way down', async (t) => {
  const open = []
  const walk = (value, where) => {
    if (value === null || typeof value !== 'object') return
    if (!Object.isFrozen(value)) open.push(where)
    for (const [k, x] of Object.entries(value)) walk(x, `${where}.${k}`)
  }
  walk(v, 'vocabulary')
  t.same(open, [])
})

// The pure-JS parts must work where the addon cannot load: require them with
// the addon and lib/binding.js made unloadable.
t.test('the vocabulary and its pure-JS users load without the addon', async (t) => {
  const script = `
    const Module = require('node:module')
    const resolve = Module._resolveFilename
    Module._resolveFilename = function (request, ...rest) {
      const file = resolve.call(this, request, ...rest)
      if (file.endsWith('.node') || file.endsWith('/lib/binding.js')) throw new Error('addon loaded: ' + file)
      return file
    }
    require('./lib/vocabulary')
    require('./lib/policy-service')
    require('./lib/launcher-copy')
    require('./lib/cli-run')
    require('./lib/errors')
    process.stdout.write('loaded')
  `
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.equal(r.stdout, 'loaded')
  t.notMatch(fs.readFileSync(vocabularyFile, 'utf8'), /require\(/, 'lib/vocabulary.js requires nothing')
})

t.test('the lib/ modules hand out the vocabulary\'s values', async (t) => {
  const sandy = require('../..')
  t.equal(sandy.AccessMode, v.AccessMode)
  t.equal(sandy.PathScope, v.PathScope)
  t.equal(sandy.NetworkPolicy, v.NetworkPolicy)
  t.same(sandy.AccessMode, { Read: 'read', ReadWrite: 'read_write' })
  t.same(sandy.PathScope, { Exact: 'exact', Subtree: 'subtree' })
  t.same(sandy.NetworkPolicy, { AllowAll: 'allow_all', BlockAll: 'block_all' })
  t.equal(require('../../lib/policy-service').SANDBOX_MODES, v.SANDBOX_MODES)
  t.equal(require('../../lib/provider').CONFINED_MODES, v.CONFINED_MODES)
  t.same(v.SANDBOX_MODES, [...v.CONFINED_MODES, v.UNCONFINED_MODE])
  t.same(v.SECTIONS.map((s) => s.document), Object.values(v.DOCUMENT_KEYS))
  t.same(v.SECTIONS.map((s) => s.property), Object.keys(v.DOCUMENT_KEYS))
  t.equal(v.LAUNCHER.exitFailure, 125)
})

t.test('the addon knows every backend the vocabulary names', async (t) => {
  const { addon } = require('../../lib/binding')
  for (const name of v.BACKENDS) t.doesNotThrow(() => addon.backendDialect(name), name)
  t.throws(() => addon.backendDialect('auto'), /unknown backend/)
})

// ---- types/index.d.ts ------------------------------------------------------

// `export type Name = 'a' | 'b' | Other` (one line), each member a string
// literal or the name of another such union, expanded.
function typeUnions (dts) {
  const raw = new Map()
  for (const m of dts.matchAll(/^export type (\w+) = ([^\n]+)$/gm)) raw.set(m[1], m[2].trim())
  const expand = (name, seen = new Set()) => {
    if (seen.has(name)) throw new Error(`circular type ${name}`)
    const members = raw.get(name).split('|').map((s) => s.trim())
    return members.flatMap((m) => {
      const literal = /^'([^']*)'$/.exec(m)
      if (literal) return [literal[1]]
      if (raw.has(m)) return expand(m, new Set([...seen, name]))
      return [{ other: m }]
    })
  }
  return { raw, expand }
}

// `export declare const Name: { readonly Key: 'word' ... }`
function declaredEnumeration (dts, name) {
  const m = new RegExp(`^export declare const ${name}: \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(dts)
  if (!m) return null
  return Object.fromEntries([...m[1].matchAll(/^\s*readonly (\w+): '([^']*)'$/gm)].map((x) => [x[1], x[2]]))
}

// The keys of `export interface Name [extends Other] { ... }`, in order.
function interfaceKeys (dts, name) {
  const m = new RegExp(`^export interface ${name} (?:extends \\w+ )?\\{\\n([\\s\\S]*?)^\\}`, 'm').exec(dts)
  if (!m) return null
  return [...m[1].matchAll(/^\s*(?:readonly )?(\w+)\??:/gm)].map((x) => x[1])
}

const sorted = (list) => [...list].sort()

t.test('the TypeScript unions name exactly the vocabulary\'s lists', async (t) => {
  const dts = fs.readFileSync(path.join(root, 'types', 'index.d.ts'), 'utf8')
  const { raw, expand } = typeUnions(dts)
  const expected = {
    BackendName: v.BACKENDS,
    ProviderBackend: ['auto', ...v.BACKENDS, 'runner'],
    SandboxMode: v.SANDBOX_MODES,
    SandboxEnforcement: v.ENFORCEMENTS,
    SandboxErrorKind: v.SANDBOX_ERROR_KINDS,
    PolicyDocumentErrorKind: v.POLICY_DOCUMENT_ERROR_KINDS
  }
  for (const [name, list] of Object.entries(expected)) {
    t.ok(raw.has(name), `types/index.d.ts declares ${name}`)
    if (!raw.has(name)) continue
    t.same(sorted(expand(name)), sorted(list), `${name} is ${list.join(' | ')}`)
  }
  t.equal(raw.get('ConfinedSandboxMode'), `Exclude<SandboxMode, '${v.UNCONFINED_MODE}'>`,
    'ConfinedSandboxMode is SandboxMode without the unconfined mode')
  for (const name of ['AccessMode', 'PathScope', 'NetworkPolicy']) {
    t.same(declaredEnumeration(dts, name), v[name], `${name}'s keys and words`)
  }
  t.same(interfaceKeys(dts, 'PolicyDocument'),
    ['schema_version', 'network', 'allow_subprocesses', ...v.SECTIONS.map((s) => s.document)],
    'PolicyDocument has the document\'s sections')
  t.match(dts, new RegExp(`^  schema_version: ${v.SCHEMA_VERSION}$`, 'm'), 'PolicyDocument\'s schema_version')
  const resolved = interfaceKeys(dts, 'ResolvedPolicy') || []
  for (const s of v.SECTIONS) t.ok(resolved.includes(s.property), `ResolvedPolicy has ${s.property}`)
})

// ---- the probe's facts (csrc/core/probe.h) ---------------------------------

// The value at a fact's place ('bwrap.found': report.bwrap.found), and its
// setting.
const at = (report, place) => place.split('.').reduce((o, k) => o[k], report)
function setAt (report, place, value) {
  const keys = place.split('.')
  const last = keys.pop()
  keys.reduce((o, k) => (o[k] ??= {}), report)[last] = value
}
const FACTS = v.PROBE_FIELDS.filter((f) => f.property !== null)
// The report's properties that are on no wire: the addon's own, written by
// hand in types/index.d.ts.
const ADDON_OWN = ['platform', 'sandboxExec', 'backends']

t.test('the probe report has each measured fact at its place, of its type, and the addon\'s own', async (t) => {
  const report = require('../..').probe()
  for (const f of FACTS) t.equal(typeof at(report, f.property), f.type, f.property)
  const places = Object.entries(report).filter(([k]) => !ADDON_OWN.includes(k)).flatMap(([k, x]) =>
    typeof x === 'object' ? Object.keys(x).map((n) => `${k}.${n}`) : [k])
  t.same(sorted(places), sorted(FACTS.map((f) => f.property)), 'and no other fact')
  t.same(ADDON_OWN.filter((k) => k in report), ADDON_OWN, 'the addon\'s own properties')
  const dts = fs.readFileSync(path.join(root, 'types', 'index.d.ts'), 'utf8')
  t.same(interfaceKeys(dts, 'ProbeReport'), ADDON_OWN, 'ProbeReport writes only those by hand')
  t.match(dts, /^export interface ProbeReport extends ProbeFacts \{$/m, 'and has the rest from the generated ProbeFacts')
})

// A fact is shown when changing it changes the table. Some show only beside
// another's value (a detail beside its "no", bubblewrap's path when found),
// so it is tried with every flag false, every flag true, and each of those
// with one flag the other way.
t.test('every measured fact shows in `sandy probe`\'s table', async (t) => {
  const { formatProbe } = require('../../lib/cli')
  const other = { boolean: (x) => !x, number: (x) => x + 1, string: (x) => `${x}!` }
  const base = (flag) => {
    const r = { package: {}, platform: 'linux', sandboxExec: flag, backends: {}, protections: {} }
    for (const f of FACTS) setAt(r, f.property, { boolean: flag, number: 1, string: f.name }[f.type])
    return r
  }
  const flags = FACTS.filter((f) => f.type === 'boolean')
  const bases = [false, true].flatMap((flag) => [base(flag), ...flags.map((g) => {
    const r = base(flag)
    setAt(r, g.property, !flag)
    return r
  })])
  for (const f of FACTS) {
    const shown = bases.some((r) => {
      const changed = structuredClone(r)
      setAt(changed, f.property, other[f.type](at(r, f.property)))
      return formatProbe(changed) !== formatProbe(r)
    })
    t.ok(shown, `${f.property} shows (if not, give it a row: lib/cli.js, factRows)`)
  }
})

// Single words lib/ still compares against (a mode, a backend, an error kind)
// must be words of the vocabulary, so that a word changed there cannot leave
// a comparison that silently never matches.
t.test('the words lib/ spells one at a time are vocabulary words', async (t) => {
  const lib = path.join(root, 'lib')
  const known = {
    mode: new Set(v.SANDBOX_MODES),
    backend: new Set(['auto', ...v.BACKENDS, 'runner']),
    errorKind: new Set([...v.SANDBOX_ERROR_KINDS, ...v.POLICY_DOCUMENT_ERROR_KINDS])
  }
  const patterns = [
    ['mode', /\b(?:mode|sandboxMode)\s*[!=]==\s*'([^']+)'/g],
    ['mode', /\?\?\s*'([a-z-]+-[a-z-]+)'\s*$/gm],
    ['backend', /\b(?:name|backend|requested)\s*[!=]==\s*'([^']+)'/g],
    ['backend', /backendDialect\('([^']+)'\)/g],
    ['errorKind', /new SandboxError\('([^']+)'/g],
    ['errorKind', /\bkind\s*[!=]==\s*'([^']+)'/g]
  ]
  let seen = 0
  for (const file of fs.readdirSync(lib).filter((f) => f.endsWith('.js') && f !== 'vocabulary.js')) {
    const text = fs.readFileSync(path.join(lib, file), 'utf8')
    for (const [what, re] of patterns) {
      for (const m of text.matchAll(re)) {
        seen++
        t.ok(known[what].has(m[1]), `lib/${file}: '${m[1]}' is a ${what} of the vocabulary`)
      }
    }
  }
  t.ok(seen > 10, `${seen} words checked`)
})
