import { z } from 'zod';
import { CRON_EXPRESSION_MAX } from '../../services/schedules/cron';

/** Bounds of a schedule (contract 3.5): the task is a prompt, the cron a short expression (checked by the use case). */
export const SCHEDULE_TASK_MAX = 50_000;
export const SCHEDULE_HISTORY_LIMIT = { min: 1, max: 100, default: 20 } as const;

const id = z.string().trim().min(1, 'Obrigatório').max(36);
const fields = {
  agentId: id,
  taskDescription: z.string().trim().min(1, 'Obrigatório').max(SCHEDULE_TASK_MAX),
  cronExpression: z.string().trim().min(1, 'Obrigatório').max(CRON_EXPRESSION_MAX),
  /** Ours: false pauses the Schedule (the panel never sends it). */
  active: z.boolean(),
  /** Ours: the saved task it was made from. */
  taskId: id.nullable(),
};

/** POST /schedules: the panel's body `{agentId, taskDescription, cronExpression}` (SchedulesUI.save). */
export const scheduleCreateBody = z.strictObject({
  agentId: fields.agentId,
  taskDescription: fields.taskDescription,
  cronExpression: fields.cronExpression,
  active: fields.active.optional(),
  taskId: fields.taskId.optional(),
});

/** PUT /schedules/:id: the same fields, each optional (absent keeps the stored value), at least one (an empty body changes nothing: 400). */
export const scheduleUpdateBody = z
  .strictObject({
    agentId: fields.agentId.optional(),
    taskDescription: fields.taskDescription.optional(),
    cronExpression: fields.cronExpression.optional(),
    active: fields.active.optional(),
    taskId: fields.taskId.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Informe ao menos um de agentId, taskDescription, cronExpression, active, taskId',
    when: (payload) => payload.issues.length === 0,
  });

/** GET /schedules/history: the panel sends no query; `limit` as the original (default 20). */
export const scheduleHistoryQuery = z.strictObject({
  limit: z
    .string({ error: 'Informe uma única vez, como texto' })
    .regex(/^\d+$/, 'Deve ser um número inteiro')
    .transform(Number)
    .pipe(z.number().int().min(SCHEDULE_HISTORY_LIMIT.min).max(SCHEDULE_HISTORY_LIMIT.max))
    .optional()
    .transform((value) => value ?? SCHEDULE_HISTORY_LIMIT.default)
    .meta({
      description: `How many records, ${SCHEDULE_HISTORY_LIMIT.min} to ${SCHEDULE_HISTORY_LIMIT.max} (default ${SCHEDULE_HISTORY_LIMIT.default})`,
    }),
});
