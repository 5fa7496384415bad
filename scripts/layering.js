'use strict'
// The dependency rule of ARCHITECTURE.md, checked: an include or a require
// points down a layer or within its own folder, never up, never sideways
// between platforms, and never round in a circle.
//
//   node scripts/layering.js [ROOT]   prints each problem; exits 1 if any
//
// C, by folder of csrc/ (and fuzz/, which tests the core):
//   core                    what both programs share; includes only itself
//   backends                each backend's argv words and dialect; the core
//   linux, darwin           each platform's steps; the layers below
//   addon, launcher         the two programs; any of the above
//   gen, test, fuzz         generators and tests; anything
// JavaScript: lib/ requires no module that requires it back (any cycle).
const fs = require('node:fs')
const path = require('node:path')

const C_RANK = { core: 0, backends: 1, linux: 2, darwin: 2, addon: 3, launcher: 3, gen: 4, test: 4, fuzz: 4 }

function filesUnder (root, dir, re) {
  const at = path.join(root, dir)
  if (!fs.existsSync(at)) return []
  return fs.readdirSync(at, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name)
    if (e.isDirectory()) return filesUnder(root, rel, re)
    return re.test(e.name) ? [rel] : []
  })
}

// The folder a C file's layer is named by: csrc/X/... → X, fuzz/... → fuzz.
function cFolder (rel) {
  const parts = rel.split(path.sep)
  return parts[0] === 'csrc' ? parts[1] : parts[0]
}

// {from, to} for every quoted include that names a file of the tree.
function cEdges (root) {
  const files = [...filesUnder(root, 'csrc', /\.(c|h|inc)$/), ...filesUnder(root, 'fuzz', /\.(c|h)$/)]
  const edges = []
  for (const from of files) {
    const text = fs.readFileSync(path.join(root, from), 'utf8')
    for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
      const to = path.normalize(path.join(path.dirname(from), m[1]))
      if (fs.existsSync(path.join(root, to))) edges.push({ from, to })
    }
  }
  return edges
}

// {from, to} for every require of a relative module of lib/.
function jsEdges (root) {
  const edges = []
  for (const from of filesUnder(root, 'lib', /\.(js|mjs)$/)) {
    const text = fs.readFileSync(path.join(root, from), 'utf8')
    for (const m of text.matchAll(/\b(?:require\(|from\s+|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      let to = path.normalize(path.join(path.dirname(from), m[1]))
      if (!fs.existsSync(path.join(root, to)) && fs.existsSync(path.join(root, `${to}.js`))) to = `${to}.js`
      if (to.startsWith(`lib${path.sep}`)) edges.push({ from, to })
    }
  }
  return edges
}

// Each circle of a graph, once, as the list of its files.
function cycles (edges) {
  const next = new Map()
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, [])
    next.get(from).push(to)
  }
  const found = new Map()
  const state = new Map() // 1: on the path, 2: done
  const stack = []
  const visit = (n) => {
    state.set(n, 1)
    stack.push(n)
    for (const m of next.get(n) || []) {
      if (state.get(m) === 1) {
        const loop = stack.slice(stack.indexOf(m))
        const key = [...loop].sort().join(' ')
        if (!found.has(key)) found.set(key, [...loop, m])
      } else if (!state.has(m)) {
        visit(m)
      }
    }
    stack.pop()
    state.set(n, 2)
  }
  for (const n of [...next.keys()].sort()) if (!state.has(n)) visit(n)
  return [...found.values()]
}

function check (root) {
  const problems = []
  const c = cEdges(root)
  for (const { from, to } of c) {
    const a = cFolder(from)
    const b = cFolder(to)
    if (a === b) continue
    if (!(a in C_RANK) || !(b in C_RANK)) {
      problems.push(`${from} includes ${to}: a folder without a layer (${a in C_RANK ? b : a})`)
    } else if (C_RANK[b] >= C_RANK[a]) {
      problems.push(`${from} includes ${to}: ${b}/ is not below ${a}/`)
    }
  }
  for (const loop of cycles(c)) problems.push(`an include circle: ${loop.join(' -> ')}`)
  for (const loop of cycles(jsEdges(root))) problems.push(`a require circle: ${loop.join(' -> ')}`)
  return problems
}

module.exports = { check, C_RANK }

if (require.main === module) {
  const problems = check(path.resolve(process.argv[2] || path.join(__dirname, '..')))
  for (const p of problems) process.stdout.write(`${p}\n`)
  process.exit(problems.length === 0 ? 0 : 1)
}
