import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { createExecution, getExecution } from '../../db/executions-store';
import { findSchedule } from '../../db/schedules-store';
import { liveStreamOf, published } from '../executions/live';
import type { ExecutionDeps } from '../executions';
import { confinedWorkingDirectory } from '../working-directories';

/**
 * A schedule's firing, for the first activity of `scheduledAgentRunWorkflow` (docs/tasks-schedules.md):
 * stores the execution record `executionId` (source `schedule`, scheduleId, no client, so its live
 * messages are broadcast; the task with empty instructions, contract 3.5), tells every client it is
 * queued, and answers its id. The workflow then runs it as a child `agentExecutionWorkflow`, so unlike
 * launchExecution nothing is started here. Working directory and model as for a manual run: the
 * agent's, else the settings'. Null, with nothing stored, when the row or its agent is gone or the
 * agent is inactive (the firing is skipped; the warning is logged). Idempotent on `executionId`.
 */
export async function createScheduledExecution(deps: ExecutionDeps, scheduleId: string, executionId: string): Promise<{ executionId: string } | null> {
  if (await getExecution(deps.db, executionId)) return { executionId };
  const schedule = await findSchedule(deps.db, scheduleId);
  const agent = schedule ? await findAgent(deps.db, schedule.agentId) : null;
  if (!schedule || !agent || agent.status !== 'active') {
    deps.logger.warn({ scheduleId, agentId: schedule?.agentId, agentStatus: agent?.status }, 'schedule fired without a runnable agent: skipped');
    return null;
  }
  const settings = await readExecutionSettings(deps.db, deps.workdirRoots);
  const workingDirectory = await confinedWorkingDirectory(deps.workdirRoots, agent.workingDirectory ?? settings.workingDirectory, 'workingDirectory');
  const execution = await createExecution(deps.db, {
    id: executionId,
    kind: 'agent',
    agentId: agent.id,
    agentName: agent.name,
    clientId: null,
    source: 'schedule',
    scheduleId: schedule.id,
    task: schedule.taskDescription,
    instructions: '',
    workingDirectory,
    model: agent.model ?? settings.defaultModel,
  });
  await published(deps, liveStreamOf(deps, execution)?.queued());
  return { executionId: execution.id };
}
