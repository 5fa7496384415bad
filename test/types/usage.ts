// Compiled with `tsc --noEmit --strict` by test/package/types.test.js: every exported
// type is used here, so a declaration that drifts from lib/ breaks the build.
import sandy = require('sandy-native')
import type {
  AccessMode, BackendName, BackendVerdict, ConfinedArgv, ConfinedSandboxMode, ProviderConfinedArgv, NetworkPolicy, PathScope,
  PolicyDocument, PolicyDocumentErrorKind, PolicyPath, ProbeReport, ResolvedDeny, ResolvedPolicy,
  RunnerFailureRule, SandboxEnforcement, SandboxErrorKind, SandboxExecutionPolicy, SandboxMode, SeamSandboxPolicy,
  LocalSandboxProviderOptions, RunnerConfig, ProviderBackend, SandboxProvider, ProviderProbeReport, ProviderCandidate,
  SandboxPolicyConfig, Session, SandboxPolicyRequest, SandboxPolicyService, ExitClassification
} from 'sandy-native'

const access: AccessMode = sandy.AccessMode.ReadWrite
const scope: PathScope = sandy.PathScope.Subtree
const network: NetworkPolicy = sandy.NetworkPolicy.BlockAll
const where: PolicyPath = Buffer.from('/tmp')

const policy: sandy.SandboxPolicy = new sandy.SandboxPolicy(network)
  .grant('/tmp', access, scope)
  .grant(where, sandy.AccessMode.Read, sandy.PathScope.Exact)
  .allowExecute('/usr', sandy.PathScope.Subtree)
  .allowSubprocesses()
  .denySubtree('/tmp/secret')
  .denyWriteExact('/tmp/settings.json')
const doc: PolicyDocument = policy.toJSON()
const again: sandy.SandboxPolicy = sandy.SandboxPolicy.fromJson(JSON.stringify(doc))
const resolved: ResolvedPolicy = again.resolve({ cwd: '/tmp' })
const deny: ResolvedDeny | undefined = resolved.denySubtrees[0]
const covered: boolean = resolved.coversCwd

try {
  sandy.SandboxPolicy.fromJson(new Uint8Array([0x7b]))
} catch (e) {
  if (e instanceof sandy.PolicyDocumentError) {
    const kind: PolicyDocumentErrorKind = e.kind
    const at: [number | undefined, number | undefined] = [e.line, e.column]
    void kind; void at
  } else if (e instanceof sandy.SandboxError) {
    const kind: SandboxErrorKind = e.kind
    void kind
  }
}

const report: ProbeReport = sandy.probe()
const name: BackendName = 'sandy'
const verdict: BackendVerdict = report.backends[name]
const enforcement: SandboxEnforcement | null = verdict.enforcement
const maxBytes: number = sandy.limits.documentBytes

const mode: SandboxMode = 'danger-full-access'
const confinedMode: ConfinedSandboxMode = 'read-only'
const execution: SandboxExecutionPolicy = { mode, workspaceRoot: '/tmp' }
const seam: SeamSandboxPolicy = { mode: confinedMode, workspaceRoot: '/tmp' }
const rule: RunnerFailureRule = { fatalSignatures: ['x'], allowedExitCodes: [125], informationalLines: [] }
const confined: ConfinedArgv = { argv: ['true'], enforcement: 'full', denialSignatures: [], runnerFailureRules: [rule] }

void [deny, covered, enforcement, maxBytes, execution, seam, confined]

// the seam
const options: LocalSandboxProviderOptions = { backend: 'auto' }
const runnerConfig: RunnerConfig = { argv: ['/usr/bin/env'], runnerFailureSignatures: ['x'], enforcement: 'partial' }
const backendChoice: ProviderBackend = 'runner'
const seatbelt: ProviderBackend = 'seatbelt'
void seatbelt
const provider: SandboxProvider = sandy.createLocalSandboxProvider({ ...options, runner: runnerConfig, backend: backendChoice })
const arbitration: ProviderProbeReport = provider.probe()
const warned: readonly string[] | undefined = provider.probe({ workspaceRoot: '/srv/project' }).warnings
const candidate: ProviderCandidate | undefined = arbitration.candidates[0]
const wrapped: ConfinedArgv = provider.confine(['true'], seam)
// (optional: a ConfinedArgv without it, as dsh's providers make, above)
const madeBy: BackendName | 'runner' | undefined = wrapped.backend
void madeBy
const writer: SandboxProvider = sandy.createLocalSandboxProvider({ writableRoots: ['/home/u/.npm'] })
const shielded: SandboxProvider = sandy.createLocalSandboxProvider({ protect: ['credentials'], denyRead: ['/srv/secret'], keepEnv: ['CI_TOKEN'] })
const held: string | null | undefined = shielded.probe().candidates[0].protections?.files
const facts: ProviderConfinedArgv = writer.confine(['true'], seam)
const writable: readonly string[] = facts.writableRoots
void writable
const byPolicy: ConfinedArgv = sandy.confinePolicy(['true'], policy, { cwd: '/tmp' })
const config: SandboxPolicyConfig = { mode: 'read-only' }
const session: Session = { cwd: '/tmp', sandboxMode: 'workspace-write' }
const agentless: Session = { id: 'session-1' }
const carried: string | undefined = sandy.createSandboxPolicyService().resolve({ session: agentless }).sessionId
void carried
const request: SandboxPolicyRequest = { session, mode: 'read-only' }
const service: SandboxPolicyService = sandy.createSandboxPolicyService(config)
const chosen: SandboxExecutionPolicy = service.resolve(request)
const verdictOfRun: ExitClassification = sandy.classifyExit(wrapped, { code: 1, signal: null, stderr: Buffer.from('') })
const spawnVerdict: sandy.SandboxUnavailableError | null = sandy.classifySpawnError(wrapped, new Error('x'), { cwd: '/tmp' })
if (spawnVerdict) {
  const reasons: readonly string[] = spawnVerdict.reasons
  const code: 'SANDBOX_UNAVAILABLE' = spawnVerdict.code
  void reasons; void code
}
void [candidate, byPolicy, chosen, verdictOfRun]
