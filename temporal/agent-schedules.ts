import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleDescription,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { SearchAttributePair, TypedSearchAttributes } from '@temporalio/common';
import { SCHEDULED_AGENT_RUN_WORKFLOW, type ScheduledAgentRunInput } from './contracts/scheduled-agent-run';
import { runSearchAttributes } from './contracts/search-attributes';
import { agentRunSummary, detailLines } from './contracts/summaries';
import { TASK_QUEUES } from './task-queues';

/**
 * The Temporal Schedule of each row of `schedules` (docs/tasks-schedules.md): id
 * `agent-schedule-<row id>`, a prefix this feature owns; the reconciler deletes any Schedule with it
 * that has no row, and touches no other Schedule (the ranking job's, the reconcilers').
 */
export const AGENT_SCHEDULE_PREFIX = 'agent-schedule-';

export function agentScheduleId(scheduleId: string): string {
  return `${AGENT_SCHEDULE_PREFIX}${scheduleId}`;
}

/** What a Schedule is made from: the row's id, cron, state, and the time zone the cron is read in; its agent and task label its runs in the Web UI. */
export interface AgentScheduleDefinition {
  id: string;
  cronExpression: string;
  active: boolean;
  timezone: string;
  agentId: string;
  /** null: the agent is gone (its firings are skipped). */
  agentName: string | null;
  taskDescription: string;
}

function specOf(definition: AgentScheduleDefinition): ScheduleSpec {
  return { cronExpressions: [definition.cronExpression], timezone: definition.timezone };
}

/**
 * Starts `scheduledAgentRunWorkflow` on the agents queue (Temporal appends the firing time to the id).
 * The argument carries the cron and time zone it was made from: Temporal answers a described spec as
 * calendars, not as the cron, so this is what the reconciler compares.
 */
function actionOf(definition: AgentScheduleDefinition): ScheduleOptionsAction {
  const summary = summaryOf(definition);
  const input: ScheduledAgentRunInput = {
    scheduleId: definition.id,
    cronExpression: definition.cronExpression,
    timezone: definition.timezone,
    summary,
  };
  return {
    type: 'startWorkflow',
    workflowType: SCHEDULED_AGENT_RUN_WORKFLOW,
    taskQueue: TASK_QUEUES.agents,
    workflowId: `agent-schedule-run-${definition.id}`,
    args: [input],
    // Each firing findable by ScheduleId, AgentName...; the workflow passes them on to the run it starts (docs/observability.md).
    typedSearchAttributes: attributesOf(definition),
    staticSummary: summary,
    staticDetails: detailLines({
      schedule: definition.id,
      agent: definition.agentId,
      cron: `${definition.cronExpression} (${definition.timezone})`,
    }),
  };
}

/** "Reviewer: review the PR (schedule 0 9 * * *)": the firing's, and its run's, summary. */
function summaryOf(definition: AgentScheduleDefinition): string {
  return agentRunSummary({
    agentName: definition.agentName ?? definition.agentId,
    source: 'schedule',
    task: definition.taskDescription,
    cron: definition.cronExpression,
  });
}

function attributesOf(definition: AgentScheduleDefinition): SearchAttributePair[] {
  return runSearchAttributes({
    agentId: definition.agentId,
    agentName: definition.agentName,
    scheduleId: definition.id,
    source: 'schedule',
  });
}

/** Whether a described action's attributes are `expected` (an agent renamed since: not, and the reconcile updates it). */
function sameAttributes(described: TypedSearchAttributes | SearchAttributePair[] | undefined, expected: SearchAttributePair[]): boolean {
  const pairs = described === undefined ? [] : Array.isArray(described) ? described : described.getAll();
  const text = (list: SearchAttributePair[]) => JSON.stringify(list.map((pair) => [pair.key.name, pair.value]).sort());
  return text(pairs) === text(expected);
}

/** The note a paused Schedule shows in the Temporal Web UI. */
const PAUSED_NOTE = 'paused: the schedule is inactive (active false)';

/**
 * Overlap SKIP: a firing while the previous run (its workflow lasts as long as the agent's execution)
 * is still going does nothing; runs of one schedule never pile up. Catch-up window 1 minute: firings
 * missed while Temporal was down are not replayed hours later.
 */
const POLICIES = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' } as const;

/** Whether a described Schedule already matches `definition` (spec, action argument, paused state). */
function matches(description: ScheduleDescription, definition: AgentScheduleDefinition): boolean {
  const action = description.action;
  if (action.type !== 'startWorkflow') return false;
  const input = action.args?.[0] as Partial<ScheduledAgentRunInput> | undefined;
  return (
    action.workflowType === SCHEDULED_AGENT_RUN_WORKFLOW &&
    action.taskQueue === TASK_QUEUES.agents &&
    input?.scheduleId === definition.id &&
    input.cronExpression === definition.cronExpression &&
    input.timezone === definition.timezone &&
    input.summary === summaryOf(definition) &&
    sameAttributes(action.typedSearchAttributes, attributesOf(definition)) &&
    description.state.paused === !definition.active
  );
}

/**
 * Creates the Schedule of `definition`, or brings an existing one up to date; 'unchanged' when it
 * already matched. A paused Schedule (active false) keeps its spec, so unpausing resumes it.
 */
export async function upsertAgentSchedule(
  client: Client,
  definition: AgentScheduleDefinition,
): Promise<'created' | 'updated' | 'unchanged'> {
  const scheduleId = agentScheduleId(definition.id);
  try {
    await client.schedule.create({
      scheduleId,
      spec: specOf(definition),
      action: actionOf(definition),
      policies: POLICIES,
      state: definition.active ? {} : { paused: true, note: PAUSED_NOTE },
      memo: { description: `Agent schedule ${definition.id} (docs/tasks-schedules.md)` },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(scheduleId);
  const description = await handle.describe();
  if (matches(description, definition)) return 'unchanged';
  await handle.update((previous) => ({
    ...previous,
    spec: specOf(definition),
    action: actionOf(definition),
    policies: { ...previous.policies, ...POLICIES },
    state: { ...previous.state, paused: !definition.active, note: definition.active ? '' : PAUSED_NOTE },
  }));
  return 'updated';
}

/** Deletes the Schedule of row `id`; an absent one is fine. Runs already started go on. */
export async function deleteAgentSchedule(client: Client, id: string): Promise<void> {
  try {
    await client.schedule.getHandle(agentScheduleId(id)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}

/** When the Schedule of row `id` fires next; null when it is paused, has no further firing, or does not exist. */
export async function nextRunOf(client: Client, id: string): Promise<Date | null> {
  try {
    const description = await client.schedule.getHandle(agentScheduleId(id)).describe();
    if (description.state.paused) return null;
    return description.info.nextActionTimes[0] ?? null;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return null;
    throw error;
  }
}

/** The row ids of every Schedule with this feature's prefix (Temporal's list is eventually consistent). */
export async function listAgentScheduleIds(client: Client): Promise<string[]> {
  const ids: string[] = [];
  for await (const summary of client.schedule.list()) {
    if (summary.scheduleId.startsWith(AGENT_SCHEDULE_PREFIX)) ids.push(summary.scheduleId.slice(AGENT_SCHEDULE_PREFIX.length));
  }
  return ids;
}
