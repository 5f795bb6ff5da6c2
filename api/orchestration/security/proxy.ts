import type Koa from 'koa';

/**
 * Behind a reverse proxy (`TRUST_PROXY`), `ctx.ip` is taken from `X-Forwarded-For`; otherwise the header
 * is ignored. Only the last entry counts, the one our proxy appended: earlier entries come from the
 * client and could be forged to escape the rate limit.
 */
export function trustProxyHeaders(app: Koa, trustProxy: boolean): void {
  app.proxy = trustProxy;
  app.maxIpsCount = 1;
}
