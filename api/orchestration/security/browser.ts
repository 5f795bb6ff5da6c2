import type { Middleware, ParameterizedContext } from 'koa';
import { HttpError } from '../../errors';
import { passThrough } from './paths';

/**
 * Defences against pages of other sites that a person's browser visits (docs/orchestration-security.md,
 * "Browser-facing defences"). Both apply to the whole service, ranking included: a page must neither
 * start work here (cross-site writes) nor read answers through a name that resolves here (DNS rebinding).
 */

/** The host name of a `Host` header value, lower-case, without the port; '' when malformed. */
export function hostnameOf(hostHeader: string): string {
  if (hostHeader === '') return '';
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** Whether a host name (as hostnameOf gives it) is one the service answers to (`ALLOWED_HOSTS`). */
export function hostAllowed(allowedHosts: readonly string[], hostname: string): boolean {
  return allowedHosts.includes('*') || (hostname !== '' && allowedHosts.includes(hostname));
}

/**
 * Refuses a request whose `Host` (`X-Forwarded-Host` behind a trusted proxy) names a host the service
 * does not answer to, with 403: a page on a rebound name (attacker.example resolving to 127.0.0.1) is
 * same-origin with itself, so the browser would let it read every answer.
 */
export function requireKnownHost(allowedHosts: readonly string[]): Middleware {
  if (allowedHosts.includes('*')) return passThrough;
  return (ctx, next) => {
    const hostname = hostnameOf(ctx.host);
    if (hostAllowed(allowedHosts, hostname)) return next();
    const hosts = allowedHosts.join(', ');
    throw new HttpError(403, `Host não permitido: "${ctx.host}"; o serviço atende a ${hosts} (ALLOWED_HOSTS)`);
  };
}

/**
 * Whether a browser `Origin` may act here: any with `*`, a listed one (`CORS_ORIGINS`), or the
 * service's own pages (the origin's host is the request's host).
 */
export function originAllowed(corsOrigins: readonly string[], origin: string, requestHost: string): boolean {
  if (corsOrigins.includes('*') || corsOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host.toLowerCase() === requestHost.toLowerCase();
  } catch {
    return false; // "null" (sandboxed pages, files, some redirects) and malformed origins
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** `Sec-Fetch-Site` values a browser sends for the service's own pages and for typed-in addresses. */
const OWN_SITE = new Set(['same-origin', 'none']);

/**
 * Refuses a state-changing request (anything but GET, HEAD, OPTIONS) that a page of another origin
 * sent, with 403. Judged by `Origin` (browsers send it with every such request) and, when it is
 * missing, by `Sec-Fetch-Site`; never by the content type, since a form post or a body-less request
 * needs no preflight. Clients that are not browsers send neither header and pass.
 */
export function refuseCrossSiteWrites(corsOrigins: readonly string[]): Middleware {
  return (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const refusal = crossSiteRefusal(ctx, corsOrigins);
    if (refusal === null) return next();
    throw new HttpError(403, refusal);
  };
}

/** The refusal, in pt-BR, one text for both envelopes (`{"error"}` and the ranking service's `{"detail"}`); null when allowed. */
function crossSiteRefusal(ctx: ParameterizedContext, corsOrigins: readonly string[]): string | null {
  const origin = ctx.get('origin');
  if (origin !== '') {
    if (originAllowed(corsOrigins, origin, ctx.host)) return null;
    return `Requisição de outro site recusada: a origem "${origin}" não é permitida (CORS_ORIGINS)`;
  }
  const site = ctx.get('sec-fetch-site').toLowerCase();
  if (site === '' || OWN_SITE.has(site)) return null;
  return `Requisição de outro site recusada: uma página ${site} não pode alterar nada aqui`;
}
