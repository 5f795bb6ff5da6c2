import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  countWebhooks,
  deleteWebhook as removeWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks as storedWebhooks,
  updateWebhook as storeUpdate,
  webhookSecretContext,
  webhookTargetExists,
  type Webhook,
  type WebhookChanges,
  type WebhookTargetType,
} from '../../db/webhooks-store';
import { sealSecret, secretsKeyFromHex, SecretsKeyMissingError, type SealedSecret } from '../../lib/secret-box';
import { ConflictError, InvalidInputError, NotFoundError, SECRETS_KEY_MISSING_MESSAGE, UnavailableError } from '../errors';
import type { WebhookDeps } from './deps';
import { isoDateTime } from '../view-schema';

/** Webhooks in the admin panel's shape (contract 3.7, 5.5; docs/webhooks.md). */

export const WEBHOOK_NOT_FOUND = 'Webhook não encontrado';
/** Most webhooks kept: the list is answered whole (a bound like AGENTS_MAX). */
export const WEBHOOKS_MAX = 1_000;

/** The kinds of target a webhook starts. */
export const WEBHOOK_TARGET_TYPES = ['agent', 'pipeline'] as const satisfies readonly WebhookTargetType[];

/** A webhook as answered: the token is shown (the panel builds the URL from it), the secret never is. */
export const webhookViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    targetType: z.enum(WEBHOOK_TARGET_TYPES),
    targetId: z.string().meta({ description: "The agent's or the pipeline's id" }),
    token: z
      .string()
      .meta({ description: 'The credential of the public URL POST /hook/{token} (48 hexadecimal characters; never changes)' }),
    active: z.boolean(),
    /** A per-webhook signing secret is set (its value is write-only). */
    hasSecret: z.boolean().meta({ description: 'A signing secret of its own is set (its value is never answered)' }),
    lastTriggeredAt: isoDateTime.nullable().meta({ description: 'The last counted public call; null: never' }),
    triggerCount: z.number().int().meta({ description: 'Public calls counted (once per delivery; the test is not counted)' }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof webhookViewSchema>;

export function webhookView(webhook: Webhook): WebhookView {
  return {
    id: webhook.id,
    name: webhook.name,
    targetType: webhook.targetType,
    targetId: webhook.targetId,
    token: webhook.token,
    active: webhook.active,
    hasSecret: webhook.hasSecret,
    lastTriggeredAt: webhook.lastTriggeredAt?.toISOString() ?? null,
    triggerCount: webhook.triggerCount,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

export interface WebhookInput {
  name: string;
  targetType: WebhookTargetType;
  targetId: string;
  /** A signing secret for this webhook; null or absent: none. */
  secret?: string | null;
}

export interface WebhookUpdate {
  name?: string;
  targetType?: WebhookTargetType;
  targetId?: string;
  active?: boolean;
  /** A new secret; null: remove it; absent: keep it. */
  secret?: string | null;
}

export async function listWebhooks(deps: Pick<WebhookDeps, 'db'>): Promise<WebhookView[]> {
  return (await storedWebhooks(deps.db)).map(webhookView);
}

export async function existingWebhook(deps: Pick<WebhookDeps, 'db'>, id: string): Promise<Webhook> {
  const webhook = await findWebhook(deps.db, id);
  if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  return webhook;
}

async function requireTarget(deps: Pick<WebhookDeps, 'db'>, targetType: WebhookTargetType, targetId: string): Promise<void> {
  if (!(await webhookTargetExists(deps.db, targetType, targetId))) {
    throw new InvalidInputError(`targetId: ${targetType === 'agent' ? 'Agente' : 'Pipeline'} ${targetId} não encontrado`);
  }
}

function sealed(deps: Pick<WebhookDeps, 'secretsKey'>, webhookId: string, secret: string): SealedSecret {
  try {
    return sealSecret(secretsKeyFromHex(deps.secretsKey), secret, webhookSecretContext(webhookId));
  } catch (error) {
    if (error instanceof SecretsKeyMissingError) throw new UnavailableError(SECRETS_KEY_MISSING_MESSAGE);
    throw error;
  }
}

/** A new webhook, active, with a fresh token; its target must exist; 409 beyond WEBHOOKS_MAX. */
export async function createWebhook(deps: Pick<WebhookDeps, 'db' | 'secretsKey'>, input: WebhookInput): Promise<WebhookView> {
  if ((await countWebhooks(deps.db)).total >= WEBHOOKS_MAX) throw new ConflictError(`No máximo ${WEBHOOKS_MAX} webhooks: exclua um antes`);
  await requireTarget(deps, input.targetType, input.targetId);
  const id = randomUUID();
  const secret = input.secret ? sealed(deps, id, input.secret) : null;
  return webhookView(
    await insertWebhook(deps.db, { id, name: input.name, targetType: input.targetType, targetId: input.targetId, secret }),
  );
}

/** Applies name, target, active and secret (contract 3.7: nothing else); a changed target must exist. The token never changes. */
export async function updateWebhook(deps: Pick<WebhookDeps, 'db' | 'secretsKey'>, id: string, input: WebhookUpdate): Promise<WebhookView> {
  const current = await existingWebhook(deps, id);
  const targetType = input.targetType ?? current.targetType;
  const targetId = input.targetId ?? current.targetId;
  if (targetType !== current.targetType || targetId !== current.targetId) await requireTarget(deps, targetType, targetId);
  const changes: WebhookChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.targetType !== undefined) changes.targetType = input.targetType;
  if (input.targetId !== undefined) changes.targetId = input.targetId;
  if (input.active !== undefined) changes.active = input.active;
  if (input.secret !== undefined) changes.secret = input.secret ? sealed(deps, id, input.secret) : null;
  const updated = await storeUpdate(deps.db, id, changes);
  if (!updated) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  return webhookView(updated);
}

export async function deleteWebhook(deps: Pick<WebhookDeps, 'db'>, id: string): Promise<void> {
  if (!(await removeWebhook(deps.db, id))) throw new NotFoundError(WEBHOOK_NOT_FOUND);
}
