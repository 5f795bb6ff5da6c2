import type { Middleware } from 'koa';

/**
 * The orchestration service's paths: `/api` and below. The ranking service at `/api/v1` follows
 * another specification (no authentication, no rate limit) and is left as it is.
 */
export function isOrchestrationPath(path: string): boolean {
  const underApi = path === '/api' || path.startsWith('/api/');
  const ranking = path === '/api/v1' || path.startsWith('/api/v1/');
  return underApi && !ranking;
}

/** Runs `middleware` for orchestration paths only; every other request passes straight on. */
export function onOrchestrationPaths(middleware: Middleware): Middleware {
  return (ctx, next) => (isOrchestrationPath(ctx.path) ? middleware(ctx, next) : next());
}

/** The middleware that does nothing, for a protection that is switched off by configuration. */
export const passThrough: Middleware = (_ctx, next) => next();
