'use strict'
// The command line's parsing, with node:util's parseArgs: one command's
// options (the specs in lib/cli.js's COMMANDS) and, for a command that runs
// one, everything after the first `--` as that command. parseArgs' own
// errors become usage errors that name the flag in the user's words.
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')

const WIDTH = 80
// parseArgs' token kinds: an option, a word that is not one (and --)
const OPTION_TOKEN = 'option'
const POSITIONAL_TOKEN = 'positional'

// A mistake in the command line: exit 2, the message names the flag.
class UsageError extends Error {}

// Words of text (a string, or its words) in lines of at most width
// columns (a longer word alone).
function wrap (text, width) {
  const lines = []
  let line = ''
  for (const word of Array.isArray(text) ? text : text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  return [...lines, line]
}

// parseArgs' message quotes the option it refused.
const quotedIn = (err) => /'([^']*)'/.exec(err.message)[1]

// parseArgs' specs from a command's options (which also carry help words).
function parseOptions (options) {
  return Object.fromEntries(Object.entries(options).map(([k, o]) => [k, { type: o.type, multiple: o.multiple === true }]))
}

// A word as a shell would need it typed.
const shellWord = (w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)

// args: the words before any --; split: whether there was one.
function fromParseError (err, name, command, args, split) {
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${quotedIn(err)}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      // the first word that is not an option, found as parseArgs sees it
      const { tokens } = parseArgs({ args, options: parseOptions(command.options), strict: false, tokens: true })
      const at = tokens.find((tk) => tk.kind === POSITIONAL_TOKEN).index
      const what = shellWord(args[at])
      if (!command.takesCommand || split) return new UsageError(`unexpected argument ${what}`)
      // the user's own words, with the -- they left out
      return new UsageError(`${what} is not an option: the command goes after --, as in ` +
        `\`sandy ${[name, ...args.slice(0, at), '--', ...args.slice(at)].map(shellWord).join(' ')}\``)
    }
    default: { // ERR_PARSE_ARGS_INVALID_OPTION_VALUE
      const flag = quotedIn(err).split(' ')[0]
      if (/ambiguous/.test(err.message)) return new UsageError(`${flag} takes a value starting with - only joined to it, as ${flag}=-VALUE`)
      return new UsageError(/argument missing/.test(err.message) ? `${flag} needs a value` : `${flag} takes no value`)
    }
  }
}

// { option values..., command: [...] | undefined } for command `name`.
function parseCommand (name, command, args) {
  const split = args.indexOf('--')
  const own = command.takesCommand && split !== -1 ? args.slice(0, split) : args
  let parsed
  try {
    parsed = parseArgs({ args: own, options: parseOptions(command.options), strict: true, allowPositionals: false, tokens: true })
  } catch (err) {
    throw fromParseError(err, name, command, own, command.takesCommand && split !== -1)
  }
  const seen = new Set()
  for (const token of parsed.tokens.filter((tk) => tk.kind === OPTION_TOKEN)) {
    if (seen.has(token.name) && !command.options[token.name].multiple) throw new UsageError(`${token.rawName} given twice`)
    seen.add(token.name)
    if (token.value === '') throw new UsageError(`${token.rawName} needs a non-empty value`)
  }
  const opts = { ...parsed.values }
  if (command.takesCommand) opts.command = split === -1 ? [] : args.slice(split + 1)
  return opts
}

// A directory the user named with flag, resolved, or a usage error that
// repeats what they typed.
function directory (flag, value) {
  let st
  try {
    st = fs.statSync(value)
  } catch (err) {
    throw new UsageError(`${flag} ${value}: no such directory (${err.code})`)
  }
  if (!st.isDirectory()) throw new UsageError(`${flag} ${value}: not a directory`)
  return path.resolve(value)
}

// The package's version, which the commands print.
const VERSION = require('../package.json').version

module.exports = { parseCommand, UsageError, directory, wrap, WIDTH, VERSION }
