'use strict'
// The strict version 1 policy document, parsed in C: a table of documents,
// valid and invalid, each invalid one with its kind and, for Parse, the
// exact line and column (1-based, column in bytes). Then the input types,
// the size and section bounds, and a check that no error ever carries a
// value taken from the document.
const t = require('tap')
const { SandboxPolicy, PolicyDocumentError, limits } = require('../..')

// ---- helpers ---------------------------------------------------------

const HEAD = '{"schema_version":1,"network":"block_all"'
// A version 1 document with extra top-level members appended.
const v1 = (rest = '') => `${HEAD}${rest}}`
const grant = (path = 'p', access = 'read', scope = 'exact') =>
  `{"path":${JSON.stringify(path)},"access":"${access}","scope":"${scope}"}`

// toJSON of a parsed policy, with the defaults filled in.
const doc = (fields) => ({
  schema_version: 1,
  network: 'block_all',
  allow_subprocesses: false,
  grants: [],
  executable_grants: [],
  deny_subtrees: [],
  deny_write_exact: [],
  ...fields
})

// Expected outcomes. PARSE_AT locates the nth occurrence of a snippet in
// the document's UTF-8 bytes, so a position is stated as "this byte".
const OK = (policy) => ({ ok: true, policy })
const PARSE = (line, column) => ({ kind: 'Parse', line, column })
const PARSE_AT = (snippet, nth = 0) => ({ kind: 'Parse', snippet, nth })
const UNSUPPORTED = (version) => ({ kind: 'UnsupportedVersion', version })
const TOO_MANY = { kind: 'TooManyCapabilities' }
const TOO_LARGE = { kind: 'TooLarge' }

function positionOf (source, snippet, nth) {
  const bytes = Buffer.from(source)
  let off = -1
  for (let i = 0; i <= nth; i++) {
    off = bytes.indexOf(snippet, off + 1)
    if (off < 0) throw new Error(`snippet ${JSON.stringify(snippet)} not in document`)
  }
  const before = bytes.subarray(0, off)
  return {
    line: before.filter((b) => b === 0x0a).length + 1,
    column: off - (before.lastIndexOf(0x0a) + 1) + 1
  }
}

// Runs fromJson; returns the policy or the PolicyDocumentError.
function parse (source) {
  try {
    return SandboxPolicy.fromJson(source)
  } catch (e) {
    if (!(e instanceof PolicyDocumentError)) throw e
    return e
  }
}

// Pads a valid document with whitespace to exactly n bytes.
function sized (n) {
  const base = v1()
  return base.slice(0, -1) + ' '.repeat(n - Buffer.byteLength(base)) + '}'
}

const entries = (n, make) => Array.from({ length: n }, (_, i) => make(i)).join(',')

const FULL = `{
  "schema_version": 1,
  "network": "block_all",
  "allow_subprocesses": false,
  "grants": [
    {
      "path": "workspace",
      "access": "read_write",
      "scope": "subtree"
    }
  ],
  "executable_grants": [
    {
      "path": "workspace/tool",
      "scope": "exact"
    }
  ],
  "deny_subtrees": ["workspace/credentials"],
  "deny_write_exact": ["workspace/settings.json"]
}`

// ---- the table --------------------------------------------------------

