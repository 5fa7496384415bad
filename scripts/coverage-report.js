#!/usr/bin/env node
'use strict'
// Line coverage of the launcher's C, from the streams its coverage build
// writes (csrc/test/launcher_hooks.c): the .gcda contents of every object,
// per launcher process. They are summed here (every stream comes from the
// same build, so records line up), written next to the build's .gcno
// files, and read back through `gcov -t`.
//   node scripts/coverage-report.js BUILD_DIR STREAMS_DIR [--json]
// prints "FILE: EXECUTED/LINES (PCT%)" per source, or the report as JSON.
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const TAG_FUNCTION = 0x01000000
const TAG_ARCS = 0x01a10000
const HEADER = 16 // magic, version, stamp, checksum

// One stream: records "F" u32 NAME, then "D" u32 BYTES pieces of that
// file; [name, contents] once per dump. A stream holds one dump per object
// for each end of each process that shares it: the launcher's forked
// processes (linux/processes.c) write into their parent's, one after
// another, each what it ran since its last dump (counts a fork inherited
// are then counted twice; lines reached stay what they are).
function parseStream (buf) {
  const dumps = []
  for (let i = 0; i + 5 <= buf.length;) {
    const tag = String.fromCharCode(buf[i])
    const len = buf.readUInt32LE(i + 1)
    const data = buf.subarray(i + 5, i + 5 + len)
    i += 5 + len
    if (data.length !== len) break // a process killed mid-write
    if (tag === 'F') dumps.push([data.toString('utf8'), []])
    else if (tag === 'D' && dumps.length > 0) dumps[dumps.length - 1][1].push(data)
  }
  return dumps.map(([name, pieces]) => [name, Buffer.concat(pieces)])
}

// A .gcda as {header, records: [{tag, words | counters}]}. A counter
// record with a negative length holds that many bytes of zero counters.
function parseGcda (buf) {
  const records = []
  let i = HEADER
  while (i + 8 <= buf.length) {
    const tag = buf.readUInt32LE(i)
    const len = buf.readInt32LE(i + 4)
    i += 8
    // (a dump cut short: see addInto)
    if (i + (len > 0 ? len : 0) > buf.length) break
    if (tag === TAG_ARCS) {
      const n = Math.abs(len) / 8
      const counters = new Array(n).fill(0n)
      if (len > 0) for (let k = 0; k < n; k++) counters[k] = buf.readBigUInt64LE(i + 8 * k)
      records.push({ tag, counters })
      i += len > 0 ? len : 0
    } else {
      records.push({ tag, raw: buf.subarray(i, i + len) })
      i += len
    }
  }
  return { header: buf.subarray(0, HEADER), records }
}

// A process killed while it wrote its dump (the run a watched name ended,
// linux/watch.c, kills the init as it may be writing its own) leaves a
// prefix of the records: what it has is added, the longer one kept.
function addInto (acc, next) {
  const [long, short] = acc.records.length >= next.records.length ? [acc, next] : [next, acc]
  short.records.forEach((r, k) => {
    const o = long.records[k]
    if (r.tag !== o.tag || (r.counters && r.counters.length !== o.counters.length)) throw new Error('streams from different builds')
    if (r.counters) r.counters.forEach((c, j) => { o.counters[j] = c + o.counters[j] })
  })
  acc.records = long.records
}

function writeGcda ({ header, records }) {
  const parts = [header]
  for (const r of records) {
    const head = Buffer.alloc(8)
    head.writeUInt32LE(r.tag, 0)
    if (r.counters) {
      head.writeInt32LE(r.counters.length * 8, 4)
      const body = Buffer.alloc(r.counters.length * 8)
      r.counters.forEach((c, k) => body.writeBigUInt64LE(c, 8 * k))
      parts.push(head, body)
    } else {
      head.writeInt32LE(r.raw.length, 4)
      parts.push(head, r.raw)
    }
  }
  return Buffer.concat(parts)
}

