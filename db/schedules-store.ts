import { randomUUID } from 'node:crypto';
import { count, desc, eq, sql } from 'drizzle-orm';
import type { Database } from './index';
import { agents, schedules } from './schema';

/** Cron schedules of an agent's task (contract 3.5, 5.3; docs/tasks-schedules.md): the row is the truth, Temporal follows. */

export type Schedule = typeof schedules.$inferSelect;

/** A row with its agent's current name (null when the agent is gone). */
export type ScheduleWithAgent = Schedule & { agentName: string | null };

export interface ScheduleInput {
  agentId: string;
  taskId: string | null;
  taskDescription: string;
  cronExpression: string;
  active: boolean;
}

const withAgent = { ...getColumns(), agentName: agents.name };

function getColumns() {
  return {
    id: schedules.id,
    agentId: schedules.agentId,
    taskId: schedules.taskId,
    taskDescription: schedules.taskDescription,
    cronExpression: schedules.cronExpression,
    active: schedules.active,
    createdAt: schedules.createdAt,
    updatedAt: schedules.updatedAt,
  };
}

/** Newest first, at most `limit`. */
export async function listSchedules(db: Database, limit: number): Promise<ScheduleWithAgent[]> {
  return db
    .select(withAgent)
    .from(schedules)
    .leftJoin(agents, eq(agents.id, schedules.agentId))
    .orderBy(desc(schedules.createdAt), desc(schedules.id))
    .limit(limit);
}

export async function findSchedule(db: Database, id: string): Promise<ScheduleWithAgent | null> {
  const [row] = await db
    .select(withAgent)
    .from(schedules)
    .leftJoin(agents, eq(agents.id, schedules.agentId))
    .where(eq(schedules.id, id))
    .limit(1);
  return row ?? null;
}

export async function countSchedules(db: Database): Promise<{ total: number; active: number }> {
  const [row] = await db.select({ total: count(), active: sql<string | null>`SUM(${schedules.active})` }).from(schedules);
  return { total: Number(row?.total ?? 0), active: Number(row?.active ?? 0) };
}

export async function insertSchedule(db: Database, input: ScheduleInput, now: Date = new Date()): Promise<Schedule> {
  const schedule: Schedule = { id: randomUUID(), ...input, createdAt: now, updatedAt: now };
  await db.insert(schedules).values(schedule);
  return schedule;
}

/** False when there is no such row. */
export async function updateSchedule(db: Database, id: string, input: ScheduleInput, now: Date = new Date()): Promise<boolean> {
  const [result] = await db
    .update(schedules)
    .set({ ...input, updatedAt: now })
    .where(eq(schedules.id, id));
  return result.affectedRows > 0;
}

/** The ids of one agent's schedules (index schedules_agent). */
export async function scheduleIdsOfAgent(db: Database, agentId: string): Promise<string[]> {
  const rows = await db.select({ id: schedules.id }).from(schedules).where(eq(schedules.agentId, agentId));
  return rows.map((row) => row.id);
}

export async function deleteSchedule(db: Database, id: string): Promise<boolean> {
  const [result] = await db.delete(schedules).where(eq(schedules.id, id));
  return result.affectedRows > 0;
}
