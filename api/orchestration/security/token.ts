import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import { HttpError } from '../../errors';
import { isOpenOrchestrationPath, passThrough } from './paths';
import { type PanelSessions, SessionsUnavailableError, sessionCookieOf } from './session';

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

/** The 401 for a request that presented nothing; it names the sign-in page where there is one. */
export function credentialRequiredMessage(sessions: PanelSessions | null): string {
  return sessions === null
    ? 'Autenticação necessária: envie Authorization: Bearer <token>'
    : 'Autenticação necessária: envie Authorization: Bearer <token> ou entre em /sign-in';
}

export const SESSION_INVALID_MESSAGE = 'Sessão expirada ou encerrada: entre novamente em /sign-in';

/**
 * Refuses a request without the configured token with 401 before anything else runs
 * (body parsing, routes). Without a configured token (`AUTH_TOKEN` unset) every request passes.
 * With `sessions` (the panel's sign-in, api/sign-in.ts), a valid session cookie is accepted as well;
 * a bearer token, when sent, decides alone. A session that cannot be checked (Redis down) answers 503.
 */
export function requireToken(authToken: string | null, sessions: PanelSessions | null = null): Middleware {
  if (authToken === null) return passThrough;
  return async (ctx, next) => {
    if (isOpenOrchestrationPath(ctx.path)) return next();
    const presented = bearerTokenOf(ctx.get('authorization') || undefined);
    if (tokenMatches(authToken, presented)) return next();
    const refuse = (message: string): never => {
      // The error envelope keeps headers set on ctx, so the challenge reaches the client with the 401.
      ctx.set('WWW-Authenticate', AUTHENTICATE_CHALLENGE);
      throw new HttpError(401, message);
    };
    if (presented !== null) return refuse('Token inválido');
    if (sessions === null || sessionCookieOf(ctx) === undefined) return refuse(credentialRequiredMessage(sessions));
    if (await sessionOrUnavailable(sessions, ctx)) return next();
    return refuse(SESSION_INVALID_MESSAGE);
  };
}

async function sessionOrUnavailable(sessions: PanelSessions, ctx: ParameterizedContext): Promise<boolean> {
  try {
    return await sessions.requestHasSession(ctx);
  } catch (error) {
    if (error instanceof SessionsUnavailableError) {
      throw new HttpError(
        503,
        'A sessão não pode ser verificada agora (Redis indisponível); Authorization: Bearer <token> continua funcionando',
      );
    }
    throw error;
  }
}
