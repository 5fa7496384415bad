'use strict'
// The code map is the code itself: every C file under csrc/ and fuzz/ opens
// with a comment that says what it is for (a .c file may instead open
// with the include of its own header, which does), and ARCHITECTURE.md
// names every folder of csrc/, and names none that is not there.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')

function walk (dir) {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])
}

// Whether the file's (absolute) first line that is not blank starts a
// comment, or is the include of a header beside it that does.
function opensWithComment (file) {
  const first = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.trim() !== '') || ''
  if (first.startsWith('/*')) return true
  const own = /^#include "([^"/]+\.h)"$/.exec(first)
  return Boolean(own) && own[1] === path.basename(file).replace(/\.c$/, '.h') &&
    opensWithComment(path.join(path.dirname(file), own[1]))
}

t.test('every C file opens with what it is for', async (t) => {
  const files = [...walk('csrc'), ...walk('fuzz')].filter((f) => /\.(c|h|inc)$/.test(f))
  t.ok(files.length > 50, `${files.length} files`)
  t.same(files.filter((f) => !opensWithComment(path.join(ROOT, f))), [], 'each opens with a comment, or with its own header\'s include')
})

t.test('ARCHITECTURE.md names every folder of csrc/, and only those', async (t) => {
  const doc = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8')
  const folders = fs.readdirSync(path.join(ROOT, 'csrc'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()
  const tree = doc.slice(doc.indexOf('## The tree'), doc.indexOf('## The dependency rule'))
  const named = [...tree.matchAll(/^ {2}(\w+)\/ /gm)].map((m) => m[1]).sort()
  t.same(named, folders, 'the tree drawn is the tree there')
})

t.test('the check refuses a file without a comment and one whose header has none', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-code-map-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'bare.c'), '#include <stdio.h>\n')
  fs.writeFileSync(path.join(dir, 'plain.h'), '#define X 1\n')
  fs.writeFileSync(path.join(dir, 'plain.c'), '#include "plain.h"\n')
  fs.writeFileSync(path.join(dir, 'told.h'), '\n/* What told is for. */\n')
  fs.writeFileSync(path.join(dir, 'told.c'), '#include "told.h"\n')
  fs.writeFileSync(path.join(dir, 'other.c'), '#include "told.h"\n')
  t.same(['bare.c', 'plain.h', 'plain.c', 'told.h', 'told.c', 'other.c'].filter((f) => !opensWithComment(path.join(dir, f))),
    ['bare.c', 'plain.h', 'plain.c', 'other.c'])
})
