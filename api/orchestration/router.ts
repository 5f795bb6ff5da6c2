import Router from '@koa/router';

/**
 * Every orchestration router matches exact spellings only (case-sensitive; a trailing slash is allowed). The
 * protections decide on a canonical form of the path (security/paths.ts), so a spelling a router
 * would read differently from them can only be refused, never served unprotected.
 */
const EXACT_MATCHING = { sensitive: true } as const;

export function orchestrationRouter(prefix?: string): Router {
  return new Router(prefix === undefined ? EXACT_MATCHING : { ...EXACT_MATCHING, prefix });
}

/** Stops the start when a route was registered on a router made otherwise (a plain `new Router()`). */
export function assertExactMatching(router: Router): void {
  const loose = router.stack.filter((layer) => layer.opts.sensitive !== true);
  if (loose.length > 0) {
    throw new Error(`orchestration routes must be made with orchestrationRouter(): ${loose.map((layer) => layer.path).join(', ')}`);
  }
}
