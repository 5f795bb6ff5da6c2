import { timedOutError } from '../../../domain/run-limits';
import type { AgentCli } from '../agent-cli';
import { setprivStartFailure } from '../parent-death';
import type { ProcessEnding } from './process-group';
import { AgentCancelledError, AgentTimeoutError, processFailure, type AgentRunSummary } from './run-summary';

/** What is known once the agent's process ended and its output was all delivered. */
export interface EndingFacts {
  /** The configured command (named in a failure to start). */
  command: string;
  cli: AgentCli;
  ending: ProcessEnding;
  /** Started through setpriv (parent-death.ts): its own failure to start the command comes as exit 126/127. */
  throughSetpriv: boolean;
  stderrTail: string;
  cancelled: boolean;
  /** The abort signal's reason (the cancellation's cause). */
  cancelReason: unknown;
  timedOut: boolean;
  timeLimitMs: number | undefined;
  /** Awaited before a timed-out run fails: its tools had their SIGTERM grace. */
  timedOutGroupGone: () => Promise<void>;
  /** The first failed delivery (the caller's own error), null when none failed. */
  deliveryFailure: { error: unknown } | null;
  resultIsError: boolean;
}

/**
 * How the run ended (docs/agent-process.md, "The outcome"), into the summary: null when it succeeded,
 * else the error to throw. In this order: the agent could not start; it was cancelled; it timed out;
 * a delivery failed (that error as it came); it exited non-zero, by a signal or with an error result.
 */
export async function endingFailure(summary: AgentRunSummary, facts: EndingFacts): Promise<{ error: unknown } | null> {
  const { ending } = facts;
  if ('startError' in ending)
    return { error: processFailure(summary, `não foi possível iniciar ${facts.command}: ${ending.startError.message}`) };
  const notStarted = facts.throughSetpriv ? setprivStartFailure(facts.command, ending.code, facts.stderrTail) : null;
  if (notStarted !== null) return { error: processFailure(summary, `não foi possível iniciar ${facts.command}: ${notStarted}`) };
  summary.exitCode = ending.code;
  summary.signal = ending.signal;
  if (facts.cancelled) return { error: new AgentCancelledError(summary, facts.cancelReason) };
  if (facts.timedOut) {
    // The record says so only once nothing of the run is left: the tools had their SIGTERM grace.
    await facts.timedOutGroupGone();
    summary.error = timedOutError(facts.timeLimitMs!);
    return { error: new AgentTimeoutError(summary.error, summary) };
  }
  // The caller's own failure (e.g. publishing), rethrown as it came.
  if (facts.deliveryFailure !== null) return facts.deliveryFailure;
  if (ending.code !== 0 || ending.signal !== null || facts.resultIsError) {
    return { error: processFailure(summary, failureMessage(facts.cli, summary, facts.resultIsError, facts.stderrTail)) };
  }
  return null;
}

function failureMessage(cli: AgentCli, summary: AgentRunSummary, resultIsError: boolean, stderrTail: string): string {
  // In the panel's language: the record's error is shown to a person (the toast, the history).
  const how =
    summary.signal !== null
      ? `foi encerrado pelo sinal ${summary.signal}`
      : summary.exitCode !== 0
        ? `terminou com o código ${summary.exitCode}`
        : 'relatou um erro';
  const parts = [`${cli.name} ${how}`];
  if (resultIsError && summary.resultText !== null) {
    parts.push(`: ${summary.resultText}`);
    const hint = cli.failureHint?.(summary.resultText);
    if (hint) parts.push(` (${hint})`);
  }
  const stderr = cli.failureStderr?.(stderrTail) ?? stderrTail;
  if (stderr.trim() !== '') parts.push(`\nstderr: ${stderr.trimEnd()}`);
  return parts.join('');
}
