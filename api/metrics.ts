import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { collectProcessMetrics, httpRequestDuration, metricsRegistry, metricsText, webhookCalls } from '../lib/metrics';
import { ALLOWED_METHODS, errorEnvelope, RequestValidationError } from './errors';
import { requireKnownHost, requireToken } from './orchestration/security';
import { canonicalPath } from './orchestration/security/paths';

/**
 * `GET /metrics` (docs/observability.md) and the request-duration histogram of both services. The
 * `route` label is the template of the route that answered (`/api/agents/:id`), or one of a few fixed
 * names when no route did; `method` is one of the HTTP methods or `other`: every label comes from a
 * bounded set, whatever path or method a client sends.
 */

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The `route` label of a request no router matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Whether a request is for the metrics, however spelled (`/METRICS`, `/metrics/`, `//metrics`). */
export function isMetricsPath(rawPath: string): boolean {
  return canonicalPath(rawPath) === '/metrics';
}

/** Runs `middleware` for the metrics path only (the token, when one is set, as on /api). */
export function onMetricsPath(middleware: Middleware): Middleware {
  return (ctx, next) => (isMetricsPath(ctx.path) ? middleware(ctx, next) : next());
}

/**
 * Times every HTTP request (a WebSocket upgrade never reaches Koa's middleware); first in the chain,
 * outside the error envelope, so refusals by the edge are timed with the status they answered.
 */
export function requestMetrics(): Middleware {
  return async (ctx, next) => {
    const stop = httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      const method = METHODS.has(ctx.method) ? ctx.method : 'other';
      // @koa/router records the template (its prefix included) of the route that matched.
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      stop({ method, route: typeof route === 'string' ? route : UNMATCHED_ROUTE, status_code: String(ctx.status) });
    }
  };
}

/** The `result` of a /hook call from the status it answered (and, for a 202, whether it was a repeat). */
function hookResultOf(status: number, body: unknown): string {
  if (status === 202) return (body as { status?: unknown } | null)?.status === 'duplicate' ? 'duplicate' : 'accepted';
  const byStatus: Record<number, string> = {
    401: 'refused_signature',
    403: 'refused_inactive',
    409: 'refused_budget',
    429: 'rate_limited',
    404: 'not_found',
    400: 'invalid',
    413: 'invalid',
  };
  return byStatus[status] ?? 'failed';
}

/** Counts the calls of /hook by result (`webhook_calls_total`); placed before their rate limit, so refusals count. */
export function hookCallMetrics(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      webhookCalls.inc({ result: hookResultOf(ctx.status, ctx.body) });
    } catch (error) {
      // A refusal is thrown, and answered by the error envelope outside: its status is the error's
      // (a validation failure is the envelope's 400 under /hook).
      const status = error instanceof RequestValidationError ? 400 : ((error as { status?: number }).status ?? 500);
      webhookCalls.inc({ result: hookResultOf(status, null) });
      throw error;
    }
  };
}

/** `GET /metrics`: the registry and the Temporal SDK's metrics, in Prometheus's text format. */
export function metricsRoutes(): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    ctx.set('Content-Type', metricsRegistry.contentType);
    ctx.body = await metricsText();
  });
  return router;
}

/**
 * The HTTP server of a process without the `api` role (a worker alone): `GET /metrics` only, on
 * METRICS_PORT at HTTP_HOST, behind the same Host check and token as the API's (docs/observability.md).
 */
export async function startMetricsServer(config: Config, logger: Logger): Promise<{ url: string; close(): Promise<void> }> {
  collectProcessMetrics();
  const koa = new Koa();
  koa.use(errorEnvelope(logger));
  koa.use(requireKnownHost(config.orchestration.allowedHosts));
  koa.use(onMetricsPath(requireToken(config.orchestration.authToken)));
  const routes = metricsRoutes();
  koa.use(routes.routes()).use(routes.allowedMethods(ALLOWED_METHODS));
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = koa.listen(config.metrics.port, config.http.host);
    listening.once('listening', () => resolve(listening));
    listening.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address}:${port}/metrics`;
  logger.info({ url }, 'metrics server listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
