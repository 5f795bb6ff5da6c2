import Router from '@koa/router';
import { checkDependencies } from '../../lib/dependency-status';
import type { Services } from '../../lib/services';

/**
 * GET /api/system/status: each dependency up or down with its latency. Always 200 while the
 * process answers; `status` is `ok` when every dependency is up, `degraded` otherwise.
 */
export function systemRouter(services: Services): Router {
  const router = new Router({ prefix: '/system' });
  router.get('/status', async (ctx) => {
    const dependencies = await checkDependencies(services);
    const allUp = Object.values(dependencies).every((dependency) => dependency.status === 'up');
    ctx.body = { status: allUp ? 'ok' : 'degraded', checkedAt: new Date().toISOString(), dependencies };
  });
  return router;
}
