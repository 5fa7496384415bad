// sandy-native/dsh: this package as the dsh harness's ctx.sandbox and
// ctx.sandboxPolicy (a cordis plugin). dsh's packages are its optional peer
// dependencies; these declarations use their types. Importing this module
// where they cannot be found throws an Error with code
// 'SANDY_DSH_PEER_MISSING', naming them and the npm command that installs
// them (docs/api.md, "Using it from dsh").
import type { Context } from '@deepseek-ai/cordis'
import { SandboxProvider } from '@deepseek-ai/dsh-sandbox'
import type { ConfinedArgv, SandboxPolicy } from '@deepseek-ai/dsh-sandbox'
import { SandboxPolicyService } from '@deepseek-ai/dsh-sandbox-policy'
import type { Config as PolicyConfig } from '@deepseek-ai/dsh-sandbox-policy'
import type { ProtectPreset, ProtectWrite, ProviderBackend, ProviderProbeReport, SandboxEnforcement } from 'sandy-native'

/** The provider's settings, in dsh's names where dsh has them. */
export interface SandyProviderConfig {
  /** Default `'auto'` (`'runner'` with a runnerCommand). */
  backend?: ProviderBackend
  /** dsh's operator runner: an argv prefix, given together with its signatures. */
  runnerCommand?: readonly string[]
  runnerFailureSignatures?: readonly string[]
  /** What the runner is declared to enforce; default `'partial'`: it gets the command alone, not the mode or the root. */
  runnerEnforcement?: SandboxEnforcement
  /** Directories writable beside a workspace-write workspace (the provider's `writableRoots`). */
  writableRoots?: readonly string[]
  /** The provider's protected reads and kept secret variables, as they are (docs/api.md, "Protected reads"). */
  protect?: readonly ProtectPreset[]
  denyRead?: readonly string[]
  keepEnv?: readonly string[]
  /** The provider's protected writes, and whether a home may be the workspace, as they are (docs/protected-writes.md). */
  protectWrites?: readonly ProtectWrite[]
  allowHomeWorkspace?: boolean
}

/** The plugin's configuration: the provider's settings and dsh's policy settings (`mode`, `workspaceRoot`). */
export interface SandyDshConfig extends SandyProviderConfig, PolicyConfig {}

/** `ctx.sandbox`: confines with this package; refusals are dsh's SandboxUnavailableError. */
export declare class SandySandboxProvider extends SandboxProvider {
  constructor (ctx: Context, config?: SandyProviderConfig)
  confine (argv: string[], policy: SandboxPolicy): ConfinedArgv
  /** What this host can use, as the provider arbitrated it. */
  probe (): ProviderProbeReport
}

/** `ctx.sandboxPolicy`: dsh's service, resolving dsh's Session with this package. */
export declare class SandyPolicyService extends SandboxPolicyService {
  constructor (ctx: Context, config?: PolicyConfig)
}

export declare const name: 'sandy-native'
/**
 * Registers both services with `ctx.plugin`. First checks that the host
 * program resolves the same copies of dsh-sandbox and dsh-sandbox-policy as
 * the adapter: where it does not, registers nothing and rejects with an
 * Error whose code is 'SANDY_DSH_DUPLICATE', naming both copies' paths.
 */
export declare function apply (ctx: Context, config?: SandyDshConfig): Promise<void>

declare const plugin: { name: typeof name, apply: typeof apply }
export default plugin