const TABLE = [
  // valid documents
  ['minimal block_all', v1(), OK(doc({}))],
  ['minimal allow_all', '{"schema_version":1,"network":"allow_all"}', OK(doc({ network: 'allow_all' }))],
  ['the seed document', FULL, OK(doc({
    grants: [{ path: 'workspace', access: 'read_write', scope: 'subtree' }],
    executable_grants: [{ path: 'workspace/tool', scope: 'exact' }],
    deny_subtrees: ['workspace/credentials'],
    deny_write_exact: ['workspace/settings.json']
  }))],
  ['allow_subprocesses true', v1(',"allow_subprocesses":true'), OK(doc({ allow_subprocesses: true }))],
  ['members in any order', '{"network":"allow_all","allow_subprocesses":false,"schema_version":1}', OK(doc({ network: 'allow_all' }))],
  ['empty sections', v1(',"grants":[],"executable_grants":[],"deny_subtrees":[],"deny_write_exact":[]'), OK(doc({}))],
  ['grant keys in any order', v1(',"grants":[{"scope":"subtree","path":"/a","access":"read"}]'),
    OK(doc({ grants: [{ path: '/a', access: 'read', scope: 'subtree' }] }))],
  ['every access and scope word', v1(`,"grants":[${grant('a', 'read', 'exact')},${grant('b', 'read_write', 'subtree')}],"executable_grants":[{"path":"c","scope":"subtree"},{"path":"d","scope":"exact"}]`),
    OK(doc({
      grants: [{ path: 'a', access: 'read', scope: 'exact' }, { path: 'b', access: 'read_write', scope: 'subtree' }],
      executable_grants: [{ path: 'c', scope: 'subtree' }, { path: 'd', scope: 'exact' }]
    }))],
  ['escapes and a surrogate pair decode', v1(',"deny_subtrees":["a\\"b\\\\c\\/d\\te\\u00e9\\ud83d\\ude00"]'),
    OK(doc({ deny_subtrees: ['a"b\\c/d\te\u00e9\u{1F600}'] }))],
  ['raw UTF-8 path', v1(',"deny_write_exact":["caf\u00e9/\u65e5\u672c/\u{1F600}"]'),
    OK(doc({ deny_write_exact: ['caf\u00e9/\u65e5\u672c/\u{1F600}'] }))],
  ['insignificant whitespace, CRLF and tabs', '\r\n\t{ "schema_version" :\t1 ,\r\n "network" : "allow_all" }\r\n ', OK(doc({ network: 'allow_all' }))],
  ['escaped key names are the same key', '{"schema\\u005fversion":1,"netw\\u006frk":"block_all"}', OK(doc({}))],
  ['relative and absent paths are kept as written', v1(',"deny_subtrees":["../no/such/dir","./x"]'),
    OK(doc({ deny_subtrees: ['../no/such/dir', './x'] }))],

  // syntax
  ['empty document', '', PARSE(1, 1)],
  ['whitespace only ends at end of input', ' \n  ', PARSE(2, 3)],
  ['trailing garbage', v1() + ' x', PARSE_AT('x')],
  ['a second document', v1() + '{}', PARSE_AT('{}')],
  ['trailing comma in object', '{"schema_version":1,"network":"block_all",}', PARSE_AT('}')],
  ['trailing comma in array', v1(',"deny_subtrees":["a",]'), PARSE_AT(']')],
  ['unterminated document', '{"schema_version":1,', PARSE(1, 21)],
  ['unterminated string', '{"schema_version":1,"network":"blo', PARSE(1, 35)],
  ['single-quoted string', "{'schema_version':1}", PARSE(1, 2)],
  ['byte order mark', '\ufeff' + v1(), PARSE(1, 1)],
  ['comment', '{"schema_version":1,/*x*/"network":"block_all"}', PARSE_AT('/*')],
  ['NaN literal', '{"schema_version":NaN}', PARSE_AT('NaN')],
  ['truncated literal', v1(',"allow_subprocesses":tru}'), PARSE_AT('}', 0)],
  ['misspelt literal', v1(',"allow_subprocesses":fals3'), PARSE_AT('3')],
  ['leading zero', '{"schema_version":01,"network":"block_all"}', PARSE_AT('1,')],
  ['plus sign', '{"schema_version":+1,"network":"block_all"}', PARSE_AT('+')],
  ['bare fraction point', '{"schema_version":1.,"network":"block_all"}', PARSE_AT(',')],
  ['exponent without digits', '{"schema_version":1e,"network":"block_all"}', PARSE_AT(',')],
  ['raw tab in a string', v1(',"deny_subtrees":["a\tb"]'), PARSE_AT('\t')],
  ['raw newline in a string', v1(',"deny_subtrees":["a\nb"]'), PARSE(1, 62)],
  ['invalid escape', v1(',"deny_subtrees":["a\\xb"]'), PARSE_AT('x')],
  ['short \\u escape', v1(',"deny_subtrees":["a\\u12g4"]'), PARSE_AT('g')],
  ['\\u0000 in a path', v1(',"deny_subtrees":["a\\u0000b"]'), PARSE_AT('\\u0000')],
  ['\\u0000 in a key', '{"schema_version":1,"network":"block_all","x\\u0000":1}', PARSE_AT('\\u0000')],
  ['lone high surrogate', v1(',"deny_subtrees":["a\\ud83d"]'), PARSE_AT('\\ud83d')],
  ['high surrogate then a non-surrogate', v1(',"deny_subtrees":["a\\ud83d\\u0041"]'), PARSE_AT('\\ud83d')],
  ['lone low surrogate', v1(',"deny_subtrees":["\\ude00"]'), PARSE_AT('\\ude00')],
  ['invalid UTF-8: bare continuation byte', Buffer.from(v1(',"deny_subtrees":["a\x80"]'), 'latin1'), PARSE(1, 62)],
  ['invalid UTF-8: overlong encoding', Buffer.from(v1(',"deny_subtrees":["\xc0\xaf"]'), 'latin1'), PARSE(1, 61)],
  ['invalid UTF-8: encoded surrogate', Buffer.from(v1(',"deny_subtrees":["\xed\xa0\x80"]'), 'latin1'), PARSE(1, 62)],
  ['invalid UTF-8: above U+10FFFF', Buffer.from(v1(',"deny_subtrees":["\xf4\x90\x80\x80"]'), 'latin1'), PARSE(1, 62)],
  ['invalid UTF-8: truncated sequence', Buffer.from(v1(',"deny_subtrees":["\xe6\x97"]'), 'latin1'), PARSE(1, 63)],
  ['nesting deeper than 16', v1(',"x":' + '['.repeat(16) + ']'.repeat(16)), PARSE_AT('[', 15)],
  ['a long number is still JSON', `{"schema_version":2,"x":-1.${'1'.repeat(100)}e+5}`, UNSUPPORTED(2)],
  ['NUL byte after the document', Buffer.concat([Buffer.from(v1()), Buffer.from([0]), Buffer.from('x')]), PARSE(1, 43)],
  ['vertical tab after the document', v1() + '\v', PARSE_AT('\v')],
  ['form feed before the document', '\f' + v1(), PARSE(1, 1)],

  // root and schema_version
  ['root is an array', '[]', PARSE(1, 1)],
  ['root is an array holding a document', '[{"schema_version":1,"network":"block_all"}]', PARSE(1, 1)],
  ['root is a string after whitespace', '\n  "x"', PARSE(2, 3)],
  ['missing schema_version: the root brace', '\n  {"network":"block_all"}', PARSE(2, 3)],
  ['schema_version as a string', '{"schema_version":"1","network":"block_all"}', PARSE_AT('"1"')],
  ['schema_version null', '{"schema_version":null,"network":"block_all"}', PARSE_AT('null')],
  ['schema_version 1.0', '{"schema_version":1.0,"network":"block_all"}', PARSE_AT('1.0')],
  ['schema_version 1e0', '{"schema_version":1e0,"network":"block_all"}', PARSE_AT('1e0')],
  ['schema_version -1', '{"schema_version":-1,"network":"block_all"}', PARSE_AT('-1')],
  ['schema_version -0', '{"schema_version":-0,"network":"block_all"}', PARSE_AT('-0')],
  ['schema_version above 2^32-1', '{"schema_version":4294967296,"network":"block_all"}', PARSE_AT('4294967296')],
  ['schema_version of 64 digits', `{"schema_version":${'1'.repeat(64)},"network":"block_all"}`, PARSE(1, 19)],
  ['schema_version huge', '{"schema_version":99999999999999999999999,"network":"block_all"}', PARSE_AT('9')],
  ['schema_version twice', '{"schema_version":1,"schema_version":1,"network":"block_all"}', PARSE_AT('"schema_version"', 1)],
  ['schema_version twice, other values', '{"schema_version":2,"network":"block_all","schema_version":1}', PARSE_AT('"schema_version"', 1)],
  ['schema_version 1 then 2', '{"schema_version":1,"schema_version":2,"network":"block_all"}', PARSE_AT('"schema_version"', 1)],
  ['version 2 with unknown fields', '{"schema_version":2,"network":"tcp_only","future":{"a":[1,null]}}', UNSUPPORTED(2)],
  ['version 2 read first even after unknown fields', '{"future":null,"grants":7,"schema_version":2}', UNSUPPORTED(2)],
  ['version 2 without network', '{"schema_version":2}', UNSUPPORTED(2)],
  ['version 0', '{"schema_version":0,"network":"block_all"}', UNSUPPORTED(0)],
  ['version 2^32-1', '{"schema_version":4294967295}', UNSUPPORTED(4294967295)],
  ['version 2 with an oversized section', `{"schema_version":2,"grants":[${entries(300, () => '1')}]}`, UNSUPPORTED(2)],

  // top-level shape
  ['missing network: the root brace', '{"schema_version":1}', PARSE(1, 1)],
  ['missing network in a multi-line document', '\n\n   {\n"schema_version": 1\n}', PARSE(3, 4)],
  ['unknown top-level field', v1(',"networks":"block_all"'), PARSE_AT('"networks"')],
  ['unknown top-level field before network', '{"schema_version":1,"extra":1,"network":"block_all"}', PARSE_AT('"extra"')],
  ['duplicate top-level key', v1(',"network":"block_all"'), PARSE_AT('"network"', 1)],
  ['duplicate section', v1(',"deny_subtrees":[],"deny_subtrees":[]'), PARSE_AT('"deny_subtrees"', 1)],
  ['network null', '{"schema_version":1,"network":null}', PARSE_AT('null')],
  ['network number', '{"schema_version":1,"network":0}', PARSE_AT('0}')],
  ['network bad word', '{"schema_version":1,"network":"BLOCK_ALL"}', PARSE_AT('"BLOCK_ALL"')],
  ['allow_subprocesses null', v1(',"allow_subprocesses":null'), PARSE_AT('null')],
  ['allow_subprocesses as a string', v1(',"allow_subprocesses":"true"'), PARSE_AT('"true"')],
  ['allow_subprocesses as a number', v1(',"allow_subprocesses":1'), PARSE_AT('1}')],
  ['grants null', v1(',"grants":null'), PARSE_AT('null')],
  ['grants an object', v1(',"grants":{}'), PARSE_AT('{}')],
  ['deny_write_exact a string', v1(',"deny_write_exact":"a"'), PARSE_AT('"a"')],

  // entries
  ['grant entry a string', v1(',"grants":["p"]'), PARSE_AT('"p"')],
  ['grant entry an array', v1(',"grants":[["p","read","exact"]]'), PARSE_AT('["p"')],
  ['grant entry null', v1(`,"grants":[${grant()},null]`), PARSE_AT('null')],
  ['grant missing scope: its brace', v1(',"grants":[{"path":"p","access":"read"}]'), PARSE_AT('{"path"')],
  ['grant missing path', v1(',"grants":[{"access":"read","scope":"exact"}]'), PARSE_AT('{"access"')],
  ['unknown field in a grant', v1(',"grants":[{"path":"p","access":"read","scope":"exact","mode":1}]'), PARSE_AT('"mode"')],
  ['duplicate key in a grant', v1(',"grants":[{"path":"p","access":"read","path":"p","scope":"exact"}]'), PARSE_AT('"path"', 1)],
  ['grant empty path', v1(',"grants":[{"path":"","access":"read","scope":"exact"}]'), PARSE_AT('""')],
  ['grant path a number', v1(',"grants":[{"path":7,"access":"read","scope":"exact"}]'), PARSE_AT('7')],
  ['grant path an array', v1(',"grants":[{"path":["p"],"access":"read","scope":"exact"}]'), PARSE_AT('["p"]')],
  ['grant access bad word', v1(',"grants":[{"path":"p","access":"write","scope":"exact"}]'), PARSE_AT('"write"')],
  ['grant access null', v1(',"grants":[{"path":"p","access":null,"scope":"exact"}]'), PARSE_AT('null')],
  ['grant scope bad word', v1(',"grants":[{"path":"p","access":"read","scope":"recursive"}]'), PARSE_AT('"recursive"')],
  ['second grant is the bad one', v1(`,"grants":[${grant()},${grant('q', 'read', 'Exact')}]`), PARSE_AT('"Exact"')],
  ['executable grant with access: unknown there', v1(',"executable_grants":[{"path":"p","access":"read","scope":"exact"}]'), PARSE_AT('"access"')],
  ['executable grant missing scope', v1(',"executable_grants":[{"path":"p"}]'), PARSE_AT('{"path"')],
  ['executable grant empty path', v1(',"executable_grants":[{"path":"","scope":"exact"}]'), PARSE_AT('""')],
  ['deny_subtrees empty path', v1(',"deny_subtrees":["a",""]'), PARSE_AT('""')],
  ['deny_subtrees entry an object', v1(',"deny_subtrees":[{"path":"a"}]'), PARSE_AT('{"path"')],
  ['deny_write_exact entry null', v1(',"deny_write_exact":[null]'), PARSE_AT('null')],

  // multi-line positions, stated literally
  ['error on line 8, inside a grant', FULL.replace('"access": "read_write"', '"access": "write"'), PARSE(8, 17)],
  ['CRLF document', '{\r\n  "schema_version": 1,\r\n  "network": "block_all",\r\n  "bogus": true\r\n}', PARSE(4, 3)],
  ['columns count bytes, not characters', v1(',"deny_subtrees":["\u00e9\u00e9",7]'), PARSE(1, 67)],

  // bounds
  ['65536 bytes is accepted', sized(65536), OK(doc({}))],
  ['65537 bytes is TooLarge', sized(65537), TOO_LARGE],
  ['65537 bytes of garbage is TooLarge, not Parse', Buffer.alloc(65537, 0xff), TOO_LARGE],
  ['65536 bytes with a syntax error at its last byte', sized(65536).slice(0, -1) + 'x', PARSE(1, 65536)],
  ['256 grants are accepted', v1(`,"grants":[${entries(256, (i) => grant(`p${i}`))}]`), OK(null)],
  ['257 grants', v1(`,"grants":[${entries(257, (i) => grant(`p${i}`))}]`), TOO_MANY],
  ['257 executable grants', v1(`,"executable_grants":[${entries(257, () => '{"path":"x","scope":"exact"}')}]`), TOO_MANY],
  ['257 deny_subtrees', v1(`,"deny_subtrees":[${entries(257, () => '"x"')}]`), TOO_MANY],
  ['257 deny_write_exact', v1(`,"deny_write_exact":[${entries(257, () => '"x"')}]`), TOO_MANY],
  ['the count is checked before the entries', v1(`,"grants":[${entries(257, () => 'null')}]`), TOO_MANY],
  ['an earlier shape error wins over a later oversized section', `{"schema_version":1,"network":null,"grants":[${entries(257, () => 'null')}]}`, PARSE_AT('null')]
]

