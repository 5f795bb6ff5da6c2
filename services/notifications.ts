import type { Database } from '../db';
import {
  clearNotifications as removeAll,
  listNotifications as storedNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  type NotificationPage,
} from '../db/notifications-store';
import { NotFoundError } from './errors';

/** Notifications, polled by the panel (docs/reports-notifications-settings.md). */

export interface NotificationDeps {
  db: Database;
}

export function listNotifications(deps: NotificationDeps, page: { page: number; pageSize: number }): Promise<NotificationPage> {
  return storedNotifications(deps.db, page);
}

/** Answers how many were unread. */
export function markAllRead(deps: NotificationDeps): Promise<number> {
  return markAllNotificationsRead(deps.db);
}

export async function markRead(deps: NotificationDeps, id: string): Promise<void> {
  if (!(await markNotificationRead(deps.db, id))) throw new NotFoundError(`notification ${id} not found`);
}

export async function clearNotifications(deps: NotificationDeps): Promise<void> {
  await removeAll(deps.db);
}
