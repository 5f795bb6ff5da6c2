import type { Agent } from '../../db/agents-store';
import type { Execution } from '../../db/executions-store';
import { NO_GIT_INSTRUCTION } from '../repos/workspace';
import type { AgentCli, AgentRunOptions } from './agent-cli';
import { defaultAgentCli } from './agent-clis';

/** What an agent run is given: its prompt and the options its agent's config sets (docs/agents.md). */

/**
 * The prompt on the CLI's stdin: the task, then (when the run has additional instructions) a blank
 * line, `Instruções adicionais:` and the instructions, as the legacy server wrote it (contract 4.4).
 * The agent's own instructions are its system prompt, not part of this.
 */
export function composePrompt(record: Pick<Execution, 'task' | 'instructions'> & Partial<Pick<Execution, 'repoName'>>): string {
  const instructions = record.instructions.trim();
  const prompt = instructions === '' ? record.task : `${record.task}\n\nInstruções adicionais:\n${instructions}`;
  // In a repository the service commits and pushes: the agent is told to leave git alone (docs/repositories.md).
  return record.repoName ? `${prompt}\n\n${NO_GIT_INSTRUCTION}` : prompt;
}

/** The agent's permission mode when the CLI knows it, else the CLI's default. */
function permissionModeOf(value: string, cli: Pick<AgentCli, 'permissionModes' | 'defaultPermissionMode'>): string {
  return cli.permissionModes.includes(value) ? value : cli.defaultPermissionMode;
}

/**
 * The agent's config as run options (docs/agents.md, "At run time"): its system prompt (none when
 * empty), allowed tools (comma-separated, blanks dropped), turn limit (0: none) and permission mode
 * ('' and values the CLI does not know: its default, bypassPermissions for Claude Code). The
 * execution's own `instructions` go into the prompt.
 */
export function agentRunConfigOf(
  agent: Pick<Agent, 'instructions' | 'allowedTools' | 'maxTurns' | 'permissionMode'>,
  cli: Pick<AgentCli, 'permissionModes' | 'defaultPermissionMode'> = defaultAgentCli,
): Pick<AgentRunOptions, 'systemPrompt' | 'allowedTools' | 'maxTurns' | 'permissionMode'> {
  const allowedTools = agent.allowedTools
    .split(',')
    .map((tool) => tool.trim())
    .filter((tool) => tool !== '');
  return {
    maxTurns: agent.maxTurns,
    permissionMode: permissionModeOf(agent.permissionMode, cli),
    ...(agent.instructions.trim() !== '' ? { systemPrompt: agent.instructions } : {}),
    ...(allowedTools.length > 0 ? { allowedTools } : {}),
  };
}
