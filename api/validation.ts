import { z } from 'zod';
import { RequestValidationError } from './errors';

/**
 * Zod's own messages in Brazilian Portuguese (its `ptBR` locale: `pt` is European, "Demasiado grande"), for both services: the admin panel shows the
 * orchestration API's messages to a person, and the ranking API answers in Portuguese (docs/errors.md).
 * Messages a schema sets itself (`.min(1, '...')`, `{ error: '...' }`) are written in pt-BR where they are.
 * Zod's configuration is global: set once, here, where requests are validated.
 */
z.config(z.locales.ptBR());

export type InputPart = 'query' | 'path' | 'body';

/** Parses one part of a request with its schema; a failure names each bad field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, part: InputPart): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? `${part}.${issue.path.join('.')}` : part;
    return `${field}: ${issue.message}`;
  });
  throw new RequestValidationError(problems.join('; '));
}
