import Router from '@koa/router';

/** GET /api/v1/health: liveness of the ranking API (the process answers; dependencies are in /api/system/status). */
export function healthRouter(): Router {
  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok', message: 'API de ranking de consultores em funcionamento' };
  });
  return router;
}
