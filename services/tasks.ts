import { z } from 'zod';
import type { Database } from '../db';
import {
  countTasks,
  deleteTask as removeTask,
  insertTask,
  listTasks as storedTasks,
  updateTask as changeTask,
  type Task,
  type TaskInput,
} from '../db/tasks-store';
import { ConflictError, NotFoundError } from './errors';
import { isoDateTime } from './view-schema';

/** Saved task templates (contract 3.4; docs/tasks-schedules.md): the panel's "Tarefas" page and the execute modal's select. */

export interface TaskDeps {
  db: Database;
}

/** Most tasks kept; one more is refused (409). A template list, not a history: hundreds are plenty. */
export const TASKS_MAX = 1_000;
/** The panel's categories; '' is "Geral". */
export const TASK_CATEGORIES = ['', 'code-review', 'security', 'refactor', 'tests', 'docs', 'performance'] as const;

export const taskViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    category: z.string().meta({ description: "One of the panel's categories; '' is \"Geral\"" }),
    description: z.string(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    /** The original's names, kept for the panel's `createdAt || created_at`. */
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Task' });
export type TaskView = z.infer<typeof taskViewSchema>;

export function taskView(task: Task): TaskView {
  const createdAt = task.createdAt.toISOString();
  const updatedAt = task.updatedAt.toISOString();
  return {
    id: task.id,
    name: task.name,
    category: task.category,
    description: task.description,
    createdAt,
    updatedAt,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

/** Every task, newest first. */
export async function listTasks(deps: TaskDeps): Promise<TaskView[]> {
  return (await storedTasks(deps.db, TASKS_MAX)).map(taskView);
}

export async function createTask(deps: TaskDeps, input: TaskInput): Promise<TaskView> {
  if ((await countTasks(deps.db)) >= TASKS_MAX)
    throw new ConflictError(`No máximo ${TASKS_MAX} tarefas são mantidas: exclua uma antes de criar outra`);
  return taskView(await insertTask(deps.db, input));
}

/** Fields absent from `change` keep their value. */
export async function updateTask(deps: TaskDeps, id: string, change: Partial<TaskInput>): Promise<TaskView> {
  const task = await changeTask(deps.db, id, change);
  if (!task) throw new NotFoundError(`Tarefa não encontrada: ${id}`);
  return taskView(task);
}

export async function deleteTask(deps: TaskDeps, id: string): Promise<void> {
  if (!(await removeTask(deps.db, id))) throw new NotFoundError(`Tarefa não encontrada: ${id}`);
}
