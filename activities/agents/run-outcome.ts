import type { AgentTokens } from './agent-cli';
import type { AgentRunSummary } from './run-agent';

/** What the run gives the workflow (and the record). */
export interface AgentRunOutcome {
  sessionId: string | null;
  costUsd: number | null;
  durationMs: number | null;
  turns: number | null;
  /** The answer: the CLI's `result` text, else the assistant's text (contract 7.4). */
  result: string | null;
  /** The process's exit code, when it exited. */
  exitCode: number | null;
  /** The end of the agent's standard error (the final message's `data.stderr`); absent from older histories. */
  stderr?: string;
  /** Tokens the CLI's result reported (docs/statistics.md); null: none; absent from older histories. */
  tokens?: AgentTokens | null;
}

/** The outcome of a finished agent process: its `result` text, else everything it said. */
export function outcomeOf(summary: AgentRunSummary): AgentRunOutcome {
  const text = summary.output.trim() === '' ? null : summary.output;
  return {
    sessionId: summary.sessionId,
    costUsd: summary.costUsd,
    durationMs: summary.durationMs,
    turns: summary.turns,
    result: summary.resultText ?? text,
    exitCode: summary.exitCode,
    stderr: summary.stderr,
    tokens: summary.tokens,
  };
}
