import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import { clearNotifications, listNotifications, markAllRead, markRead } from '../../services/notifications';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { notificationsQuery } from './notifications-input';
import { withoutEmptyValues } from './query';

/**
 * Notifications, polled by the panel (docs/reports-notifications-settings.md; contract rows 44-47);
 * use cases in services/notifications.ts.
 */
export function notificationsRoutes(resources: ApiResources): Router {
  const deps = { db: resources.database.db };
  const router = orchestrationRouter('/notifications');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listNotifications(deps, parseInput(notificationsQuery, withoutEmptyValues(ctx.query), 'query'));
  });

  // Declared before '/:id/read': "read-all" is not an id.
  router.post('/read-all', async (ctx) => {
    ctx.body = { success: true, updated: await markAllRead(deps) };
  });

  router.post('/:id/read', async (ctx) => {
    await markRead(deps, ctx.params.id ?? '');
    ctx.body = { success: true };
  });

  router.delete('/', async (ctx) => {
    ctx.body = { success: true, deleted: await clearNotifications(deps) };
  });

  return router;
}
