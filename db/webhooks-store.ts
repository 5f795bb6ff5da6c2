import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { SealedSecret } from '../lib/secret-box';
import type { Database } from './index';
import { agents, executions, pipelines, webhookDeliveries, webhooks } from './schema';
import { isDuplicateKey } from './mysql-errors';

/** Webhooks and their deliveries (docs/webhooks.md). The sealed secret never leaves this module but for a check. */

export type WebhookTargetType = 'agent' | 'pipeline';

export interface Webhook {
  id: string;
  name: string;
  targetType: WebhookTargetType;
  targetId: string;
  token: string;
  active: boolean;
  hasSecret: boolean;
  lastTriggeredAt: Date | null;
  triggerCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A webhook with its sealed secret, for the signature check only. */
export interface WebhookWithSecret extends Webhook {
  secret: SealedSecret | null;
}

/** The token of a new webhook: 24 random bytes as 48 hexadecimal characters (the legacy server's form). */
export function newWebhookToken(): string {
  return randomBytes(24).toString('hex');
}

/** What a ciphertext is bound to (GCM additional data): a secret copied to another webhook does not open. */
export function webhookSecretContext(webhookId: string): string {
  return `webhook-secret\u0000${webhookId}`;
}

type Row = typeof webhooks.$inferSelect;

function withSecretOf(row: Row): WebhookWithSecret {
  const { secretCiphertext, secretIv, secretAuthTag, ...rest } = row;
  const secret = secretCiphertext && secretIv && secretAuthTag ? { ciphertext: secretCiphertext, iv: secretIv, authTag: secretAuthTag } : null;
  return { ...rest, hasSecret: secret !== null, secret };
}

function webhookOf(row: Row): Webhook {
  const { secret: _secret, ...webhook } = withSecretOf(row);
  return webhook;
}

/** Oldest first, as the legacy server listed them; the panel shows them in this order. */
export async function listWebhooks(db: Database): Promise<Webhook[]> {
  return (await db.select().from(webhooks).orderBy(asc(webhooks.createdAt), asc(webhooks.id))).map(webhookOf);
}

export async function findWebhook(db: Database, id: string): Promise<Webhook | null> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
  return row ? webhookOf(row) : null;
}

export async function findWebhookByToken(db: Database, token: string): Promise<WebhookWithSecret | null> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.token, token));
  return row ? withSecretOf(row) : null;
}

export interface NewWebhook {
  name: string;
  targetType: WebhookTargetType;
  targetId: string;
  /** Sealed with webhookSecretContext(id): the id is chosen by the caller for that reason. */
  id: string;
  secret: SealedSecret | null;
}

export async function insertWebhook(db: Database, input: NewWebhook): Promise<Webhook> {
  const now = new Date();
  await db.insert(webhooks).values({
    id: input.id,
    name: input.name,
    targetType: input.targetType,
    targetId: input.targetId,
    token: newWebhookToken(),
    active: true,
    ...sealedColumns(input.secret),
    triggerCount: 0,
    createdAt: now,
    updatedAt: now,
  });
  const stored = await findWebhook(db, input.id);
  if (!stored) throw new Error(`webhook ${input.id} vanished right after its insert`);
  return stored;
}

function sealedColumns(secret: SealedSecret | null) {
  return { secretCiphertext: secret?.ciphertext ?? null, secretIv: secret?.iv ?? null, secretAuthTag: secret?.authTag ?? null };
}

export interface WebhookChanges {
  name?: string;
  targetType?: WebhookTargetType;
  targetId?: string;
  active?: boolean;
  /** null: remove the secret; absent: keep it. */
  secret?: SealedSecret | null;
}

/** Applies the changes; null when there is no such webhook. */
export async function updateWebhook(db: Database, id: string, changes: WebhookChanges): Promise<Webhook | null> {
  const { secret, ...fields } = changes;
  const [result] = await db
    .update(webhooks)
    .set({ ...fields, ...(secret !== undefined ? sealedColumns(secret) : {}), updatedAt: new Date() })
    .where(eq(webhooks.id, id));
  if (result.affectedRows === 0) return null;
  return findWebhook(db, id);
}

