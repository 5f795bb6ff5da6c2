import path from 'node:path';
import type { AgentCliName } from '../../domain/agent-clis';
import type { Config } from '../../lib/config';
import type { AgentCli } from './agent-cli';
import { claudeCode } from './claude-code';
import { codexCli } from './codex';
import { geminiCli } from './gemini';

/**
 * Adapters by the command's file name. Adding a CLI: one file with its AgentCli, one line here.
 * docs/agent-process.md, "The adapter contract"; docs/codex-cli.md, docs/gemini-cli.md.
 */
const adaptersByCommand: Record<string, AgentCli> = {
  claude: claudeCode,
  codex: codexCli,
  gemini: geminiCli,
};

/** The adapter of a command not listed above (the stand-in CLI, a wrapper script): they speak Claude Code's protocol. */
export const defaultAgentCli: AgentCli = claudeCode;

/**
 * The adapter for a configured command (AGENT_COMMAND): chosen by the file name of the command, so
 * `/opt/bin/claude` is Claude Code and `/opt/bin/codex` Codex CLI. A command not listed is taken to
 * speak Claude Code's protocol, as the project's stand-in CLI (test/fixtures/fake-agent) and wrappers
 * around `claude` do.
 */
export function agentCliFor(command: string): AgentCli {
  return adaptersByCommand[path.basename(command)] ?? defaultAgentCli;
}

/**
 * The adapter and the command a run of CLI `name` gets (config.cli of its agent, kept on its record):
 * Claude Code's command is AGENT_COMMAND and its adapter follows that command's name as above (the
 * stand-in and wrappers speak its protocol); Codex CLI and Gemini CLI have their own settings.
 */
export function agentCliRun(
  name: AgentCliName,
  orchestration: Pick<Config['orchestration'], 'agentCommand' | 'cliCommands'>,
): { cli: AgentCli; command: string } {
  if (name === 'codex') return { cli: codexCli, command: orchestration.cliCommands.codex };
  if (name === 'gemini') return { cli: geminiCli, command: orchestration.cliCommands.gemini };
  return { cli: agentCliFor(orchestration.agentCommand), command: orchestration.agentCommand };
}
