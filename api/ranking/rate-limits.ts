import type { Middleware } from 'koa';
import type { ApiResources } from '../resources';
import { rateLimit } from '../orchestration/security';

/**
 * Budgets per client address of the /api/v1 routes that start work (docs/ranking-api.md, "Rate
 * limits"): the ranking job's start and the PDF sheets. The reads stay unlimited.
 *
 * The limiter is the orchestration API's (Redis-backed, shared by every API process, fail-open,
 * 429 with `Retry-After`); the error envelope answers it as `{"detail"}` under /api/v1. Each budget
 * has its own Redis keys (`ratelimit:api:<budget>:<address>`): the budgets of /api, of the job and of
 * the sheets never share a counter.
 */
export function rankingBudgets(resources: ApiResources): { job: Middleware; pdf: Middleware } {
  const budget = (name: string, limit: { requests: number; windowSeconds: number }): Middleware =>
    rateLimit(resources.redis, { limit, budget: name, timeoutMs: resources.config.dependencyTimeoutMs }, resources.logger);
  return {
    job: budget('v1-ranking-job', resources.config.ranking.jobRateLimit),
    pdf: budget('v1-pdf', resources.config.pdf.rateLimit),
  };
}
