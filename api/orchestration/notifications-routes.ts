import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import { clearNotifications, listNotifications, markAllNotificationsRead, markNotificationRead } from '../../db/notifications-store';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { pageQuery } from './executions-input';
import { withoutEmptyValues } from './query';

/** Notifications, polled by the panel (docs/reports-notifications-settings.md). */
export function notificationsRoutes(services: Services): Router {
  const { db } = services.database;
  const router = orchestrationRouter('/notifications');

  router.get('/', async (ctx) => {
    ctx.body = await listNotifications(db, parseInput(pageQuery, withoutEmptyValues(ctx.query), 'query'));
  });

  // Declared before '/:id/read': "read-all" is not an id.
  router.post('/read-all', async (ctx) => {
    ctx.body = { updated: await markAllNotificationsRead(db) };
  });

  router.post('/:id/read', async (ctx) => {
    const id = ctx.params.id ?? '';
    if (!(await markNotificationRead(db, id))) throw new HttpError(404, `notification ${id} not found`);
    ctx.status = 204;
  });

  router.delete('/', async (ctx) => {
    await clearNotifications(db);
    ctx.status = 204;
  });

  return router;
}
