import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
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
  const secret =
    secretCiphertext && secretIv && secretAuthTag ? { ciphertext: secretCiphertext, iv: secretIv, authTag: secretAuthTag } : null;
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

export interface Delivery {
  id: string;
  deliveryId: string | null;
  /** The run the call starts, chosen when the call is recorded (null: refused by a budget, or recorded before that). */
  executionId: string | null;
  /** Counted in the webhook's triggerCount (countDelivery). */
  counted: boolean;
}

/** The record of a delivery already received, as a repeat of it finds it. */
export interface ReceivedDelivery extends Delivery {
  refused: string | null;
  receivedAt: Date;
  /** The record of `executionId` exists: the run was started (or is being started). */
  runExists: boolean;
}

export interface DeliveryCall {
  webhookId: string;
  deliveryId: string | null;
  caller: string;
  /** The id the run will have, so a repeat can tell a run never started from one started. */
  executionId: string;
  receivedAt: Date;
}

/**
 * Records a call before its run starts. With a delivery id, only the first call of that id per webhook
 * is recorded: a repeat gets `{claimed: false, first}` (the first call's record) and must not start
 * anything unless it takes the record over (takeOverDelivery).
 */
export async function claimDelivery(
  db: Database,
  call: DeliveryCall,
): Promise<{ claimed: true; delivery: Delivery } | { claimed: false; first: ReceivedDelivery }> {
  const id = randomUUID();
  try {
    await db.insert(webhookDeliveries).values({ id, ...call, counted: false });
    return { claimed: true, delivery: { id, deliveryId: call.deliveryId, executionId: call.executionId, counted: false } };
  } catch (error) {
    if (call.deliveryId === null || !isDuplicateKey(error)) throw error;
    const [first] = await db
      .select({
        id: webhookDeliveries.id,
        deliveryId: webhookDeliveries.deliveryId,
        executionId: webhookDeliveries.executionId,
        counted: webhookDeliveries.counted,
        refused: webhookDeliveries.refused,
        receivedAt: webhookDeliveries.receivedAt,
        run: executions.id,
      })
      .from(webhookDeliveries)
      .leftJoin(executions, eq(executions.id, webhookDeliveries.executionId))
      .where(and(eq(webhookDeliveries.webhookId, call.webhookId), eq(webhookDeliveries.deliveryId, call.deliveryId)));
    if (!first) throw error; // removed meanwhile (its webhook deleted): the caller may send it again
    const { run, ...delivery } = first;
    return { claimed: false, first: { ...delivery, runExists: run !== null } };
  }
}

/**
 * Makes a received delivery's record this call's, if no other call changed it since it was read
 * (compare-and-set on its state and time): the caller, the time and the run's id become this call's;
 * whether it was counted is kept. Null when another call took it first.
 */
export async function takeOverDelivery(
  db: Database,
  first: ReceivedDelivery,
  call: Pick<DeliveryCall, 'caller' | 'executionId' | 'receivedAt'>,
): Promise<Delivery | null> {
  const [result] = await db
    .update(webhookDeliveries)
    .set({ caller: call.caller, executionId: call.executionId, receivedAt: call.receivedAt, refused: null })
    .where(
      and(
        eq(webhookDeliveries.id, first.id),
        eq(webhookDeliveries.receivedAt, first.receivedAt),
        first.refused === null ? isNull(webhookDeliveries.refused) : eq(webhookDeliveries.refused, first.refused),
      ),
    );
  if (result.affectedRows === 0) return null;
  return { id: first.id, deliveryId: first.deliveryId, executionId: call.executionId, counted: first.counted };
}

/**
 * Counts the delivery in its webhook's triggerCount (and its time) unless it was counted already:
 * the mark and the count in one transaction, so a delivery is counted once however many calls it
 * took, and concurrent calls never lose one.
 */
export async function countDelivery(db: Database, webhookId: string, delivery: Pick<Delivery, 'id'>, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [marked] = await tx
      .update(webhookDeliveries)
      .set({ counted: true })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.counted, false)));
    if (marked.affectedRows === 0) return;
    await tx
      .update(webhooks)
      .set({ triggerCount: sql`${webhooks.triggerCount} + 1`, lastTriggeredAt: at })
      .where(eq(webhooks.id, webhookId));
  });
}

/**
 * The call started nothing: `budget` (refused, 409: no run will have its id) or `not_started` (its
 * start failed). Either way the sender may deliver it again, as a new call.
 */
export async function refuseDelivery(db: Database, deliveryRowId: string, reason: 'budget' | 'not_started'): Promise<void> {
  const changes = reason === 'budget' ? { refused: reason, executionId: null } : { refused: reason };
  await db.update(webhookDeliveries).set(changes).where(eq(webhookDeliveries.id, deliveryRowId));
}

/** The dashboard's counters (contract 3.11). */
export async function countWebhooks(db: Database): Promise<{ total: number; active: number }> {
  const [totalRow] = await db.select({ n: count() }).from(webhooks);
  const [activeRow] = await db.select({ n: count() }).from(webhooks).where(eq(webhooks.active, true));
  return { total: Number(totalRow?.n ?? 0), active: Number(activeRow?.n ?? 0) };
}
