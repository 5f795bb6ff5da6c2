import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import websockify from 'koa-websocket';
import type { ApiResources } from './resources';
import { ALLOWED_METHODS, errorEnvelope, HttpError } from './errors';
import { hookRoutes, onHookPaths } from './hook-routes';
import { hookCallMetrics, metricsRoutes, onMetricsPath, requestMetrics, requireKnownHostOrMetricsToken } from './metrics';
import { apiProbes, probeRoutes, type ProcessProbes } from './probes';
import { serveRecordGauges } from '../services/record-gauges';
import { collectProcessMetrics } from '../lib/metrics';
import { orchestrationApi } from './orchestration';
import {
  corsPolicy,
  onOrchestrationPaths,
  panelSessions,
  rateLimit,
  refuseCrossSiteWrites,
  requireKnownHost,
  requireToken,
  trustProxyHeaders,
} from './orchestration/security';
import { rankingApi } from './ranking';
import { openApiDocuments } from './openapi/catalog';
import { referenceAssets } from './openapi/routes';
import { panelFiles } from './panel';
import { publishedSites } from './sites';
import { sitesDirectory } from '../services/files';
import { panelGate, signInRoutes } from './sign-in';
import { MAX_INCOMING_FRAME_BYTES, SocketsByAddress, socketHandshakeGuard, websocketHandler, type SocketAccess } from './websocket';

/**
 * One Koa application serving both APIs over HTTP, the live-output WebSocket at / and /ws, the probes
 * (`probes`: the process's; by default the API's own), and the admin panel's files when PANEL_DIR is set.
 */
export function createApp(resources: ApiResources, probes: ProcessProbes = apiProbes(resources)): websockify.App {
  const { orchestration: security, dependencyTimeoutMs } = resources.config;
  const koa = new Koa();
  trustProxyHeaders(koa, security.trustProxy);
  // The panel's sign-in sessions, when a token is set and a panel served (api/sign-in.ts); else null.
  const sessions = panelSessions(resources.config, resources.redis);
  const socketAccess: SocketAccess = {
    authToken: security.authToken,
    corsOrigins: security.corsOrigins,
    allowedHosts: security.allowedHosts,
    sessions,
    ...security.websocket,
  };
  const sockets = new SocketsByAddress();
  // The ws server accepts only upgrades that pass the guard, which also refuses paths other than / and /ws.
  const app = websockify(koa, {
    maxPayload: MAX_INCOMING_FRAME_BYTES,
    verifyClient: socketHandshakeGuard(koa, socketAccess, sockets),
  });

  if (resources.config.metrics.enabled) {
    collectProcessMetrics();
    app.use(requestMetrics());
    // The service-wide gauges (runs running, waiting, approvals, last ranking) come from this API's database.
    serveRecordGauges(resources.database);
  }
  app.use(errorEnvelope(resources.logger));
  // /livez and /readyz before the edge: a platform probes the pod's address, without the token (api/probes.ts).
  app.use(probeRoutes(probes));
  // The edge (docs/orchestration-security.md), in this order: a Host the service does not answer to
  // and a write from another site's page are refused for both services (but /metrics asked with a
  // token set: the token protects it, api/metrics.ts); on /api (however spelled) an allowed CORS
  // preflight is answered before anything else, the rate limit counts unauthenticated requests too (it
  // slows down token guessing), and nothing, not even the body parser, runs without the token.
  const metricsEnabled = resources.config.metrics.enabled;
  app.use(
    metricsEnabled ? requireKnownHostOrMetricsToken(security.allowedHosts, security.authToken) : requireKnownHost(security.allowedHosts),
  );
  app.use(onOrchestrationPaths(corsPolicy(security.corsOrigins)));
  app.use(refuseCrossSiteWrites(security.corsOrigins));
  const budget = { limit: security.rateLimit, timeoutMs: dependencyTimeoutMs };
  app.use(onOrchestrationPaths(rateLimit(resources.redis, budget, resources.logger)));
  app.use(onOrchestrationPaths(requireToken(security.authToken, sessions)));
  // The metrics ask for the token as /api does (docs/observability.md); Prometheus sends it as a bearer token.
  if (metricsEnabled) {
    app.use(onMetricsPath(requireToken(security.authToken, sessions)));
    const metrics = metricsRoutes();
    app.use(metrics.routes()).use(metrics.allowedMethods(ALLOWED_METHODS));
  }
  // The sign-in reads a form, so it comes before the JSON body parser (which would claim the body).
  if (sessions !== null && security.authToken !== null) {
    const signIn = signInRoutes(resources, sessions, security.authToken);
    app.use(signIn.routes()).use(signIn.allowedMethods(ALLOWED_METHODS));
  }
  // The public webhook calls (/hook/:token): no API token, their own budget, and before the JSON body
  // parser, which would consume the bytes their signature signs (api/hook-routes.ts).
  const hookBudget = { limit: resources.config.orchestration.webhooks.rateLimit, budget: 'hook', timeoutMs: dependencyTimeoutMs };
  app.use(onHookPaths(hookCallMetrics()));
  app.use(onHookPaths(rateLimit(resources.redis, hookBudget, resources.logger)));
  const hook = hookRoutes(resources);
  app.use(hook.routes()).use(hook.allowedMethods(ALLOWED_METHODS));
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: JSON_BODY_LIMIT, onError: rethrowBodyError }));

  // Both OpenAPI documents are built now: a schema that cannot be described stops the start, not a reader.
  openApiDocuments();
  const ranking = rankingApi(resources);
  const orchestration = orchestrationApi(resources);
  app.use(ranking.routes()).use(ranking.allowedMethods(ALLOWED_METHODS));
  app.use(orchestration.routes()).use(orchestration.allowedMethods(ALLOWED_METHODS));
  // The reference pages' assets (Swagger UI): public files, before the panel's gate (docs/openapi.md).
  app.use(referenceAssets());
  // Published project snapshots at /sites/ (docs/files.md): sandboxed, public, before the panel's gate.
  app.use(publishedSites(sitesDirectory(resources.config.orchestration.dataDir)));
  // Last: the panel's files (docs/admin-panel.md), behind the same edge; any route wins over a file.
  // With a token, a browser without a session is sent to the sign-in page instead.
  if (resources.config.panel.dir !== null)
    app.use(panelFiles(resources.config.panel.dir, sessions === null ? undefined : panelGate(sessions)));

  const live = { relay: resources.liveRelay, readyTimeoutMs: dependencyTimeoutMs };
  app.ws.use(websocketHandler(resources.logger, socketAccess, sockets, live));
  return app;
}

/** Largest JSON body: system prompts and imports can be large (contract 1.3 asks for at least 1 MB). */
const JSON_BODY_LIMIT = '1mb';

/** koa-bodyparser's refusal of JSON that is neither an object nor a list (its strict mode). */
const NOT_OBJECT_OR_LIST = 'invalid JSON, only supports object and array';

/**
 * A body over the limit is 413 (the parser's own status), anything else it refuses is a bad request;
 * in pt-BR under `{"error"}`, as before under the ranking service's `{"detail"}` (docs/errors.md). A
 * syntax error keeps the parser's own words (where it stopped), marked as the parser's.
 */
function rethrowBodyError(error: Error & { status?: number }): never {
  if (error.status === 413) {
    throw new HttpError(413, `O corpo JSON é maior que ${JSON_BODY_LIMIT}`);
  }
  if (error.message === NOT_OBJECT_OR_LIST) throw new HttpError(400, 'Corpo JSON inválido: esperava um objeto ou uma lista');
  throw new HttpError(400, `Corpo JSON inválido; o analisador diz: ${error.message}`);
}
