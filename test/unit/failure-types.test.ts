import { ApplicationFailure } from '@temporalio/common';
import { AgentOptionsError } from '../../activities/agents/agent-cli';
import { secretsFailureOf } from '../../activities/agents/run-failures';
import { AgentProcessError, emptySummary } from '../../activities/agents/process/run-summary';
import {
  AGENT_EXECUTION_NON_RETRYABLE,
  FAILURE_TYPES,
  PIPELINE_PUSH_NON_RETRYABLE,
  PIPELINE_PUSH_ON_HOST_NON_RETRYABLE,
  PIPELINE_STEP_NON_RETRYABLE,
} from '../../domain/failure-types';
import { SecretDecryptionError, SecretsKeyMissingError } from '../../lib/secret-box';
import { SECRETS_KEY_MISSING_ERROR } from '../../domain/run-messages';
import { BOOKKEEPING_RETRY, SLOT_RETRY } from '../../workflows/agents/execution';

/**
 * A failure's type decides whether Temporal retries it: the throwing side and the workflows take the
 * types from domain/failure-types.ts, so renaming an error class (or its name) cannot silently make
 * its failure retryable.
 */
describe('non-retryable failure types', () => {
  it('name each plain error an agent activity throws by a type the agent execution workflow does not retry', () => {
    const names = [new AgentOptionsError('bad option').name, new AgentProcessError('failed', emptySummary()).name];
    for (const name of names) expect(AGENT_EXECUTION_NON_RETRYABLE).toContain(name);
  });

  it('turn the secrets errors of lib/ into non-retryable failures of their listed types', () => {
    for (const error of [new SecretsKeyMissingError(), new SecretDecryptionError('does not decrypt')]) {
      const failure = secretsFailureOf(error);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect((failure as ApplicationFailure).nonRetryable).toBe(true);
      // A missing key is said in the panel's words (the record's error); a secret that does not decrypt, as it came.
      expect((failure as ApplicationFailure).message).toBe(
        error instanceof SecretsKeyMissingError ? SECRETS_KEY_MISSING_ERROR : error.message,
      );
      expect(AGENT_EXECUTION_NON_RETRYABLE).toContain((failure as ApplicationFailure).type);
      // The class's own name stays its type too (a caller outside the activity sees the same word).
      expect(AGENT_EXECUTION_NON_RETRYABLE).toContain(error.name);
    }
    const other = new Error('something else');
    expect(secretsFailureOf(other)).toBe(other);
  });

  it('keep the lists as the workflows have always had them (recorded histories replay with them)', () => {
    expect(AGENT_EXECUTION_NON_RETRYABLE).toEqual([
      'ExecutionNotFound',
      'AgentNotFound',
      'AgentProcessError',
      'AgentOptionsError',
      'SecretDecryptionError',
      'SecretsKeyMissingError',
    ]);
    expect(PIPELINE_STEP_NON_RETRYABLE).toEqual(['ExecutionNotFound', 'PipelineStepFailed']);
    expect(PIPELINE_PUSH_NON_RETRYABLE).toEqual(['ExecutionNotFound']);
    expect(PIPELINE_PUSH_ON_HOST_NON_RETRYABLE).toEqual(['ExecutionNotFound', 'WrongAgentHost']);
    expect(new Set(Object.values(FAILURE_TYPES)).size).toBe(Object.values(FAILURE_TYPES).length);
  });

  it('are what the agent execution workflow gives its retried activities', () => {
    // The slot waiter's, and the close and follow-up activities' (the run itself has one attempt).
    for (const policy of [SLOT_RETRY, BOOKKEEPING_RETRY]) expect(policy.nonRetryableErrorTypes).toEqual(AGENT_EXECUTION_NON_RETRYABLE);
  });
});
