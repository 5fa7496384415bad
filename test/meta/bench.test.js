'use strict'
// npm run bench's launch table (issue 32) runs and has every row the issue
// asks for: one round each, so it says nothing of time and never fails on
// it; it fails when a row, a floor or a measure goes missing, or when a
// variant stops running. As root, the uid 65534 column is there too (the
// bench runs itself again as that user).
const t = require('tap')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { users, backendsFor } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')

const BENCH = path.join(__dirname, '..', '..', 'bench', 'launch.js')

t.test('bench/launch.js prints the launch table', async (t) => {
  const [user] = users()
  if (backendsFor(t, user, ['sandy']).length === 0) return
  const r = spawnSync(process.execPath, [BENCH, '--rounds', '1'], { encoding: 'utf8', timeout: patience(300000) })
  t.equal(r.status, 0, `it ran (${r.stderr.slice(-400)})`)
  const columns = process.getuid() === 0 ? 2 : 1
  const row = (name) => new RegExp(`^\\| ${name.replace(/[()]/g, '\\$&')}[^|]* (\\| [0-9.]+ ms, [0-9.]+ × ){${columns}}\\|$`, 'm')
  for (const name of ['bare /bin/true', 'floor: exec only', 'floor: namespaces, maps, pid 1, /proc', 'sandy read-only', 'sandy workspace-write',
    'sandy, Sandy policy of 1 grant', 'sandy, Sandy policy of 10 grants', 'sandy, Sandy policy of 100 grants', 'sandy, Sandy policy of 1000 grants']) {
    t.match(r.stdout, row(name), `the row "${name}", in ${columns} column(s)`)
  }
  const summaries = r.stdout.split('\n').filter((l) => /^(root|uid \d+): /.test(l))
  t.equal(summaries.length, columns, 'a summary per user')
  for (const line of summaries) {
    t.match(line, /sandy workspace-write [0-9.]+ × the namespace floor/, 'the ratio to the namespace floor')
    t.match(line, /confine\(\) [0-9.]+ \/ [0-9.]+ µs/, 'confine()')
    t.match(line, /confinePolicy\(\) 1: [0-9]+ µs, 10: [0-9]+ µs, 100: [0-9]+ µs, 1000: [0-9]+ µs/, 'confinePolicy() by grants')
    t.match(line, /first probe\(\) [0-9.]+ ms/, 'probe()')
    t.match(line, /launcher peak RSS [0-9.]+ MiB/, 'the launcher\'s RSS')
  }
})
