import { z } from 'zod';
import type { Database } from '../db';
import {
  clearNotifications as removeAll,
  listNotifications as storedNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  type Notification,
} from '../db/notifications-store';
import { NotFoundError } from './errors';
import { isoDateTime } from './view-schema';

/** Notifications, polled by the panel (docs/reports-notifications-settings.md; contract admin-panel.md 3.10). */

export interface NotificationDeps {
  db: Database;
}

/** The panel styles `success` and `error`; anything else is shown as info (a cancellation). */
export const NOTIFICATION_TYPES = ['success', 'error', 'info'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

const TYPE_OF_KIND: Record<string, NotificationType> = { 'execution.completed': 'success', 'execution.error': 'error' };

/** One notification as the panel reads it; `kind` and `executionId` are kept from our earlier shape. */
export const notificationViewSchema = z
  .object({
    id: z.string(),
    type: z
      .enum(NOTIFICATION_TYPES)
      .meta({ description: 'Derivado de `kind`: `success` (execution.completed), `error` (execution.error), `info` para o resto' }),
    kind: z.string().meta({ description: 'O tipo gravado: execution.completed, execution.error, budget.warning...' }),
    title: z.string(),
    message: z.string(),
    executionId: z.string().nullable().meta({ description: 'A execução que a gerou; null para um aviso de orçamento' }),
    read: z.boolean(),
    createdAt: isoDateTime,
  })
  .meta({ id: 'Notification' });
export type NotificationView = z.infer<typeof notificationViewSchema>;

export const notificationListSchema = z
  .object({
    notifications: z.array(notificationViewSchema).meta({ description: 'A página pedida, as mais novas primeiro' }),
    unreadCount: z.number().int().meta({ description: 'Não lidas na tabela inteira (o contador do sino)' }),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: 'NotificationList' });
export type NotificationList = z.infer<typeof notificationListSchema>;

/** The type is derived from the stored kind, so rows stored before the contract need no migration. */
export function notificationView(stored: Notification): NotificationView {
  return {
    id: stored.id,
    type: TYPE_OF_KIND[stored.kind] ?? 'info',
    kind: stored.kind,
    title: stored.title,
    message: stored.message,
    executionId: stored.executionId,
    read: Boolean(stored.read),
    createdAt: stored.createdAt.toISOString(),
  };
}

export async function listNotifications(deps: NotificationDeps, page: { page: number; pageSize: number }): Promise<NotificationList> {
  const stored = await storedNotifications(deps.db, page);
  return {
    notifications: stored.items.map(notificationView),
    unreadCount: stored.unread,
    total: stored.total,
    page: stored.page,
    pageSize: stored.pageSize,
    totalPages: stored.totalPages,
  };
}

/** Answers how many were unread. */
export function markAllRead(deps: NotificationDeps): Promise<number> {
  return markAllNotificationsRead(deps.db);
}

export async function markRead(deps: NotificationDeps, id: string): Promise<void> {
  if (!(await markNotificationRead(deps.db, id))) throw new NotFoundError(`Notificação não encontrada: ${id}`);
}

/** Answers how many were deleted. */
export function clearNotifications(deps: NotificationDeps): Promise<number> {
  return removeAll(deps.db);
}
