// sandy-native/dsh as a dsh deployment writes it (test/package/types.test.js
// compiles this with --strict).
import { Context } from '@deepseek-ai/cordis'
import { SandboxProvider } from '@deepseek-ai/dsh-sandbox'
import type { ConfinedArgv } from '@deepseek-ai/dsh-sandbox'
import { SandboxPolicyService } from '@deepseek-ai/dsh-sandbox-policy'
import sandy, { SandySandboxProvider, SandyPolicyService, apply, name } from 'sandy-native/dsh'
import type { SandyDshConfig, SandyProviderConfig } from 'sandy-native/dsh'
import { classifyExit } from 'sandy-native'

const config: SandyDshConfig = { mode: 'workspace-write', workspaceRoot: '/srv/work', backend: 'auto', writableRoots: ['/home/u/.npm'], protect: ['credentials'], denyRead: ['/srv/secret'], keepEnv: ['CI_TOKEN'] }
const runner: SandyProviderConfig = { runnerCommand: ['/usr/bin/env'], runnerFailureSignatures: ['env: '], runnerEnforcement: 'partial' }
const ctx = new Context()
await ctx.plugin(sandy, config)
await apply(ctx, config)
const label: 'sandy-native' = name
const provider: SandboxProvider = new SandySandboxProvider(ctx, runner)
const wrapped: ConfinedArgv = provider.confine(['true'], { mode: 'read-only', workspaceRoot: '/srv/work' })
const selected: string | null = new SandySandboxProvider(ctx).probe().selected
const policies: SandboxPolicyService = new SandyPolicyService(ctx, { mode: 'read-only' })
// dsh's ConfinedArgv is this package's (whose backend is optional)
const verdict = classifyExit(wrapped, { code: 1, signal: null, stderr: '' })
void [label, wrapped, selected, policies, verdict]
