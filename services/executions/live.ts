import type { Execution } from '../../db/executions-store';
import { ExecutionLiveStream, liveTargetOf, type ExecutionIdentity } from '../../lib/live-output';
import type { ExecutionDeps } from './deps';

/** The fields of a record its live messages are addressed and labelled by. */
type LiveRecord = Pick<Execution, 'id' | 'agentId' | 'agentName' | 'source' | 'clientId' | 'scheduleId' | 'webhookId' | 'outputSeq'> &
  Partial<Pick<Execution, 'pipelineExecutionId' | 'pipelineId' | 'stepIndex'>>;

/** How a record's messages name it; a pipeline step's output goes out as pipeline_step_output (docs/pipelines.md). */
function liveIdentityOf(record: LiveRecord): ExecutionIdentity {
  const pipelineExecutionId = record.pipelineExecutionId ?? null;
  return {
    executionId: record.id,
    agentId: record.agentId ?? '',
    agentName: record.agentName,
    pipelineExecutionId,
    source: record.source,
    ...(pipelineExecutionId && record.pipelineId
      ? { pipelineStep: { pipelineId: record.pipelineId, stepIndex: record.stepIndex ?? 0 } }
      : {}),
  };
}

/**
 * The live stream of a record, for the use cases and the activities alike; null when nobody is to be
 * told (no client, not broadcast). Numbering goes on after the record's stored lines unless `firstSeq` says otherwise.
 */
export function liveStreamOf(
  deps: Pick<ExecutionDeps, 'redis'>,
  record: LiveRecord,
  firstSeq = record.outputSeq + 1,
): ExecutionLiveStream | null {
  const target = liveTargetOf(record);
  return target ? new ExecutionLiveStream(deps.redis, target, liveIdentityOf(record), firstSeq) : null;
}

/**
 * The stream for the messages a use case or a follow-up sends about a record itself (queued,
 * canceled, retry, the delegation lines): always as the execution's own, a pipeline step's included,
 * as they have always gone out. The run's output and close use liveStreamOf, where a step's lines
 * become pipeline_step_output.
 */
export function lifecycleStreamOf(deps: Pick<ExecutionDeps, 'redis'>, record: LiveRecord): ExecutionLiveStream | null {
  return liveStreamOf(deps, { ...record, pipelineExecutionId: null });
}

/** Awaits a live-output publication as best effort: a Redis failure is logged, never the caller's failure (the record has it all). */
export async function publishBestEffort(deps: Pick<ExecutionDeps, 'logger'>, promise: Promise<unknown> | undefined): Promise<void> {
  await promise?.catch((error: unknown) => deps.logger.warn({ err: error }, 'live output not published'));
}
