// Type declarations for sandy-native. The seam's types follow
// shared/seeds/process-sandbox-seam.md; the policy model follows
// shared/seeds/sandy-public-api.md.

import type { ProbeFacts } from './probe-fields'

// ---- the seam's vocabulary -------------------------------------------------

/**
 * File-effect policy for confined processes. `read-only` permits only required
 * sinks such as `/dev/null`; `workspace-write` also permits the workspace and a
 * backend-defined temp area; `danger-full-access` bypasses confinement. Network
 * and process visibility are outside this vocabulary.
 */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access'

/** A confining (non-`danger-full-access`) mode — the modes a {@link SeamSandboxPolicy} can carry. */
export type ConfinedSandboxMode = Exclude<SandboxMode, 'danger-full-access'>

/**
 * Enforcement completeness for this host. `partial` means an active backend or
 * older kernel ABI cannot govern every promised file effect; callers requiring
 * an absolute boundary must not treat it as `full`.
 */
export type SandboxEnforcement = 'full' | 'partial'

/**
 * The complete file-effect policy resolved for one capability call. The root
 * is carried even under modes that do not consume it so callers can resolve
 * policy once before choosing the enforcement path.
 */
export interface SandboxExecutionPolicy {
  /** The file-effect mode this execution runs under. */
  mode: SandboxMode
  /** Absolute root directory `workspace-write` may write under. */
  workspaceRoot: string
  /** The calling session's opaque identity, when it has one; providers here keep no per-session state. */
  sessionId?: string
}

/**
 * What one confined execution is allowed to touch — carried per call, not
 * fixed on the provider. (Named `SandboxPolicy` in the seam; exported here as
 * `SeamSandboxPolicy` because `SandboxPolicy` is Sandy's policy builder.)
 */
export interface SeamSandboxPolicy extends SandboxExecutionPolicy {
  /** The file-effect mode this execution runs under. */
  mode: ConfinedSandboxMode
}

/**
 * Evidence that identifies a sandbox runner failing before it executes the
 * wrapped command. A consumer first applies {@link allowedExitCodes} when
 * present, removes {@link informationalLines} by case-insensitive exact line
 * equality, then matches {@link fatalSignatures} case-insensitively within
 * each remaining stderr line. Exit status alone never proves runner failure.
 */
export interface RunnerFailureRule {
  /** Nonzero process exit codes on which this rule may match; omitted permits any nonzero exit. */
  allowedExitCodes?: readonly number[]
  /** Non-empty substrings identifying a fatal runner diagnostic on one stderr line. */
  fatalSignatures: readonly string[]
  /** Benign stderr lines excluded by exact full-line equality before fatal matching. */
  informationalLines?: readonly string[]
}

/**
 * A confine result: the argv to spawn in place of the caller's own, plus the
 * enforcement completeness the selected backend achieves for it.
 */
export interface ConfinedArgv {
  /** The wrapped argv (runner, profile, separator, then the caller's argv). */
  argv: string[]
  /** How completely the selected backend enforces the policy's file effects. */
  enforcement: SandboxEnforcement
  /** The selected backend's denial dialect: case-insensitive stderr substrings. */
  denialSignatures: readonly string[]
  /** Structured runner-failure evidence rules, checked before denials. */
  runnerFailureRules: readonly RunnerFailureRule[]
  /**
   * Which backend made the argv, as the provider's `probe().selected` names
   * it (`'sandy'` for `confinePolicy`). Optional: a ConfinedArgv made
   * elsewhere (dsh's own providers) does not say.
   */
  backend?: BackendName | 'runner'
}

// ---- Sandy's policy model --------------------------------------------------

export declare const AccessMode: {
  /** Permit reads but no mutation. */
  readonly Read: 'read'
  /** Permit reads and mutation. */
  readonly ReadWrite: 'read_write'
}
export type AccessMode = (typeof AccessMode)[keyof typeof AccessMode]

export declare const PathScope: {
  /** Match only the named filesystem node. */
  readonly Exact: 'exact'
  /** Match the named directory and everything beneath it. */
  readonly Subtree: 'subtree'
}
export type PathScope = (typeof PathScope)[keyof typeof PathScope]

