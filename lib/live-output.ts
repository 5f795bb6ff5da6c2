import type Redis from 'ioredis';

/**
 * Live output: what the process running an execution publishes on Redis, and what every API process
 * relays to the WebSocket clients (api/live-relay.ts). The messages are sent to the browser exactly as
 * published, so their shapes here are the wire format documented in docs/websocket.md.
 */

/** Who receives a message: the sockets of one client id, or every socket (executions started by a schedule). */
export type LiveTarget = { clientId: string } | 'all';

/**
 * What decides who sees an execution: the record's `source`, the client id of the request that started
 * it, and (for a delegated run) the schedule or webhook its chain began with.
 */
export interface ExecutionLiveRoute {
  source: string;
  clientId: string | null;
  /** A delegated run carries its origin's (services/executions/delegate.ts): it reaches the same audience. */
  scheduleId?: string | null;
  webhookId?: string | null;
}

/** Which execution a lifecycle message is about. Ids are the records' ids (UUIDs). */
export interface ExecutionIdentity {
  executionId: string;
  agentId: string;
  /** The agent's name when the execution started (a broadcast reaches terminals that never asked for it). */
  agentName: string;
  /** Set when the execution is a step of a pipeline execution. */
  pipelineExecutionId: string | null;
  /** What started it: the record's `source` (`manual`, `schedule`, `webhook`, `retry`, `continue`, ...). */
  source: string;
  /**
   * A pipeline step's agent execution: its output lines go out as `pipeline_step_output` and its own
   * lifecycle messages are not sent (the run's `pipeline_*` messages tell the panel; docs/pipelines.md).
   */
  pipelineStep?: { pipelineId: string; stepIndex: number };
}

/** Times (`at`) are ISO 8601 in UTC, taken by the publisher. */
export interface ExecutionQueuedMessage extends ExecutionIdentity {
  type: 'execution_queued';
  at: string;
}

export interface ExecutionStartedMessage extends ExecutionIdentity {
  type: 'execution_started';
  at: string;
}

/** The kinds of output line the panel styles (contract 4.4); `success` is the git line of a later piece. */
export const OUTPUT_CHUNK_TYPES = ['chunk', 'tool', 'system', 'turn', 'stderr', 'success'] as const;
export type OutputChunkType = (typeof OUTPUT_CHUNK_TYPES)[number];

/** One line of the agent's output as the panel's terminal shows it. */
export interface OutputChunk {
  type: OutputChunkType;
  /** Never empty (the panel ignores an empty line). */
  content: string;
  /** `tool` lines: the tool's name. */
  toolName?: string;
  /** `turn` lines: the turn's number, from 1. */
  turn?: number;
}

/** One line of the agent's output. `seq` is 1 for the first line of an execution and grows by 1. */
export interface ExecutionOutputMessage {
  type: 'execution_output';
  executionId: string;
  agentId: string;
  agentName: string;
  seq: number;
  /** When the worker read the line (ISO 8601): the start of `live_output_delay_seconds`. */
  at: string;
  data: OutputChunk;
}

/** The result object of a finished run (contract 4.3, `execution_complete.data`). */
export interface ExecutionResultData {
  executionId: string;
  /** The agent process's exit code; null when it never ran or died by a signal. */
  exitCode: number | null;
  /** The answer: the CLI's `result` text, else the assistant's text (contract 7.4); '' when none. */
  result: string;
  /** The end of the agent's standard error; '' when it wrote none. */
  stderr: string;
  canceled: boolean;
  /** The run's cost in USD (the CLI's `total_cost_usd`); 0 when not reported. Always a number (contract 8.4, 8.7). */
  costUsd: number;
  totalCostUsd: number;
  durationMs: number | null;
  numTurns: number | null;
  sessionId: string | null;
}

/** What every final message carries besides its `data`. */
interface FinalMessageFields extends ExecutionIdentity {
  /** The record's final status: `completed`, `error` or `canceled`. */
  status: string;
  /** The `seq` of the last output line published (0 when none): a client missing any should fetch the record. */
  lastSeq: number;
  at: string;
}

/** The run ended `completed`. */
export interface ExecutionCompleteMessage extends FinalMessageFields {
  type: 'execution_complete';
  data: ExecutionResultData;
}

/** The run ended `error`; `data.error` says why. */
export interface ExecutionErrorMessage extends FinalMessageFields {
  type: 'execution_error';
  data: Omit<ExecutionResultData, 'canceled'> & { error: string; canceled: boolean };
}

