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
  // One request asks for its path's form up to five times (CORS, rate limit, token, router, panel).
  if (rawPath === lastRaw) return lastCanonical;
  lastCanonical = computeCanonicalPath(rawPath);
  lastRaw = rawPath;
  return lastCanonical;
}

let lastRaw: string | null = null;
let lastCanonical = '';

function computeCanonicalPath(rawPath: string): string {
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

/**
 * Reads the admin panel repeats on its own, outside the rate limit: it asks `GET /executions/active`
 * after every live output message (contract 1.3, 3.8), so a busy run watched in a few tabs sends
 * hundreds a minute. It reads only the active records (an indexed status lookup, no output), so it
 * costs little; it still needs the token when one is set (docs/orchestration-security.md, "Rate limit").
 */
const UNMETERED_READS = new Set(['/api/executions/active']);

/** Whether a request is one of the panel's repeated cheap reads (UNMETERED_READS): GET or HEAD only. */
export function isUnmeteredRead(method: string, rawPath: string): boolean {
  return (method === 'GET' || method === 'HEAD') && UNMETERED_READS.has(canonicalPath(rawPath));
}

/** Runs `middleware` for orchestration paths only; every other request passes straight on. */
export function onOrchestrationPaths(middleware: Middleware): Middleware {
  return (ctx, next) => (isOrchestrationPath(ctx.path) ? middleware(ctx, next) : next());
}

/** The middleware that does nothing, for a protection that is switched off by configuration. */
export const passThrough: Middleware = (_ctx, next) => next();
