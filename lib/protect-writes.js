'use strict'
// Protected writes (docs/protected-writes.md): what a confined command must
// not write inside its writable roots because the user runs it later,
// outside any sandbox. As data, each entry with its reason; this module
// finds what the entries name under one call's writable roots, with the
// object each one is, and refuses what no mechanism can hold (a name that
// is a symbolic link, a file with a second hard link). The provider keeps
// each path found read-only with the backend's mechanism.
const fs = require('node:fs')
const path = require('node:path')
const { LAUNCHER } = require('./vocabulary')
const { isWithin } = require('./paths')
const { ancestorIds } = require('./launcher-copy')
const { homes: readHomes, settled } = require('./protect')
const { own } = require('./own')

// In every git directory (a repository's .git, a bare repository, each
// submodule's under modules/, each worktree's under worktrees/): [name,
// kind, why]. Objects, refs, the index and logs stay writable, so git add,
// commit, checkout and fetch work inside.
const GIT_DIR_ENTRIES = Object.freeze([
  ['hooks', 'directory', 'scripts git runs on commit, checkout, merge, rebase and push'],
  ['config', 'file', 'core.fsmonitor, core.pager, core.editor, core.sshCommand, "!" aliases, filter, diff and merge drivers, credential helpers: commands git runs'],
  ['config.worktree', 'file', "the same settings for one worktree (extensions.worktreeConfig)"],
  ['info', 'directory', 'info/attributes, which chooses the filter, diff and merge drivers git runs on paths'],
  ['commondir', 'file', "where a worktree's git directory takes its shared config and hooks from"]
].map((e) => Object.freeze(e)))

// Start-up files of a home directory that a writable root holds (allowed
// only when the caller asked for such a root: allowHomeWorkspace), relative
// to the home: [pattern, why]. The home of the uid this process runs as
// (its passwd entry's, and $HOME where that differs).
const HOME_ENTRIES = Object.freeze([
  ['.profile', 'run by every login shell'],
  ['.bash_profile', "run by bash's login shells"],
  ['.bash_login', "run by bash's login shells"],
  ['.bashrc', 'run by every interactive bash'],
  ['.bash_aliases', "run by Debian's and Ubuntu's ~/.bashrc"],
  ['.bash_logout', "run when bash's login shells end"],
  ['.zshenv', 'run by every zsh'],
  ['.zprofile', "run by zsh's login shells"],
  ['.zshrc', 'run by every interactive zsh'],
  ['.zlogin', "run by zsh's login shells"],
  ['.zlogout', "run when zsh's login shells end"],
  ['.config/fish', "fish's start-up files"],
  ['.xprofile', 'run by display managers at log-in'],
  ['.xsession', 'run by display managers at log-in'],
  ['.xsessionrc', 'run by display managers at log-in'],
  ['.xinitrc', 'run by startx'],
  ['.pam_environment', 'variables (LD_PRELOAD among them) set at every log-in'],
  ['.config/environment.d', "variables systemd's user manager gives every service"],
  ['.config/autostart', 'programs the desktop starts at log-in'],
  ['.config/systemd/user', "units systemd's user manager starts"],
  ['.local/bin', "commands found first on the PATH Debian's ~/.profile sets"],
  ['.local/lib', "Python's user site-packages: their .pth files run at every python start"],
  ['.cargo/bin', "commands rustup's ~/.profile line puts on the PATH"],
  ['.cargo/env', "run by the ~/.profile rustup writes"],
  ['.npmrc', 'script-shell and node-options, which npm runs'],
  ['.vimrc', 'commands vim runs at start'],
  ['.config/nvim', "neovim's start-up files"],
  ['.emacs', 'Lisp emacs runs at start'],
  ['.emacs.d', "emacs's start-up files"],
  ['.tmux.conf', 'commands tmux runs at start'],
  ['.gdbinit', 'commands gdb runs at start'],
  ['bin', "commands found first on the PATH Debian's ~/.profile sets"],
  ['.ssh/rc', 'run by sshd at every log-in'],
  ['.ssh/authorized_keys', 'keys that may log in'],
  ['.ssh/config', 'ProxyCommand and LocalCommand, which ssh runs'],
  ['.gitconfig', "git's global settings: commands git runs in every repository"],
  ['.config/git/config', "git's global settings (XDG place)"],
  ['.config/git/attributes', "git's global attributes, which choose drivers"],
  ['Library/LaunchAgents', 'agents launchd starts at log-in (macOS)']
].map((e) => Object.freeze(e)))

