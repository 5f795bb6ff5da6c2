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
const secret = z
  .preprocess((value) => (value === '' ? null : value), z.string().min(WEBHOOK_SECRET.min).max(WEBHOOK_SECRET.max).nullable())
  .meta({ description: "A signing secret of the webhook's own (write-only); '' or null: none (in a PUT, removes it)" });

// Other keys (an echoed id, token, counters) are accepted and not applied, as in the legacy server.
/** POST /webhooks, once webhookCreateInput checked the contract's messages. */
export const webhookCreateBody = z.object({ name, targetType, targetId, secret: secret.optional() });
/** PUT /webhooks/:id: partial; a key left out keeps its stored value. */
export const webhookUpdateBody = z.object({
  name: name.optional(),
  targetType: targetType.optional(),
  targetId: targetId.optional(),
  active: z.boolean().optional(),
  secret: secret.optional(),
});

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** The contract's messages first (missing fields, then a bad targetType), then the bounds. */
export function webhookCreateInput(body: unknown): WebhookInput {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (isMissing(fields.name) || isMissing(fields.targetType) || isMissing(fields.targetId)) throw new RequestValidationError(REQUIRED);
  if (fields.targetType !== 'agent' && fields.targetType !== 'pipeline') throw new RequestValidationError(TARGET_TYPE);
  return parseInput(webhookCreateBody, body, 'body');
}

export function webhookUpdateInput(body: unknown): WebhookUpdate {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (fields.targetType !== undefined && fields.targetType !== 'agent' && fields.targetType !== 'pipeline')
    throw new RequestValidationError(TARGET_TYPE);
  return parseInput(webhookUpdateBody, body, 'body');
}

/**
 * The public call's body (POST /hook/:token), for the OpenAPI document only: the route reads the raw
 * bytes itself (the signature signs them) and services/webhooks/trigger.ts takes the fields it knows
 * (payloadOf, agentRunOf, pipelineRunOf); any JSON object is accepted, empty is `{}`.
 */
const payloadText = (description: string) => z.unknown().optional().meta({ description });
export const hookPayloadBody = z
  .looseObject({
    task: payloadText(
      'Agent target: the task, when a non-empty string (at most 100 000 characters); else `message`, then `input`, then "Webhook trigger"',
    ),
    message: payloadText('Used as the task (agent) or the input (pipeline) when the fields before it give none'),
    input: payloadText(
      'Pipeline target: the input, when a non-empty string (at most 100 000 characters); else `task`, then `message`, then "Webhook trigger"',
    ),
    instructions: payloadText("Agent target: the run's additional instructions, when a non-empty string"),
    workingDirectory: payloadText(
      "Pipeline target: the run's working directory (a text of at most 1 000 characters, under AGENT_WORKDIR_ROOTS); absent or null: the pipeline's",
    ),
  })
  .meta({
    description:
      "Any JSON object (a provider's payload); the fields named are read when they hold text, the others ignored. An empty body is `{}`",
  });

/** The public call's headers the route reads (api/hook-routes.ts), for the OpenAPI document. */
export const hookHeaders = z.object({
  'X-Hub-Signature-256': z.string().optional().meta({
    description: "`sha256=<hex HMAC-SHA256(secret, raw body)>`: required when a secret applies (the webhook's own, else WEBHOOK_SECRET)",
  }),
  'X-GitHub-Delivery': z
    .string()
    .optional()
    .meta({ description: 'A delivery id (at most 200 characters): accepted once per webhook, a repeat answers `duplicate`' }),
  'X-Webhook-Delivery': z.string().optional().meta({ description: 'The same as X-GitHub-Delivery, read when that one is absent' }),
});
