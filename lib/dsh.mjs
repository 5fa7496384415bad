// sandy-native/dsh: this package as the dsh harness's `ctx.sandbox` and
// `ctx.sandboxPolicy`, a cordis plugin. dsh's own classes come from its
// packages (optional peer dependencies), so the services are the ones dsh's
// code looks for and the errors pass dsh's `instanceof HarnessError`.
//
//   import sandy from 'sandy-native/dsh'
//   await ctx.plugin(sandy, { mode: 'workspace-write', workspaceRoot: '/srv/work' })
//
// `apply` registers the two services with `ctx.plugin(Class, config)`: a
// class extending dsh-sandbox's `SandboxProvider`, whose constructor calls
// cordis's `Service` constructor with the name 'sandbox', and one extending
// dsh-sandbox-policy's `SandboxPolicyService` ('sandboxPolicy').
//
// The peers are imported here, before the classes that extend theirs:
// without them, importing this module throws one error naming what is
// missing and the install command (lib/dsh-peers.js), not Node's
// ERR_MODULE_NOT_FOUND for the first one.
import { fileURLToPath } from 'node:url'
import sandy from './index.js'
import ownModule from './own.js'
import peers from './dsh-peers.js'

const { own } = ownModule
const dsh = await peers.importPeers((name) => import(name), fileURLToPath(import.meta.url))
const { SandboxProvider, SandboxUnavailableError } = dsh['@deepseek-ai/dsh-sandbox']
const { SandboxPolicyService, effectiveSandboxMode } = dsh['@deepseek-ai/dsh-sandbox-policy']

const PROVIDER_KEYS = ['backend', 'runnerCommand', 'runnerFailureSignatures', 'runnerEnforcement', 'writableRoots', 'protect', 'denyRead', 'keepEnv', 'protectWrites', 'allowHomeWorkspace']
// (the protections pass as they are: docs/api.md, "Protected reads";
// docs/protected-writes.md)
const PASSED_KEYS = ['backend', 'writableRoots', 'protect', 'denyRead', 'keepEnv', 'protectWrites', 'allowHomeWorkspace']
const POLICY_KEYS = ['mode', 'workspaceRoot']

// The plugin's configuration split for the two services; an unknown key is
// refused, as the provider refuses one.
function split (config) {
  if (config === null || typeof config !== 'object') throw new TypeError('sandy-native/dsh: config must be an object')
  const unknown = Object.keys(config).find((k) => !PROVIDER_KEYS.includes(k) && !POLICY_KEYS.includes(k))
  if (unknown !== undefined) throw new TypeError(`sandy-native/dsh: unknown config key ${JSON.stringify(unknown)}`)
  // (objects without a prototype: what a key not given reads is undefined,
  // never a polluted Object.prototype's, here and in dsh's own services)
  const pick = (keys) => Object.assign(Object.create(null), Object.fromEntries(keys.filter((k) => Object.hasOwn(config, k)).map((k) => [k, config[k]])))
  if (Object.hasOwn(config, 'runnerEnforcement') && !Object.hasOwn(config, 'runnerCommand')) {
    throw new TypeError('sandy-native/dsh: runnerEnforcement goes with runnerCommand')
  }
  // (dsh's policy service reads its config, as validated by cordis, through
  // the prototype chain: both keys are always given, with dsh's defaults)
  const policy = pick(POLICY_KEYS)
  policy.mode ??= 'read-only'
  policy.workspaceRoot ??= process.cwd()
  return { provider: pick(PROVIDER_KEYS), policy }
}

// dsh's names for an operator runner (`runnerCommand`, its
// `runnerFailureSignatures`, given together) as this package's `runner`.
// The runner gets the command alone, nothing that says the mode or the
// root (dsh's local provider gives it bubblewrap profile words), so it
// cannot tell read-only from workspace-write: `partial` unless the
// operator says `runnerEnforcement: 'full'`.
function providerOptions (given) {
  const { runnerCommand = [], runnerFailureSignatures = [], runnerEnforcement = 'partial' } = given
  if (!Array.isArray(runnerCommand) || !Array.isArray(runnerFailureSignatures)) {
    throw new TypeError('sandy-native/dsh: runnerCommand and runnerFailureSignatures must be arrays')
  }
  if ((runnerCommand.length === 0) !== (runnerFailureSignatures.length === 0)) {
    throw new TypeError('sandy-native/dsh: runnerCommand and runnerFailureSignatures go together')
  }
  const options = {}
  for (const k of PASSED_KEYS) if (given[k] !== undefined) options[k] = given[k]
  if (runnerCommand.length > 0) {
    options.runner = { argv: runnerCommand, runnerFailureSignatures, enforcement: runnerEnforcement }
  }
  return options
}

// `ctx.sandbox`: confine() by this package's local provider; a refusal is
// dsh's own SandboxUnavailableError (code SANDBOX_UNAVAILABLE), its detail
// the reasons.
export class SandySandboxProvider extends SandboxProvider {
  constructor (ctx, config = {}) {
    super(ctx)
    this.provider = sandy.createLocalSandboxProvider(providerOptions(split(config).provider))
  }

  confine (argv, policy) {
    try {
      return this.provider.confine(argv, policy)
    } catch (err) {
      if (!(err instanceof sandy.SandboxUnavailableError)) throw err
      throw new SandboxUnavailableError(policy.mode, [err.message, ...err.reasons].join('; '))
    }
  }

  // What this host can use, as the provider arbitrated it.
  probe () {
    return this.provider.probe()
  }
}

// `ctx.sandboxPolicy`: dsh's service (its config, `defaultMode`, its
// system-prompt context), resolving by this package's policy service from
// dsh's Session: the root from `session.header.cwd`, the mode from the
// session's last `sandbox/mode` event, the id as `sessionId`.
export class SandyPolicyService extends SandboxPolicyService {
  constructor (ctx, config = {}) {
    super(ctx, config)
    this.policies = sandy.createSandboxPolicyService({ mode: this.defaultMode, workspaceRoot: this.workspaceRoot })
  }

  // Own properties only (lib/own.js): a polluted Object.prototype must not
  // choose a mode or a root.
  resolve (request = {}) {
    const session = own(request, 'session')
    const mode = own(request, 'mode')
    if (session === undefined) return this.policies.resolve({ mode })
    const header = own(session, 'header')
    const ours = {
      cwd: header === undefined ? undefined : own(header, 'cwd'),
      sandboxMode: effectiveSandboxMode(own(session, 'events') ?? []),
      id: own(session, 'id')
    }
    return this.policies.resolve({ session: ours, mode })
  }
}

export const name = 'sandy-native'

// The plugin: both services from one configuration, once the host's copies
// of dsh's packages are known to be the adapter's (lib/dsh-peers.js).
export async function apply (ctx, config = {}) {
  const { provider, policy } = split(config)
  peers.checkCopies(fileURLToPath(import.meta.url))
  await ctx.plugin(SandySandboxProvider, provider)
  await ctx.plugin(SandyPolicyService, policy)
}

export default { name, apply }