const PROTECTIONS = Object.freeze({
  git: 'the hooks and config of every git repository under a writable root',
  startup: 'the start-up files of a home directory a writable root holds'
})
const PROTECTION_NAMES = Object.freeze(Object.keys(PROTECTIONS))
const DEFAULT_PROTECTIONS = PROTECTION_NAMES

// At most this many protected paths in one call (each a read-only mount),
// and this many directories searched for repositories under the writable
// roots: a call that needs more is refused, never run with fewer.
const MAX_PROTECTED_WRITES = LAUNCHER.protectedWritesMax
const MAX_WATCHED = LAUNCHER.watchesMax
const MAX_DIRECTORIES = 100000

class ProtectWriteError extends Error {}

// A directory's subdirectories and what marks a repository in it, kept
// while the directory is the same object with the same change times (a
// directory's mtime and ctime change whenever an entry is made, removed
// or renamed in it), once it has settled (lib/protect.js): a search of a
// large tree costs a stat per directory after its first.
// A directory that cannot be listed is passed over only when another uid
// owns it and this process is not root (the command, of this uid, cannot
// enter it either); one of this uid's could have been made unlistable by
// an earlier run, which the next could undo, so the call is refused.
// Everything under a git directory is searched too but its objects/: a
// run can make any directory look like one.
const SKIPPED = new Set(['.git'])
const OBJECTS = new Set(['objects'])
const scans = new Map()
function scan (d, dev) {
  const none = { dirs: [], gits: [], bare: false }
  let st, entries
  try {
    // (not bigint: the key needs no more than the kernel's coarse clock
    // gives a change time, and this look runs once per directory per call)
    st = fs.lstatSync(d, { throwIfNoEntry: false })
    if (st === undefined || !st.isDirectory() || (dev !== undefined && st.dev !== dev)) return none
    const key = `${st.dev}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}`
    const kept = scans.get(d)
    if (kept !== undefined && kept.key === key) return kept
    // (options of no prototype: fs reads its own keys, signal among them,
    // through the chain, and a polluted Object.prototype would fail this)
    entries = fs.readdirSync(d, { __proto__: null, withFileTypes: true })
    const names = new Map(entries.map((e) => [e.name, e]))
    const isDir = (n) => names.has(n) && names.get(n).isDirectory()
    // what git itself takes for a git directory: HEAD, objects/ and refs/
    const bare = names.has('HEAD') && isDir('objects') && isDir('refs')
    const got = {
      key,
      bare,
      gits: names.has('.git') ? [names.get('.git')] : [],
      // (git's own name, and a git directory's objects)
      dirs: entries.filter((e) => e.isDirectory() && !SKIPPED.has(e.name) && !(bare && OBJECTS.has(e.name))).map((e) => e.name)
    }
    if (settled(st)) scans.set(d, got)
    else scans.delete(d)
    return got
  /* c8 ignore start: as root, which the suite's in-process cases run as,
     no directory refuses a listing (protected-writes.test.js's case of
     uid 65534 runs this in a process of that user), and one removed
     between its parent's listing and its own is a race no test times */
  } catch (err) {
    // (gone since it was listed: nothing there to protect)
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return none
    if (err.code === 'EACCES' && st !== undefined && st.uid !== process.geteuid() && process.geteuid() !== 0) return none
    throw new ProtectWriteError(`a directory under the writable roots cannot be searched for repositories (${err.code})`)
  }
  /* c8 ignore stop */
}

// Every git directory and .git file under the roots (canonical), and the
// .git names that are symbolic links.
// A directory on another file system than its root's (a mount beneath a
// writable root: kernel file systems, a tmpfs, another disk) is passed
// over: the Linux sandboxes make every mount beneath a writable root
// read-only unless it is a writable root itself, searched in its own turn.
// Seatbelt's allow covers a mount beneath the workspace as well: with
// crossMounts the search goes on into it.
function findRepositories (roots, directories, crossMounts) {
  const gitDirs = []
  const gitFiles = []
  const links = []
  let budget = directories
  const stack = roots.map((r) => [r, crossMounts ? undefined : fs.statSync(r).dev])
  const seen = new Set()
  while (stack.length > 0) {
    const [d, dev] = stack.pop()
    if (seen.has(d)) continue
    seen.add(d)
    if (--budget < 0) throw new ProtectWriteError(`more than ${directories} directories under the writable roots: their git repositories cannot all be found`)
    const s = scan(d, dev)
    if (s.bare) gitDirs.push(d)
    for (const g of s.gits) {
      const p = path.join(d, '.git')
      if (g.isDirectory()) gitDirs.push(p)
      else if (g.isSymbolicLink()) links.push(p)
      else if (g.isFile()) gitFiles.push(p)
    }
    for (const n of s.dirs) stack.push([path.join(d, n), dev])
  }
  return { gitDirs, gitFiles, links }
}

