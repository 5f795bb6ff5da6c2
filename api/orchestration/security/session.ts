import { createHmac, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { ParameterizedContext } from 'koa';
import { withTimeout } from '../../../lib/timeout';

/**
 * Sessions of the admin panel's sign-in (docs/orchestration-security.md, "Signing in to the panel"):
 * the panel cannot send the bearer token (contract 1.1), so with AUTH_TOKEN and PANEL_DIR set the
 * service asks for the token once (api/sign-in.ts) and gives the browser an HttpOnly, SameSite=Strict
 * cookie holding a random session id, which /api and the WebSocket accept besides the token.
 */

/** Name of the session cookie. */
export const SESSION_COOKIE = 'panel_session';

/** A session lasts this long from its sign-in (absolute, not renewed by use): cookie Max-Age and Redis TTL. */
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

/** Redis keys of sessions, after the connection's own prefix (`REDIS_KEY_PREFIX`, added by ioredis). */
export const SESSION_KEY_PREFIX = 'panel-session:';

/** 32 random bytes in base64url: what a session id looks like; anything else is refused without asking Redis. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** ioredis states between connection attempts: a command now would wait for them, so it fails at once. */
const REDIS_DISCONNECTED = new Set(['close', 'reconnecting', 'end']);

/** Redis cannot be asked: a session can be neither checked nor created (fails closed, 503). */
export class SessionsUnavailableError extends Error {
  override name = 'SessionsUnavailableError';
}

/** Contexts whose cookie was already found valid, so the edge and the /api router ask Redis once per request. */
const verified = new WeakSet<object>();

export class PanelSessions {
  constructor(
    private readonly redis: Redis,
    private readonly authToken: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The Redis key of a session: an HMAC of its id keyed by AUTH_TOKEN. Redis never holds an id a
   * reader could present, and a new AUTH_TOKEN makes every earlier session unknown (signs everyone out).
   */
  keyOf(id: string): string {
    return SESSION_KEY_PREFIX + createHmac('sha256', this.authToken).update(id, 'utf8').digest('hex');
  }

  /** Starts a session and answers its id (the cookie's value). */
  async create(): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.ask('create a session', () => this.redis.set(this.keyOf(id), new Date().toISOString(), 'EX', SESSION_LIFETIME_SECONDS));
    return id;
  }

  /** Whether `id` (a cookie's value, or undefined) names a live session. */
  async isValid(id: string | undefined): Promise<boolean> {
    if (id === undefined || !SESSION_ID.test(id)) return false;
    return (await this.ask('check a session', () => this.redis.exists(this.keyOf(id)))) === 1;
  }

  /** Whether the request's cookie names a live session (asked of Redis once per request). */
  async requestHasSession(ctx: ParameterizedContext): Promise<boolean> {
    if (verified.has(ctx)) return true;
    const valid = await this.isValid(sessionCookieOf(ctx));
    if (valid) verified.add(ctx);
    return valid;
  }

  /** Ends the session `id` names, if any. */
  async end(id: string | undefined): Promise<void> {
    if (id === undefined || !SESSION_ID.test(id)) return;
    await this.ask('end a session', () => this.redis.del(this.keyOf(id)));
  }

  private async ask<T>(what: string, command: () => Promise<T>): Promise<T> {
    if (REDIS_DISCONNECTED.has(this.redis.status))
      throw new SessionsUnavailableError(`cannot ${what}: Redis connection is ${this.redis.status}`);
    try {
      return await withTimeout(command(), this.timeoutMs, `Redis (${what})`);
    } catch (error) {
      throw new SessionsUnavailableError(`cannot ${what}: ${(error as Error).message}`);
    }
  }
}

/** Sessions exist only where the sign-in does: a token is set and a panel is served. */
export function panelSessions(
  config: { orchestration: { authToken: string | null }; panel: { dir: string | null }; dependencyTimeoutMs: number },
  redis: Redis,
): PanelSessions | null {
  const { authToken } = config.orchestration;
  if (authToken === null || config.panel.dir === null) return null;
  return new PanelSessions(redis, authToken, config.dependencyTimeoutMs);
}

/** The session cookie's value, or undefined. */
export function sessionCookieOf(ctx: Pick<ParameterizedContext, 'cookies'>): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/**
 * Sets the cookie: HttpOnly (no script reads it), SameSite=Strict (never sent by a request another
 * site starts), Path=/, Max-Age the session's lifetime, Secure when the request came over https
 * (behind a trusted proxy, as X-Forwarded-Proto says: TRUST_PROXY).
 */
export function setSessionCookie(ctx: ParameterizedContext, id: string): void {
  ctx.cookies.set(SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: ctx.secure,
    maxAge: SESSION_LIFETIME_SECONDS * 1000,
    overwrite: true,
  });
}

/** Tells the browser to drop the cookie (same attributes, expired). */
export function clearSessionCookie(ctx: ParameterizedContext): void {
  ctx.cookies.set(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: ctx.secure,
    maxAge: 0,
    overwrite: true,
  });
}
