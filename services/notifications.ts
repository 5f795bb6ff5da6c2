import type { Database } from '../db';
import {
  clearNotifications as removeAll,
  listNotifications as storedNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  type Notification,
} from '../db/notifications-store';
import { NotFoundError } from './errors';

/** Notifications, polled by the panel (docs/reports-notifications-settings.md; contract admin-panel.md 3.10). */

export interface NotificationDeps {
  db: Database;
}

/** The panel styles `success` and `error`; anything else is shown as info (a cancellation). */
export type NotificationType = 'success' | 'error' | 'info';

const TYPE_OF_KIND: Record<string, NotificationType> = { 'execution.completed': 'success', 'execution.error': 'error' };

/** One notification as the panel reads it; `kind` and `executionId` are kept from our earlier shape. */
export interface NotificationView {
  id: string;
  type: NotificationType;
  kind: string;
  title: string;
  message: string;
  executionId: string | null;
  read: boolean;
  createdAt: Date;
}

export interface NotificationList {
  notifications: NotificationView[];
  /** Over the whole table: the panel's badge. */
  unreadCount: number;
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

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
    createdAt: stored.createdAt,
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