// Sums every stream in dir: .gcda basename → merged contents.
function mergeStreams (dir) {
  const merged = new Map()
  let streams = 0
  for (const f of fs.readdirSync(dir)) {
    if (!f.endsWith('.stream')) continue
    streams++
    for (const [name, data] of parseStream(fs.readFileSync(path.join(dir, f)))) {
      const key = path.basename(name)
      const g = parseGcda(data)
      if (merged.has(key)) addInto(merged.get(key), g)
      else merged.set(key, g)
    }
  }
  return { merged, streams }
}

// A failure site: a line that calls one of the failure helpers.
const FAILURE_CALL = /\b(sandy_fail|view_fail|pin_fail|load_failed|procs_fail)\(/

// gcov's annotated source of one object: executable lines, executed ones,
// and the failure sites never reached (line numbers).
function annotate (objDir, gcda) {
  const text = execFileSync('gcov', ['-t', gcda], { cwd: objDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  let source = null
  let lines = 0
  let executed = 0
  // a site the source marks "(unreachable: why)" just above is excused
  const failures = { total: 0, unreached: [], excused: [] }
  const recent = []
  // gcov -t prints the object's own source first, then any header whose
  // inline functions it compiled (csrc/core/sys.h): only the first counts
  let header = false
  for (const line of text.split('\n')) {
    const m = /^\s*([^:]+):\s*(\d+):(.*)$/.exec(line)
    if (!m) continue
    const [, count, no, code] = m
    if (no === '0' && code.startsWith('Source:')) {
      if (source !== null) header = true
      else source = code.slice('Source:'.length)
    }
    if (header) continue
    if (no !== '0') {
      recent.push(code)
      if (recent.length > 5) recent.shift()
    }
    if (count.trim() === '-' || no === '0') continue
    lines++
    const reached = !count.includes('#####') && !count.includes('=====')
    if (reached) executed++
    if (FAILURE_CALL.test(code) && !/^\s*(static\s+)?int\s+\w+\(/.test(code)) {
      failures.total++
      if (!reached) failures[recent.some((l) => l.includes('(unreachable:')) ? 'excused' : 'unreached'].push(Number(no))
    }
  }
  return { source, lines, executed, failures }
}

// The whole report: { files: {relative source: {...}}, streams }.
function report (buildDir, streamsDir) {
  const objDir = path.join(buildDir, 'obj')
  const { merged, streams } = mergeStreams(streamsDir)
  for (const f of fs.readdirSync(objDir)) if (f.endsWith('.gcda')) fs.rmSync(path.join(objDir, f))
  const files = {}
  for (const gcno of fs.readdirSync(objDir).filter((f) => f.endsWith('.gcno')).sort()) {
    const gcda = gcno.replace(/\.gcno$/, '.gcda')
    if (merged.has(gcda)) fs.writeFileSync(path.join(objDir, gcda), writeGcda(merged.get(gcda)))
    const a = annotate(objDir, merged.has(gcda) ? gcda : gcno)
    if (!merged.has(gcda)) a.executed = 0
    const rel = path.relative(path.join(__dirname, '..'), a.source)
    files[rel] = { lines: a.lines, executed: a.executed, percent: a.lines ? Math.floor(1000 * a.executed / a.lines) / 10 : 100, failures: a.failures }
  }
  return { files, streams }
}

function format (r) {
  return Object.entries(r.files).map(([f, v]) =>
    `${f}: ${v.executed}/${v.lines} lines (${v.percent}%), failure sites ${v.failures.total - v.failures.unreached.length}/${v.failures.total}` +
    (v.failures.unreached.length ? ` (never reached: lines ${v.failures.unreached.join(', ')})` : '') +
    (v.failures.excused.length ? ` (marked unreachable: lines ${v.failures.excused.join(', ')})` : '')).join('\n')
}

module.exports = { parseStream, parseGcda, writeGcda, mergeStreams, report, format }

if (require.main === module) {
  const [buildDir, streamsDir] = process.argv.slice(2)
  const r = report(path.resolve(buildDir), path.resolve(streamsDir))
  process.stdout.write(process.argv.includes('--json') ? JSON.stringify(r, null, 1) + '\n' : `${r.streams} launcher processes\n${format(r)}\n`)
}
