'use strict'
// What `npm pack` ships and how a project reaches it: the tarball's file
// list (LICENSE, README, the code and types; no C tests), every relative
// link a reader of the unpacked package follows from README.md, the
// repository's URL written once (package.json's repository), package.json's
// exports resolved from a project that depends on the package, one class
// whether it is imported or required, and the bundled types compiled by
// TypeScript consumers (CommonJS and ESM) without @types/node.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { spawnSync } = require('node:child_process')
const sandy = require('../..')
const { brokenLinks, reachableDocuments } = require('../helpers/links.js')

const root = path.join(__dirname, '..', '..')
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE'))

// A project whose node_modules/sandy-native is this checkout.
function project (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-project-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'sandy-native'))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "consumer", "private": true }\n')
  return dir
}

t.test('npm pack ships LICENSE, README, the code and types, and no C tests', async (t) => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path)
  for (const f of ['LICENSE', 'README.md', 'package.json', 'lib/index.js', 'lib/index.mjs', 'lib/binding.js', 'types/index.d.ts', 'bin/sandy', 'binding.gyp']) {
    t.ok(files.includes(f), `${f} is shipped`)
  }
  t.same(files.filter((f) => f.startsWith('csrc/test/') || f.startsWith('test/')), [], 'no test is shipped')
  t.ok(files.some((f) => f.startsWith('csrc/core/')), 'the C sources are (an install may build them)')
  for (const f of files.filter((f) => f.startsWith('lib/') || f.startsWith('types/'))) {
    t.ok(fs.existsSync(path.join(root, f)), `${f} exists`)
  }
  t.same(fs.readdirSync(path.join(root, 'lib')).filter((f) => !files.includes(`lib/${f}`)), [], 'every lib/ file is shipped')
})

// `npm pack` leaves its tarball in the checkout: git is not to offer it
// for a commit (issue 31).
t.test('the tarball npm pack writes is ignored by git', async (t) => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  const { filename } = JSON.parse(r.stdout)[0]
  t.match(filename, /^sandy-native-.*\.tgz$/)
  t.equal(spawnSync('git', ['check-ignore', '--quiet', filename], { cwd: root }).status, 0, `${filename} is ignored`)
  t.equal(spawnSync('git', ['check-ignore', '--quiet', 'package.json'], { cwd: root }).status, 1, 'control: package.json is not')
})

// The repository's URL, from package.json's repository (git+URL.git):
// where it is set. homepage, bugs and every document's URL into the
// repository are held to it below, so replacing the placeholder there
// names every place that must follow.
const pkgJson = require('../../package.json')
const REPOSITORY = pkgJson.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')

t.test('package.json: license, repository, homepage, bugs', async (t) => {
  t.equal(pkgJson.license, 'MIT')
  t.match(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) 2026 the sandy-native authors\n/)
  t.match(pkgJson.repository, { type: 'git', url: 'git+https://github.com/sandy-native/sandy-native.git' })
  t.equal(REPOSITORY, 'https://github.com/sandy-native/sandy-native')
  t.equal(pkgJson.homepage, `${REPOSITORY}#readme`)
  t.same(pkgJson.bugs, { url: `${REPOSITORY}/issues` })
})

// A reader of the installed package (node_modules/sandy-native) or of the
// registry's page has what `npm pack` ships, not the checkout: README.md's
// relative links, and those of every document they lead to, must resolve
// in the unpacked tarball.
t.test('every relative link from README.md resolves in the packed tarball', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-pack-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', `--pack-destination=${dir}`], { cwd: root, encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  const tarball = path.join(dir, JSON.parse(r.stdout)[0].filename)
  const x = spawnSync('tar', ['-xzf', tarball, '-C', dir], { encoding: 'utf8' })
  t.equal(x.status, 0, `unpacked (${x.stderr})`)
  const pkg = path.join(dir, 'package')
  const readme = path.join(pkg, 'README.md')
  const docs = reachableDocuments(readme)
  const names = docs.map((d) => path.relative(pkg, d))
  for (const f of ['ARCHITECTURE.md', 'THREAT_MODEL.md', 'docs/api.md', 'docs/development.md']) {
    t.ok(names.includes(f), `README.md leads to ${f}, which is shipped`)
  }
  for (const d of docs) t.same(brokenLinks(d, pkg), [], `${path.relative(pkg, d)}: every relative link resolves in the package`)
  // control: the same check on the package without docs/ finds README.md's
  // links into it dead
  fs.rmSync(path.join(pkg, 'docs'), { recursive: true, force: true })
  t.ok(brokenLinks(readme, pkg).includes('README.md: docs/api.md (no such file)'), 'control: without docs/, README.md\'s link to docs/api.md is reported')
})