t.ok(TABLE.length >= 50, `table has ${TABLE.length} documents`)
t.equal(limits.documentBytes, 65536)
t.equal(limits.sectionEntries, 256)

for (const [name, source, want] of TABLE) {
  t.test(name, async (t) => {
    const r = parse(source)
    if (want.ok) {
      t.type(r, SandboxPolicy, 'parses')
      if (want.policy) t.same(r.toJSON(), want.policy)
      return
    }
    t.type(r, PolicyDocumentError, 'is a PolicyDocumentError')
    t.equal(r.kind, want.kind, 'kind')
    if (want.kind === 'Parse') {
      const pos = want.snippet !== undefined ? positionOf(source, want.snippet, want.nth) : want
      t.same({ line: r.line, column: r.column }, { line: pos.line, column: pos.column }, 'position')
    } else {
      t.notOk('line' in r, 'no line outside Parse')
      t.notOk('column' in r, 'no column outside Parse')
    }
    if (want.kind === 'UnsupportedVersion') t.equal(r.version, want.version, 'version')
    else t.notOk('version' in r, 'no version outside UnsupportedVersion')
  })
}

// ---- input types ------------------------------------------------------

t.test('string, Buffer and Uint8Array inputs read the same bytes', async (t) => {
  const text = v1(',"deny_subtrees":["caf\u00e9"]')
  const expect = doc({ deny_subtrees: ['caf\u00e9'] })
  t.same(SandboxPolicy.fromJson(text).toJSON(), expect, 'string')
  t.same(SandboxPolicy.fromJson(Buffer.from(text)).toJSON(), expect, 'Buffer')
  t.same(SandboxPolicy.fromJson(new Uint8Array(Buffer.from(text))).toJSON(), expect, 'Uint8Array')
  // A view into a larger buffer: only the viewed bytes are the document.
  const framed = Buffer.from('XXXX' + text + 'YYYY')
  const view = new Uint8Array(framed.buffer, framed.byteOffset + 4, Buffer.byteLength(text))
  t.same(SandboxPolicy.fromJson(view).toJSON(), expect, 'Uint8Array view with an offset')
  const bad = new Uint8Array(framed.buffer, framed.byteOffset + 4, Buffer.byteLength(text) + 1)
  const e = parse(bad)
  t.equal(e.kind, 'Parse', 'one byte more is trailing garbage')
  t.same([e.line, e.column], [1, Buffer.byteLength(text) + 1])
})

