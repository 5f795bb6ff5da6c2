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
import { probeRoutes, type ProcessProbes } from './probes';

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

/**
 * The Host check (ALLOWED_HOSTS), but for /metrics (however spelled) when a token is set: the token is
 * what protects the metrics, and Prometheus scrapes a pod by its address, a Host no list names. The
 * check is against DNS rebinding, a page of another name reading this port through the victim's
 * browser: such a page can send neither the token nor the panel's session cookie (the browser keeps
 * that one for the service's real name). Without a token, /metrics keeps the Host check.
 */
export function requireKnownHostOrMetricsToken(allowedHosts: readonly string[], authToken: string | null): Middleware {
  const check = requireKnownHost(allowedHosts);
  if (authToken === null) return check;
  return (ctx, next) => (isMetricsPath(ctx.path) ? next() : check(ctx, next));
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
 * The HTTP server of a process without the `api` role (a worker alone), on METRICS_PORT at HTTP_HOST:
 * the probes always (api/probes.ts), and `GET /metrics` when METRICS_ENABLED, behind the same Host
 * rule and token as the API's (docs/observability.md). Started before the workers, so a platform sees
 * the process alive, and not ready, while they start.
 */
export async function startProbeServer(
  config: Config,
  logger: Logger,
  probes: ProcessProbes,
): Promise<{ url: string; close(): Promise<void> }> {
  const koa = new Koa();
  koa.use(errorEnvelope(logger));
  koa.use(probeRoutes(probes));
  if (config.metrics.enabled) {
    collectProcessMetrics();
    koa.use(requireKnownHostOrMetricsToken(config.orchestration.allowedHosts, config.orchestration.authToken));
    koa.use(onMetricsPath(requireToken(config.orchestration.authToken)));
    const routes = metricsRoutes();
    koa.use(routes.routes()).use(routes.allowedMethods(ALLOWED_METHODS));
  } else {
    koa.use(requireKnownHost(config.orchestration.allowedHosts));
  }
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = koa.listen(config.metrics.port, config.http.host);
    listening.once('listening', () => resolve(listening));
    listening.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address}:${port}`;
  logger.info({ url, metrics: config.metrics.enabled }, 'probe server listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
