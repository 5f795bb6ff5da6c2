/**
 * What a failed first connection to a backend means for the operator (docs/connections.md): a
 * failure waiting will not mend (a certificate that does not verify, a refused password or key, TLS
 * against plain) ends the process with one line naming the part, the cause and the variable to
 * check; anything else (refused, timed out: the part is starting or away) is waited for.
 */
export type BackendPart = 'MySQL' | 'Redis' | 'Elasticsearch' | 'Temporal';

/** The code of the error a check throws when a TLS client's server turned out to speak plain text. */
export const PLAIN_SERVER = 'PLAIN_SERVER';

export interface ConnectionFailure {
  permanent: boolean;
  /** `Redis: TLS certificate verification failed (REDIS_TLS_CA_FILE)`; never a secret's value. */
  line: string;
}

const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const CERTIFICATE_TEXT =
  /self[- ]signed certificate|unable to verify the first certificate|unable to get (local )?issuer certificate|certificate has expired|Hostname\/IP does not match|does not match certificate's altnames|invalid peer certificate|UnknownIssuer|certificate verify failed|CA fingerprint does not match/i;
const TLS_AGAINST_PLAIN =
  /wrong version number|ERR_SSL_WRONG_VERSION_NUMBER|packet length too long|InvalidContentType|CorruptMessage|http2 error: connection error detected: frame with invalid size/i;
// Temporal's core (hyper) says one of the last three when a TLS server drops a plain HTTP/2 preface;
// `Canceled, "connection closed"` seen once in a full run instead of the usual protocol error.
const PLAIN_AGAINST_TLS =
  /socket hang up|other side closed|ECONNRESET|Connection is closed|plain HTTP request was sent to HTTPS port|Protocol error|Received HTTP status code 400|status code 400|frame with invalid size|h2 protocol error|connection reset|hyper::Error\(Canceled, "connection closed"\)/i;

interface ErrorFacts {
  code: string;
  errno: number | undefined;
  message: string;
  status: number | undefined;
}

function factsOf(error: unknown): ErrorFacts {
  const seen: string[] = [];
  let code = '';
  let errno: number | undefined;
  let status: number | undefined;
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const value = current as {
      code?: unknown;
      errno?: unknown;
      message?: unknown;
      statusCode?: unknown;
      meta?: { statusCode?: unknown };
      cause?: unknown;
    };
    if (typeof value.code === 'string' && code === '') code = value.code;
    if (typeof value.errno === 'number' && errno === undefined) errno = value.errno;
    if (typeof value.statusCode === 'number') status ??= value.statusCode;
    if (typeof value.meta?.statusCode === 'number') status ??= value.meta.statusCode;
    if (typeof value.message === 'string') seen.push(value.message);
    current = value.cause;
  }
  if (typeof (error as { code?: unknown })?.code === 'number') code = String((error as { code: number }).code);
  return { code, errno, message: seen.join(' / '), status };
}

const certificate = (facts: ErrorFacts) => CERTIFICATE_CODES.has(facts.code) || CERTIFICATE_TEXT.test(facts.message);

