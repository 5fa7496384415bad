'use strict'
// README.md's "Code map" names every file under csrc/ in one line each,
// and names no file that is not there: a newcomer's map that cannot drift.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')

function walk (dir) {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])
}

function mapLines () {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Code map\n')
  if (start < 0) return null
  const end = readme.indexOf('\n## ', start + 1)
  return readme.slice(start, end < 0 ? undefined : end).split('\n')
    .map((l) => /^- `(csrc\/[^`]+)`: \S/.exec(l)).filter(Boolean).map((m) => m[1])
}

t.test('README.md has a Code map naming every csrc file once, with a description', async (t) => {
  const listed = mapLines()
  t.ok(listed, 'the section exists')
  if (!listed) return
  const files = walk('csrc').sort()
  t.same(files.filter((f) => !listed.includes(f)), [], 'every file under csrc/ is listed')
  t.same(listed.filter((f) => !files.includes(f)), [], 'every listed file exists')
  t.same(listed.filter((f, i) => listed.indexOf(f) !== i), [], 'no file is listed twice')
})
