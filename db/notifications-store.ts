import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, lt, lte, or, sql } from 'drizzle-orm';
import type { Database } from './index';
import { notifications } from './schema';

/** Notifications polled by the panel (docs/reports-notifications-settings.md). */

export type Notification = typeof notifications.$inferSelect;

export interface NewNotification {
  /** What happened, e.g. `execution.completed`, `execution.error`, `execution.canceled`. */
  kind: string;
  title: string;
  message: string;
  executionId?: string | null;
  createdAt?: Date;
}

export interface NotificationPage {
  items: Notification[];
  total: number;
  unread: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** Title and message are cut to what the columns and a panel can show. */
const TITLE_MAX = 200;
const MESSAGE_MAX = 10_000;

/**
 * Stores a notification, then prunes the oldest beyond the newest `kept` (NOTIFICATIONS_KEPT): the
 * table is bounded where it is written, whoever reads it and however.
 */
export async function raiseNotification(db: Database, input: NewNotification, kept: number): Promise<Notification> {
  const notification = notificationRow(randomUUID(), input);
  await db.insert(notifications).values(notification);
  await pruneNotifications(db, kept);
  return notification;
}

/** The row stored for `input` under `id`, its texts cut to TITLE_MAX and MESSAGE_MAX. */
function notificationRow(id: string, input: NewNotification): Notification {
  return {
    id,
    kind: input.kind.slice(0, 32),
    title: input.title.slice(0, TITLE_MAX),
    message: input.message.slice(0, MESSAGE_MAX),
    executionId: input.executionId ?? null,
    read: false,
    createdAt: input.createdAt ?? new Date(),
  };
}

/**
 * Stores a notification whose id the caller derived from what it is about (e.g. a budget's warning of
 * a day), unless one with that id exists: false then. Prunes like raiseNotification.
 */
export async function insertNotificationOnce(db: Database, input: NewNotification & { id: string }, kept: number): Promise<boolean> {
  const [result] = await db.insert(notifications).ignore().values(notificationRow(input.id, input));
  if (result.affectedRows === 0) return false;
  await pruneNotifications(db, kept);
  return true;
}

/**
 * Deletes every notification older than the newest `kept`, in the list's order (created_at, then
 * id, newest first); returns how many. Two writers pruning at once delete the same rows once.
 */
export async function pruneNotifications(db: Database, kept: number): Promise<number> {
  const [firstPruned] = await db
    .select({ createdAt: notifications.createdAt, id: notifications.id })
    .from(notifications)
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(1)
    .offset(kept);
  if (!firstPruned) return 0;
  const [result] = await db
    .delete(notifications)
    .where(
      or(
        lt(notifications.createdAt, firstPruned.createdAt),
        and(eq(notifications.createdAt, firstPruned.createdAt), lte(notifications.id, firstPruned.id)),
      ),
    );
  return result.affectedRows;
}

/** Newest first, with the unread count the panel's badge shows. */
export async function listNotifications(db: Database, page: { page: number; pageSize: number }): Promise<NotificationPage> {
  const [items, [counted]] = await Promise.all([
    db
      .select()
      .from(notifications)
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ total: count(), unread: sql<string | null>`SUM(${notifications.read} = 0)` }).from(notifications),
  ]);
  const total = Number(counted?.total ?? 0);
  return {
    items,
    total,
    unread: Number(counted?.unread ?? 0),
    page: page.page,
    pageSize: page.pageSize,
    totalPages: Math.ceil(total / page.pageSize),
  };
}

/** Marks one notification read (again is fine). False when the id is unknown. */
export async function markNotificationRead(db: Database, id: string): Promise<boolean> {
  await db.update(notifications).set({ read: true }).where(eq(notifications.id, id));
  // Existence is checked apart: an UPDATE that changes nothing may report no affected row.
  const rows = await db.select({ id: notifications.id }).from(notifications).where(eq(notifications.id, id));
  return rows.length > 0;
}

/** Returns how many were unread. */
export async function markAllNotificationsRead(db: Database): Promise<number> {
  const [result] = await db.update(notifications).set({ read: true }).where(eq(notifications.read, false));
  return result.affectedRows;
}

/** Deletes every notification; returns how many. */
export async function clearNotifications(db: Database): Promise<number> {
  const [result] = await db.delete(notifications);
  return result.affectedRows;
}