/**
 * The run ended `canceled`: a stop the user asked for, not an error. The panel ignores this type
 * (contract 4.1), so it shows no error toast; the run's last output line said "Execução cancelada".
 */
export interface ExecutionCanceledMessage extends FinalMessageFields {
  type: 'execution_canceled';
  data: Omit<ExecutionResultData, 'canceled'> & { error: string; canceled: true };
}

/** The types of an execution's final message: one of them ends every run's stream. */
export const FINAL_EXECUTION_MESSAGE_TYPES: readonly string[] = ['execution_complete', 'execution_error', 'execution_canceled'];

/** The system line a cancelled run's output ends with (the terminal's last word on it). */
export const CANCELED_LINE = 'Execução cancelada';

/** What the panel prints for a retry: top level (where the panel reads it, contract 7.1) and under `data`. */
export interface RetryFields {
  attempt: number;
  maxRetries: number;
  /** Seconds until the next attempt. */
  nextRetryIn: number;
  reason: string;
}

export interface ExecutionRetryMessage extends ExecutionIdentity, RetryFields {
  type: 'execution_retry';
  data: RetryFields;
  at: string;
}

/** The run's Markdown report was written (GET /api/reports/<reportFile> serves it). */
export interface ReportGeneratedMessage {
  type: 'report_generated';
  executionId: string;
  agentId: string;
  agentName: string;
  reportFile: string;
  at: string;
}

/** The pipeline run messages the panel reads (contract 4.3 and 4.5; docs/pipelines.md). `executionId` is the run's record unless said otherwise. */
export interface PipelineRunFields {
  pipelineId: string;
  executionId: string;
}

export interface PipelineStepStartMessage extends PipelineRunFields {
  type: 'pipeline_step_start';
  stepIndex: number;
  stepId: string;
  agentName: string;
  totalSteps: number;
  /** The run resumes a failed one (POST /pipelines/resume). */
  resumed?: true;
  /** The step's agent execution. */
  stepExecutionId: string;
}

/** One output line of a step's agent: `executionId` is the step's agent execution (the panel's terminal filter). */
export interface PipelineStepOutputMessage {
  type: 'pipeline_step_output';
  pipelineId: string;
  pipelineExecutionId: string;
  stepIndex: number;
  executionId: string;
  seq: number;
  /** When the worker read the line (ISO 8601): the start of `live_output_delay_seconds`. */
  at: string;
  data: OutputChunk;
}

/**
 * The run's git line after its last step (contract 4.3: `executionId` absent on the git message):
 * `data.type` `success` (docs/repositories.md).
 */
export interface PipelineGitOutputMessage {
  type: 'pipeline_step_output';
  pipelineId: string;
  pipelineExecutionId: string;
  stepIndex: number;
  data: OutputChunk;
}

export interface PipelineStepCompleteMessage extends PipelineRunFields {
  type: 'pipeline_step_complete';
  stepIndex: number;
  stepId: string;
  /** The first 500 characters of the step's result. */
  result: string;
  costUsd: number;
}

export interface PipelineStatusMessage extends PipelineRunFields {
  type: 'pipeline_status';
  status: 'awaiting_approval';
  stepIndex: number;
  /** What the run waits for: the step's approval, or a decision past an exhausted daily budget (docs/budgets.md). */
  waitingFor: ApprovalWait;
}

/** Why a pipeline run waits for an approval: its step requires one, or a daily budget of the step's agent is exhausted. */
export type ApprovalWait = 'approval' | 'budget';

export interface PipelineApprovalRequiredMessage extends PipelineRunFields {
  type: 'pipeline_approval_required';
  stepIndex: number;
  /** The previous step's agent; for a budget's wait, the step's own. */
  agentName: string;
  /**
   * The previous step's result (the run's input before a resumed run's first step), at most 3 000
   * characters; for a budget's wait, the budget's text (what the banner prints).
   */
  previousOutput: string;
  waitingFor: ApprovalWait;
  /** A budget's wait: the budget, its amount and today's spending. */
  budget?: { scope: 'global' | 'agent'; agentId: string | null; limitUsd: number; spentUsd: number };
}

export interface PipelineRejectedMessage extends PipelineRunFields {
  type: 'pipeline_rejected';
  stepIndex: number;
  /** `rejected` (POST /reject or the `reject` signal) or `timeout` (no decision within the step's approval timeout). */
  reason: 'rejected' | 'timeout';
}

