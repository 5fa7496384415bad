'use strict'
// A passing test file with a todo (test/meta/strict.test.js runs it).
const t = require('tap')
t.pass('this works')
t.todo('this is for later')
