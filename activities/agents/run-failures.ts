import { ApplicationFailure, CancelledFailure, type Context } from '@temporalio/activity';
import { AGENT_TIMEOUT_FAILURE, WORKER_STOPPED_ERROR } from '../../domain/execution-errors';
import { FAILURE_TYPES } from '../../domain/failure-types';
import { SECRETS_KEY_MISSING_ERROR } from '../../domain/run-messages';
import { SecretDecryptionError, SecretsKeyMissingError } from '../../lib/secret-box';
import { outcomeOf } from './run-outcome';
import { AgentCancelledError, AgentProcessError, AgentTimeoutError } from './run-agent';

/** What the run activity throws to its workflow (workflows/agents/execution.ts), by the failure types of domain/failure-types.ts. */

/** The activity was cancelled because its worker is shutting down (not by the workflow). */
export function shuttingDown(context: Context): boolean {
  return context.cancellationDetails?.workerShutdown === true;
}

/**
 * An agent's secrets that cannot be read (no AGENT_SECRETS_KEY, a secret that does not decrypt) as
 * the non-retryable failure of its type; any other error as it came. lib/ cannot import domain/, so
 * the type is given here rather than by the error classes.
 */
export function secretsFailureOf(error: unknown): unknown {
  if (error instanceof SecretsKeyMissingError)
    return ApplicationFailure.create({ message: SECRETS_KEY_MISSING_ERROR, type: FAILURE_TYPES.secretsKeyMissing, nonRetryable: true });
  if (error instanceof SecretDecryptionError)
    return ApplicationFailure.create({ message: error.message, type: FAILURE_TYPES.secretDecryption, nonRetryable: true });
  return error;
}

/**
 * What a failed run throws to the workflow: a user's cancel, a worker's shutdown (or the end of its
 * drain, `drainEnded`), or the agent's failure with what it reported.
 */
export function runFailureOf(error: unknown, context: Context, drainEnded = false): unknown {
  if (error instanceof AgentCancelledError) {
    // The worker's own shutdown killed the agent: a failure of the run, not the user's cancel.
    if (shuttingDown(context) || (drainEnded && !context.cancellationSignal.aborted)) {
      return ApplicationFailure.create({
        message: WORKER_STOPPED_ERROR,
        type: FAILURE_TYPES.workerShutdown,
        nonRetryable: true,
        details: [outcomeOf(error.summary)],
      });
    }
    return error.cause instanceof CancelledFailure ? error.cause : new CancelledFailure('agent run cancelled');
  }
  if (error instanceof AgentTimeoutError) {
    return ApplicationFailure.create({
      message: error.message,
      type: AGENT_TIMEOUT_FAILURE,
      nonRetryable: true,
      details: [outcomeOf(error.summary)],
    });
  }
  if (error instanceof AgentProcessError) {
    return ApplicationFailure.create({
      message: error.message,
      type: FAILURE_TYPES.agentProcess,
      nonRetryable: true,
      details: [outcomeOf(error.summary)],
    });
  }
  return error;
}
