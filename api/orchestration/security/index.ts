/** The orchestration API's edge: who may call (token, panel session, CORS), how often (rate limit), and from where (proxy). */
export { hostAllowed, hostnameOf, refuseCrossSiteWrites, requireKnownHost } from './browser';
export { corsPolicy, socketOriginAllowed } from './cors';
export { onOrchestrationPaths } from './paths';
export { trustProxyHeaders } from './proxy';
export { RATE_LIMIT_KEY_PREFIX, rateLimit } from './rate-limit';
export {
  PanelSessions,
  SESSION_COOKIE,
  SESSION_LIFETIME_SECONDS,
  SessionsUnavailableError,
  clearSessionCookie,
  panelSessions,
  sessionCookieOf,
  setSessionCookie,
} from './session';
export { bearerTokenOf, requireToken, tokenMatches } from './token';