t.test('errors are the same for every input type', async (t) => {
  const text = '{\n "schema_version": 1,\n "network": "block_all",\n "grants": [{"path": "", "access": "read", "scope": "exact"}]\n}'
  for (const source of [text, Buffer.from(text), new Uint8Array(Buffer.from(text))]) {
    const e = parse(source)
    t.same([e.kind, e.line, e.column], ['Parse', 4, 22])
  }
})

t.test('an empty Buffer is a Parse error at 1:1', async (t) => {
  const e = parse(Buffer.alloc(0))
  t.same([e.kind, e.line, e.column], ['Parse', 1, 1])
})

t.test('other input types are TypeErrors', async (t) => {
  for (const bad of [undefined, null, 42, {}, [1, 2], new ArrayBuffer(4)]) {
    t.throws(() => SandboxPolicy.fromJson(bad), TypeError)
  }
  t.throws(() => SandboxPolicy.fromJson('{"schema_version":1,"network":"\ud800"}'),
    { constructor: PolicyDocumentError, kind: 'Parse', line: 1, column: 32 },
    'a string with a lone surrogate has no UTF-8 form: Parse, at the surrogate')
})

t.test('256 entries in every section at once', async (t) => {
  const source = v1(
    `,"grants":[${entries(256, (i) => grant(`g${i}`))}]` +
    `,"executable_grants":[${entries(256, (i) => `{"path":"x${i}","scope":"subtree"}`)}]` +
    `,"deny_subtrees":[${entries(256, (i) => `"d${i}"`)}]` +
    `,"deny_write_exact":[${entries(256, (i) => `"w${i}"`)}]`)
  const j = SandboxPolicy.fromJson(source).toJSON()
  t.equal(j.grants.length, 256)
  t.equal(j.grants[255].path, 'g255')
  t.equal(j.executable_grants[17].path, 'x17')
  t.equal(j.deny_subtrees.length, 256)
  t.equal(j.deny_write_exact[0], 'w0')
})

