import { z } from 'zod';
import { RequestValidationError } from '../errors';
import type { WebhookInput, WebhookUpdate } from '../../services/webhooks';
import { parseInput } from '../validation';

/** The bodies of the webhooks routes (contract 3.7), with their bounds (docs/webhooks.md). */

export const WEBHOOK_NAME_MAX = 200;
/** A signing secret: long enough for a generated one, bounded like every input. */
export const WEBHOOK_SECRET = { min: 8, max: 200 } as const;
const REQUIRED = 'name, targetType e targetId são obrigatórios';
const TARGET_TYPE = 'targetType deve ser "agent" ou "pipeline"';

const name = z.string().trim().min(1).max(WEBHOOK_NAME_MAX);
const targetType = z.enum(['agent', 'pipeline'], { error: TARGET_TYPE });
const targetId = z.string().trim().min(1).max(36);
// '' and null: no secret.
const secret = z.preprocess((value) => (value === '' ? null : value), z.string().min(WEBHOOK_SECRET.min).max(WEBHOOK_SECRET.max).nullable());

// Other keys (an echoed id, token, counters) are accepted and not applied, as in the legacy server.
const createBody = z.object({ name, targetType, targetId, secret: secret.optional() });
const updateBody = z.object({ name: name.optional(), targetType: targetType.optional(), targetId: targetId.optional(), active: z.boolean().optional(), secret: secret.optional() });

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** The contract's messages first (missing fields, then a bad targetType), then the bounds. */
export function webhookCreateInput(body: unknown): WebhookInput {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (isMissing(fields.name) || isMissing(fields.targetType) || isMissing(fields.targetId)) throw new RequestValidationError(REQUIRED);
  if (fields.targetType !== 'agent' && fields.targetType !== 'pipeline') throw new RequestValidationError(TARGET_TYPE);
  return parseInput(createBody, body, 'body');
}

export function webhookUpdateInput(body: unknown): WebhookUpdate {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (fields.targetType !== undefined && fields.targetType !== 'agent' && fields.targetType !== 'pipeline') throw new RequestValidationError(TARGET_TYPE);
  return parseInput(updateBody, body, 'body');
}
