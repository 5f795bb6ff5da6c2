/** The contract of `scheduledAgentRunWorkflow` (workflows/agents/scheduled.ts), started by an agent schedule's Temporal Schedule; workflow-safe. */

export const SCHEDULED_AGENT_RUN_WORKFLOW = 'scheduledAgentRunWorkflow';

export interface ScheduledAgentRunInput {
  /** The row of `schedules`. */
  scheduleId: string;
  /** What the Schedule was made from, for the reconciler's comparison only (temporal/agent-schedules.ts). */
  cronExpression?: string;
  timezone?: string;
  /** The Web UI's summary of the firing's run ("Reviewer: review the PR (schedule 0 9 * * *)"); absent in Schedules made before it. */
  summary?: string;
}

export interface ScheduledAgentRunResult {
  /** The execution record this firing created; null when nothing ran (the row or its agent gone, the agent inactive). */
  executionId: string | null;
}
