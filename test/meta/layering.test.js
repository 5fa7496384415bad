'use strict'
// ARCHITECTURE.md's dependency rule holds (scripts/layering.js): no include
// or require points up a layer, across platforms, or round a circle; and the
// check finds each kind of violation in a tree made to have one.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { check } = require('../../scripts/layering.js')

t.test('the tree keeps the dependency rule', async (t) => {
  t.same(check(path.join(__dirname, '..', '..')), [], 'no include or require against it')
})

t.test('the check finds an include upwards, one across platforms, circles and a folder without a layer', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-layering-'))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  const files = {
    'csrc/core/low.c': '#include "../linux/sys.h"\n#include <stdio.h>\n',
    'csrc/linux/sys.h': '#include "../darwin/probe.h"\n',
    'csrc/darwin/probe.h': '',
    'csrc/backends/words.c': '#include "../linux/sys.h"\n#include "../core/low.h"\n',
    'csrc/core/low.h': '',
    'csrc/addon/a.h': '#include "b.h"\n',
    'csrc/addon/b.h': '#include "a.h"\n#include "../core/missing.h"\n',
    'csrc/extra/x.c': '#include "../core/low.c"\n',
    'csrc/launcher/main.c': '#include "../linux/sys.h"\n',
    'lib/a.js': "const b = require('./b')\n",
    'lib/b.js': "function later () { return require('./a.js') }\n",
    'lib/c.mjs': "import x from './a.js'\n"
  }
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
    fs.writeFileSync(path.join(root, f), text)
  }
  t.same(check(root).sort(), [
    'a require circle: lib/a.js -> lib/b.js -> lib/a.js',
    'an include circle: csrc/addon/a.h -> csrc/addon/b.h -> csrc/addon/a.h',
    'csrc/backends/words.c includes csrc/linux/sys.h: linux/ is not below backends/',
    'csrc/core/low.c includes csrc/linux/sys.h: linux/ is not below core/',
    'csrc/extra/x.c includes csrc/core/low.c: a folder without a layer (extra)',
    'csrc/linux/sys.h includes csrc/darwin/probe.h: darwin/ is not below linux/'
  ], 'each violation named once; the launcher including linux/ and a missing header are no violation')
})
