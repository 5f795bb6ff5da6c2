import type { z } from 'zod';
import { RequestValidationError } from './errors';

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
