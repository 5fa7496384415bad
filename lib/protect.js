'use strict'
// Protected reads (docs/protected-reads.md): the presets as data, and what
// they name on this host at one confine. The provider covers each path
// found with the backend's mechanism; this module only finds them, with
// the object each one is, and refuses what no mechanism can cover.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { own } = require('./own')
const { LAUNCHER } = require('./vocabulary')

// Each entry: [base, pattern, why, options]. A pattern is relative to
// each directory of its base, '/'-separated; a component may hold one '*'
// (any run of characters, as a shell's, among the entries one directory
// lists). The bases:
//   home     each home of the uid this process runs as (its passwd entry's,
//            and $HOME where that differs: more covered, never less)
//   config   $XDG_CONFIG_HOME, and each home's .config
//   data     $XDG_DATA_HOME, and each home's .local/share
//   cache    $XDG_CACHE_HOME, and each home's .cache
//   runtime  $XDG_RUNTIME_DIR, and /run/user/UID
//   root     the pattern is absolute
//   $NAME    each absolute path the variable NAME holds (':'-separated),
//            where a tool reads from if the user moved it
//   env      the pattern is a variable of this process's environment,
//            whose value names a socket (a path, unix:path=..., unix://...)
// options:
//   sockets  only the sockets among what the pattern names, each looked at
//            itself (lstat: a symlink planted there names nothing)
//   mine     only what this uid or root owns (in directories every user can
//            write, where anyone else could plant names to be protected)
//   except   names (of the last component) the pattern leaves readable
// A file is named rather than its directory where tools need its
// neighbours: ~/.ssh's keys but not known_hosts or config, gh's hosts.yml
// but not its config.yml.
const SSH_READABLE = Object.freeze(['known_hosts', 'known_hosts.old', 'config', 'authorized_keys', 'authorized_keys2', 'environment', 'rc'])
const entry = (base, pattern, why, options = {}) => Object.freeze([base, pattern, why, Object.freeze(options)])
const PRESETS = Object.freeze({
  credentials: Object.freeze([
    entry('home', '.ssh/*', 'SSH private keys (known_hosts, config and the public keys stay readable)', { except: SSH_READABLE, suffixExcept: '.pub', files: true }),
    entry('home', '.ssh/*/*', 'SSH private keys kept in a directory of ~/.ssh', { except: SSH_READABLE, suffixExcept: '.pub', files: true }),
    entry('home', '.gnupg/private-keys-v1.d', "GnuPG's private keys"),
    entry('$GNUPGHOME', 'private-keys-v1.d', "GnuPG's private keys (where $GNUPGHOME puts them)"),
    entry('home', '.gnupg/secring.gpg', "GnuPG 1's secret keyring"),
    entry('home', '.aws/credentials', "the AWS CLI's access keys"),
    entry('home', '.aws/sso/cache', "AWS single sign-on's tokens"),
    entry('$AWS_SHARED_CREDENTIALS_FILE', '', "the AWS CLI's access keys (where the variable puts them)"),
    entry('config', 'gcloud/credentials.db', "the Google Cloud CLI's credentials"),
    entry('config', 'gcloud/access_tokens.db', "the Google Cloud CLI's tokens"),
    entry('config', 'gcloud/application_default_credentials.json', "Google Cloud's application credentials"),
    entry('config', 'gcloud/legacy_credentials', "the Google Cloud CLI's older credentials"),
    entry('home', '.azure/msal_token_cache.json', "the Azure CLI's tokens"),
    entry('home', '.azure/accessTokens.json', "the Azure CLI's older tokens"),
    entry('home', '.kube/config', "Kubernetes clusters' credentials"),
    entry('$KUBECONFIG', '', "Kubernetes clusters' credentials (the files $KUBECONFIG names)"),
    entry('home', '.docker/config.json', "container registries' credentials"),
    entry('$DOCKER_CONFIG', 'config.json', "container registries' credentials (where $DOCKER_CONFIG puts them)"),
    entry('config', 'containers/auth.json', "podman's and buildah's registry credentials"),
    entry('runtime', 'containers/auth.json', "podman's registry credentials (its default place)"),
    entry('home', '.netrc', 'logins that curl, git and ftp send'),
    entry('home', '.git-credentials', "git's credential store"),
    entry('config', 'git/credentials', "git's credential store (XDG place)"),
    entry('config', 'gh/hosts.yml', "the GitHub CLI's tokens (its config.yml stays readable)"),
    entry('$GH_CONFIG_DIR', 'hosts.yml', "the GitHub CLI's tokens (where $GH_CONFIG_DIR puts them)"),
    entry('config', 'hub', "hub's GitHub token"),
    entry('home', '.npmrc', "npm's registry tokens"),
    entry('home', '.yarnrc.yml', "Yarn's registry tokens"),
    entry('home', '.pypirc', "PyPI's upload tokens"),
    entry('home', '.cargo/credentials.toml', "crates.io's token"),
    entry('home', '.cargo/credentials', "crates.io's token (older cargo)"),
    entry('$CARGO_HOME', 'credentials.toml', "crates.io's token (where $CARGO_HOME puts it)"),
    entry('home', '.gem/credentials', "RubyGems' API key"),
    entry('home', '.terraform.d/credentials.tfrc.json', "Terraform Cloud's token"),
    entry('home', '.vault-token', "HashiCorp Vault's token"),
    entry('home', '.pgpass', "PostgreSQL's passwords"),
    entry('home', '.my.cnf', "MySQL's client passwords"),
    entry('home', '.m2/settings.xml', "Maven's repository passwords"),
    entry('cache', 'huggingface/token', "Hugging Face's token"),
    entry('home', '.Xauthority', "the X server's cookies: whoever has one reads and types into every window"),
    entry('data', 'keyrings', "GNOME Keyring's stores")
  ]),
  'host-sockets': Object.freeze([
    entry('root', '/run/docker.sock', "Docker's engine: root on the host"),
    entry('root', '/var/run/docker.sock', "Docker's engine, by its older path"),
    entry('root', '/run/podman/podman.sock', "Podman's service: root on the host"),
    entry('root', '/run/containerd/containerd.sock', 'containerd: root on the host'),
    entry('root', '/run/buildkit/buildkitd.sock', "BuildKit's daemon: root on the host"),
    entry('root', '/run/dbus/system_bus_socket', "the system bus: the host's services"),
    entry('root', '/run/systemd/private', "systemd's manager: starts units outside any sandbox"),
    entry('root', '/run/screen/*/*', 'screen sessions: run commands outside any sandbox', { sockets: true, mine: true }),
    entry('runtime', '*', "every socket of the user's runtime directory: the session bus, rootless Docker and Podman, Wayland, agents", { sockets: true }),
    entry('runtime', '*/*', 'and one level down: the GPG agent, the user\'s systemd, tmux, emacs, keyrings, portals', { sockets: true }),
    entry('home', '.gnupg/S.*', 'the GPG agent, by its older place', { sockets: true }),
    entry('$GNUPGHOME', 'S.*', 'the GPG agent (where $GNUPGHOME puts it)', { sockets: true }),
    entry('home', '.ssh/*', "SSH's multiplexing sockets: an open connection to a remote host", { sockets: true }),
    entry('home', '.ssh/*/*', "SSH's multiplexing sockets in a directory of their own", { sockets: true }),
    entry('root', '/tmp/.X11-unix/X*', 'the X server: reads and types into every window', { sockets: true, mine: true }),
    entry('root', '/tmp/ssh-*/agent.*', "SSH agents: sign with the user's keys", { sockets: true, mine: true }),
    entry('root', '/tmp/tmux-*/*', 'tmux servers: run commands outside any sandbox', { sockets: true, mine: true }),
    entry('$TMUX_TMPDIR', 'tmux-*/*', 'tmux servers (where $TMUX_TMPDIR puts them)', { sockets: true, mine: true }),
    entry('root', '/tmp/emacs*/*', 'the emacs server: runs code outside any sandbox', { sockets: true, mine: true }),
    entry('env', 'SSH_AUTH_SOCK', "the SSH agent this process's environment names"),
    entry('env', 'DBUS_SESSION_BUS_ADDRESS', "the session bus this process's environment names"),
    entry('env', 'DOCKER_HOST', "the Docker engine this process's environment names"),
    entry('env', 'TMUX', "the tmux server this process runs under")
  ])
})
const PRESET_NAMES = Object.freeze(Object.keys(PRESETS))
// In the seam's modes unless the caller says otherwise (docs/api.md,
// "Departures"): both.
const DEFAULT_PRESETS = PRESET_NAMES

