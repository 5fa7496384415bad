'use strict'
// Protected reads (docs/protected-reads.md): the presets as data, and what
// they name on this host at one confine. The provider covers each path
// found with the backend's mechanism; this module only finds them, with
// the object each one is, and refuses what no mechanism can cover.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { own } = require('./own')

// Each entry: [base, pattern, why]. A pattern is relative to each
// directory of its base, '/'-separated; a component may hold one '*'
// (any run of characters, as a shell's, among the entries one directory
// lists). The bases:
//   home     each home of the uid this process runs as (its passwd entry's,
//            and $HOME where that differs: more covered, never less)
//   config   $XDG_CONFIG_HOME, and each home's .config
//   data     $XDG_DATA_HOME, and each home's .local/share
//   runtime  $XDG_RUNTIME_DIR, and /run/user/UID
//   root     the pattern is absolute
//   env      the pattern is a variable of this process's environment,
//            whose value names a socket (a path, unix:path=..., unix://...)
// A file is named rather than its directory where tools need its
// neighbours: ~/.ssh/id_* but not known_hosts or config, gh's hosts.yml
// but not its config.yml.
const PRESETS = Object.freeze({
  credentials: Object.freeze([
    ['home', '.ssh/id_*', "SSH private keys (known_hosts and config stay readable)"],
    ['home', '.gnupg/private-keys-v1.d', "GnuPG's private keys"],
    ['home', '.gnupg/secring.gpg', "GnuPG 1's secret keyring"],
    ['home', '.aws/credentials', "the AWS CLI's access keys"],
    ['home', '.aws/sso/cache', "AWS single sign-on's tokens"],
    ['config', 'gcloud/credentials.db', "the Google Cloud CLI's credentials"],
    ['config', 'gcloud/access_tokens.db', "the Google Cloud CLI's tokens"],
    ['config', 'gcloud/application_default_credentials.json', "Google Cloud's application credentials"],
    ['config', 'gcloud/legacy_credentials', "the Google Cloud CLI's older credentials"],
    ['home', '.azure/msal_token_cache.json', "the Azure CLI's tokens"],
    ['home', '.azure/accessTokens.json', "the Azure CLI's older tokens"],
    ['home', '.kube/config', "Kubernetes clusters' credentials"],
    ['home', '.docker/config.json', "container registries' credentials"],
    ['home', '.netrc', 'logins that curl, git and ftp send'],
    ['home', '.git-credentials', "git's credential store"],
    ['config', 'git/credentials', "git's credential store (XDG place)"],
    ['config', 'gh/hosts.yml', "the GitHub CLI's tokens (its config.yml stays readable)"],
    ['config', 'hub', "hub's GitHub token"],
    ['home', '.npmrc', "npm's registry tokens"],
    ['home', '.yarnrc.yml', "Yarn's registry tokens"],
    ['home', '.pypirc', "PyPI's upload tokens"],
    ['home', '.cargo/credentials.toml', "crates.io's token"],
    ['home', '.cargo/credentials', "crates.io's token (older cargo)"],
    ['home', '.gem/credentials', "RubyGems' API key"],
    ['home', '.terraform.d/credentials.tfrc.json', "Terraform Cloud's token"],
    ['data', 'keyrings', "GNOME Keyring's stores"]
  ].map(Object.freeze)),
  'host-sockets': Object.freeze([
    ['root', '/run/docker.sock', "Docker's engine: root on the host"],
    ['root', '/var/run/docker.sock', "Docker's engine, by its older path"],
    ['root', '/run/podman/podman.sock', "Podman's service: root on the host"],
    ['root', '/run/containerd/containerd.sock', 'containerd: root on the host'],
    ['root', '/run/buildkit/buildkitd.sock', "BuildKit's daemon: root on the host"],
    ['root', '/run/dbus/system_bus_socket', "the system bus: the host's services"],
    ['root', '/run/systemd/private', "systemd's manager: starts units outside any sandbox"],
    ['runtime', 'docker.sock', 'rootless Docker: runs containers as the user'],
    ['runtime', 'podman/podman.sock', 'rootless Podman: runs containers as the user'],
    ['runtime', 'bus', 'the session bus: starts programs outside any sandbox'],
    ['runtime', 'systemd/private', "the user's systemd: starts units outside any sandbox"],
    ['runtime', 'gnupg/S.gpg-agent*', "the GPG agent: decrypts and signs with the user's keys"],
    ['home', '.gnupg/S.gpg-agent*', 'the GPG agent, by its older place'],
    ['runtime', 'keyring', "GNOME Keyring's agent"],
    ['runtime', 'wayland-*', 'the Wayland compositor: reads and types into every window'],
    ['root', '/tmp/.X11-unix/X*', 'the X server: reads and types into every window'],
    ['root', '/tmp/ssh-*/agent.*', "SSH agents: sign with the user's keys"],
    ['env', 'SSH_AUTH_SOCK', "the SSH agent this process's environment names"],
    ['env', 'DBUS_SESSION_BUS_ADDRESS', "the session bus this process's environment names"],
    ['env', 'DOCKER_HOST', "the Docker engine this process's environment names"]
  ].map(Object.freeze))
})
const PRESET_NAMES = Object.freeze(Object.keys(PRESETS))
// In the seam's modes unless the caller says otherwise (README.md,
// "Departures"): both.
const DEFAULT_PRESETS = PRESET_NAMES

