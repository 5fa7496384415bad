'use strict'
// The shared containment table (test/fixtures/containment-cases.json) asked
// of lib/paths.js's isWithin. csrc/test/paths_test.c asks the C copy,
// sandy_path_within, of the same rows (scripts/c-tests.sh), so neither can
// change an answer without the table, and so the other, seeing it.
const t = require('tap')
const path = require('node:path')
const { isWithin } = require('../../lib/paths.js')
const { cases } = require('../fixtures/containment-cases.json')

const canonical = (p) => path.isAbsolute(p) && path.resolve(p) === p
const shown = (c) => `${JSON.stringify(c.path)} within ${JSON.stringify(c.dir)}`

t.test('isWithin gives every row of the shared containment table its answer', async (t) => {
  const asked = cases.filter((c) => c.only !== 'c')
  t.ok(asked.length > 30, `${asked.length} rows`)
  for (const c of asked) t.equal(isWithin(c.dir, c.path), c.within, `${shown(c)}: ${c.within}${c.why ? ` (${c.why})` : ''}`)
})

// An override is a place where the two copies answer differently: the
// table admits one only where the C's contract (canonical paths, paths.h)
// does not hold, and leaves to the C alone only text isWithin's contract
// (absolute paths) does not cover.
t.test('the table lets the C answer otherwise only outside its contract', async (t) => {
  for (const c of cases) {
    t.ok(typeof c.dir === 'string' && typeof c.path === 'string' && typeof c.within === 'boolean', `${shown(c)}: a well-formed row`)
    if (Object.hasOwn(c, 'c')) {
      t.ok(typeof c.c === 'boolean' && c.c !== c.within, `${shown(c)}: the C's own answer differs`)
      t.notOk(canonical(c.dir) && canonical(c.path), `${shown(c)}: the C's answer differs only on text that is not canonical`)
    }
    if (Object.hasOwn(c, 'only')) {
      t.equal(c.only, 'c', `${shown(c)}: asked of the C alone`)
      t.notOk(path.isAbsolute(c.dir) && path.isAbsolute(c.path), `${shown(c)}: only where isWithin's arguments are not absolute`)
    }
  }
})
