import path from 'node:path';
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