export declare const NetworkPolicy: {
  /** Permit network operations. */
  readonly AllowAll: 'allow_all'
  /** Add no network allow rule. */
  readonly BlockAll: 'block_all'
}
export type NetworkPolicy = (typeof NetworkPolicy)[keyof typeof NetworkPolicy]

/** A policy path: a string, or a Buffer (any Uint8Array) holding its exact bytes. */
export type PolicyPath = string | Uint8Array

/** The version 1 JSON document, as `toJSON()` returns it. */
export interface PolicyDocument {
  schema_version: 1
  network: NetworkPolicy
  allow_subprocesses: boolean
  grants: Array<{ path: string, access: AccessMode, scope: PathScope }>
  executable_grants: Array<{ path: string, scope: PathScope }>
  deny_subtrees: string[]
  deny_write_exact: string[]
}

/** A deny after resolution: both spellings when they differ. */
export interface ResolvedDeny {
  readonly canonical: string
  readonly lexical?: string
}

/** The effective rules of a policy against one working-directory snapshot. */
export interface ResolvedPolicy {
  readonly cwd: string
  readonly network: NetworkPolicy
  readonly allowSubprocesses: boolean
  /** Whether the grants cover `cwd` (required by the Linux launcher). */
  readonly coversCwd: boolean
  readonly grants: ReadonlyArray<{ readonly path: string, readonly access: AccessMode, readonly scope: PathScope }>
  readonly executableGrants: ReadonlyArray<{ readonly path: string, readonly scope: PathScope }>
  readonly denySubtrees: readonly ResolvedDeny[]
  readonly denyWriteExact: readonly ResolvedDeny[]
}

/**
 * Side-effect-free caller policy intent. Builders return a new policy and
 * leave the receiver unchanged.
 */
export declare class SandboxPolicy {
  constructor (network: NetworkPolicy)
  readonly network: NetworkPolicy
  readonly allowsSubprocesses: boolean
  /** Grants read or read/write access to one exact path or complete subtree. */
  grant (path: PolicyPath, access: AccessMode, scope: PathScope): SandboxPolicy
  /** Allows native executable mapping (and, with subprocesses, launch) from a path. */
  allowExecute (path: PolicyPath, scope: PathScope): SandboxPolicy
  /** Allows ordinary descendant process creation. */
  allowSubprocesses (): SandboxPolicy
  /** Denies reads, writes, executable mapping and launch to a subtree. */
  denySubtree (path: PolicyPath): SandboxPolicy
  /** Denies writes to exactly one path without implicitly granting reads. */
  denyWriteExact (path: PolicyPath): SandboxPolicy
  /** The version 1 document; `JSON.stringify(policy)` writes it. */
  toJSON (): PolicyDocument
  /** Resolves against one working-directory snapshot (default `process.cwd()`). */
  resolve (options?: { cwd?: string | Uint8Array }): ResolvedPolicy
  /** Parses a strict, bounded version 1 document without touching the filesystem. */
  static fromJson (source: string | Uint8Array): SandboxPolicy
}

export type PolicyDocumentErrorKind = 'TooLarge' | 'Parse' | 'UnsupportedVersion' | 'TooManyCapabilities'

export declare class PolicyDocumentError extends Error {
  readonly kind: PolicyDocumentErrorKind
  /** 1-based, `Parse` only. */
  readonly line?: number
  /** 1-based, in bytes, `Parse` only. */
  readonly column?: number
  /** `UnsupportedVersion` only. */
  readonly version?: number
}

export type SandboxErrorKind = 'Unsupported' | 'InvalidPolicy' | 'PreparationFailed' | 'EnforcementFailed'

export declare class SandboxError extends Error {
  readonly kind: SandboxErrorKind
}

// ---- host probe ------------------------------------------------------------

export type BackendName = 'sandy' | 'bwrap' | 'landlock' | 'seatbelt'

export interface BackendVerdict {
  readonly usable: boolean
  readonly enforcement: SandboxEnforcement | null
  readonly reason: string
}

