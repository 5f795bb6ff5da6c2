import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import websockify from 'koa-websocket';
import type { Services } from '../lib/services';
import { errorEnvelope } from './errors';
import { orchestrationApi } from './orchestration';
import { corsPolicy, onOrchestrationPaths, rateLimit, requireToken, trustProxyHeaders } from './orchestration/security';
import { rankingApi } from './ranking';
import { WEBSOCKET_PATH, websocketHandler } from './websocket';

/** One Koa application serving both APIs over HTTP and the live-output WebSocket at /ws. */
export function createApp(services: Services): websockify.App {
  // The ws server only accepts upgrades on WEBSOCKET_PATH; other paths are refused at the handshake.
  const app = websockify(new Koa(), { path: WEBSOCKET_PATH });
  const { orchestration: security, dependencyTimeoutMs } = services.config;
  trustProxyHeaders(app, security.trustProxy);

  app.use(errorEnvelope(services.logger));
  // The orchestration API's edge (docs/orchestration-security.md), in this order: an allowed CORS
  // preflight is answered before anything else; the rate limit counts unauthenticated requests too
  // (it slows down token guessing); nothing, not even the body parser, runs without the token.
  app.use(onOrchestrationPaths(corsPolicy(security.corsOrigins)));
  const budget = { limit: security.rateLimit, timeoutMs: dependencyTimeoutMs };
  app.use(onOrchestrationPaths(rateLimit(services.redis, budget, services.logger)));
  app.use(onOrchestrationPaths(requireToken(security.authToken)));
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '1mb', onError: rethrowAsBadRequest }));

  const ranking = rankingApi(services);
  const orchestration = orchestrationApi(services);
  app.use(ranking.routes()).use(ranking.allowedMethods({ throw: true }));
  app.use(orchestration.routes()).use(orchestration.allowedMethods({ throw: true }));

  const live = { relay: services.liveRelay, readyTimeoutMs: dependencyTimeoutMs };
  app.ws.use(websocketHandler(services.logger, { authToken: security.authToken, corsOrigins: security.corsOrigins }, live));
  return app;
}

function rethrowAsBadRequest(error: Error): never {
  throw Object.assign(new Error(`invalid JSON body: ${error.message}`), { status: 400, expose: true });
}
