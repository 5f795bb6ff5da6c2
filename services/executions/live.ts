import type { Execution } from '../../db/executions-store';
import { ExecutionLiveStream, liveTargetOf } from '../../lib/live-output';
import type { ExecutionDeps } from './deps';

/** The live stream of a record for the lifecycle messages a use case sends itself; null when nobody is to be told. */
export function liveStreamOf(
  deps: Pick<ExecutionDeps, 'redis'>,
  execution: Pick<Execution, 'id' | 'agentId' | 'agentName' | 'source' | 'clientId' | 'scheduleId' | 'webhookId' | 'outputSeq'>,
): ExecutionLiveStream | null {
  const target = liveTargetOf(execution);
  if (!target) return null;
  const identity = { executionId: execution.id, agentId: execution.agentId ?? '', agentName: execution.agentName, pipelineExecutionId: null, source: execution.source };
  return new ExecutionLiveStream(deps.redis, target, identity, execution.outputSeq + 1);
}

/** Live output is best effort: a Redis failure is logged, never the use case's failure (the record has it all). */
export async function published(deps: Pick<ExecutionDeps, 'logger'>, promise: Promise<unknown> | undefined): Promise<void> {
  await promise?.catch((error: unknown) => deps.logger.warn({ err: error }, 'live output not published'));
}