// ---- no document value in any error -----------------------------------

t.test('no error carries a value from the document', async (t) => {
  const SECRET = '/home/alice/.ssh/id_ed25519-SECRET'
  const S = JSON.stringify(SECRET)
  const NEEDLES = ['alice', 'id_ed25519', 'SECRET', '.ssh']
  const cases = [
    v1(`,${S}:1`), // unknown key
    v1(`,"grants":[{"path":${S},"access":"read","scope":"exact",${S}:2}]`),
    v1(`,"grants":[{"path":${S},"access":${S},"scope":"exact"}]`),
    v1(`,"grants":[{"path":${S},"access":"read","scope":${S}}]`),
    v1(`,"grants":[{"path":${S},"access":"read"}]`),
    v1(`,"executable_grants":[{"path":${S},"scope":"exact","access":"read"}]`),
    v1(`,"deny_subtrees":[${S},""]`),
    v1(`,"deny_write_exact":[${S},7]`),
    v1(`,"deny_subtrees":[${S}] trailing`),
    v1(`,"deny_subtrees":["${SECRET}\\u0000"]`),
    v1(`,"deny_subtrees":["${SECRET}\\ud800"]`),
    v1(`,"deny_subtrees":["${SECRET}\t"]`),
    Buffer.concat([Buffer.from(v1(`,"deny_subtrees":["${SECRET}`)), Buffer.from([0xff]), Buffer.from('"]}')]),
    `{"schema_version":1,"network":${S}}`,
    `{"schema_version":${S},"network":"block_all"}`,
    `{"schema_version":2,${S}:${S}}`,
    `{"schema_version":1,"network":"block_all","network":${S}}`,
    `{${S}:1,"schema_version":1}`,
    v1(`,"grants":[${entries(257, () => grant(SECRET))}]`),
    sized(65537).replace('block_all', SECRET)
  ]
  for (const source of cases) {
    const e = parse(source)
    t.type(e, PolicyDocumentError)
    const visible = [
      e.message,
      String(e),
      e.stack,
      JSON.stringify(e),
      ...Object.getOwnPropertyNames(e).map((k) => String(e[k]))
    ].join('\n')
    for (const needle of NEEDLES) {
      t.notOk(visible.includes(needle), `${e.kind} error does not contain ${needle}`)
    }
  }
})

t.test('messages name the schema field and entry, not the value', async (t) => {
  const e = parse(v1(`,"grants":[${grant()},${grant('q', 'read', 'nope')}]`))
  t.match(e.message, /grants\[1\]\.scope/)
  const u = parse(v1(',"grants":[{"path":"p","access":"read","scope":"exact","hidden_key":1}]'))
  t.match(u.message, /unknown field/)
  t.notMatch(u.message, /hidden_key/)
})
