import fs from 'node:fs';
import path from 'node:path';
import { send } from '@koa/send';
import type { Middleware, ParameterizedContext } from 'koa';
import { HttpError } from './errors';
import { isOrchestrationPath, isRankingPath } from './orchestration/security/paths';

/** The legacy server's caching of the panel's files (contract 1.1): always fetched afresh, so a new panel shows at once. */
export const PANEL_CACHE_CONTROL = 'no-cache, no-store, must-revalidate';

/** Whether `file` (a real path) lies in `root` (a real path) or is it. */
function inside(root: string, file: string): boolean {
  return file === root || file.startsWith(`${root}${path.sep}`);
}

/** Anything the panel cannot serve answers the same 404 as an unknown route, naming no file or reason. */
function notFound(): HttpError {
  return new HttpError(404, 'Não encontrado');
}

/**
 * Serves the admin panel's static files from `root` (the real path of PANEL_DIR) at the site root:
 * `/` is its `index.html`, `/app.html`, `/css/...`, `/js/...` (docs/admin-panel.md). Mounted last,
 * after the API routers: the edge (Host check, cross-site writes) has run, a route always wins, and
 * every `/api` path, however spelled, stays the APIs' own (a file never answers for it, not even
 * where no route matches). Only GET and HEAD.
 *
 * @koa/send keeps the path inside the root (`..` and encoded `..` are refused) and skips hidden
 * files; the real path of the file is checked as well, so a symlink in the directory that leads out
 * of it is not followed.
 *
 * `gate` (with AUTH_TOKEN set, api/sign-in.ts) answers where a request without a session goes
 * instead: every file, pages, scripts and styles alike, and any path (so nothing says which files
 * exist), is then a 303 to the sign-in page, which needs none of them.
 */
export function panelFiles(root: string, gate?: (ctx: ParameterizedContext) => Promise<string | null>): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (isOrchestrationPath(ctx.path) || isRankingPath(ctx.path)) return next();
    const elsewhere = gate === undefined ? null : await gate(ctx);
    if (elsewhere !== null) {
      ctx.set('Cache-Control', PANEL_CACHE_CONTROL);
      ctx.redirect(elsewhere);
      ctx.status = 303;
      return;
    }
    let served: string | undefined;
    try {
      served = await send(ctx, ctx.path, {
        root,
        index: 'index.html',
        hidden: false,
        // No precompressed siblings: what is served is exactly the file asked for.
        brotli: false,
        gzip: false,
        setHeaders: (response, file) => {
          if (!inside(root, fs.realpathSync(file))) throw notFound();
          response.setHeader('Cache-Control', PANEL_CACHE_CONTROL);
          response.setHeader('X-Content-Type-Options', 'nosniff');
        },
      });
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      // Client errors of the path (400 undecodable, 403 out of the root, 404 missing): a plain 404 that names no file.
      if (typeof status === 'number' && status >= 400 && status < 500) throw notFound();
      throw error;
    }
    if (served === undefined) throw notFound();
  };
}
