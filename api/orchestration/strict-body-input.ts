import { z } from 'zod';

/**
 * A request body that cannot drop a field: every key of `shape` is parsed and kept as parsed (a key
 * left out, or parsed to undefined, stays out), every key of `ignored` is accepted and dropped, any
 * other key refused. The kept keys are the schema's own: a field added to `shape` reaches the use
 * case with no second list of keys to forget it in (issue 38).
 */
export function strictBody<S extends z.ZodRawShape, I extends z.ZodRawShape>(shape: S, ignored: I) {
  const dropped = new Set(Object.keys(ignored));
  return z
    .strictObject({ ...shape, ...ignored })
    .transform((body) => definedEntriesOf(body, dropped) as z.output<z.ZodObject<S, z.core.$strict>>);
}

/** `shape` with every field optional: the body of a partial update. */
export function optionalShape<S extends Record<string, z.ZodType>>(shape: S): { [K in keyof S]: z.ZodOptional<S[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof S]: z.ZodOptional<S[K]>;
  };
}

/** `shape` without its defaults (a create's): an update's absent key must stay absent, not become the default. */
export function withoutDefaults<S extends Record<string, z.ZodType>>(
  shape: S,
): { [K in keyof S]: S[K] extends z.ZodDefault<infer T> ? T : S[K] } {
  return Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => [key, schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : schema]),
  ) as { [K in keyof S]: S[K] extends z.ZodDefault<infer T> ? T : S[K] };
}

/** The entries of `object` but those of `dropped` and those undefined. */
export function definedEntriesOf(object: object, dropped: ReadonlySet<string> = new Set()): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([key, value]) => value !== undefined && !dropped.has(key)));
}

/** True only when A and B are the same type: `const _check: Same<A, B> = true` fails to compile otherwise. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
