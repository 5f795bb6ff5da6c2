import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';
import { originAllowed } from './browser';
import { passThrough } from './paths';

/** Headers a browser client may send: the token, JSON bodies and its session id. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Client-Id'];
/** Headers a browser client may read besides the simple ones: the rate-limit budget and the auth challenge. */
const EXPOSED_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'WWW-Authenticate'];
/** Browsers may cache a preflight answer this long (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Cross-origin access per `CORS_ORIGINS`: `*` allows any origin, a list allows exactly those, an empty
 * list adds no CORS headers (same origin only). An allowed preflight is answered here (204), before the
 * rate limit and the token check; a refused origin gets no CORS headers and the browser blocks it.
 */
export function corsPolicy(origins: string[]): Middleware {
  if (origins.length === 0) return passThrough;
  return cors({
    origin: origins.includes('*') ? '*' : (ctx: Context) => allowedOrigin(origins, ctx.get('origin')),
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    // Credentials are bearer tokens, never cookies: browsers need not send cookies.
    credentials: false,
  });
}

/** The request's origin when listed; '' tells @koa/cors to add no headers. */
function allowedOrigin(origins: string[], requestOrigin: string): string {
  return origins.includes(requestOrigin) ? requestOrigin : '';
}

/**
 * Whether a WebSocket handshake's `Origin` may open a socket. CORS does not apply to WebSockets: a
 * browser lets any page open one and read what it receives, and live output of scheduled executions
 * goes to every socket, so the same rule as for cross-site writes decides (browser.ts#originAllowed);
 * clients that send no `Origin` (not browsers, which always send it) pass.
 */
export function socketOriginAllowed(origins: string[], origin: string | undefined, host: string): boolean {
  return !origin || originAllowed(origins, origin, host);
}
