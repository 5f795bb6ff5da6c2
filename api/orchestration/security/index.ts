/** The orchestration API's edge: who may call (token, CORS), how often (rate limit), and from where (proxy). */
export { hostAllowed, hostnameOf, originAllowed, refuseCrossSiteWrites, requireKnownHost } from './browser';
export { corsPolicy, socketOriginAllowed } from './cors';
export { canonicalPath, isOpenOrchestrationPath, isOrchestrationPath, isRankingPath, onOrchestrationPaths } from './paths';
export { trustProxyHeaders } from './proxy';
export { RATE_LIMIT_KEY_PREFIX, rateLimit } from './rate-limit';
export { AUTHENTICATE_CHALLENGE, bearerTokenOf, requireToken, tokenMatches } from './token';
