import type { Middleware } from 'koa';
import type { Logger } from '../lib/logger';
import { isRankingPath } from './orchestration/security/paths';

/** An error meant for the client: its message is sent as is, with its status. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly expose = true;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Invalid query, path or body. Its status depends on the service answering:
 * the ranking API answers 422, the orchestration API 400 (see docs/errors.md).
 */
export class RequestValidationError extends Error {
  override name = 'RequestValidationError';
  readonly expose = true;
}

type Envelope = 'detail' | 'error';

/** The ranking service (/api/v1) answers `{"detail"}`; everything else `{"error"}`, judged as the edge judges paths. */
export function envelopeFor(path: string): Envelope {
  return isRankingPath(path) ? 'detail' : 'error';
}

const VALIDATION_STATUS: Record<Envelope, number> = { detail: 422, error: 400 };
const NOT_FOUND: Record<Envelope, string> = { detail: 'Not Found', error: 'Not found' };

interface ErrorLike {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
}

function statusOf(error: ErrorLike, envelope: Envelope): number {
  if (error instanceof RequestValidationError) return VALIDATION_STATUS[envelope];
  const status = Number(error.status ?? error.statusCode);
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
}

/**
 * The first middleware: turns every failure and every unmatched route into the envelope of
 * the service that owns the path. Messages of unexpected errors stay in the log, never in the answer.
 */
export function errorEnvelope(logger: Logger): Middleware {
  return async (ctx, next) => {
    const envelope = envelopeFor(ctx.path);
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        ctx.status = 404;
        ctx.body = { [envelope]: NOT_FOUND[envelope] };
      }
    } catch (caught) {
      const error = (typeof caught === 'object' && caught !== null ? caught : { message: String(caught) }) as ErrorLike;
      const status = statusOf(error, envelope);
      const exposed = status < 500 || error.expose === true;
      const message = exposed && typeof error.message === 'string' ? error.message : 'Internal server error';
      if (status >= 500) logger.error({ err: caught, method: ctx.method, path: ctx.path }, 'request failed');
      ctx.status = status;
      ctx.body = { [envelope]: message };
    }
  };
}
