import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { getExecution } from '../../db/executions-store';
import { findSchedule } from '../../db/schedules-store';
import type { ExecutionDeps } from '../executions/deps';
import { storeExecution } from '../executions/launch';
import { endRefusedExecution } from '../executions/budget-refusal';
import { budgetRefusal } from '../budgets';
import { scheduleFirings } from '../../lib/metrics';
import { runModelOf } from '../../domain/agent-clis';

/**
 * A schedule's firing, for the first activity of `scheduledAgentRunWorkflow` (docs/tasks-schedules.md):
 * stores the execution record `executionId` (source `schedule`, scheduleId, no client, so its live
 * messages are broadcast; the task with empty instructions, contract 3.5), tells every client it is
 * queued (storeExecution), and answers its id. The workflow then runs it as a child
 * `agentExecutionWorkflow`, so unlike launchExecution nothing is started here. Working directory and
 * model as for a manual run: the agent's, else the settings'. A daily budget exhausted ends the record
 * `error` with its text at once (endRefusedExecution: no process starts). Null, with nothing stored, when the
 * row or its agent is gone or the agent is inactive (the firing is skipped; the warning is logged). Idempotent on `executionId`.
 */
export async function createScheduledExecution(
  deps: ExecutionDeps,
  scheduleId: string,
  executionId: string,
): Promise<{ executionId: string } | null> {
  if (await getExecution(deps.db, executionId)) return { executionId };
  const schedule = await findSchedule(deps.db, scheduleId);
  const agent = schedule ? await findAgent(deps.db, schedule.agentId) : null;
  if (!schedule || !agent || agent.status !== 'active') {
    deps.logger.warn(
      { scheduleId, agentId: schedule?.agentId, agentStatus: agent?.status },
      'schedule fired without a runnable agent: skipped',
    );
    scheduleFirings.inc({ result: 'skipped' });
    return null;
  }
  const settings = await readExecutionSettings(deps.db, deps.workdirRoots);
  const refusal = await budgetRefusal(deps, agent, new Date(), settings.dailyBudgetUsd);
  const execution = await storeExecution(
    deps,
    agent,
    null,
    {
      source: 'schedule',
      scheduleId: schedule.id,
      task: schedule.taskDescription,
      instructions: '',
      workingDirectory: agent.workingDirectory ?? settings.workingDirectory,
      model: runModelOf(agent, settings.defaultModel),
    },
    executionId,
  );
  if (refusal !== null) await endRefusedExecution(deps, execution, refusal.message);
  scheduleFirings.inc({ result: refusal !== null ? 'refused_budget' : 'started' });
  return { executionId: execution.id };
}
