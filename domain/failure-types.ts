/**
 * The types of the failures activities throw to workflows (Temporal's ApplicationFailure `type`, or
 * the `name` of a plain Error an activity throws), in one place: the side that throws and the
 * workflows' retry policies (`nonRetryableErrorTypes`) both take them from here, so a renamed error
 * cannot silently become retryable. Plain constants, no import: workflow-safe (a workflow bundle may
 * hold this module). test/unit/failure-types.test.ts checks that both sides use them.
 */

export const FAILURE_TYPES = {
  /** The execution (or pipeline run) record is gone (activities/agents/records.ts). */
  executionNotFound: 'ExecutionNotFound',
  /** The record has no agent, or its agent was deleted. */
  agentNotFound: 'AgentNotFound',
  /** The agent's process failed (activities/agents/run-agent.ts, AgentProcessError). */
  agentProcess: 'AgentProcessError',
  /** Options the CLI cannot be given safely (activities/agents/agent-cli.ts, AgentOptionsError). */
  agentOptions: 'AgentOptionsError',
  /** An agent's secret does not decrypt (lib/secret-box.ts, SecretDecryptionError). */
  secretDecryption: 'SecretDecryptionError',
  /** No AGENT_SECRETS_KEY: secrets cannot be read (lib/secret-box.ts, SecretsKeyMissingError). */
  secretsKeyMissing: 'SecretsKeyMissingError',
  /** The worker shut down under the activity (not the workflow's cancel). */
  workerShutdown: 'WorkerShutdown',
  /** No live agents host holds the run's working directory (docs/multi-host.md). */
  noAgentHost: 'NoAgentHost',
  /** An activity reached a host other than the one its record is pinned to. */
  wrongAgentHost: 'WrongAgentHost',
  /** A pipeline step failed (activities/pipelines). */
  pipelineStepFailed: 'PipelineStepFailed',
} as const;

export type FailureType = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES];

/**
 * Failures of an agent execution's activities where another attempt cannot help: the record, the
 * agent, its options or secrets are wrong (workflows/agents/execution.ts: the slot, close and follow-up activities).
 */
export const AGENT_EXECUTION_NON_RETRYABLE: readonly FailureType[] = [
  FAILURE_TYPES.executionNotFound,
  FAILURE_TYPES.agentNotFound,
  FAILURE_TYPES.agentProcess,
  FAILURE_TYPES.agentOptions,
  FAILURE_TYPES.secretDecryption,
  FAILURE_TYPES.secretsKeyMissing,
];

/** A pipeline run's bookkeeping activities (workflows/pipelines/execution.ts): its record gone, or its step failed. */
export const PIPELINE_STEP_NON_RETRYABLE: readonly FailureType[] = [FAILURE_TYPES.executionNotFound, FAILURE_TYPES.pipelineStepFailed];

/** A pipeline run's push (workflows/pipelines/execution.ts): its record gone. */
export const PIPELINE_PUSH_NON_RETRYABLE: readonly FailureType[] = [FAILURE_TYPES.executionNotFound];

/** A pipeline run's push on its host's queue: its record gone, or the push reached another host. */
export const PIPELINE_PUSH_ON_HOST_NON_RETRYABLE: readonly FailureType[] = [FAILURE_TYPES.executionNotFound, FAILURE_TYPES.wrongAgentHost];