/** Deletes the webhook and (cascade) its deliveries; false when there was none. */
export async function deleteWebhook(db: Database, id: string): Promise<boolean> {
  const [result] = await db.delete(webhooks).where(eq(webhooks.id, id));
  return result.affectedRows > 0;
}

/** Whether the target exists: an agent, or a pipeline (read from its table directly: the pipelines store is another part's). */
export async function webhookTargetExists(db: Database, targetType: WebhookTargetType, targetId: string): Promise<boolean> {
  const table = targetType === 'agent' ? agents : pipelines;
  const [row] = await db.select({ n: count() }).from(table).where(eq(table.id, targetId));
  return Number(row?.n ?? 0) > 0;
}

/** One more trigger: the count and its time, in one statement so concurrent calls never lose one. */
export async function countTrigger(db: Database, id: string, at: Date): Promise<void> {
  await db
    .update(webhooks)
    .set({ triggerCount: sql`${webhooks.triggerCount} + 1`, lastTriggeredAt: at })
    .where(eq(webhooks.id, id));
}

export interface Delivery {
  id: string;
  deliveryId: string | null;
  executionId: string | null;
}

/**
 * Records a call before its run starts. With a delivery id, only the first call of that id per webhook
 * is recorded: a repeat gets `{claimed: false, first}` (the first call's record) and must start nothing.
 */
export async function claimDelivery(
  db: Database,
  webhookId: string,
  deliveryId: string | null,
  caller: string,
  receivedAt: Date,
): Promise<{ claimed: true; delivery: Delivery } | { claimed: false; first: Delivery }> {
  const id = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      await db.insert(webhookDeliveries).values({ id, webhookId, deliveryId, caller, executionId: null, receivedAt });
      return { claimed: true, delivery: { id, deliveryId, executionId: null } };
    } catch (error) {
      if (deliveryId === null || !isDuplicateKey(error)) throw error;
      const [first] = await db
        .select({ id: webhookDeliveries.id, deliveryId: webhookDeliveries.deliveryId, executionId: webhookDeliveries.executionId, refused: webhookDeliveries.refused })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.deliveryId, deliveryId)));
      if (!first) throw error; // deleted meanwhile (the first call's run failed to start): let the caller retry
      // A delivery refused before (a budget) started nothing: sent again, it is a new call (once).
      if (first.refused !== null && attempt === 1) {
        await db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, first.id));
        continue;
      }
      return { claimed: false, first: { id: first.id, deliveryId: first.deliveryId, executionId: first.executionId } };
    }
  }
}

/** The call was recorded and refused (`budget`): it started nothing, and was not counted as a trigger. */
export async function refuseDelivery(db: Database, deliveryRowId: string, reason: 'budget'): Promise<void> {
  await db.update(webhookDeliveries).set({ refused: reason }).where(eq(webhookDeliveries.id, deliveryRowId));
}

export async function setDeliveryExecution(db: Database, deliveryRowId: string, executionId: string): Promise<void> {
  await db.update(webhookDeliveries).set({ executionId }).where(eq(webhookDeliveries.id, deliveryRowId));
}

/** Forgets a call whose run did not start, so the sender may deliver it again. */
export async function releaseDelivery(db: Database, deliveryRowId: string): Promise<void> {
  await db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryRowId));
}

export async function listDeliveries(db: Database, webhookId: string): Promise<(Delivery & { caller: string; receivedAt: Date; refused: string | null })[]> {
  return db
    .select({
      id: webhookDeliveries.id,
      deliveryId: webhookDeliveries.deliveryId,
      executionId: webhookDeliveries.executionId,
      caller: webhookDeliveries.caller,
      receivedAt: webhookDeliveries.receivedAt,
      refused: webhookDeliveries.refused,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(asc(webhookDeliveries.receivedAt));
}

/** The dashboard's counters (contract 3.11). */
export async function countWebhooks(db: Database): Promise<{ total: number; active: number }> {
  const [totalRow] = await db.select({ n: count() }).from(webhooks);
  const [activeRow] = await db.select({ n: count() }).from(webhooks).where(eq(webhooks.active, true));
  return { total: Number(totalRow?.n ?? 0), active: Number(activeRow?.n ?? 0) };
}
