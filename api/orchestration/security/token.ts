import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { HttpError } from '../../errors';
import { isOpenOrchestrationPath, passThrough } from './paths';

/** Sent with every 401 so clients know which scheme to use (RFC 6750). */
export const AUTHENTICATE_CHALLENGE = 'Bearer';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or null. */
export function bearerTokenOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  return match?.[1]?.trim() || null;
}

/** Compares in constant time: hashing first gives equal-length buffers whatever the presented length. */
export function tokenMatches(expected: string, presented: string | null): boolean {
  if (presented === null) return false;
  return timingSafeEqual(sha256(expected), sha256(presented));
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Refuses a request without the configured token with 401 before anything else runs
 * (body parsing, routes). Without a configured token (`AUTH_TOKEN` unset) every request passes.
 */
export function requireToken(authToken: string | null): Middleware {
  if (authToken === null) return passThrough;
  return (ctx, next) => {
    if (isOpenOrchestrationPath(ctx.path)) return next();
    const presented = bearerTokenOf(ctx.get('authorization') || undefined);
    if (tokenMatches(authToken, presented)) return next();
    // The error envelope keeps headers set on ctx, so the challenge reaches the client with the 401.
    ctx.set('WWW-Authenticate', AUTHENTICATE_CHALLENGE);
    throw new HttpError(401, presented === null ? 'authentication required: send Authorization: Bearer <token>' : 'invalid token');
  };
}
