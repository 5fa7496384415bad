'use strict'
// A failed assertion two subtests deep, beside a passing one: the verdict
// must name it by its subtests' names.
const t = require('tap')
t.test('outer', async (t) => {
  t.test('inner', async (t) => {
    t.equal(1, 2, 'one is two')
  })
  t.pass('this passes')
})
