import type Redis from 'ioredis';
import type { Middleware, ParameterizedContext } from 'koa';
import { RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts } from 'rate-limiter-flexible';
import type { Config } from '../../../lib/config';
import type { Logger } from '../../../lib/logger';
import { HttpError } from '../../errors';
import { isOpenOrchestrationPath, isUnmeteredRead } from './paths';

/** Key of a client's budget, after the connection's own prefix (`REDIS_KEY_PREFIX`, added by ioredis). */
export const RATE_LIMIT_KEY_PREFIX = 'ratelimit:api';

/**
 * ioredis states between failed connection attempts: a command sent now would wait for the next
 * attempts, so the request goes on at once instead. While connecting (at start) commands wait for it.
 */
const REDIS_DISCONNECTED = new Set(['close', 'reconnecting', 'end']);

export interface RateLimitOptions {
  limit: Config['orchestration']['rateLimit'];
  /** Names the budget in its Redis keys (`ratelimit:api:<budget>:<address>`), so budgets never share a counter; none for /api's own. */
  budget?: string;
  /** Longest wait for Redis before the request goes on unlimited (a hung server, not a refused one). */
  timeoutMs: number;
}

type Spending = { outcome: 'allowed' | 'exceeded'; budget: RateLimiterRes } | { outcome: 'unavailable'; error: unknown };

/**
 * At most `limit.requests` requests per client address (`ctx.ip`) and window of `limit.windowSeconds`,
 * counted in Redis so every API process shares one budget. Over the limit: 429 with `Retry-After`.
 * `/api/health` and the panel's repeated cheap reads (isUnmeteredRead) are not counted.
 * Redis unreachable or slow: the request goes on unlimited (fail open) and one warning is logged per
 * outage, so a Redis failure does not take the API down with it.
 */
export function rateLimit(redis: Redis, options: RateLimitOptions, logger: Logger): Middleware {
  const { requests, windowSeconds } = options.limit;
  const limiter = new RLWrapperTimeouts({
    limiter: new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: options.budget === undefined ? RATE_LIMIT_KEY_PREFIX : `${RATE_LIMIT_KEY_PREFIX}:${options.budget}`,
      points: requests,
      duration: windowSeconds,
    }),
    timeoutMs: options.timeoutMs,
  });
  const outage = outageLog(logger);

  async function spend(clientAddress: string): Promise<Spending> {
    if (REDIS_DISCONNECTED.has(redis.status)) {
      return { outcome: 'unavailable', error: new Error(`Redis connection is ${redis.status}`) };
    }
    try {
      return { outcome: 'allowed', budget: await limiter.consume(clientAddress) };
    } catch (rejection) {
      // The limiter rejects with the budget when it is spent, with an Error when Redis fails.
      return rejection instanceof RateLimiterRes
        ? { outcome: 'exceeded', budget: rejection }
        : { outcome: 'unavailable', error: rejection };
    }
  }

  return async (ctx, next) => {
    // The health check and the panel's repeated cheap reads spend nothing (paths.ts).
    if (isOpenOrchestrationPath(ctx.path) || isUnmeteredRead(ctx.method, ctx.path)) return next();
    const spending = await spend(ctx.ip);
    if (spending.outcome === 'unavailable') {
      outage.failed(spending.error);
      return next();
    }
    outage.recovered();
    setBudgetHeaders(ctx, requests, spending.budget);
    if (spending.outcome === 'allowed') return next();

    const retryAfter = Math.max(1, Math.ceil(spending.budget.msBeforeNext / 1000));
    // The error envelope keeps headers set on ctx, so they reach the client with the 429.
    ctx.set('Retry-After', String(retryAfter));
    throw new HttpError(
      429,
      `Muitas requisições: no máximo ${requests} a cada ${windowSeconds} s por cliente; tente novamente em ${retryAfter} s`,
    );
  };
}

function setBudgetHeaders(ctx: ParameterizedContext, requests: number, budget: RateLimiterRes): void {
  ctx.set('X-RateLimit-Limit', String(requests));
  ctx.set('X-RateLimit-Remaining', String(budget.remainingPoints));
}

/** Logs the start and the end of a Redis outage once each, not once per request. */
function outageLog(logger: Logger) {
  let down = false;
  return {
    failed(error: unknown) {
      if (down) return;
      down = true;
      logger.warn({ err: error }, 'rate limiter cannot reach Redis: requests are not limited until it is back');
    },
    recovered() {
      if (!down) return;
      down = false;
      logger.info('rate limiter reaches Redis again: requests are limited');
    },
  };
}
