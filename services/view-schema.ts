import { z } from 'zod';

/**
 * Building blocks of the answers' schemas. Each view the API answers with is a zod schema, and its
 * type is inferred from it (`z.infer`), so what a route writes and what the OpenAPI documents say it
 * writes (api/openapi/) cannot drift apart (docs/openapi.md).
 */

/** A date-time as the services write them: `Date.toISOString()` (UTC, milliseconds, `Z`). */
export const isoDateTime = z.iso.datetime();

/** The `{success, message}` answer of the panel's actions (contract 1.3). */
export const successAnswer = z.object({ success: z.literal(true), message: z.string() });