// At most this many paths one confine protects (the launcher's bound,
// csrc/core/protocol.h SANDY_DENY_READS_MAX).
const MAX_PROTECTED = 128

// The error confine throws when a protected path cannot be covered: it
// names the preset entry or the denyRead index, never the path.
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
  const uid = process.getuid ? process.getuid() : null
  return {
    home: h,
    config: unique([absolute(own(env, 'XDG_CONFIG_HOME')), ...h.map((d) => path.join(d, '.config'))]),
    data: unique([absolute(own(env, 'XDG_DATA_HOME')), ...h.map((d) => path.join(d, '.local', 'share'))]),
    runtime: unique([absolute(own(env, 'XDG_RUNTIME_DIR')), uid === null ? null : `/run/user/${uid}`]),
    root: ['/']
  }
}

// The socket path a variable's value names: a path, a D-Bus address
// ("unix:path=P,guid=..." among ';'-separated ones), or a Docker host
// ("unix:///P"); null for anything else (an abstract socket is out of
// reach already: Landlock's scoping, csrc/linux/plan.c).
function socketPaths (value) {
  if (typeof value !== 'string') return []
  if (value.startsWith('unix://')) return unique([absolute(value.slice('unix://'.length))])
  const bus = [...value.matchAll(/(?:^|[;,:])path=([^,;]+)/g)].map((m) => absolute(m[1]))
  return unique([...bus, absolute(value)])
}

// ---- expansion ---------------------------------------------------------------

function starMatch (component, name) {
  const star = component.indexOf('*')
  if (star < 0) return component === name
  const head = component.slice(0, star)
  const tail = component.slice(star + 1)
  return name.length >= head.length + tail.length && name.startsWith(head) && name.endsWith(tail)
}

// A directory's entries ([] where it cannot be listed), kept while the
// directory is the same object with the same change times: listing /tmp
// (hundreds of entries) at every confine cost more than the rest of it,
// and a directory's mtime and ctime change whenever an entry is made,
// removed or renamed in it.
const listings = new Map()
function listing (d) {
  try {
    // (most places are missing: asked without an exception, which costs
    // more than the look itself)
    const st = fs.statSync(d, { bigint: true, throwIfNoEntry: false })
    if (st === undefined || !st.isDirectory()) return []
    const key = `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`
    const kept = listings.get(d)
    if (kept !== undefined && kept.key === key) return kept.names
    const names = fs.readdirSync(d)
    listings.set(d, { key, names })
    return names
  } catch {
    return []
  }
}

