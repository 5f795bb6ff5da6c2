import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { ApiResources } from './resources';
import { HttpError } from './errors';
import {
  clearSessionCookie,
  rateLimit,
  sessionCookieOf,
  SessionsUnavailableError,
  setSessionCookie,
  tokenMatches,
  type PanelSessions,
} from './orchestration/security';
import { PAGE_CONTENT_SECURITY_POLICY, signInPage, signOutPage, type SignInMessage } from './sign-in-page';

/**
 * The panel's sign-in (docs/orchestration-security.md, "Signing in to the panel"), mounted when
 * AUTH_TOKEN and PANEL_DIR are both set: the panel cannot send the token (contract 1.1), so the
 * service asks for it once and answers a session cookie (security/session.ts).
 *
 *   GET  /sign-in   the form (a browser already signed in goes on to /app.html)
 *   POST /sign-in   `token=<AUTH_TOKEN>` (a form): 303 to /app.html with the cookie, or the form again with 401
 *   GET  /sign-out  a page with a sign-out button
 *   POST /sign-out  ends the session, clears the cookie, 303 to /sign-in
 *
 * The POSTs pass the edge's cross-site-write check (security/browser.ts) like every write.
 */

/** Where a signed-in browser goes: the panel's entry (contract 1.1). */
export const PANEL_ENTRY = '/app.html';
export const SIGN_IN_PATH = '/sign-in';
export const SIGN_OUT_PATH = '/sign-out';

/** Sign-in attempts per client address and window, successful ones included: guessing a token of 16+ characters this slowly is hopeless. */
export const SIGN_IN_ATTEMPTS = { requests: 10, windowSeconds: 300 };

/** The form carries one token; a body beyond this is refused (413) before it is read whole. */
const FORM_LIMIT = '8kb';

const STATUS_OF: Record<SignInMessage, number> = { invalid: 401, missing: 400, tooMany: 429, unavailable: 503 };

/** Sets the headers every sign-in page carries: not cached (it may follow a session change), not framed, nothing but its own style. */
function sendPage(ctx: ParameterizedContext, status: number, html: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', PAGE_CONTENT_SECURITY_POLICY);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Not no-referrer: under it a browser sends `Origin: null` with the form's POST, which the cross-site check refuses.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.body = html;
}

function seeOther(ctx: ParameterizedContext, location: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(location);
  ctx.status = 303;
}

function refuse(ctx: ParameterizedContext, message: SignInMessage): void {
  sendPage(ctx, STATUS_OF[message], signInPage(message));
}

export function signInRoutes(resources: ApiResources, sessions: PanelSessions, authToken: string): Router {
  const router = new Router({ sensitive: true, strict: true });
  const attempts = rateLimit(
    resources.redis,
    { limit: SIGN_IN_ATTEMPTS, budget: 'sign-in', timeoutMs: resources.config.dependencyTimeoutMs },
    resources.logger,
  );
  const form = bodyParser({ enableTypes: ['form'], formLimit: FORM_LIMIT });

  /** The attempt's budget; over it the form again with 429 (the limiter's Retry-After stays on the answer). */
  const limited: Middleware = async (ctx, next) => {
    let withinBudget = false;
    try {
      await attempts(ctx, async () => {
        withinBudget = true;
        await next();
      });
    } catch (error) {
      if (!withinBudget && error instanceof HttpError && error.status === 429) {
        refuse(ctx, 'tooMany');
        return;
      }
      throw error;
    }
  };

  router.get(SIGN_IN_PATH, async (ctx) => {
    const signedIn = await sessions.requestHasSession(ctx).catch(() => false);
    if (signedIn) seeOther(ctx, PANEL_ENTRY);
    else sendPage(ctx, 200, signInPage(null));
  });

  router.post(SIGN_IN_PATH, limited, form, async (ctx) => {
    const { token } = ctx.request.body as Record<string, unknown>;
    if (typeof token !== 'string' || token === '') return refuse(ctx, 'missing');
    // Constant time (security/token.ts); nothing is set on a wrong token.
    if (!tokenMatches(authToken, token)) return refuse(ctx, 'invalid');
    let id: string;
    try {
      id = await sessions.create();
    } catch (error) {
      if (!(error instanceof SessionsUnavailableError)) throw error;
      resources.logger.warn({ err: error }, 'panel sign-in: no session could be created');
      return refuse(ctx, 'unavailable');
    }
    setSessionCookie(ctx, id);
    seeOther(ctx, PANEL_ENTRY);
  });

  router.get(SIGN_OUT_PATH, (ctx) => sendPage(ctx, 200, signOutPage()));

  router.post(SIGN_OUT_PATH, async (ctx) => {
    // The cookie goes in any case; a session Redis could not delete lapses at the end of its lifetime.
    clearSessionCookie(ctx);
    try {
      await sessions.end(sessionCookieOf(ctx));
    } catch (error) {
      if (!(error instanceof SessionsUnavailableError)) throw error;
      resources.logger.warn({ err: error }, 'panel sign-out: the session could not be deleted; it lapses at the end of its lifetime');
    }
    seeOther(ctx, SIGN_IN_PATH);
  });

  return router;
}

/**
 * For the panel's files (api/panel.ts): whether the request may be served, and where it goes when
 * not. A session that cannot be checked (Redis down) counts as none: the sign-in then says why.
 */
export function panelGate(sessions: PanelSessions): (ctx: ParameterizedContext) => Promise<string | null> {
  return async (ctx) => ((await sessions.requestHasSession(ctx).catch(() => false)) ? null : SIGN_IN_PATH);
}
