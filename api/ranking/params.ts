import { z } from 'zod';

/** An integer query or path parameter within bounds (query strings arrive as text). */
export function intParam(min: number, max?: number) {
  const base = z.coerce.number().int().min(min);
  return max === undefined ? base : base.max(max);
}

/** `true`/`false` (also `1`/`0`), case-insensitive; anything else is a validation error. */
export const boolParam = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0']))
  .transform((value) => value === 'true' || value === '1');

/** `a`, `c` or `d` (any case): the block filter of GET /ranking and /ranking/detalhado. */
export const componentParam = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['a', 'c', 'd']))
  .transform((block) => `bloco_${block}` as const);