// Every path pattern names beneath dir (none where a directory cannot be
// listed: its entries are unknown, and no one else's to protect here).
function expand (dir, pattern) {
  let found = [dir]
  for (const c of pattern.split('/').filter((x) => x !== '')) {
    if (!c.includes('*')) {
      found = found.map((d) => path.join(d, c))
      continue
    }
    found = found.flatMap((d) => listing(d).filter((n) => starMatch(c, n)).map((n) => path.join(d, n)))
  }
  return found
}

// What one preset entry names here.
function entryPaths ([base, pattern], b, env) {
  if (base === 'env') return socketPaths(own(env, pattern))
  return b[base].flatMap((d) => expand(d, pattern))
}

// The object at p (followed through symlinks) as { path, id, kind,
// links }, or null when there is none to protect (missing, or behind a
// directory this uid cannot search).
function objectAt (p) {
  let canonical, st
  try {
    // (most are missing: asked without an exception first)
    if (fs.lstatSync(p, { throwIfNoEntry: false }) === undefined) return null
    canonical = fs.realpathSync.native(p)
    st = fs.statSync(canonical, { bigint: true })
  } catch {
    return null
  }
  const kind = st.isSocket() ? 'socket' : st.isDirectory() ? 'directory' : 'file'
  return { path: canonical, id: `${st.dev}:${st.ino}`, kind, socket: st.isSocket(), links: extraLinks(canonical, st) }
}

// Whether the object, or a file directly inside a protected directory,
// has a name other than this one: a hard link elsewhere reads the same
// data, and no cover over this name reaches it.
function extraLinks (p, st) {
  if (!st.isDirectory()) return st.isFile() && st.nlink > 1n
  try {
    return fs.readdirSync(p, { withFileTypes: true }).some((e) => e.isFile() && fs.statSync(path.join(p, e.name), { bigint: true }).nlink > 1n)
  /* c8 ignore next 3: a protected directory this uid cannot list */
  } catch {
    return false
  }
}

// The protected paths of one confine: each { path (canonical), id
// ("dev:ino"), kind ('file', 'directory', 'socket'), socket (whether it
// is one), source (the preset's
// name or 'denyRead'), why }, one per object. presets: names of PRESETS;
// denyRead: absolute paths the caller names, each of which must exist.
// Throws ProtectError (never naming a path) for a denyRead path that
// cannot be resolved, an object with another hard link, or more than
// MAX_PROTECTED.
function protectedPaths ({ presets, denyRead }, env = process.env) {
  const b = bases(env)
  const out = new Map()
  const add = (o, source, why) => {
    if (o.links) throw new ProtectError(`a protected file (${source === 'denyRead' ? why : `${source}: ${why}`}) has another hard link, which no cover over its name reaches; remove that link, or leave it unprotected`)
    if (!out.has(o.path)) out.set(o.path, { path: o.path, id: o.id, kind: o.kind, socket: o.socket, source, why })
  }
  denyRead.forEach((p, i) => {
    const o = objectAt(p)
    if (o === null) throw new ProtectError(`options.denyRead[${i}] cannot be resolved`, true)
    add(o, 'denyRead', `options.denyRead[${i}]`)
  })
  for (const name of presets) {
    for (const entry of PRESETS[name]) {
      for (const p of entryPaths(entry, b, env)) {
        const o = objectAt(p)
        if (o !== null) add(o, name, entry[2])
      }
    }
  }
  if (out.size > MAX_PROTECTED) throw new ProtectError(`more than ${MAX_PROTECTED} protected paths`)
  return [...out.values()]
}

module.exports = { PRESETS, PRESET_NAMES, DEFAULT_PRESETS, MAX_PROTECTED, ProtectError, protectedPaths, socketPaths, starMatch }
