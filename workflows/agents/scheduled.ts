import { ChildWorkflowFailure, executeChild, ParentClosePolicy, proxyActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { ScheduleActivities } from '../../activities/schedules/scheduled-run';
import type { ScheduledAgentRunInput, ScheduledAgentRunResult } from '../../temporal/contracts/scheduled-agent-run';
import { labelsOf } from '../../temporal/contracts/search-attributes';
import { agentExecutionChild, agentExecutionWorkflow } from './execution';

// Creating the record is idempotent on its id (chosen here, replay-safe): retried freely.
const record = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * One firing of an agent schedule (started by its Temporal Schedule, temporal/agent-schedules.ts;
 * docs/tasks-schedules.md): the first activity creates the execution record (source `schedule`,
 * scheduleId, no client: its live messages go to every client) through the application layer, then
 * the agent runs as a child `agentExecutionWorkflow` with the record's usual id
 * (`agent-execution-<id>`): the same slot, run, finish, report and notification as any execution, and
 * the panel's cancel finds it. This workflow lasts as long as the run, which is what the Schedule's
 * overlap policy (skip) looks at.
 */
export async function scheduledAgentRunWorkflow(input: ScheduledAgentRunInput): Promise<ScheduledAgentRunResult> {
  const executionId = uuid4();
  const created = await record.createScheduledExecution.executeWithOptions({ summary: 'store the run of this firing' }, [
    { scheduleId: input.scheduleId, executionId },
  ]);
  if (!created) return { executionId: null };
  try {
    // The Schedule labelled this firing (temporal/agent-schedules.ts): its run carries the same labels and summary.
    const { status: _status, ...labels } = labelsOf(workflowInfo().typedSearchAttributes);
    await executeChild(agentExecutionWorkflow, {
      ...agentExecutionChild(executionId, { ...labels, scheduleId: input.scheduleId, source: 'schedule' }, input.summary),
      // Ending this workflow (terminate, cancel) cancels the run, which then ends its record `canceled`.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
  } catch (error) {
    // A cancelled run (the panel's cancel) ends its own record; this firing is over either way.
    if (!(error instanceof ChildWorkflowFailure)) throw error;
  }
  return { executionId };
}
