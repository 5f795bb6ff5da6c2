import type { Middleware } from 'koa';
import { UseCaseError, type UseCaseErrorKind } from '../services/errors';
import { HttpError, RequestValidationError } from './errors';

/** The status of each use-case failure; `invalid` answers as a bad request of the service that owns the path (400 under /api). */
const STATUS: Record<Exclude<UseCaseErrorKind, 'invalid'>, number> = { not_found: 404, conflict: 409, unavailable: 503 };

/** The HTTP error of a use case's failure; anything else unchanged. */
export function httpErrorOf(error: unknown): unknown {
  if (!(error instanceof UseCaseError)) return error;
  if (error.kind === 'invalid') return new RequestValidationError(error.message);
  return new HttpError(STATUS[error.kind], error.message);
}

/** Router middleware: a handler's use-case failure becomes the HTTP error the envelope (api/errors.ts) answers. */
export function useCaseErrors(): Middleware {
  return async (_ctx, next) => {
    try {
      await next();
    } catch (error) {
      throw httpErrorOf(error);
    }
  };
}
