'use strict'
// A test file whose assertion passes but whose process exits 3: a run
// without tap's runner must count that as a failure.
const t = require('tap')
t.pass('this passes')
process.on('exit', () => { process.exitCode = 3 })
