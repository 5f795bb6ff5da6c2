import type { Middleware } from 'koa';
import { EventLoopLiveness } from '../lib/event-loop-liveness';
import { Readiness } from '../lib/readiness';
import { pingDependency } from './dependency-status';
import { HttpError } from './errors';
import type { ApiResources } from './resources';
import { canonicalPath } from './orchestration/security/paths';

/**
 * `GET /livez` and `GET /readyz` (and HEAD; docs/probes-and-drains.md), on the API's port and on a
 * worker's METRICS_PORT: a platform's liveness and readiness probes. They answer before the edge (no
 * Host check, no token, no rate limit), since a probe comes by the pod's address and reveals nothing but
 * a state. The path is judged on its canonical form: `/READYZ` or `//readyz` is the probe too, and
 * answered here, so no spelling reaches anything else past the Host check this way.
 */

export const PROBE_PATHS = ['/livez', '/readyz'] as const;
const isProbePath = (path: string): path is (typeof PROBE_PATHS)[number] => (PROBE_PATHS as readonly string[]).includes(path);

/** One process's probes: its event loop, and what its roles need to work. */
export interface ProcessProbes {
  liveness: EventLoopLiveness;
  readiness: Readiness;
}

export function probeRoutes(probes: ProcessProbes): Middleware {
  return async (ctx, next) => {
    const path = canonicalPath(ctx.path);
    if (!isProbePath(path)) return next();
    // The request-duration histogram's route label (api/metrics.ts reads what @koa/router records).
    (ctx as { _matchedRoute?: string })._matchedRoute = path;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new HttpError(405, 'Método não permitido');
    }
    ctx.set('Cache-Control', 'no-store');
    if (path === '/livez') {
      const loop = probes.liveness.state();
      ctx.status = loop.stuck ? 503 : 200;
      ctx.body = loop.stuck
        ? { status: 'unavailable', reasons: [`o laço de eventos ficou parado ${loop.longestDelayMs} ms`] }
        : { status: 'ok' };
      return;
    }
    const answer = await probes.readiness.answer();
    ctx.status = answer.status === 'ok' ? 200 : 503;
    ctx.body = answer;
  };
}

/**
 * The API's readiness: MySQL and Redis answer (the cheapest round trip of each; api/dependency-status.ts),
 * and the live relay's subscription is in place (api/live-relay.ts).
 */
export function addApiReadiness(readiness: Readiness, resources: ApiResources): void {
  for (const name of ['mysql', 'redis'] as const) readiness.add(name, async () => void (await pingDependency(name, resources)));
  readiness.add('live-output', () => resources.liveRelay.ready());
}

/** The probes of a process that serves the API alone (the tests' servers): its loop, MySQL and Redis. */
export function apiProbes(resources: ApiResources): ProcessProbes {
  const readiness = new Readiness(resources.config.dependencyTimeoutMs, resources.logger);
  addApiReadiness(readiness, resources);
  return { liveness: new EventLoopLiveness(), readiness };
}
