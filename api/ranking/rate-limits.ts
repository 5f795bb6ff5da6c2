import type { Middleware } from 'koa';
import type { Services } from '../../lib/services';
import { rateLimit } from '../orchestration/security';

/**
 * Budgets per client address of the /api/v1 routes that start work (docs/ranking-api.md, "Rate
 * limits"): the ranking job's start and the PDF sheets. The reads stay unlimited.
 *
 * The limiter is the orchestration API's (Redis-backed, shared by every API process, fail-open,
 * 429 with `Retry-After`); the error envelope answers it as `{"detail"}` under /api/v1. Its budgets
 * are keyed by `ctx.ip`, so each budget here names the address it counts (`<budget>:<address>`):
 * the budgets of /api, of the job and of the sheets never share a counter.
 */
export function rankingBudgets(services: Services): { job: Middleware; pdf: Middleware } {
  const budget = (name: string, limit: { requests: number; windowSeconds: number }): Middleware => {
    const limited = rateLimit(services.redis, { limit, timeoutMs: services.config.dependencyTimeoutMs }, services.logger);
    return (ctx, next) => limited(Object.create(ctx, { ip: { value: `${name}:${ctx.ip}` } }), next);
  };
  return {
    job: budget('v1-ranking-job', services.config.ranking.jobRateLimit),
    pdf: budget('v1-pdf', services.config.pdf.rateLimit),
  };
}