// At most this many paths one confine protects (the launcher's bound).
const MAX_PROTECTED = LAUNCHER.denyReadsMax

// input: the caller's own value is at fault (a denyRead path that is not
// there), not the host.
class ProtectError extends Error {
  constructor (message, input = false) {
    super(message)
    this.input = input
  }
}

// ---- the bases ---------------------------------------------------------------

function absolute (v) {
  return typeof v === 'string' && path.isAbsolute(v) && !v.includes('\0') ? v : null
}

const unique = (list) => [...new Set(list.filter((v) => v !== null))]
const uid = () => process.geteuid()

function homes (env) {
  let passwd = null
  try {
    passwd = os.userInfo().homedir
  /* c8 ignore next: a uid without a passwd entry */
  } catch {}
  return unique([absolute(passwd), absolute(own(env, 'HOME'))])
}

function bases (env) {
  const h = homes(env)
  const xdg = (name, rel) => unique([absolute(own(env, name)), ...h.map((d) => path.join(d, rel))])
  return {
    home: h,
    config: xdg('XDG_CONFIG_HOME', '.config'),
    data: xdg('XDG_DATA_HOME', path.join('.local', 'share')),
    cache: xdg('XDG_CACHE_HOME', '.cache'),
    runtime: unique([absolute(own(env, 'XDG_RUNTIME_DIR')), `/run/user/${uid()}`]),
    root: ['/']
  }
}

