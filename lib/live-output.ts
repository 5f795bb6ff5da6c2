import type Redis from 'ioredis';

/**
 * Live output: what the process running an execution publishes on Redis, and what every API process
 * relays to the WebSocket clients (api/live-relay.ts). The messages are sent to the browser exactly as
 * published, so their shapes here are the wire format documented in docs/websocket.md.
 */

/** Who receives a message: the sockets of one client id, or every socket (executions started by a schedule). */
export type LiveTarget = { clientId: string } | 'all';

/** What decides who sees an execution: the record's `source` and the client id of the request that started it. */
export interface ExecutionLiveRoute {
  source: string;
  clientId: string | null;
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
}

/** Times (`at`) are ISO 8601 in UTC, taken by the publisher. */
export interface ExecutionQueuedMessage extends ExecutionIdentity {
  type: 'execution.queued';
  at: string;
}

export interface ExecutionStartedMessage extends ExecutionIdentity {
  type: 'execution.started';
  at: string;
}

/** One chunk of the agent's output. `seq` is 1 for the first chunk of an execution and grows by 1. */
export interface ExecutionOutputMessage {
  type: 'execution.output';
  executionId: string;
  seq: number;
  text: string;
}

export interface ExecutionFinishedMessage extends ExecutionIdentity {
  type: 'execution.finished';
  /** The record's final status (`completed`, `failed`, `cancelled`, ...). */
  status: string;
  costUsd: number | null;
  durationMs: number | null;
  sessionId: string | null;
  error: string | null;
  /** The `seq` of the last output chunk published (0 when none): a client missing any should fetch the record. */
  lastSeq: number;
  at: string;
}

/** A pipeline step changed state (`running`, `completed`, `failed`, `awaiting_approval`, `approved`, `rejected`, ...). */
export interface PipelineStepMessage {
  type: 'pipeline.step';
  pipelineExecutionId: string;
  pipelineId: string;
  /** 0-based position of the step in the pipeline. */
  stepIndex: number;
  stepCount: number;
  status: string;
  /** The step's agent execution, whose output arrives as `execution.*` messages; null before it starts. */
  executionId: string | null;
  error: string | null;
  at: string;
}

export interface PipelineFinishedMessage {
  type: 'pipeline.finished';
  pipelineExecutionId: string;
  pipelineId: string;
  status: string;
  /** 0-based index of the failed step, when one failed. */
  failedAtStep: number | null;
  error: string | null;
  at: string;
}

export type LiveMessage =
  | ExecutionQueuedMessage
  | ExecutionStartedMessage
  | ExecutionOutputMessage
  | ExecutionFinishedMessage
  | PipelineStepMessage
  | PipelineFinishedMessage;

export type LiveMessageType = LiveMessage['type'];

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

/**
 * Where an execution's messages go: executions started by a schedule to every client, the others to
 * the client that asked for them; null when there is nobody to tell (no client id: nothing is published).
 */
export function liveTargetOf(route: ExecutionLiveRoute): LiveTarget | null {
  if (route.source === 'schedule') return 'all';
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

/**
 * The live stream of one execution, for the activity that runs it: numbers the output chunks and
 * stamps the lifecycle messages. `firstSeq` lets a later attempt continue the numbering (default 1).
 *
 * @example
 * const live = new ExecutionLiveStream(redis, target, { executionId, agentId, agentName, pipelineExecutionId: null, source });
 * await live.started();
 * onEvent: (event) => event.kind === 'text' ? live.output(event.text) : undefined
 * await live.finished({ status: 'completed', costUsd, durationMs, sessionId, error: null });
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

  /** The `seq` of the last chunk published (0 before the first). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  queued(): Promise<number> {
    return this.publish({ type: 'execution.queued', ...this.execution, at: new Date().toISOString() });
  }

  started(): Promise<number> {
    return this.publish({ type: 'execution.started', ...this.execution, at: new Date().toISOString() });
  }

  /** The number is taken when called, so chunks keep their order even when not awaited one by one. */
  output(text: string): Promise<number> {
    const seq = this.nextSeq++;
    return this.publish({ type: 'execution.output', executionId: this.execution.executionId, seq, text });
  }

  finished(outcome: Pick<ExecutionFinishedMessage, 'status' | 'costUsd' | 'durationMs' | 'sessionId' | 'error'>): Promise<number> {
    return this.publish({
      type: 'execution.finished',
      ...this.execution,
      ...outcome,
      lastSeq: this.lastSeq,
      at: new Date().toISOString(),
    });
  }

  private publish(message: LiveMessage): Promise<number> {
    return publishLiveMessage(this.redis, this.target, message);
  }
}