export interface ProbeReport extends ProbeFacts {
  // The measured facts are ProbeFacts', generated from the probe's one list
  // (types/probe-fields.d.ts; pidNamespace: a new PID namespace's pid 1
  // mounted a /proc of its own, tried only with user namespaces). What
  // follows is on no wire, so written here: the platform, macOS's own
  // measurement and the verdicts.
  readonly platform: string
  readonly sandboxExec: boolean
  readonly backends: { readonly [name in BackendName]: BackendVerdict }
}

/** The measured host report, computed once per process. */
export declare function probe (): ProbeReport

export declare const limits: {
  readonly documentBytes: number
  readonly sectionEntries: number
  readonly effectiveRules: number
  readonly pathBytes: number
}

// ---- confining argv ----------------------------------------------------------

/**
 * Wraps `argv` so that it runs under a Sandy policy through the launcher.
 * Throws `SandboxError` (`InvalidPolicy`, or `Unsupported` when this host
 * cannot keep the contract: never a weaker fallback).
 */
export declare function confinePolicy (argv: readonly string[], policy: SandboxPolicy, options?: { cwd?: string | Uint8Array }): ConfinedArgv

// ---- the seam's provider -----------------------------------------------------

/** Thrown when no usable backend exists, or a confined launch provably never started. */
export declare class SandboxUnavailableError extends Error {
  readonly code: 'SANDBOX_UNAVAILABLE'
  /** Why, per candidate when known. */
  readonly reasons: readonly string[]
}

/** Which backend a provider uses: arbitration, or one forced candidate. */
export type ProviderBackend = 'auto' | BackendName | 'runner'

/** An operator-configured runner: an argv prefix and its pre-exec refusal dialect. */
export interface RunnerConfig {
  /** The prefix; argv[0] must be an absolute path. */
  argv: readonly string[]
  /** Non-empty, single-line, case-insensitive substrings of the runner's own fatal lines. */
  runnerFailureSignatures: readonly string[]
  /** What the operator declares the runner enforces. */
  enforcement: SandboxEnforcement
  /** The runner's denial dialect, if the operator knows it. */
  denialSignatures?: readonly string[]
}

export interface LocalSandboxProviderOptions {
  /** Default `'auto'` (`'runner'` when a runner is configured). */
  backend?: ProviderBackend
  runner?: RunnerConfig
  /**
   * Absolute directories writable beside the workspace in `workspace-write`
   * (a tool's cache, such as `~/.npm`); at most 8, resolved at each confine.
   * One that does not exist then is left out; `/`, `/tmp`, a kernel
   * filesystem or a directory holding the launcher's copy is refused with a
   * RangeError. Ignored by `read-only`; not allowed with a runner.
   */
  writableRoots?: readonly string[]
  /**
   * The presets of protected reads (docs/api.md, "Protected reads"): by
   * default both, `'credentials'` (the user's private keys and tokens
   * unreadable) and `'host-sockets'` (container engines, agents, session
   * buses unconnectable); `[]` turns both off. A backend that cannot keep
   * a preset asked for here refuses the call.
   */
  protect?: readonly ProtectPreset[]
  /** Absolute paths (files, sockets, directories that exist) unreadable and unconnectable inside; at most 128 with the presets' paths. */
  denyRead?: readonly string[]
  /** Secret variables the launcher removes that this provider's commands keep, by exact name; at most 32. */
  keepEnv?: readonly string[]
  /**
   * The protected writes of `workspace-write` (docs/protected-writes.md):
   * by default both, `'git'` (the hooks and config of every git repository
   * under the writable roots read-only) and `'startup'` (a held home's
   * shell start-up files, autostart entries and PATH directories
   * read-only); `[]` turns both off, and then a confined command can plant
   * what git or a shell runs later outside the sandbox. A backend that
   * cannot keep them (the Landlock-only level) refuses them asked for here.
   */
  protectWrites?: readonly ProtectWrite[]
  /**
   * Let the workspace root or a writable root be, or hold, the home
   * directory in `workspace-write` (refused with a RangeError otherwise):
   * the start-up files `'startup'` names are kept, but not everything the
   * user runs later can be named.
   */
  allowHomeWorkspace?: boolean
}

