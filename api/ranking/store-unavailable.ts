import type { Middleware } from 'koa';
import { HttpError } from '../errors';

/** Driver error codes that mean the ranking store cannot be reached or is not set up. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_ACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'ER_NO_SUCH_TABLE',
]);

/** Rule 1 of the ranking reads: a store that is not reachable or not set up answers 503. */
export function storeUnavailableAs503(): Middleware {
  return async (_ctx, next) => {
    try {
      await next();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) {
        throw new HttpError(503, `Armazenamento do ranking indisponível (${code})`);
      }
      throw error;
    }
  };
}
