import type { Execution } from '../../db/executions-store';
import { DEFAULT_AGENT_CLI } from '../../domain/agent-clis';
import { runOutcomeReason } from '../../domain/run-outcomes';
import { agentRunCost, agentRunDuration, agentRunSlotWait, agentRunsFinished, agentRunsStarted } from '../../lib/metrics';

/** The run metrics of an agent record (docs/observability.md), counted where the record starts and ends. */

type RunRecord = Pick<Execution, 'kind' | 'source' | 'pipelineExecutionId' | 'cli'>;

// `cli`: one of the three names (domain/agent-clis.ts), bounded; a record without one ran Claude Code.
const labelsOf = (record: RunRecord) => ({
  source: record.source,
  pipeline_step: String(record.pipelineExecutionId !== null),
  cli: record.cli ?? DEFAULT_AGENT_CLI,
});

/** An attempt's process is about to start. */
export function countStartedRun(record: RunRecord): void {
  if (record.kind === 'agent') agentRunsStarted.inc(labelsOf(record));
}

/**
 * The record just took its slot: its wait from creation to start. A waitForSlot retried after its
 * answer was lost counts the same wait again (rare; docs/observability.md).
 */
export function countSlotWait(record: RunRecord & Pick<Execution, 'createdAt' | 'startedAt'>): void {
  if (record.kind !== 'agent' || record.startedAt === null) return;
  agentRunSlotWait.observe(
    { pipeline_step: String(record.pipelineExecutionId !== null) },
    Math.max(0, (record.startedAt.getTime() - record.createdAt.getTime()) / 1000),
  );
}

/** The record just ended (called once: by whoever's finishExecution changed it). */
export function countFinishedRun(record: RunRecord & Pick<Execution, 'status' | 'error' | 'startedAt' | 'finishedAt' | 'costUsd'>): void {
  if (record.kind !== 'agent') return;
  agentRunsFinished.inc({ ...labelsOf(record), status: record.status, reason: runOutcomeReason(record.status, record.error) });
  if (record.startedAt !== null && record.finishedAt !== null) {
    agentRunDuration.observe({ status: record.status }, Math.max(0, (record.finishedAt.getTime() - record.startedAt.getTime()) / 1000));
  }
  if (record.costUsd !== null && record.costUsd > 0) agentRunCost.inc(record.costUsd);
}
