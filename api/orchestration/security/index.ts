/** The orchestration API's edge: who may call (token, panel session, CORS), how often (rate limit), and from where (proxy). */
export { hostAllowed, hostnameOf, originAllowed, refuseCrossSiteWrites, requireKnownHost } from './browser';
export { corsPolicy, socketOriginAllowed } from './cors';
export { canonicalPath, isOpenOrchestrationPath, isOrchestrationPath, isRankingPath, onOrchestrationPaths } from './paths';
export { trustProxyHeaders } from './proxy';
export { RATE_LIMIT_KEY_PREFIX, rateLimit } from './rate-limit';
export {
  PanelSessions,
  SESSION_COOKIE,
  SESSION_KEY_PREFIX,
  SESSION_LIFETIME_SECONDS,
  SessionsUnavailableError,
  clearSessionCookie,
  panelSessions,
  sessionCookieOf,
  setSessionCookie,
} from './session';
export {
  AUTHENTICATE_CHALLENGE,
  SESSION_INVALID_MESSAGE,
  bearerTokenOf,
  credentialRequiredMessage,
  requireToken,
  tokenMatches,
} from './token';
