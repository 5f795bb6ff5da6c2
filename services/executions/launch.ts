import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { findAgent, type Agent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { createExecution, type Execution, type NewExecution } from '../../db/executions-store';
import { startAgentExecution } from '../../temporal/agent-execution';
import { agentNotFound, InvalidInputError } from '../errors';
import { storedContextFiles, withContextFiles, type ContextFileRequest } from '../uploads';
import { confinedWorkingDirectory } from '../working-directories';
import { requestedRepository } from '../repos';
import type { ExecutionDeps } from './deps';
import { lifecycleStreamOf, publishBestEffort } from './live';
import { startRecordWorkflow } from './workflow-start';
import { refuseOverBudget } from '../budgets';
import { runModelOf } from '../../domain/agent-clis';

/** What a start answers: the new record, queued until its workflow takes a concurrency slot. */
export const launchedExecutionSchema = z
  .object({
    executionId: z.string().meta({ description: 'The new record (GET /api/executions/history/{id}); the id its WebSocket messages carry' }),
    status: z.literal('queued').meta({ description: 'It waits for a concurrency slot; the WebSocket tells when it starts' }),
  })
  .meta({ id: 'LaunchedExecution' });
export type LaunchedExecution = z.infer<typeof launchedExecutionSchema>;

/** The record's fields a caller chooses; ids, kind and the agent's identity are filled in here. */
export type LaunchInput = Omit<NewExecution, 'id' | 'kind' | 'agentId' | 'agentName' | 'clientId'>;

export async function existingAgent(deps: Pick<ExecutionDeps, 'db'>, id: string): Promise<Agent> {
  const agent = await findAgent(deps.db, id);
  if (!agent) throw agentNotFound(id);
  return agent;
}

/** An agent that may run now: InvalidInputError when it is inactive (the panel's status; contract 3.1). */
export async function runnableAgent(deps: Pick<ExecutionDeps, 'db'>, id: string): Promise<Agent> {
  const agent = await existingAgent(deps, id);
  if (agent.status !== 'active') throw new InvalidInputError(`O agente ${id} está inativo`);
  return agent;
}

/**
 * Stores a new execution record of `agent` for `clientId` (null: nobody is told live) and tells that
 * client it is queued; nothing starts it. Whatever its origin (the request, the agent, the settings, a
 * parent execution stored before the roots existed), the working directory must lie under the roots
 * (InvalidInputError otherwise, nothing stored). The record runs the agent's CLI unless `input` names
 * one (a continue or retry: its parent's). `id` is the caller's when it must be repeatable.
 */
export async function storeExecution(
  deps: ExecutionDeps,
  agent: Pick<Agent, 'id' | 'name' | 'cli'>,
  clientId: string | null,
  input: LaunchInput,
  id: string = randomUUID(),
): Promise<Execution> {
  const workingDirectory = await confinedWorkingDirectory(deps.workdirRoots, input.workingDirectory, 'workingDirectory');
  const execution = await createExecution(deps.db, {
    id,
    kind: 'agent',
    agentId: agent.id,
    agentName: agent.name,
    clientId,
    cli: agent.cli,
    ...input,
    workingDirectory,
  });
  // Before the start, so the client always hears `queued` before the worker's `started`.
  await publishBestEffort(deps, lifecycleStreamOf(deps, execution)?.queued());
  return execution;
}

export interface LaunchOptions {
  /** The agent's session the run continues (`--resume`); absent: a new session. */
  resumeSessionId?: string | null;
  /** The record's id when the caller chose it (a webhook delivery records it before the run starts); absent: a new one. */
  id?: string;
  /** The settings' daily budget when the caller has read the settings already (one read per launch); absent: read here. */
  globalBudgetUsd?: number | null;
  /** The budgets were checked by the caller (ExecuteRequest.budgetChecked). */
  budgetChecked?: boolean;
}

/**
 * Stores a new execution (storeExecution) and starts its workflow. The concurrency slot is taken by
 * the workflow. A run started by a workflow (a schedule's, a delegation) is stored by its activity
 * and started by that workflow as its child instead. An exhausted daily budget refuses the run first
 * (BudgetExhaustedError: nothing stored, nothing started; docs/budgets.md).
 */
export async function launchExecution(
  deps: ExecutionDeps,
  agent: Pick<Agent, 'id' | 'name' | 'cli' | 'dailyBudgetUsd'>,
  clientId: string | null,
  input: LaunchInput,
  options: LaunchOptions = {},
): Promise<LaunchedExecution> {
  if (!options.budgetChecked) await refuseOverBudget(deps, agent, options.globalBudgetUsd);
  const execution = await storeExecution(deps, agent, clientId, input, options.id);
  await startRecordWorkflow(
    deps,
    execution,
    () => startAgentExecution(deps.temporal, { executionId: execution.id, resumeSessionId: options.resumeSessionId ?? null }, execution),
    'A execução não pôde ser iniciada: o motor de workflows está indisponível',
    lifecycleStreamOf(deps, execution),
  );
  return { executionId: execution.id, status: 'queued' };
}

/** A request to run an agent, already validated (api/orchestration/execution-control-input.ts). */
export interface ExecuteRequest {
  task: string;
  /** The user's additional instructions for this run, added to the prompt (composePrompt); absent: none. */
  instructions?: string;
  /** Absent or null: the agent's, else the settings' default. */
  workingDirectory?: string | null;
  repoName?: string;
  repoBranch?: string;
  /** What started it (`manual` for a person, `schedule`, `webhook`, ...). */
  source?: LaunchInput['source'];
  /** The webhook that started it (source `webhook` or `webhook-test`), stored with the record. */
  webhookId?: string | null;
  /** Uploaded files (POST /uploads) named in the prompt after the task, kept in the record (docs/uploads.md). */
  contextFiles?: readonly ContextFileRequest[];
  /** The record's id, when the caller chose it (LaunchOptions.id). */
  executionId?: string;
  /** The caller refused an exhausted budget itself just before (a webhook's call, refused before it is counted): not checked again. */
  budgetChecked?: boolean;
}

/**
 * Runs agent `agentId` on `request.task` with the request's additional instructions; working directory
 * and model default to the agent's, then to the settings'. The agent's own instructions are its system
 * prompt, not part of the record. NotFoundError for an unknown agent, InvalidInputError for an inactive
 * one. With `repoName` the run works in that repository's working copy (docs/repositories.md): the
 * repository and branch are checked with git first (NotFoundError). Context files must be this service's
 * uploads, still present (InvalidInputError otherwise, nothing stored); they are listed after the task,
 * which is stored as the agent receives it.
 */
export async function executeAgent(
  deps: ExecutionDeps,
  agentId: string,
  clientId: string | null,
  request: ExecuteRequest,
): Promise<LaunchedExecution> {
  const agent = await runnableAgent(deps, agentId);
  const repository = await requestedRepository(deps, request);
  const contextFiles = await storedContextFiles(deps.db, request.contextFiles);
  const settings = await readExecutionSettings(deps.db, deps.workdirRoots);
  return launchExecution(
    deps,
    agent,
    clientId,
    {
      ...(repository ?? {}),
      source: request.source ?? 'manual',
      webhookId: request.webhookId ?? null,
      task: withContextFiles(request.task, contextFiles),
      contextFiles: contextFiles.length > 0 ? contextFiles : null,
      instructions: request.instructions ?? '',
      workingDirectory: repository?.workingDirectory ?? request.workingDirectory ?? agent.workingDirectory ?? settings.workingDirectory,
      model: runModelOf(agent, settings.defaultModel),
    },
    { id: request.executionId, globalBudgetUsd: settings.dailyBudgetUsd, budgetChecked: request.budgetChecked === true },
  );
}