// The directories (or files) a variable names: absolute paths, ':'-separated.
const variablePaths = (env, name) => {
  const v = own(env, name)
  return typeof v === 'string' ? unique(v.split(':').map(absolute)) : []
}

// The socket path a variable's value names: a path, a D-Bus address
// ("unix:path=P,guid=..." among ';'-separated ones), a Docker host
// ("unix:///P") or tmux's "P,PID,SESSION"; none for anything else (an
// abstract socket is out of reach already: Landlock's scoping,
// csrc/linux/plan.c).
function socketPaths (value) {
  if (typeof value !== 'string') return []
  if (value.startsWith('unix://')) return unique([absolute(value.slice('unix://'.length))])
  const bus = [...value.matchAll(/(?:^|[;,:])path=([^,;]+)/g)].map((m) => absolute(m[1]))
  return unique([...bus, absolute(value), absolute(value.split(',')[0])])
}

// ---- expansion ---------------------------------------------------------------

function starMatch (component, name) {
  const star = component.indexOf('*')
  if (star < 0) return component === name
  const head = component.slice(0, star)
  const tail = component.slice(star + 1)
  return name.length >= head.length + tail.length && name.startsWith(head) && name.endsWith(tail)
}

// Whether a listing of a directory keyed on its change times may be kept
// for later calls: only once its ctime is over a second old. Before Linux
// 6.13 those times come from the kernel's coarse clock, so an entry made
// in the same tick as a listing, after it, leaves them as they were, and a
// listing kept then would miss it until the directory changed again
// (findings.md 221). A directory changed in the last second is listed
// again at the next call instead. (ctime, which no caller can set.)
const SETTLE_MS = 1000
const settled = (st, now = Date.now()) => Number(st.ctimeMs) < now - SETTLE_MS

