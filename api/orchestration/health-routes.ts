import type Router from '@koa/router';
import { orchestrationRouter } from './router';

/**
 * GET /api/health (contract row 72): whether the process answers, `{status, timestamp, uptime}`. The
 * one /api route open without the token and outside the rate limit (security/paths.ts OPEN_PATHS), as
 * the panel's contract says; it reveals nothing about the deployment (dependencies are in
 * /api/system/status, behind the token).
 */
export function healthRoutes(): Router {
  const router = orchestrationRouter();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok', timestamp: new Date().toISOString(), uptime: process.uptime() };
  });
  return router;
}
