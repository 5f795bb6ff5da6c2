import fs from 'node:fs';
import path from 'node:path';
import { send } from '@koa/send';
import type { Middleware } from 'koa';
import { isOrchestrationPath } from './orchestration/security/paths';

const PREFIX = '/sites/';

/**
 * Every /sites/ answer runs in a sandbox: the page gets an opaque origin, so it is not the panel's
 * origin even though it is served from it. Its scripts run, but cannot read the panel's storage, and
 * their requests to /api are cross-origin (no cookie by default, no readable answer: no CORS grant
 * for an opaque origin; a write is refused by the cross-site check). No `allow-same-origin`, ever.
 */
export const SITES_CSP = 'sandbox allow-scripts';

/**
 * The published snapshots (services/files/publish.ts) at `/sites/<project>/...`, from `sitesDir`
 * (AGENT_DATA_DIR/sites, the service's own folder, never the agents'). GET and HEAD; a folder is its
 * `index.html`; `/sites/<project>` leads to `/sites/<project>/` so relative links work. Types from the
 * extension, `nosniff`, no caching. Public like the legacy server's published sites: no token.
 */
export function publishedSites(sitesDir: string): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || isOrchestrationPath(ctx.path)) return next();
    ctx.set('Content-Security-Policy', SITES_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const rest = ctx.path.slice(PREFIX.length);
    const slash = rest.indexOf('/');
    const project = projectName(slash === -1 ? rest : rest.slice(0, slash));
    if (project === null) return notFound(ctx);
    if (slash === -1) {
      ctx.status = 301;
      ctx.redirect(`${PREFIX}${encodeURIComponent(project)}/`);
      return;
    }
    const root = path.join(sitesDir, project);
    let realRoot: string;
    try {
      realRoot = fs.realpathSync(root);
    } catch {
      return notFound(ctx);
    }
    try {
      const served = await send(ctx, rest.slice(slash), {
        root: realRoot,
        index: 'index.html',
        hidden: false,
        brotli: false,
        gzip: false,
        setHeaders: (_response, file) => {
          // A snapshot holds no symlink (nothing is copied as one); checked all the same.
          const real = fs.realpathSync(file);
          if (real !== realRoot && !real.startsWith(`${realRoot}${path.sep}`)) throw Object.assign(new Error('outside'), { status: 404 });
        },
      });
      if (served === undefined) notFound(ctx);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) return notFound(ctx);
      throw error;
    }
  };
}

/** The project's folder name from the URL's segment; null for anything that is not one plain name. */
function projectName(segment: string): string | null {
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (name === '' || name.startsWith('.') || /[/\\]|\p{Cc}/u.test(name)) return null;
  return name;
}

function notFound(ctx: Parameters<Middleware>[0]): void {
  ctx.status = 404;
  ctx.body = { error: 'Não encontrado' };
}