// The git directories a git directory holds: each submodule's (modules/,
// nested to any depth) and each worktree's (worktrees/*).
function innerGitDirs (gitDir, directories) {
  const out = []
  const stack = [path.join(gitDir, 'modules')]
  let budget = directories
  while (stack.length > 0) {
    const d = stack.pop()
    if (--budget < 0) throw new ProtectWriteError('a repository holds too many submodule directories to search')
    const s = scan(d)
    if (s.bare || fs.existsSync(path.join(d, 'commondir'))) {
      out.push(d, ...innerGitDirs(d, directories))
      continue
    }
    for (const n of s.dirs) stack.push(path.join(d, n))
  }
  for (const n of scan(path.join(gitDir, 'worktrees')).dirs) out.push(path.join(gitDir, 'worktrees', n))
  return out
}

// The git directory a .git file (or a worktree's commondir) points to,
// canonical, or null.
function pointedTo (file, prefix) {
  try {
    const line = fs.readFileSync(file, 'utf8').split('\n')[0].trim()
    if (!line.startsWith(prefix)) return null
    return fs.realpathSync.native(path.resolve(path.dirname(file), line.slice(prefix.length).trim()))
  } catch {
    return null
  }
}

// How p is held: its own object, never followed, kept read-only ({ path,
// id, kind }); where it is missing, the first missing name on the way to
// it watched in the nearest directory that exists ({ path, watch: [dir,
// "dev:ino", name] }: the run ends if it appears). Refused when p or a
// directory on the way is a symbolic link (re-pointed, it would lead
// elsewhere), or p cannot be held.
// (a component on the way that is not a directory: missing too)
function lstatOrMissing (p) {
  try {
    return fs.lstatSync(p, { bigint: true, throwIfNoEntry: false })
  } catch (err) {
    if (err.code === 'ENOTDIR') return undefined
    /* c8 ignore start: a host error, which protectedWrites words */
    throw err
  }
  /* c8 ignore stop */
}

function objectAt (p, why) {
  let missing = p
  let st
  for (;;) {
    st = lstatOrMissing(missing)
    if (st !== undefined) break
    missing = path.dirname(missing)
  }
  if (st.isSymbolicLink()) throw new ProtectWriteError(`${why} is a symbolic link, which a read-only mount cannot hold`)
  if (fs.realpathSync.native(missing) !== missing) throw new ProtectWriteError(`${why} is reached through a symbolic link, which a read-only mount cannot hold`)
  if (missing !== p) {
    if (!st.isDirectory()) throw new ProtectWriteError(`${why} lies beneath something that is not a directory`)
    const name = p.slice(missing.length).split('/').find((c) => c !== '')
    return { path: path.join(missing, name), watch: [missing, `${st.dev}:${st.ino}`, name] }
  }
  if (st.isFile() && st.nlink > 1n) throw new ProtectWriteError(`${why} has another hard link, through which it could be written`)
  if (!st.isFile() && !st.isDirectory()) throw new ProtectWriteError(`${why} is neither a file nor a directory`)
  return { path: p, id: `${st.dev}:${st.ino}`, kind: st.isDirectory() ? 'directory' : 'file' }
}

// The values of the keys a git config file names other places by:
// core.hooksPath, and the path of [include] and [includeIf "..."], each
// as { key, value }. Enough of git's syntax for these: sections by name
// (case-insensitive; [section "sub"] and [section.sub] are others), a key
// on the header's line, a value's quotes, escapes and continued lines,
// comments.
function configRefs (file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
  const out = []
  let section = ''
  // (a backslash that ends a line continues the value on the next)
  for (const raw of text.replace(/\\\r?\n/g, '').split('\n')) {
    let line = raw.trim()
    const head = /^\[\s*([A-Za-z0-9.-]+)\s*("(?:[^"\\]|\\.)*")?\s*\]/.exec(line)
    if (head) {
      section = head[1].toLowerCase() + (head[2] !== undefined ? ' "sub"' : '')
      line = line.slice(head[0].length).trim()
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line)
    if (!kv) continue
    const key = `${section}.${kv[1].toLowerCase()}`
    if (PLACE_KEYS.includes(key)) out.push({ key, value: configValue(kv[2]) })
  }
  return out
}