// A placeholder URL replaced in package.json must not live on in a
// document: a link into any repository named sandy-native is package.json's.
t.test('every URL of a shipped document into the repository is package.json\'s repository', async (t) => {
  const INTO = /https?:\/\/github\.com\/[\w.-]+\/sandy-native(?![\w.-])(?:[^\s)>`'"]*[^\s)>`'".,;:])?/g
  const files = ['README.md', 'ARCHITECTURE.md', 'THREAT_MODEL.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)]
  const found = files.flatMap((f) => [...fs.readFileSync(path.join(root, f), 'utf8').matchAll(INTO)].map((m) => ({ f, url: m[0] })))
  t.ok(found.length > 0, `${found.length} URLs into the repository (${[...new Set(found.map((x) => x.f))].join(', ')})`)
  t.same(found.filter(({ url }) => url !== REPOSITORY && !url.startsWith(`${REPOSITORY}/`) && !url.startsWith(`${REPOSITORY}#`)).map(({ f, url }) => `${f}: ${url}`), [],
    `each starts with ${REPOSITORY}`)
  const moved = 'See https://github.com/someone-else/sandy-native/releases, (https://github.com/sandy-native/sandy-native) and https://github.com/sandy-native/sandy-native-extra.'
  t.same([...moved.matchAll(INTO)].map((m) => m[0]), ['https://github.com/someone-else/sandy-native/releases', 'https://github.com/sandy-native/sandy-native'],
    'control: the pattern finds a URL into another owner\'s sandy-native (without the sentence\'s punctuation), and no other repository')
})

// npm runs "preX" and "postX" around "X" on its own: a script named so by
// accident runs where nobody asked (a "prebuild" script ran before every
// `npm run build`).
t.test('no npm script is another one\'s pre or post hook', async (t) => {
  const hooks = (scripts) => scripts.filter((s) => /^(pre|post)/.test(s) && scripts.includes(s.replace(/^(pre|post)/, '')))
  const scripts = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts)
  t.same(hooks(scripts), [], `scripts: ${scripts.join(', ')}`)
  t.same(hooks(['build', 'prebuild', 'prebuilds', 'test']), ['prebuild'], 'control: it names a hook')
})

t.test('the exports map resolves from a project, and closes the rest', async (t) => {
  const dir = project(t)
  const script = `
    const out = {
      require: require.resolve('sandy-native'),
      packageJson: require.resolve('sandy-native/package.json'),
      import: import.meta.resolve('sandy-native')
    }
    try { require.resolve('sandy-native/lib/binding.js') } catch (err) { out.deep = err.code }
    process.stdout.write(JSON.stringify(out))
  `
  // import.meta needs ESM; require comes from createRequire
  fs.writeFileSync(path.join(dir, 'resolve.mjs'), `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\n${script}`)
  const r = spawnSync(process.execPath, [path.join(dir, 'resolve.mjs')], { cwd: dir, encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout)
  const real = fs.realpathSync(root)
  t.equal(out.require, path.join(real, 'lib', 'index.js'))
  t.equal(out.packageJson, path.join(real, 'package.json'))
  t.equal(out.import, pathToFileURL(path.join(real, 'lib', 'index.mjs')).href, 'import: the same file, as a URL')
  t.equal(out.deep, 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'internal modules are not part of the API')
})

t.test('import and require give the same classes', async (t) => {
  const dir = project(t)
  fs.writeFileSync(path.join(dir, 'same.mjs'), `
    import { createRequire } from 'node:module'
    import sandy, { SandboxPolicy, SandboxError, limits } from 'sandy-native'
    const cjs = createRequire(import.meta.url)('sandy-native')
    const policy = new SandboxPolicy('block_all')
    process.stdout.write(JSON.stringify([
      SandboxPolicy === cjs.SandboxPolicy, policy instanceof cjs.SandboxPolicy,
      new cjs.SandboxError('InvalidPolicy', 'x') instanceof SandboxError, sandy === cjs, limits === cjs.limits
    ]))
  `)
  const r = spawnSync(process.execPath, [path.join(dir, 'same.mjs')], { cwd: dir, encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  t.same(JSON.parse(r.stdout), [true, true, true, true, true])
})

t.test('the ESM entry names every CommonJS export, and only those', async (t) => {
  const esm = await import('../../lib/index.mjs')
  t.same(Object.keys(esm).filter((k) => k !== 'default').sort(), Object.keys(sandy).sort())
  for (const k of Object.keys(sandy)) t.equal(esm[k], sandy[k], `${k} is the same value`)
  t.equal(esm.default, sandy)
})

t.test('the bundled types compile for CommonJS and ESM consumers without @types/node', async (t) => {
  const dir = project(t)
  const body = `
const bytes = new Uint8Array([0x2f, 0x75, 0x73, 0x72]) // /usr
const policy = new SandboxPolicy(NetworkPolicy.BlockAll).grant(bytes, AccessMode.Read, PathScope.Subtree)
const confined = confinePolicy(['/bin/true'], policy, { cwd: bytes })
const kind: 'runner-failure' | 'denied' | 'ordinary' = classifyExit(confined, { code: 1, signal: 'SIGTERM', stderr: bytes }).kind
export const used = [kind, limits.pathBytes]
`
  fs.writeFileSync(path.join(dir, 'esm.mts'), `import { SandboxPolicy, NetworkPolicy, AccessMode, PathScope, confinePolicy, classifyExit, limits } from 'sandy-native'\n${body}`)
  fs.writeFileSync(path.join(dir, 'cjs.cts'), `import sandy = require('sandy-native')\nconst { SandboxPolicy, NetworkPolicy, AccessMode, PathScope, confinePolicy, classifyExit, limits } = sandy\n${body}`)
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: [] },
    files: ['esm.mts', 'cjs.cts']
  }))
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', dir, '--traceResolution'], { cwd: dir, encoding: 'utf8', env })
  t.equal(r.status, 0, r.stdout.split('\n').filter((l) => l.includes('error TS')).join('\n'))
  const typesFile = path.join(fs.realpathSync(root), 'types', 'index.d.ts')
  t.match(r.stdout, `'sandy-native' was successfully resolved to '${typesFile}'`, 'through the exports map')
  t.notMatch(r.stdout, /@types\/node/, 'no Node types are read')
})