export interface PipelineStepResultView {
  stepId: string;
  agentId: string;
  agentName: string;
  /** At most 5 000 characters (the detail has it whole). */
  result: string;
  sessionId: string | null;
}

export interface PipelineCompleteMessage extends PipelineRunFields {
  type: 'pipeline_complete';
  results: PipelineStepResultView[];
  totalCostUsd: number;
  lastAgentId: string | null;
  lastAgentName: string | null;
  lastSessionId: string | null;
}

export interface PipelineErrorMessage extends PipelineRunFields {
  type: 'pipeline_error';
  stepIndex: number;
  error: string;
}

export interface PipelineReportMessage extends PipelineRunFields {
  type: 'report_generated';
  reportFile: string;
}

export type PipelineLiveMessage =
  | PipelineStepStartMessage
  | PipelineStepOutputMessage
  | PipelineGitOutputMessage
  | PipelineStepCompleteMessage
  | PipelineStatusMessage
  | PipelineApprovalRequiredMessage
  | PipelineRejectedMessage
  | PipelineCompleteMessage
  | PipelineErrorMessage
  | PipelineReportMessage;

export type LiveMessage =
  | PipelineLiveMessage
  | ExecutionQueuedMessage
  | ExecutionStartedMessage
  | ExecutionOutputMessage
  | ExecutionCompleteMessage
  | ExecutionErrorMessage
  | ExecutionCanceledMessage
  | ExecutionRetryMessage
  | ReportGeneratedMessage;

/** Channels live under `<REDIS_KEY_PREFIX>live:`; the rest of the name says who receives the message. */
export const LIVE_CHANNEL_SEGMENT = 'live:';
export const BROADCAST_CHANNEL_SUFFIX = 'all';
export const CLIENT_CHANNEL_SUFFIX = 'client:';

/**
 * The Redis channel of a target. ioredis's keyPrefix does not apply to pub/sub channels, so the
 * prefix is added here: separate prefixes (test runs, deployments) never hear each other.
 */
export function liveChannel(keyPrefix: string, target: LiveTarget): string {
  const suffix = target === 'all' ? BROADCAST_CHANNEL_SUFFIX : `${CLIENT_CHANNEL_SUFFIX}${target.clientId}`;
  return `${keyPrefix}${LIVE_CHANNEL_SEGMENT}${suffix}`;
}

/** The PSUBSCRIBE pattern of every live channel under a prefix (glob characters of the prefix escaped). */
export function liveChannelPattern(keyPrefix: string): string {
  return `${keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}${LIVE_CHANNEL_SEGMENT}*`;
}

/** Sources whose runs every client sees (contract 4.2: scheduled and webhook-triggered runs are broadcast). */
const BROADCAST_SOURCES: readonly string[] = ['schedule', 'webhook', 'webhook-test'];

/**
 * Where an execution's messages go: executions started by a schedule or a webhook to every client, the others to
 * the client that asked for them; null when there is nobody to tell (no client id: nothing is published).
 * A delegated run goes where the run it came from went (contract 4.2, "the same callback"): to every
 * client when its chain began with a schedule or a webhook, else to the same client.
 */
export function liveTargetOf(route: ExecutionLiveRoute): LiveTarget | null {
  if (BROADCAST_SOURCES.includes(route.source)) return 'all';
  if (route.source === 'delegation' && (route.scheduleId || route.webhookId)) return 'all';
  return route.clientId ? { clientId: route.clientId } : null;
}

/**
 * Publishes one message: one PUBLISH, one Redis round trip. The channel carries the connection's own
 * key prefix (the same REDIS_KEY_PREFIX the API processes subscribe under), so a worker needs nothing
 * but its Redis connection. Resolves with the number of API processes that received it (0 is not an
 * error: nobody is listening). Rejects when Redis does.
 */
export function publishLiveMessage(redis: Redis, target: LiveTarget, message: LiveMessage): Promise<number> {
  return redis.publish(liveChannel(redis.options.keyPrefix ?? '', target), JSON.stringify(message));
}

/** How an execution ended, as its final message reports it. Fields after `error` are optional: unknown is '' or null. */
export interface ExecutionOutcome {
  /** The record's final status (`completed`, `error`, `canceled`). */
  status: string;
  costUsd: number | null;
  durationMs: number | null;
  sessionId: string | null;
  /**
   * Why it failed or was canceled, as a person reads it (the callers give the texts of
   * domain/run-messages.ts, finalErrorOf; lib/ holds none); null when it completed ('' in a message).
   */
  error: string | null;
  /** The answer (the CLI's result text, else the assistant's text). */
  result?: string | null;
  exitCode?: number | null;
  /** The end of the agent's standard error. */
  stderr?: string | null;
  turns?: number | null;
}

