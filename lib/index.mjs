// The ESM entry: the CommonJS module's own values, so a class imported here
// is the class require() gives (instanceof holds across both).
import sandy from './index.js'

export const {
  SandboxPolicy,
  AccessMode,
  PathScope,
  NetworkPolicy,
  PolicyDocumentError,
  SandboxError,
  confinePolicy,
  createLocalSandboxProvider,
  createSandboxPolicyService,
  classifyExit,
  classifySpawnError,
  SandboxUnavailableError,
  probe,
  limits
} = sandy

export default sandy