/** The failure of a first connection to `part`, told for the operator; `tlsOn` says whether TLS was configured. */
export function describeConnectionFailure(part: BackendPart, error: unknown, tlsOn: boolean): ConnectionFailure {
  const facts = factsOf(error);
  const permanent = (cause: string, variable: string): ConnectionFailure => ({ permanent: true, line: `${part}: ${cause} (${variable})` });
  const firstLine = facts.message.split('\n')[0]!.slice(0, 200);
  const transient: ConnectionFailure = {
    permanent: false,
    line: `${part}: not reachable yet (${firstLine || facts.code || 'no answer'}): waiting`,
  };
  const variables = VARIABLES[part];
  if (certificate(facts)) {
    if (/fingerprint/i.test(facts.message)) return permanent('TLS certificate fingerprint does not match', 'ELASTICSEARCH_CA_FINGERPRINT');
    if (facts.code === 'ERR_TLS_CERT_ALTNAME_INVALID' || /altnames|Hostname\/IP does not match|NotValidForName/i.test(facts.message))
      return permanent('TLS certificate is not valid for the host name', variables.serverName);
    return permanent('TLS certificate verification failed', variables.ca);
  }
  if (tlsOn && (facts.code === PLAIN_SERVER || TLS_AGAINST_PLAIN.test(facts.message)))
    return permanent('TLS was configured but the server speaks plain text', variables.tls);
  const refusal = AUTH_REFUSALS[part](facts);
  // A MySQL user may REQUIRE SSL: the server then refuses its plain login as a wrong password.
  if (refusal && part === 'MySQL' && !tlsOn)
    return permanent(`${refusal}, or requires TLS of this user`, `${variables.credentials}, MYSQL_SSL_MODE`);
  if (refusal) return permanent(refusal, variables.credentials);
  if (REQUIRES_TLS[part](facts)) return permanent('the server requires TLS', variables.tls);
  if (part === 'MySQL' && facts.code === 'HANDSHAKE_NO_SSL_SUPPORT') return permanent('the server offers no TLS', 'MYSQL_SSL_MODE');
  if (part === 'Elasticsearch' && facts.status === 403)
    return permanent('the credentials lack a privilege on the person index (view_index_metadata)', variables.credentials);
  if (!tlsOn && PLAIN_AGAINST_TLS.test(facts.message))
    return permanent('the server closed a plain connection (it probably expects TLS)', variables.tls);
  return transient;
}

const VARIABLES: Record<BackendPart, { ca: string; serverName: string; tls: string; credentials: string }> = {
  MySQL: {
    ca: 'MYSQL_SSL_CA_FILE',
    serverName: 'MYSQL_HOST, MYSQL_SSL_MODE',
    tls: 'MYSQL_SSL_MODE',
    credentials: 'MYSQL_USER, MYSQL_PASSWORD',
  },
  Redis: { ca: 'REDIS_TLS_CA_FILE', serverName: 'REDIS_TLS_SERVERNAME', tls: 'REDIS_TLS', credentials: 'REDIS_USERNAME, REDIS_PASSWORD' },
  Elasticsearch: {
    ca: 'ELASTICSEARCH_CA_FILE',
    serverName: 'ELASTICSEARCH_URL',
    tls: 'ELASTICSEARCH_URL',
    credentials: 'ELASTICSEARCH_API_KEY, ELASTICSEARCH_USERNAME, ELASTICSEARCH_PASSWORD',
  },
  Temporal: {
    ca: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    serverName: 'TEMPORAL_TLS_SERVER_NAME',
    tls: 'TEMPORAL_TLS',
    credentials: 'TEMPORAL_API_KEY, TEMPORAL_TLS_CLIENT_CERT_PATH',
  },
};

const AUTH_REFUSALS: Record<BackendPart, (facts: ErrorFacts) => string | null> = {
  MySQL: (facts) => (facts.errno === 1045 || facts.code === 'ER_ACCESS_DENIED_ERROR' ? 'the server refused the user or password' : null),
  Redis: (facts) =>
    /WRONGPASS|NOAUTH|invalid username-password|user is disabled|NOPERM/i.test(facts.message)
      ? 'the server refused the user or password'
      : null,
  Elasticsearch: (facts) => (facts.status === 401 ? 'the server refused the credentials' : null),
  Temporal: (facts) =>
    facts.code === '16' ||
    facts.code === '7' ||
    /UNAUTHENTICATED|PERMISSION_DENIED|Request unauthorized|status code 40[13]|status: 40[13]\b/i.test(facts.message)
      ? 'the server refused the API key or client certificate'
      : /certificate required|alert number 116|peer did not return a certificate|No required SSL certificate/i.test(facts.message)
        ? 'the server requires a client certificate'
        : null,
};

const REQUIRES_TLS: Record<BackendPart, (facts: ErrorFacts) => boolean> = {
  MySQL: (facts) =>
    facts.errno === 3159 || facts.errno === 4036 || /secure transport|require_secure_transport|SSL is required/i.test(facts.message),
  Redis: () => false,
  Elasticsearch: () => false,
  Temporal: () => false,
};
