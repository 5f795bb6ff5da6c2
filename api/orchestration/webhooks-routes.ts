import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { createWebhook, deleteWebhook, listWebhooks, testWebhook, updateWebhook } from '../../services/webhooks';
import { useCaseErrors } from '../use-case-errors';
import { orchestrationRouter } from './router';
import { webhookCreateInput, webhookUpdateInput } from './webhooks-input';
import { webhookDepsOf } from '../use-case-deps';

/**
 * Webhooks for the panel (contract 3.7; docs/webhooks.md): CRUD and the test run. The public call
 * (POST /hook/:token) is in api/hook-routes.ts, outside /api.
 */
export function webhooksRoutes(resources: ApiResources): Router {
  const deps = webhookDepsOf(resources);
  const router = orchestrationRouter('/webhooks');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listWebhooks(deps);
  });

  router.post('/', async (ctx) => {
    const webhook = await createWebhook(deps, webhookCreateInput(ctx.request.body));
    ctx.status = 201;
    ctx.set('Location', `/api/webhooks/${webhook.id}`);
    ctx.body = webhook;
  });

  router.put('/:id', async (ctx) => {
    ctx.body = await updateWebhook(deps, ctx.params.id ?? '', webhookUpdateInput(ctx.request.body));
  });

  router.delete('/:id', async (ctx) => {
    await deleteWebhook(deps, ctx.params.id ?? '');
    ctx.status = 204;
  });

  /** Runs the target now, broadcast to every client: 202 `{success, message, executionId}`. */
  router.post('/:id/test', async (ctx) => {
    ctx.status = 202;
    ctx.body = await testWebhook(deps, ctx.params.id ?? '');
  });

  return router;
}