export type ProtectPreset = 'credentials' | 'host-sockets'
export type ProtectWrite = 'git' | 'startup'

/** What keeps each protection on a backend, by mechanism; null where it cannot be kept. */
export interface BackendProtections {
  readonly files: 'view' | 'guard' | 'landlock' | 'seatbelt' | null
  readonly sockets: 'view' | 'guard' | 'seatbelt' | null
  readonly environment: 'launcher' | 'guard' | 'shim' | null
  readonly writes: 'view' | 'guard' | 'seatbelt' | null
  /**
   * What a denied or protected path the host replaces during a run meets
   * (docs/deny-durability.md): `watch`, the run ends with a runner failure
   * (a window of one signal and a kill remains); `seatbelt`, the rules
   * name paths.
   */
  readonly replaced: 'watch' | 'seatbelt'
}

/** What the local provider's confine returns. */
export interface ProviderConfinedArgv extends ConfinedArgv {
  /** The writable roots this call made writable beside the workspace, canonical (empty in read-only). */
  writableRoots: readonly string[]
}

export interface ProviderCandidate {
  readonly name: BackendName | 'runner'
  readonly usable: boolean
  readonly enforcement: SandboxEnforcement | null
  /** Why; for a usable backend that does not keep a protection, also which. */
  readonly reason: string
  /** A native backend's protections (absent for an operator's runner). */
  readonly protections?: BackendProtections
}

/** The cached arbitration: every candidate, usable or not, and why. */
export interface ProviderProbeReport {
  readonly requested: ProviderBackend
  readonly selected: BackendName | 'runner' | null
  readonly candidates: readonly ProviderCandidate[]
  /** Only when asked with a workspace root: what a workspace-write run there leaves unprotected (the package's own files inside it). */
  readonly warnings?: readonly string[]
}

export interface ProviderProbeOptions {
  /** An absolute path: report what a workspace-write run with this root cannot protect. */
  workspaceRoot: string
}

export interface SandboxProvider {
  /** Synchronous; throws `SandboxUnavailableError` rather than return the argv unconfined. */
  confine (argv: readonly string[], policy: SeamSandboxPolicy): ProviderConfinedArgv
  probe (options?: ProviderProbeOptions): ProviderProbeReport
}

export declare function createLocalSandboxProvider (options?: LocalSandboxProviderOptions): SandboxProvider

// ---- policy resolution ------------------------------------------------------

/** The part of a session the policy service reads. */
export interface Session {
  /** The session's immutable working directory: its workspace boundary; without one, the configured root (then `process.cwd()`). */
  cwd?: string
  sandboxMode?: SandboxMode
  /** Carried as the resolved policy's `sessionId`. */
  id?: string
}

/** Inputs that select the sandbox policy for one capability call. */
export interface SandboxPolicyRequest {
  /** Calling session; its immutable cwd becomes the workspace boundary. */
  session?: Session
  /** Explicit approved mode override, which outranks session policy. */
  mode?: SandboxMode
}

/** Deployment configuration; with nothing set: `read-only` and `process.cwd()`. */
export interface SandboxPolicyConfig {
  mode?: SandboxMode
  workspaceRoot?: string
}

export interface SandboxPolicyService {
  resolve (request?: SandboxPolicyRequest): SandboxExecutionPolicy
}

export declare function createSandboxPolicyService (config?: SandboxPolicyConfig): SandboxPolicyService

// ---- classification ----------------------------------------------------------

export interface ExitClassification {
  readonly kind: 'runner-failure' | 'denied' | 'ordinary'
  /** The matched stderr line, for `runner-failure` and `denied`. */
  readonly detail?: string
}

/** Judges a finished run: runner failure first, then the backend's denials. */
export declare function classifyExit (
  confined: ConfinedArgv,
  outcome?: { code?: number | null, signal?: string | null, stderr?: string | Uint8Array }
): ExitClassification

/** A `SandboxUnavailableError` for a spawn that provably never started the runner, else `null`. */
export declare function classifySpawnError (confined: ConfinedArgv, err: unknown, options?: { cwd?: string }): SandboxUnavailableError | null
