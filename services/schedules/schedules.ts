import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { Database } from '../../db';
import { findAgent } from '../../db/agents-store';
import {
  countSchedules as storedCount,
  deleteSchedule as removeRow,
  findSchedule,
  scheduleIdsOfAgent,
  insertSchedule,
  listSchedules as storedSchedules,
  updateSchedule as changeRow,
  type ScheduleInput,
  type ScheduleWithAgent,
} from '../../db/schedules-store';
import { findTask } from '../../db/tasks-store';
import type { Logger } from '../../lib/logger';
import { deleteAgentSchedule, nextRunOf, upsertAgentSchedule, type AgentScheduleDefinition } from '../../temporal/agent-schedules';
import { agentNotFound, ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../errors';
import { executionHistory, type ExecutionView } from '../executions';
import { validCronExpression } from './cron';
import { isoDateTime } from '../view-schema';

/**
 * Agent schedules (contract 3.5; docs/tasks-schedules.md): the row in `schedules` is the truth; each
 * has a Temporal Schedule (temporal/agent-schedules.ts) created, updated and deleted with it, and
 * reconciled when the agents worker starts (reconcile-schedules.ts).
 */

export interface ScheduleDeps {
  db: Database;
  /** Creates, updates, describes and deletes the Temporal Schedules. */
  temporal: Client;
  logger: Logger;
  /** The IANA time zone the cron expressions are read in (AGENT_SCHEDULE_TIMEZONE). */
  timezone: string;
}

/** Most schedules kept; one more is refused (409). Each is a Temporal Schedule, listed with a describe each. */
export const SCHEDULES_MAX = 200;

export const scheduleViewSchema = z
  .object({
    id: z.string(),
    taskId: z.string().nullable().meta({ description: 'The saved task it was made from; null: none' }),
    agentId: z.string(),
    /** The agent's current name; null when the agent is gone (the panel shows '—'). */
    agentName: z.string().nullable().meta({ description: "The agent's current name; null when the agent is gone" }),
    taskDescription: z.string(),
    cronExpression: z
      .string()
      .meta({ description: 'Five fields (minute hour day-of-month month day-of-week), read in AGENT_SCHEDULE_TIMEZONE' }),
    /** The original's copy of the expression (contract 3.5). */
    cronExpr: z.string().meta({ description: "A copy of cronExpression (the original server's name)" }),
    active: z.boolean().meta({ description: 'false: paused' }),
    /** The next firing (ISO); null when paused or unknown. */
    nextRun: isoDateTime.nullable().meta({ description: 'The next firing; null when paused or unknown' }),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Schedule' });
export type ScheduleView = z.infer<typeof scheduleViewSchema>;

function scheduleView(row: ScheduleWithAgent, nextRun: Date | null): ScheduleView {
  const createdAt = row.createdAt.toISOString();
  const updatedAt = row.updatedAt.toISOString();
  return {
    id: row.id,
    taskId: row.taskId,
    agentId: row.agentId,
    agentName: row.agentName,
    taskDescription: row.taskDescription,
    cronExpression: row.cronExpression,
    cronExpr: row.cronExpression,
    active: row.active,
    nextRun: nextRun ? nextRun.toISOString() : null,
    createdAt,
    updatedAt,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

export function definitionOf(
  deps: Pick<ScheduleDeps, 'timezone'>,
  row: Pick<ScheduleWithAgent, 'id' | 'cronExpression' | 'active' | 'agentId' | 'agentName' | 'taskDescription'>,
): AgentScheduleDefinition {
  const { id, cronExpression, active, agentId, agentName, taskDescription } = row;
  return { id, cronExpression, active, timezone: deps.timezone, agentId, agentName, taskDescription };
}

/** The agent's name for the Schedule's labels in the Temporal Web UI (checkedInput found the agent). */
async function agentNameOf(deps: Pick<ScheduleDeps, 'db'>, agentId: string): Promise<string | null> {
  return (await findAgent(deps.db, agentId))?.name ?? null;
}

/** The next firing as Temporal computes it; a Temporal failure leaves it unknown (null) rather than failing the list. */
async function nextRun(deps: ScheduleDeps, id: string): Promise<Date | null> {
  try {
    return await nextRunOf(deps.temporal, id);
  } catch (error) {
    deps.logger.warn({ err: error, scheduleId: id }, 'next run of a schedule not known');
    return null;
  }
}

async function viewOf(deps: ScheduleDeps, id: string): Promise<ScheduleView> {
  const row = await findSchedule(deps.db, id);
  if (!row) throw new NotFoundError(`Agendamento não encontrado: ${id}`);
  return scheduleView(row, await nextRun(deps, id));
}

/** Every schedule, newest first, with its next firing. */
export async function listSchedules(deps: ScheduleDeps): Promise<ScheduleView[]> {
  const rows = await storedSchedules(deps.db, SCHEDULES_MAX);
  return Promise.all(rows.map(async (row) => scheduleView(row, await nextRun(deps, row.id))));
}

export interface ScheduleRequest {
  agentId: string;
  taskDescription: string;
  cronExpression: string;
  /** Absent: true on create, unchanged on update. */
  active?: boolean;
  /** The saved task it was made from; absent: none on create, unchanged on update. */
  taskId?: string | null;
}

/** The input checked against the store: a valid cron (before anything is stored), an existing agent and task. */
async function checkedInput(
  deps: ScheduleDeps,
  request: Required<Omit<ScheduleRequest, 'taskId'>> & { taskId: string | null },
): Promise<ScheduleInput> {
  const cronExpression = validCronExpression(request.cronExpression);
  if (!(await findAgent(deps.db, request.agentId))) throw agentNotFound(request.agentId);
  if (request.taskId !== null && !(await findTask(deps.db, request.taskId)))
    throw new InvalidInputError(`taskId: Tarefa ${request.taskId} não encontrada`);
  return {
    agentId: request.agentId,
    taskId: request.taskId,
    taskDescription: request.taskDescription,
    cronExpression,
    active: request.active,
  };
}

/** A Temporal failure while writing a Schedule: the caller may try again. */
function unavailable(deps: ScheduleDeps, error: unknown, id: string): UnavailableError {
  deps.logger.error({ err: error, scheduleId: id }, 'temporal schedule not written');
  return new UnavailableError('Não foi possível gravar o agendamento: o mecanismo de workflows está indisponível');
}

/**
 * Stores the row, then creates its Temporal Schedule; when Temporal refuses, the row is removed again
 * (nothing stored) and the call fails (503).
 */
export async function createSchedule(deps: ScheduleDeps, request: ScheduleRequest): Promise<ScheduleView> {
  const input = await checkedInput(deps, { ...request, active: request.active ?? true, taskId: request.taskId ?? null });
  if ((await storedCount(deps.db)).total >= SCHEDULES_MAX)
    throw new ConflictError(`No máximo ${SCHEDULES_MAX} agendamentos são mantidos: exclua um antes de criar outro`);
  const row = await insertSchedule(deps.db, input);
  const agentName = await agentNameOf(deps, row.agentId);
  try {
    await upsertAgentSchedule(deps.temporal, definitionOf(deps, { ...row, agentName }));
  } catch (error) {
    await removeRow(deps.db, row.id);
    throw unavailable(deps, error, row.id);
  }
  return viewOf(deps, row.id);
}

/**
 * Fields absent from `change` keep their value (contract 3.5). The Temporal Schedule is brought up to
 * date first: when Temporal refuses, the row keeps its old values and the two still agree.
 */
export async function updateSchedule(deps: ScheduleDeps, id: string, change: Partial<ScheduleRequest>): Promise<ScheduleView> {
  const row = await findSchedule(deps.db, id);
  if (!row) throw new NotFoundError(`Agendamento não encontrado: ${id}`);
  const input = await checkedInput(deps, {
    agentId: change.agentId ?? row.agentId,
    taskDescription: change.taskDescription ?? row.taskDescription,
    cronExpression: change.cronExpression ?? row.cronExpression,
    active: change.active ?? row.active,
    taskId: change.taskId === undefined ? row.taskId : change.taskId,
  });
  const agentName = await agentNameOf(deps, input.agentId);
  try {
    await upsertAgentSchedule(deps.temporal, definitionOf(deps, { id, ...input, agentName }));
  } catch (error) {
    throw unavailable(deps, error, id);
  }
  if (!(await changeRow(deps.db, id, input))) throw new NotFoundError(`Agendamento não encontrado: ${id}`);
  return viewOf(deps, id);
}

/** By the stored id (contract 7.9): the Temporal Schedule first (absent is fine), then the row. A run already started goes on. */
export async function deleteSchedule(deps: ScheduleDeps, id: string): Promise<void> {
  if (!(await findSchedule(deps.db, id))) throw new NotFoundError(`Agendamento não encontrado: ${id}`);
  try {
    await deleteAgentSchedule(deps.temporal, id);
  } catch (error) {
    throw unavailable(deps, error, id);
  }
  await removeRow(deps.db, id);
}

/**
 * An agent's schedules go with the agent (docs/tasks-schedules.md): without it they could only fail.
 * Each is deleted as DELETE /schedules/{id} does (its Temporal Schedule, then its row).
 */
export async function deleteSchedulesOfAgent(deps: ScheduleDeps, agentId: string): Promise<void> {
  for (const id of await scheduleIdsOfAgent(deps.db, agentId)) await deleteSchedule(deps, id);
}

/** The runs schedules started: records with source `schedule`, newest first, in the execution view. */
export async function scheduleHistory(deps: Pick<ScheduleDeps, 'db'>, limit: number): Promise<ExecutionView[]> {
  return (await executionHistory(deps, { source: ['schedule'] }, { limit, offset: 0 })).items;
}
