import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultAgentCommand, defaultCodexCommand, defaultGeminiCommand, platformPackageName } from '../../lib/agent-command';
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

describe("the other CLIs' default commands", () => {
  const pinned = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies;

  it("are the pinned packages' programs, reporting the pinned versions", () => {
    const codex = defaultCodexCommand();
    expect(codex).toBe(path.join(repoRoot, 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex'));
    expect(execFileSync(codex, ['--version'], { encoding: 'utf8' })).toBe(`codex-cli ${pinned['@openai/codex']}\n`);
    const gemini = defaultGeminiCommand();
    expect(gemini).toBe(path.join(repoRoot, 'node_modules/@google/gemini-cli/bundle/gemini.js'));
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-home-'));
    expect(execFileSync(gemini, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: home } }).trim()).toBe(
      pinned['@google/gemini-cli'],
    );
  });

  it('are each given by its own setting, and found on PATH where the package is not installed', () => {
    const config = loadConfig({ CODEX_COMMAND: '/opt/bin/codex', GEMINI_COMMAND: '/opt/bin/gemini' });
    expect(config.orchestration.cliCommands).toEqual({ codex: '/opt/bin/codex', gemini: '/opt/bin/gemini' });
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-modules-'));
    expect([defaultCodexCommand(empty), defaultGeminiCommand(empty)]).toEqual(['codex', 'gemini']);
  });
});
