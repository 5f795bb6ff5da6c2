import { AGENT_CLI_NAMES, AGENT_CLIS, isClaudeModel, runModelOf } from '../../domain/agent-clis';
import { agentDataOf, type AgentData } from '../../db/agent-data';
import { panelChangesFor } from '../../services/agents/cli-settings';
import { claudeCode } from '../../activities/agents/claude-code';
import { CODEX_PERMISSION_MODES, codexCli } from '../../activities/agents/codex';
import { GEMINI_PERMISSION_MODES, geminiCli } from '../../activities/agents/gemini';

/** The CLIs' capability table (domain/agent-clis.ts) and the rules built on it (docs/agents.md, "Which CLI an agent runs"). */

describe('the capability table', () => {
  it('has an entry per CLI name, each with its default among its permission words', () => {
    expect(Object.keys(AGENT_CLIS).sort()).toEqual([...AGENT_CLI_NAMES].sort());
    for (const cli of Object.values(AGENT_CLIS)) expect(cli.permissionModes).toContain(cli.defaultPermissionMode);
  });

  it('lists the permission words and defaults each adapter accepts, so what is saved is what runs', () => {
    const sorted = (words: readonly string[]) => [...words].sort();
    expect(sorted(AGENT_CLIS['claude-code'].permissionModes)).toEqual(['acceptEdits', 'bypassPermissions', 'default', 'plan']);
    expect(sorted(AGENT_CLIS.codex.permissionModes)).toEqual(sorted(CODEX_PERMISSION_MODES));
    expect(AGENT_CLIS.codex.defaultPermissionMode).toBe(codexCli.defaultPermissionMode);
    expect(sorted(AGENT_CLIS.gemini.permissionModes)).toEqual(sorted(GEMINI_PERMISSION_MODES));
    expect(AGENT_CLIS.gemini.defaultPermissionMode).toBe(geminiCli.defaultPermissionMode);
    expect(AGENT_CLIS['claude-code'].defaultPermissionMode).toBe(claudeCode.defaultPermissionMode);
  });
});

describe('models', () => {
  it.each([
    ['claude-sonnet-4-6', true],
    ['claude-haiku-4-5-20251001', true],
    ['sonnet', true],
    ['Opus', true],
    ['gpt-5.5', false],
    ['gemini-2.5-flash', false],
    ['sonnet-like', false],
  ])('%s is a Claude model: %s', (model, claude) => {
    expect(isClaudeModel(model)).toBe(claude);
  });

  it("gives a run the agent's model, else the settings' (Claude) model only to a CLI that takes Claude models", () => {
    expect(runModelOf({ cli: 'claude-code', model: null }, 'claude-sonnet-4-6')).toBe('claude-sonnet-4-6');
    expect(runModelOf({ cli: 'codex', model: null }, 'claude-sonnet-4-6')).toBe('');
    expect(runModelOf({ cli: 'gemini', model: null }, 'claude-sonnet-4-6')).toBe('');
    expect(runModelOf({ cli: 'codex', model: 'gpt-5.5' }, 'claude-sonnet-4-6')).toBe('gpt-5.5');
  });
});

describe("the admin panel's form saving an agent (an update without cli)", () => {
  const agent = (fields: Partial<AgentData>): AgentData =>
    agentDataOf({
      name: 'A',
      description: '',
      model: null,
      instructions: '',
      workingDirectory: null,
      permissionMode: '',
      maxTurns: 0,
      ...fields,
    });
  const form = { model: 'claude-sonnet-4-6', permissionMode: '', maxTurns: 0, allowedTools: '', instructions: 'novo' };

  it("keeps a non-Claude agent's model and a mode the form cannot show; takes the rest", () => {
    expect(panelChangesFor(agent({ cli: 'codex', model: 'gpt-5.5', permissionMode: 'read-only' }), form)).toEqual({
      maxTurns: 0,
      allowedTools: '',
      instructions: 'novo',
    });
    // A mode the form lists is shown and sent back as chosen; a model of the CLI's own is stored.
    expect(panelChangesFor(agent({ cli: 'gemini', permissionMode: 'plan' }), { ...form, model: 'gemini-2.5-pro' })).toEqual({
      ...form,
      model: 'gemini-2.5-pro',
    });
  });

  it('takes the form as sent for a Claude Code agent, and any update that names the CLI', () => {
    expect(panelChangesFor(agent({ cli: 'claude-code', permissionMode: 'plan' }), form)).toEqual(form);
    const named = { ...form, cli: 'codex' as const };
    expect(panelChangesFor(agent({ cli: 'codex', model: 'gpt-5.5', permissionMode: 'read-only' }), named)).toEqual(named);
  });
});
