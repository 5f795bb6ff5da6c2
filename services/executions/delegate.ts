import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { delegatedExecutionOf, getExecution } from '../../db/executions-store';
import { executionNotFound } from '../errors';
import type { ExecutionDeps } from './deps';
import { storeExecution } from './launch';
import { lifecycleStreamOf, publishBestEffort } from './live';
import { endRefusedExecution } from './budget-refusal';
import { budgetRefusal } from '../budgets';
import { runModelOf } from '../../domain/agent-clis';

/** The delegated task is the previous result; a result longer than this is cut (the prompt travels on stdin, but a bound is a bound). */
export const DELEGATED_TASK_MAX_CHARS = 100_000;

/** The delegated run's record, and its agent: the workflow labels the run with it in the Temporal Web UI. */
export interface DelegatedExecution {
  executionId: string;
  agentId: string | null;
  agentName: string | null;
}

/**
 * Stores the run that takes a completed run's result to the agent its agent delegates to
 * (docs/agent-executions.md, "Delegation"): a new execution of that agent for the same audience
 * (source `delegation`, `delegatedFrom` this record; the same client, or every client when the chain
 * began with a schedule or a webhook, whose id it keeps), `queued`. The execution workflow then starts
 * it as its child. Null, with a line to the client where there is something to say, when the agent has
 * no `delegateTo`, the result is empty, the target is gone or inactive, or the chain is already
 * `depthMax` long (A -> B -> A stops there). A daily budget of the target exhausted: the record is
 * stored `error` with the budget's text (endRefusedExecution). Repeatable: a record that delegated already answers the
 * run it delegated to. Reads the agent now, so an edit made during the run applies.
 */
export async function storeDelegatedExecution(
  deps: ExecutionDeps,
  executionId: string,
  depthMax: number,
): Promise<DelegatedExecution | null> {
  const record = await getExecution(deps.db, executionId);
  if (!record) throw executionNotFound(executionId);
  const result = (record.result ?? '').trim();
  const agent = record.agentId ? await findAgent(deps.db, record.agentId) : null;
  if (!agent?.delegateTo || result === '') return null;
  const live = lifecycleStreamOf(deps, record);
  if (record.delegationDepth >= depthMax) {
    await publishBestEffort(
      deps,
      live?.output({
        type: 'system',
        content: `Delegação para outro agente não feita: limite de ${depthMax} delegações em cadeia atingido`,
      }),
    );
    return null;
  }
  const already = await delegatedExecutionOf(deps.db, record.id);
  if (already) {
    const stored = await getExecution(deps.db, already);
    return { executionId: already, agentId: stored?.agentId ?? null, agentName: stored?.agentName ?? null };
  }
  const target = await findAgent(deps.db, agent.delegateTo);
  if (!target || target.status !== 'active') {
    await publishBestEffort(
      deps,
      live?.output({ type: 'system', content: `Delegação não feita: o agente ${agent.delegateTo} não existe ou está inativo` }),
    );
    return null;
  }
  await publishBestEffort(deps, live?.output({ type: 'system', content: `Delegando para ${target.name}...` }));
  const settings = await readExecutionSettings(deps.db, deps.workdirRoots);
  const refusal = await budgetRefusal(deps, target, new Date(), settings.dailyBudgetUsd);
  const delegated = await storeExecution(deps, target, record.clientId, {
    source: 'delegation',
    task: result.slice(0, DELEGATED_TASK_MAX_CHARS),
    instructions: '',
    // The same project: the delegated agent continues where this one worked.
    workingDirectory: record.workingDirectory,
    model: runModelOf(target, settings.defaultModel),
    delegatedFrom: record.id,
    delegationDepth: record.delegationDepth + 1,
    // The origin's schedule or webhook: the delegated run reaches the same audience (lib/live-output.ts, liveTargetOf).
    scheduleId: record.scheduleId,
    webhookId: record.webhookId,
    // In a repository's working copy, under its rules: one run at a time, commit and push after (docs/repositories.md).
    repoName: record.repoName,
    repoBranch: record.repoBranch,
  });
  if (refusal !== null) await endRefusedExecution(deps, delegated, refusal.message);
  return { executionId: delegated.id, agentId: target.id, agentName: target.name };
}
