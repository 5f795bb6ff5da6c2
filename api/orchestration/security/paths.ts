import path from 'node:path';
import type { Middleware } from 'koa';

/** Percent-decoding rounds applied before giving up on a path (`%2561` is `%61` is `a`). */
const DECODE_ROUNDS = 3;

/**
 * The path as the most lenient router could read it: percent-decoded (repeatedly), backslashes as
 * slashes, repeated slashes collapsed, `.` and `..` segments resolved, lower-cased, no trailing slash.
 * Protections decide on this form, so every spelling of a protected path (`/API/agents`,
 * `/api//agents`, `/api/%61gents`, `/api/v1/../agents`) is protected, whether or not a router would
 * serve it; the routers themselves match exact spellings only (api/orchestration/index.ts).
 */
export function canonicalPath(rawPath: string): string {
  let decoded = rawPath;
  for (let round = 0; round < DECODE_ROUNDS && decoded.includes('%'); round += 1) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break; // a malformed escape stays as it is; no router decodes it either
    }
  }
  const normalised = path.posix.normalize(`/${decoded.replace(/\\/g, '/')}`).toLowerCase();
  return normalised.length > 1 ? normalised.replace(/\/+$/, '') : normalised;
}

/** Paths under /api that answer without the token: the health check the panel's contract leaves open. */
const OPEN_PATHS = new Set(['/api/health']);

/**
 * The ranking service's paths (`/api/v1` and below, which follow another specification, with no
 * token): only when both the path as sent and its canonical form say so. `/api/reports/..%2Fv1`
 * reads as `/api/v1` once decoded, but a router matches the orchestration route
 * `/api/reports/:filename` on the path as sent, so it must stay an orchestration path.
 */
export function isRankingPath(rawPath: string): boolean {
  const canonical = canonicalPath(rawPath);
  return underPrefix(rawPath, '/api/v1') && underPrefix(canonical, '/api/v1');
}

/** The orchestration service's paths: `/api` and below, however spelled, except the ranking service's. */
export function isOrchestrationPath(rawPath: string): boolean {
  return underPrefix(canonicalPath(rawPath), '/api') && !isRankingPath(rawPath);
}

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Whether an orchestration path answers without the token (see OPEN_PATHS). */
export function isOpenOrchestrationPath(rawPath: string): boolean {
  return OPEN_PATHS.has(canonicalPath(rawPath));
}

/** Runs `middleware` for orchestration paths only; every other request passes straight on. */
export function onOrchestrationPaths(middleware: Middleware): Middleware {
  return (ctx, next) => (isOrchestrationPath(ctx.path) ? middleware(ctx, next) : next());
}

/** The middleware that does nothing, for a protection that is switched off by configuration. */
export const passThrough: Middleware = (_ctx, next) => next();
