import { z } from 'zod';
import { TASK_CATEGORIES } from '../../services/tasks';

/** Bounds of a task template (the columns: name 200, description TEXT). */
export const TASK_NAME_MAX = 200;
export const TASK_DESCRIPTION_MAX = 20_000;

const fields = {
  name: z.string().trim().min(1, 'Obrigatório').max(TASK_NAME_MAX),
  category: z.enum(TASK_CATEGORIES, { error: `Deve ser '${TASK_CATEGORIES.slice(1).join("', '")}' ou ''` }),
  description: z.string().trim().max(TASK_DESCRIPTION_MAX),
};

/** POST /tasks: the panel's body `{name, category, description}` (contract 3.4); category and description may be absent. */
export const taskCreateBody = z.strictObject({
  name: fields.name,
  category: fields.category.optional().transform((value) => value ?? ''),
  description: fields.description.optional().transform((value) => value ?? ''),
});

/** PUT /tasks/:id: the same fields, each optional (absent keeps the stored value), at least one (an empty body changes nothing: 400). */
export const taskUpdateBody = z
  .strictObject({
    name: fields.name.optional(),
    category: fields.category.optional(),
    description: fields.description.optional(),
  })
  .refine((body) => body.name !== undefined || body.category !== undefined || body.description !== undefined, {
    message: 'Informe ao menos um de name, category, description',
    when: (payload) => payload.issues.length === 0,
  });
