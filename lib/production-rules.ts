import type { ElasticsearchSettings, MysqlTls, RedisSettings, TemporalSettings } from './connection-settings';
import type { SecretSetting } from './secret-files';

/** What the rules read of the validated environment. */
interface RoleEnv {
  NODE_ENV: string;
  PROCESS_ROLES: readonly string[];
  AUTH_TOKEN?: string;
  AGENT_SECRETS_KEY?: string;
  MYSQL_PASSWORD: string;
}

interface Connections {
  mysql: { host: string; port: number; socketPath: string | null; tls: MysqlTls | null };
  redis: RedisSettings;
  elasticsearch: ElasticsearchSettings;
  temporal: TemporalSettings;
}

/** The local stack's MySQL password (scripts/stack/env.sh): never a production one. */
export const DEVELOPMENT_MYSQL_PASSWORD = 'app';

/**
 * With NODE_ENV=production a process refuses to start where its role would be unsafe: the API
 * without AUTH_TOKEN (all of /api open), the API and the agents worker without the secrets key
 * (secrets could be neither stored nor read), any role on the development database password.
 */
export function productionProblems(env: RoleEnv, fromFiles: readonly SecretSetting[]): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const roles = env.PROCESS_ROLES;
  const problems: string[] = [];
  const hint = 'required with NODE_ENV=production';
  if (roles.includes('api') && env.AUTH_TOKEN === undefined)
    problems.push(`AUTH_TOKEN: ${hint} when the process serves the API (PROCESS_ROLES); set it or AUTH_TOKEN_FILE`);
  if ((roles.includes('api') || roles.includes('agents-worker')) && env.AGENT_SECRETS_KEY === undefined)
    problems.push(`AGENT_SECRETS_KEY: ${hint} for the api and agents-worker roles; set it or AGENT_SECRETS_KEY_FILE`);
  if (env.MYSQL_PASSWORD === DEVELOPMENT_MYSQL_PASSWORD) {
    const variable = fromFiles.includes('MYSQL_PASSWORD') ? 'MYSQL_PASSWORD_FILE' : 'MYSQL_PASSWORD';
    problems.push(`${variable}: the local stack's development password is refused with NODE_ENV=production`);
  }
  return problems;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;

/** One line per plain connection to another machine: records and passwords would cross the network in clear. */
export function plainConnectionWarnings(config: Connections): string[] {
  const warnings: string[] = [];
  const remote = (host: string) => !LOOPBACK.test(host);
  const { mysql, redis, elasticsearch, temporal } = config;
  if (mysql.socketPath === null && mysql.tls === null && remote(mysql.host))
    warnings.push(`MySQL: plain connection to ${mysql.host}:${mysql.port} (set MYSQL_SSL_MODE=VERIFY_IDENTITY)`);
  const redisHosts = redis.sentinel ? redis.sentinel.nodes.map((node) => node.host) : [redis.host];
  if (redis.tls === null && redisHosts.some(remote))
    warnings.push(`Redis: plain connection to ${redisHosts.join(', ')} (set REDIS_TLS=true or a rediss:// REDIS_URL)`);
  const plainNodes = elasticsearch.nodes.filter((node) => node.startsWith('http:') && remote(new URL(node).hostname));
  if (plainNodes.length > 0)
    warnings.push(`Elasticsearch: plain connection to ${plainNodes.join(', ')} (use https:// in ELASTICSEARCH_URL)`);
  const temporalHost = temporal.address.replace(/:\d+$/, '');
  if (!temporal.tls && remote(temporalHost))
    warnings.push(`Temporal: plain connection to ${temporal.address} (set TEMPORAL_TLS=true, a client certificate or TEMPORAL_API_KEY)`);
  return warnings;
}
