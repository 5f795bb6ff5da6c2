import { randomUUID } from 'node:crypto';
import { count, desc, eq } from 'drizzle-orm';
import type { Database } from './index';
import { tasks } from './schema';

/** Saved task templates (contract 3.4, 5.2; docs/tasks-schedules.md). */

export type Task = typeof tasks.$inferSelect;

export interface TaskInput {
  name: string;
  category: string;
  description: string;
}

/** Newest first, bounded by what the store keeps (TASKS_MAX in services/tasks.ts). */
export async function listTasks(db: Database, limit: number): Promise<Task[]> {
  return db.select().from(tasks).orderBy(desc(tasks.createdAt), desc(tasks.id)).limit(limit);
}

export async function findTask(db: Database, id: string): Promise<Task | null> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, id)).limit(1);
  return row ?? null;
}

export async function countTasks(db: Database): Promise<number> {
  const [row] = await db.select({ total: count() }).from(tasks);
  return Number(row?.total ?? 0);
}

export async function insertTask(db: Database, input: TaskInput, now: Date = new Date()): Promise<Task> {
  const task: Task = { id: randomUUID(), ...input, createdAt: now, updatedAt: now };
  await db.insert(tasks).values(task);
  return task;
}

/** The merged row, or null when there is no such task. */
export async function updateTask(db: Database, id: string, change: Partial<TaskInput>, now: Date = new Date()): Promise<Task | null> {
  const [result] = await db
    .update(tasks)
    .set({ ...change, updatedAt: now })
    .where(eq(tasks.id, id));
  if (result.affectedRows === 0) return null;
  return findTask(db, id);
}

export async function deleteTask(db: Database, id: string): Promise<boolean> {
  const [result] = await db.delete(tasks).where(eq(tasks.id, id));
  return result.affectedRows > 0;
}
