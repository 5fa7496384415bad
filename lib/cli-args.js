'use strict'
// The command line's parsing, with node:util's parseArgs: one command's
// options (the specs in lib/cli.js's COMMANDS) and, for a command that runs
// one, everything after the first `--` as that command. parseArgs' own
// errors become usage errors that name the flag in the user's words.
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')

const WIDTH = 80
// parseArgs' token kind for an option (its others: positionals, --)
const OPTION_TOKEN = 'option'

// A mistake in the command line: exit 2, the message names the flag.
class UsageError extends Error {}

// Words of text in lines of at most width columns (a longer word alone).
function wrap (text, width) {
  const lines = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  return [...lines, line]
}

// parseArgs' message quotes the option or argument it refused.
const quotedIn = (err) => /'([^']*)'/.exec(err.message)[1]

function fromParseError (err, name, command, args) {
  const what = quotedIn(err)
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${what}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      if (!command.takesCommand) return new UsageError(`unexpected argument ${what}`)
      // the user's own words, with the -- they left out
      const at = args.indexOf(what)
      return new UsageError(`${what} is not an option: the command goes after --, as in ` +
        `\`sandy ${[name, ...args.slice(0, at), '--', ...args.slice(at)].join(' ')}\``)
    }
    default: // ERR_PARSE_ARGS_INVALID_OPTION_VALUE
      return new UsageError(/argument missing/.test(err.message)
        ? `${what.split(' ')[0]} needs a value`
        : `${what} takes no value`)
  }
}

// { option values..., command: [...] | undefined } for command `name`.
function parseCommand (name, command, args) {
  const split = args.indexOf('--')
  const own = command.takesCommand && split !== -1 ? args.slice(0, split) : args
  const options = Object.fromEntries(Object.entries(command.options).map(([k, o]) => [k, { type: o.type }]))
  let parsed
  try {
    parsed = parseArgs({ args: own, options, strict: true, allowPositionals: false, tokens: true })
  } catch (err) {
    throw fromParseError(err, name, command, own)
  }
  const seen = new Set()
  for (const token of parsed.tokens.filter((tk) => tk.kind === OPTION_TOKEN)) {
    if (seen.has(token.name)) throw new UsageError(`${token.rawName} given twice`)
    seen.add(token.name)
    if (token.value === '') throw new UsageError(`${token.rawName} needs a non-empty value`)
  }
  const opts = { ...parsed.values }
  if (command.takesCommand) {
    opts.command = split === -1 ? [] : args.slice(split + 1)
    if (opts.command.length === 0) throw new UsageError(`a command is required after --, as in \`${command.example}\``)
  }
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

module.exports = { parseCommand, UsageError, directory, wrap, WIDTH }
