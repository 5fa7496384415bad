'use strict'
// Judges one run of the suite from what its stages reported (see
// scripts/tap-results.js for the counts of one stage). Pure: scripts/test.js
// feeds it, test/meta/strict.test.js proves each rule with real tap runs.
//
// The closing line is "N passed, N failed, N skipped" (todos are counted
// as skipped: neither ran to a pass). Strict mode (`npm test -- --strict`,
// what CI runs) turns every gap in coverage into a failure:
//   - a todo;
//   - a test file in which nothing passed (empty, or every test skipped);
//   - a stage that was switched off;
//   - a run that is not root (the confinement cases then run as one user
//     only, instead of as root and as uid 65534);
//   - a skip that no entry of the allowlist (test/allowed-skips.js) covers,
//     or an allowlist entry without a reason.
// Without strict mode the same findings are printed as warnings.

// A skip that means a backend or a user could not be exercised says so in
// its name: t.skip(`${UNCOVERED} landlock backend as root: why`).
const UNCOVERED = 'not covered:'

function skipText (s) {
  return s.reason ? `${s.name} # ${s.reason}` : s.name
}

function allowed (allowlist, s) {
  return allowlist.find((e) => (!e.file || e.file === s.file) && e.match.test(skipText(s)))
}

// stages: [{ name, seconds, counts?, disabled?, scope? }] in the order run.
function judge ({ stages, strict, uid, allowlist }) {
  const total = { pass: 0, fail: 0, skip: 0, todo: 0 }
  const problems = []
  const uncovered = new Set()
  for (const e of allowlist) {
    if (!(e.match instanceof RegExp) || typeof e.why !== 'string' || e.why.trim().length < 10) {
      problems.push(`test/allowed-skips.js: an entry without a pattern or a reason (${e.match})`)
    }
  }
  for (const stage of stages) {
    if (stage.disabled) {
      problems.push(`stage "${stage.name}" was switched off (${stage.disabled})`)
      continue
    }
    const c = stage.counts
    if (!c) continue
    for (const k of Object.keys(total)) total[k] += c[k] || 0
    for (const [file, n] of Object.entries(c.files || {})) {
      if (n.pass === 0) problems.push(`${stage.name}: ${file}: no test passed in it (empty, or every test skipped)`)
    }
    for (const s of c.todos || []) problems.push(`${stage.name}: ${s.file}: todo "${skipText(s)}"`)
    for (const s of c.skips || []) {
      if (s.name.startsWith(UNCOVERED)) uncovered.add(s.name.slice(UNCOVERED.length).trim())
      if (!allowed(allowlist, s)) problems.push(`${stage.name}: ${s.file}: skip not on the allowlist: "${skipText(s)}"`)
    }
  }
  if (uid !== 0) {
    uncovered.add(`root and uid 65534: this run is uid ${uid}, so every confinement case ran as uid ${uid} only`)
    problems.push(`not run as root (uid ${uid}): the confinement cases ran as one user only`)
  }
  const fail = total.fail + (strict ? problems.length : 0)
  const lines = []
  // The failed assertions by name, so that the tail of a long log says
  // which they were.
  const failed = stages.flatMap((s) => ((s.counts && s.counts.fails) || []).map((f) => `  - ${s.name}: ${f.file}: ${f.name}`))
  if (failed.length > 0) lines.push('Failed:', ...failed)
  if (uncovered.size > 0) {
    lines.push('Not covered in this run:')
    for (const u of uncovered) lines.push(`  - ${u}`)
  }
  if (problems.length > 0) {
    lines.push(strict ? `Strict mode: ${problems.length} problem(s), each counted as a failure:` : 'Strict mode (CI) would fail on:')
    for (const p of problems) lines.push(`  - ${p}`)
  }
  lines.push(`skipped: ${total.skip} skip(s), ${total.todo} todo(s)`)
  lines.push('stage times: ' + stages.map((s) => `${s.name} ${s.disabled ? 'off' : `${s.seconds.toFixed(1)} s`}`).join('; ') +
    `; total ${stages.reduce((a, s) => a + (s.seconds || 0), 0).toFixed(1)} s`)
  const closing = `${total.pass} passed, ${fail} failed, ${total.skip + total.todo} skipped`
  return { ok: fail === 0, lines, closing, problems }
}

module.exports = { judge, UNCOVERED }