// A directory's entries, kept while the directory is the same object with
// the same change times (listing /tmp, hundreds of entries, at every
// confine cost more than the rest of it; a directory's mtime and ctime
// change whenever an entry is made, removed or renamed in it), once it
// has settled. { names }, or { blocked } for a directory that exists but
// cannot be listed.
const listings = new Map()
function listing (d) {
  let st
  try {
    // (most places are missing: asked without an exception, which costs
    // more than the look itself)
    st = fs.statSync(d, { bigint: true, throwIfNoEntry: false })
    if (st === undefined || !st.isDirectory()) return { names: [] }
    const key = `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`
    const kept = listings.get(d)
    if (kept !== undefined && kept.key === key) return kept
    const got = { key, names: fs.readdirSync(d) }
    if (settled(st)) listings.set(d, got)
    else listings.delete(d)
    return got
  } catch (err) {
    // (a directory of its own in the way, or itself unlistable: which
    // uid's it is is decided where it is protected)
    return err.code === 'EACCES' ? { names: [], blocked: d } : { names: [] }
  }
}

// Every path pattern names beneath dir, and the directories on the way
// that exist but cannot be listed.
function expand (dir, pattern) {
  let found = [dir]
  const blocked = []
  for (const c of pattern.split('/').filter((x) => x !== '')) {
    if (!c.includes('*')) {
      found = found.map((d) => path.join(d, c))
      continue
    }
    found = found.flatMap((d) => {
      const l = listing(d)
      if (l.blocked) blocked.push(l.blocked)
      return l.names.filter((n) => starMatch(c, n)).map((n) => path.join(d, n))
    })
  }
  return { found, blocked }
}

// What one preset entry names here.
function entryPaths ([base, pattern], b, env) {
  if (base === 'env') return { found: socketPaths(own(env, pattern)), blocked: [] }
  const dirs = base.startsWith('$') ? variablePaths(env, base.slice(1)) : b[base]
  const parts = dirs.map((d) => expand(d, pattern))
  return { found: parts.flatMap((p) => p.found), blocked: parts.flatMap((p) => p.blocked) }
}

function objectOf (canonical, st) {
  const kind = st.isSocket() ? 'socket' : st.isDirectory() ? 'directory' : 'file'
  return { path: canonical, id: `${st.dev}:${st.ino}`, kind, socket: st.isSocket(), dir: st.isDirectory(), uid: Number(st.uid), nlink: Number(st.nlink), links: extraLinks(canonical, st) }
}

// The object at p (followed through symlinks), or, with itself, p's own
// object at its canonical place (its directory's real path: the launcher
// opens it without following any link; a symlink names nothing then);
// null when there is none to protect: missing, or behind a directory this
// uid cannot search and cannot change (another uid's: the kernel keeps
// the command out too). { blocked } when a directory this uid owns is in
// the way: a command of the same uid could have made it unsearchable, and
// could undo that.
function objectAt (p, itself = false) {
  try {
    // (most are missing: asked without an exception first)
    const l = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false })
    if (l === undefined) return null
    if (itself) return l.isSymbolicLink() ? null : objectOf(path.join(fs.realpathSync.native(path.dirname(p)), path.basename(p)), l)
    const canonical = fs.realpathSync.native(p)
    return objectOf(canonical, fs.statSync(canonical, { bigint: true }))
  } catch (err) {
    return err.code === 'EACCES' ? blockedOn(p) : null
  }
}

// The directory that keeps p out of reach, found by resolving p one
// component at a time (following each symlink: a dotfile manager's
// ~/.ssh -> dotfiles/ssh), as { blocked: its canonical path } when this
// uid owns it, null when another uid does (or p is missing).
function blockedOn (p) {
  const parts = p.split('/').filter((c) => c !== '')
  let cur = '/'
  for (let hops = 0; parts.length > 0;) {
    const next = path.join(cur, parts.shift())
    let st
    try {
      st = fs.lstatSync(next, { bigint: true, throwIfNoEntry: false })
    } catch {
      return ownBlocker(cur) // (cur cannot be searched)
    }
    /* c8 ignore next: gone since the look that met EACCES */
    if (st === undefined) return null
    if (st.isSymbolicLink()) {
      /* c8 ignore next: a loop of links */
      if (++hops > 40) return null
      const target = fs.readlinkSync(next)
      parts.unshift(...target.split('/').filter((c) => c !== ''))
      if (path.isAbsolute(target)) cur = '/'
      continue
    }
    cur = next
  }
  /* c8 ignore next: EACCES with every directory on the way searchable */
  return ownBlocker(cur)
}

