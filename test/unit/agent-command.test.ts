import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultAgentCommand, platformPackageName } from '../../lib/agent-command';
import { loadConfig } from '../../lib/config';
import { repoRoot } from '../../lib/paths';

describe('the default agent command', () => {
  it('names the per-platform package of the pinned Claude Code', () => {
    expect(platformPackageName('linux', 'x64', false)).toBe('@anthropic-ai/claude-code-linux-x64');
    expect(platformPackageName('linux', 'arm64', true)).toBe('@anthropic-ai/claude-code-linux-arm64-musl');
    expect(platformPackageName('darwin', 'arm64', false)).toBe('@anthropic-ai/claude-code-darwin-arm64');
  });

  it("is the platform package's binary, which reports the pinned version, whatever the wrapper's install script did", () => {
    const pinned = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
      .dependencies['@anthropic-ai/claude-code'];
    const command = defaultAgentCommand();
    expect(command).toBe(path.join(repoRoot, 'node_modules', platformPackageName(), 'claude'));
    expect(execFileSync(command, ['--version'], { encoding: 'utf8' })).toBe(`${pinned} (Claude Code)\n`);
    expect(loadConfig({}).orchestration.agentCommand).toBe(command);
    expect(loadConfig({ AGENT_COMMAND: '/opt/bin/claude' }).orchestration.agentCommand).toBe('/opt/bin/claude');
  });

  it('falls back to `claude` on PATH where the platform package is not installed', () => {
    expect(defaultAgentCommand(fs.mkdtempSync(path.join(os.tmpdir(), 'no-modules-')))).toBe('claude');
  });
});
