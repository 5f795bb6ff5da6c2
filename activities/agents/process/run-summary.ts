import type { AgentTokens } from '../agent-cli';
import { FAILURE_TYPES } from '../../../domain/failure-types';

/** What a run of the agent's process gives: what it reported, what it printed (bounded), and why it failed. */
export interface AgentRunSummary {
  pid: number | null;
  exitCode: number | null;
  /** The signal that ended the process, when one did. */
  signal: NodeJS.Signals | null;
  sessionId: string | null;
  costUsd: number | null;
  durationMs: number | null;
  turns: number | null;
  /** Tokens as the result event reported them (null: it reported none). */
  tokens: AgentTokens | null;
  /** The result event's text (the final answer, or its error message), bounded like output. */
  resultText: string | null;
  /** The assistant text messages joined by newlines, bounded, with a note at the end when cut. */
  output: string;
  outputTruncated: boolean;
  /** The end of standard error (DEFAULT_MAX_STDERR_CHARS), '' when it wrote nothing. */
  stderr: string;
  /** Why the run failed; null when it did not. */
  error: string | null;
}

/** The summary of a run before anything happened. */
export function emptySummary(): AgentRunSummary {
  return {
    pid: null,
    exitCode: null,
    signal: null,
    sessionId: null,
    costUsd: null,
    durationMs: null,
    turns: null,
    tokens: null,
    resultText: null,
    output: '',
    outputTruncated: false,
    stderr: '',
    error: null,
  };
}

/** The agent failed: it could not start, exited non-zero, died by a signal, or reported an error result. */
export class AgentProcessError extends Error {
  override name: string = FAILURE_TYPES.agentProcess;
  constructor(
    message: string,
    readonly summary: AgentRunSummary,
  ) {
    super(message);
  }
}

/** The run reached its time limit and its process group was killed. */
export class AgentTimeoutError extends AgentProcessError {
  override name = 'AgentTimeoutError';
}

/** The run was cancelled through its AbortSignal and the process group was killed; `cause` is the signal's reason. */
export class AgentCancelledError extends Error {
  override name = 'AgentCancelledError';
  constructor(
    readonly summary: AgentRunSummary,
    reason: unknown,
  ) {
    super('agent run cancelled', { cause: reason });
  }
}

/** Fails the run with `message` as its summary's error. */
export function processFailure(summary: AgentRunSummary, message: string): AgentProcessError {
  summary.error = message;
  return new AgentProcessError(message, summary);
}