/**
 * The live stream of one execution, for the activity that runs it and the use cases that end it:
 * numbers the output lines and stamps the lifecycle messages. `firstSeq` lets a later attempt continue
 * the numbering (default 1).
 *
 * @example
 * const live = new ExecutionLiveStream(redis, target, { executionId, agentId, agentName, pipelineExecutionId: null, source });
 * await live.started();
 * await live.output({ type: 'chunk', content: 'Vou ler os arquivos.' });
 * await live.report('2026-11-21_150311_revisor_0d1c5a4e.md');
 * await live.finished({ status: 'completed', costUsd, durationMs, sessionId, error: null, result, exitCode: 0, stderr: '', turns });
 */
export class ExecutionLiveStream {
  private nextSeq: number;

  constructor(
    private readonly redis: Redis,
    private readonly target: LiveTarget,
    private readonly execution: ExecutionIdentity,
    firstSeq = 1,
  ) {
    this.nextSeq = firstSeq;
  }

  /** The `seq` of the last line published (0 before the first). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  queued(): Promise<number> {
    if (this.execution.pipelineStep) return Promise.resolve(0);
    return this.publish({ type: 'execution_queued', ...this.execution, at: new Date().toISOString() });
  }

  started(): Promise<number> {
    if (this.execution.pipelineStep) return Promise.resolve(0);
    return this.publish({ type: 'execution_started', ...this.execution, at: new Date().toISOString() });
  }

  /** The number is taken when called, so lines keep their order even when not awaited one by one. */
  output(chunk: OutputChunk): Promise<number> {
    const seq = this.nextSeq++;
    const { executionId, agentId, agentName, pipelineExecutionId, pipelineStep } = this.execution;
    const at = new Date().toISOString();
    if (pipelineStep && pipelineExecutionId) {
      return this.publish({ type: 'pipeline_step_output', ...pipelineStep, pipelineExecutionId, executionId, seq, at, data: chunk });
    }
    return this.publish({ type: 'execution_output', executionId, agentId, agentName, seq, at, data: chunk });
  }

  report(reportFile: string): Promise<number> {
    if (this.execution.pipelineStep) return Promise.resolve(0);
    const { executionId, agentId, agentName } = this.execution;
    return this.publish({ type: 'report_generated', executionId, agentId, agentName, reportFile, at: new Date().toISOString() });
  }

  /** An attempt failed and another follows in `nextRetryIn` seconds. */
  retry(fields: RetryFields): Promise<number> {
    if (this.execution.pipelineStep) return Promise.resolve(0);
    return this.publish({ type: 'execution_retry', ...this.execution, ...fields, data: { ...fields }, at: new Date().toISOString() });
  }

  /**
   * The final message: `execution_complete` for `completed`, `execution_canceled` for `canceled` (the
   * panel greets `execution_complete` as a success and `execution_error` as an error, and a stop the
   * user asked for is neither), `execution_error` for anything else.
   */
  finished(outcome: ExecutionOutcome): Promise<number> {
    if (this.execution.pipelineStep) return Promise.resolve(0);
    const canceled = outcome.status === 'canceled';
    const cost = outcome.costUsd ?? 0;
    const data: ExecutionResultData = {
      executionId: this.execution.executionId,
      exitCode: outcome.exitCode ?? null,
      result: outcome.result ?? '',
      stderr: outcome.stderr ?? '',
      canceled,
      costUsd: cost,
      totalCostUsd: cost,
      durationMs: outcome.durationMs,
      numTurns: outcome.turns ?? null,
      sessionId: outcome.sessionId,
    };
    const fields = { ...this.execution, status: outcome.status, lastSeq: this.lastSeq, at: new Date().toISOString() };
    if (outcome.status === 'completed') return this.publish({ type: 'execution_complete', ...fields, data });
    if (canceled) return this.publish({ type: 'execution_canceled', ...fields, data: { ...data, canceled, error: outcome.error ?? '' } });
    return this.publish({ type: 'execution_error', ...fields, data: { ...data, error: outcome.error ?? '' } });
  }

  private publish(message: LiveMessage): Promise<number> {
    return publishLiveMessage(this.redis, this.target, message);
  }
}