const ownBlocker = (d) => {
  const st = fs.lstatSync(d, { bigint: true })
  return Number(st.uid) === uid() ? { blocked: d } : null
}

// Whether a file (or socket) directly inside a protected directory has a
// name other than its own: a hard link elsewhere reads the same data, and
// no cover over the directory reaches it. (An object's own links are
// looked at in protectedPaths.)
function extraLinks (p, st) {
  if (!st.isDirectory()) return false
  try {
    return fs.readdirSync(p, { __proto__: null, withFileTypes: true }).some((e) => (e.isFile() || e.isSocket()) && fs.lstatSync(path.join(p, e.name), { bigint: true }).nlink > 1n)
  /* c8 ignore next 3: a protected directory this uid cannot list */
  } catch {
    return false
  }
}

// Whether an object an entry's pattern found is one it protects.
function fits (o, p, options) {
  if (options.sockets && !o.socket) return false
  if (options.files && (o.socket || o.dir)) return false
  if (options.mine && o.uid !== uid() && o.uid !== 0) return false
  const name = path.basename(p)
  if (options.except && options.except.includes(name)) return false
  if (options.suffixExcept && name.endsWith(options.suffixExcept)) return false
  return true
}

// The protected paths of one confine: each { path (canonical), id
// ("dev:ino"), kind ('file', 'directory', 'socket'), socket (whether it
// is one), source (the preset's name or 'denyRead'), why }, one per
// object. presets: names of PRESETS; denyRead: absolute paths the caller
// names, each of which must exist. A directory of this uid's that a
// preset's path lies behind and that cannot be searched or listed is
// protected whole. Throws ProtectError (never naming a path) for a
// denyRead path that cannot be resolved, a protected object of this uid's
// with another hard link, or more than MAX_PROTECTED.
function protectedPaths ({ presets, denyRead }, env = process.env) {
  const b = bases(env)
  const out = new Map()
  const add = (o, source, why) => {
    if (!out.has(o.path)) out.set(o.path, { path: o.path, id: o.id, kind: o.kind, socket: o.socket, source, why, o })
  }
  const addBlocked = (d, source, why) => {
    let o
    try {
      o = objectAt(fs.realpathSync.native(d))
    } catch {
      o = blockedOn(path.join(d, '.'))
      o = o && objectAt(o.blocked)
    }
    if (o && !o.blocked && o.uid === uid()) add(o, source, `${why}, behind a directory it cannot search`)
  }
  denyRead.forEach((p, i) => {
    const o = objectAt(p)
    if (o === null || o.blocked) throw new ProtectError(`options.denyRead[${i}] cannot be resolved`, true)
    add(o, 'denyRead', `options.denyRead[${i}]`)
  })
  for (const name of presets) {
    for (const e of PRESETS[name]) {
      const [, , why, options] = e
      const { found, blocked } = entryPaths(e, b, env)
      for (const d of blocked) addBlocked(d, name, why)
      for (const p of found) {
        const o = objectAt(p, options.sockets === true)
        if (o === null) continue
        if (o.blocked) addBlocked(o.blocked, name, why)
        else if (fits(o, p, options)) add(o, name, why)
      }
    }
  }
  // A name no cover might reach: a second link of the object (the
  // launcher refuses to deny a file with one, even when both names are
  // protected: resolve.c), or, for a directory, of a file inside it.
  // (Another uid's socket is that uid's business: it made the links.)
  for (const { o, source, why } of out.values()) {
    const more = o.dir ? o.links : o.nlink > 1
    if (more && (o.uid === uid() || !o.socket)) throw new ProtectError(`a protected ${o.kind} (${source === 'denyRead' ? why : `${source}: ${why}`}) has another hard link, which no cover over its name reaches; remove that link, or leave it unprotected`)
  }
  if (out.size > MAX_PROTECTED) throw new ProtectError(`more than ${MAX_PROTECTED} protected paths`)
  return [...out.values()].map(({ o, ...f }) => f)
}

module.exports = { PRESETS, PRESET_NAMES, DEFAULT_PRESETS, MAX_PROTECTED, ProtectError, protectedPaths, socketPaths, starMatch, homes, settled }
