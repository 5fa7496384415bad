'use strict'
// A test file whose every test skips (test/meta/strict.test.js runs it).
const t = require('tap')
t.test('needs something this host lacks', { skip: 'no such thing here' }, async (t) => t.pass('never'))
t.skip('skipped outright')