const PLACE_KEYS = Object.freeze(['core.hookspath', 'core.worktree', 'include.path', 'includeif "sub".path'])
// As git reads a value: white space outside quotes dropped at either
// end, kept inside them and between words.
const ESCAPES = Object.freeze({ n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' })
function configValue (v) {
  let out = ''
  let space = ''
  let quoted = false
  for (let i = 0; i < v.length; i++) {
    const c = v[i]
    if (!quoted && (c === '#' || c === ';')) break
    if (!quoted && (c === ' ' || c === '\t')) {
      if (out !== '') space += c
      continue
    }
    out += space
    space = ''
    if (c === '"') quoted = !quoted
    else if (c === '\\') out += ESCAPES[v[++i]] ?? ''
    else out += c
  }
  return out
}

// Where the hooks of a git directory run, which a relative core.hooksPath
// is taken from: its working trees' tops (a repository's .git: the
// directory above; each linked worktree's, which its gitdir file names;
// a submodule's, which its core.worktree names), or the git directory
// itself for a bare repository.
function hookTops (gitDir) {
  const tops = []
  if (path.basename(gitDir) === '.git') tops.push(path.dirname(gitDir))
  for (const n of scan(path.join(gitDir, 'worktrees')).dirs) {
    const top = pointedTo(path.join(gitDir, 'worktrees', n, 'gitdir'), '')
    if (top !== null) tops.push(path.dirname(top))
  }
  const worktree = configRefs(path.join(gitDir, 'config')).find((r) => r.key === 'core.worktree')
  if (worktree !== undefined) tops.push(path.resolve(gitDir, worktree.value))
  if (tops.length === 0) tops.push(gitDir)
  return tops
}

// What a git directory's config names under the roots: the hooks
// directory core.hooksPath chooses (relative to the working tree's top,
// or the git directory of a bare repository) and the files it includes
// (relative to the including file), followed as git follows them (at
// most 10 deep).
function configPlaces (gitDir, homes, depth = 0, file = path.join(gitDir, 'config')) {
  const places = []
  for (const { key, value } of configRefs(file)) {
    if (value === '' || key === 'core.worktree') continue
    const hooks = key === 'core.hookspath'
    const bases = hooks ? hookTops(gitDir) : [path.dirname(file)]
    // (git takes ~ from $HOME; the passwd home too, where they differ)
    const targets = value.startsWith('~/') ? homes.map((h) => path.join(h, value.slice(2))) : bases.map((b) => path.resolve(b, value))
    for (const target of targets) {
      places.push({ target, why: hooks ? 'the hooks directory core.hooksPath names' : 'a config file the config includes' })
      if (!hooks && depth < 10) places.push(...configPlaces(gitDir, homes, depth + 1, target))
    }
  }
  return places
}


// What git runs from, in every repository under the roots. A git
// directory without hooks/ gets an empty one (what git init makes), so
// that the name can be held: otherwise the command could make it.
function gitPaths (roots, homeDirs, directories, crossMounts) {
  const { gitDirs, gitFiles, links } = findRepositories(roots, directories, crossMounts)
  if (links.length > 0) throw new ProtectWriteError("a repository's .git is a symbolic link, which a read-only mount cannot hold")
  const dirs = new Set(gitDirs)
  const found = []
  for (const f of gitFiles) {
    found.push(objectAt(f, 'a .git file'))
    const target = pointedTo(f, 'gitdir:')
    if (target !== null && roots.some((r) => isWithin(r, target))) dirs.add(target)
  }
  for (const d of [...dirs]) {
    for (const inner of innerGitDirs(d, directories)) dirs.add(inner)
    const common = pointedTo(path.join(d, 'commondir'), '')
    if (common !== null && roots.some((r) => isWithin(r, common))) dirs.add(common)
  }
  for (const d of dirs) {
    // (a repository's own .git only: a run can make any directory look
    // like a bare one, and nothing is made there)
    const isWorktree = fs.existsSync(path.join(d, 'commondir'))
    if (!isWorktree && path.basename(d) === '.git') {
      for (const name of ['hooks', 'info']) makeMissing(path.join(d, name))
    }
    for (const [name] of GIT_DIR_ENTRIES) found.push(objectAt(path.join(d, name), `a repository's ${name}`))
    for (const file of [path.join(d, 'config'), path.join(d, 'config.worktree')]) {
      for (const { target, why } of configPlaces(d, homeDirs, 0, file)) {
        let real
        try {
          real = fs.realpathSync.native(target)
        } catch {
          real = target
        }
        if (!roots.some((r) => isWithin(r, real) || isWithin(r, target))) continue
        // (a link on the way, in a writable directory, could be re-pointed)
        if (real !== target) throw new ProtectWriteError(`${why} is reached through a symbolic link, which a read-only mount cannot hold`)
        found.push(objectAt(real, why))
      }
    }
  }
  return found
}

// An empty directory where one is missing, as git init makes it, so that
// its name can be held.
function makeMissing (dir) {
  if (fs.lstatSync(dir, { throwIfNoEntry: false }) === undefined) fs.mkdirSync(dir)
}

// The homes protected reads know (lib/protect.js: the passwd entry's, and
// $HOME), canonical, those that are directories but /.
function homes (env) {
  const out = []
  for (const p of readHomes(env)) {
    try {
      const c = fs.realpathSync.native(p)
      if (fs.statSync(c).isDirectory() && c !== '/' && !out.includes(c)) out.push(c)
    } catch {}
  }
  return out
}

// The homes (canonical) a root (canonical, with its "dev:ino") is or holds,
// by device and inode of the home and each directory above it.
function homesHeld (root, rootId, env = process.env) {
  return homes(env).filter((h) => ancestorIds(h).has(rootId))
}

// What one call holds: with names the protections (a subset of
// PROTECTION_NAMES), roots the writable roots as [{ root, rootId }]:
// { kept: [{ path, id, kind }] read-only (canonical, existing), watched:
// [[dir, "dev:ino", name]] (missing names of existing directories) }.
// Throws a ProtectWriteError naming what cannot be held, never a path.
// (directories: the search's bound, which a test lowers; crossMounts: the
// search goes into mounts beneath the roots, for Seatbelt)
function protectedWrites (names, roots, env = process.env, options = {}) {
  // (own properties only: a polluted prototype widens or narrows no search)
  const directories = own(options, 'directories') ?? MAX_DIRECTORIES
  const crossMounts = own(options, 'crossMounts') === true
  try {
    return gather(names, roots, env, directories, crossMounts)
  } catch (err) {
    if (err instanceof ProtectWriteError) throw err
    /* c8 ignore start: a host error while looking (a directory removed
       meanwhile, a hooks directory that cannot be made) */
    throw new ProtectWriteError(`the writable roots cannot be searched for what to protect (${err.code})`)
  }
  /* c8 ignore stop */
}

function gather (names, roots, env, directories, crossMounts) {
  const canonical = roots.map((r) => r.root)
  const found = []
  if (names.includes('git')) found.push(...gitPaths(canonical, homes(env), directories, crossMounts))
  if (names.includes('startup')) {
    for (const r of roots) {
      for (const home of homesHeld(r.root, r.rootId, env)) {
        for (const [pattern] of HOME_ENTRIES) found.push(objectAt(path.join(home, pattern), 'a start-up file of the home'))
      }
    }
  }
  const unique = new Map()
  for (const o of found) if (o !== null && canonical.some((r) => isWithin(r, o.path))) unique.set(o.path, o)
  const kept = [...unique.values()].filter((o) => !o.watch)
  const watched = [...unique.values()].filter((o) => o.watch).map((o) => o.watch)
  if (kept.length > MAX_PROTECTED_WRITES) throw new ProtectWriteError(`more than ${MAX_PROTECTED_WRITES} paths to keep read-only under the writable roots`)
  if (watched.length > MAX_WATCHED) throw new ProtectWriteError(`more than ${MAX_WATCHED} missing names to watch under the writable roots`)
  return { kept, watched }
}

module.exports = {
  GIT_DIR_ENTRIES,
  HOME_ENTRIES,
  PROTECTIONS,
  PROTECTION_NAMES,
  DEFAULT_PROTECTIONS,
  MAX_PROTECTED_WRITES,
  MAX_WATCHED,
  MAX_DIRECTORIES,
  ProtectWriteError,
  protectedWrites,
  homesHeld
}
