import fs from 'node:fs';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';
import { readSecretFile } from './secret-files';

/**
 * How each backend is reached, derived from the validated environment (lib/config.ts reads it):
 * addresses, TLS, credentials. The connection modules (db/connection-options.ts, lib/redis.ts,
 * lib/elasticsearch.ts, temporal/connection.ts) turn these into their clients' options.
 */

export type MysqlSslMode = 'DISABLED' | 'PREFERRED' | 'REQUIRED' | 'VERIFY_CA' | 'VERIFY_IDENTITY';
export const MYSQL_SSL_MODES: readonly MysqlSslMode[] = ['DISABLED', 'PREFERRED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'];

/** TLS towards MySQL; null: plain. PEM contents, read at start. */
export interface MysqlTls {
  mode: Exclude<MysqlSslMode, 'DISABLED'>;
  ca: string | null;
  cert: string | null;
  key: string | null;
}

export interface RedisTls {
  ca: string | null;
  servername: string | null;
}

export interface RedisSettings {
  host: string;
  port: number;
  keyPrefix: string;
  username: string | null;
  password: string | null;
  db: number;
  tls: RedisTls | null;
  /** Sentinel: the sentinels and the monitored primary's name; null: a single server. */
  sentinel: { nodes: { host: string; port: number }[]; name: string; password: string | null } | null;
}

export interface ElasticsearchSettings {
  /** The first node's URL (what the status shows); `nodes` holds all of them. */
  url: string;
  nodes: string[];
  cloudId: string | null;
  auth: { apiKey: string } | { username: string; password: string } | null;
  /** The CA certificate (PEM) or its SHA-256 fingerprint; both null: the system's CAs. */
  tls: { ca: string | null; caFingerprint: string | null };
  indexPrefix: string;
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  uiUrl: string;
  /** As the SDK takes it: false or absent is plain; true is TLS with the system's CAs. */
  tls: TLSConfig | boolean | undefined;
  apiKey: string | undefined;
  metadata: Record<string, string> | undefined;
}

export class SettingProblem extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

/** A file a setting names that is not a secret (a certificate, a CA, a profile file): its content. */
export function readSettingFile(variable: string, file: string | undefined): string | null {
  if (file === undefined) return null;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new SettingProblem(variable, `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** A private key's file: a secret, under the secret files' rule (lib/secret-files.ts). */
export function readKeyFile(variable: string, file: string | undefined): string | null {
  if (file === undefined) return null;
  try {
    return `${readSecretFile(file)}\n`;
  } catch (error) {
    throw new SettingProblem(variable, (error as Error).message);
  }
}

export function mysqlTls(env: {
  MYSQL_SSL_MODE: MysqlSslMode;
  MYSQL_SSL_CA_FILE?: string;
  MYSQL_SSL_CERT_FILE?: string;
  MYSQL_SSL_KEY_FILE?: string;
}): MysqlTls | null {
  const { MYSQL_SSL_MODE: mode } = env;
  if (mode === 'DISABLED') {
    const stray = (['MYSQL_SSL_CA_FILE', 'MYSQL_SSL_CERT_FILE', 'MYSQL_SSL_KEY_FILE'] as const).find((name) => env[name] !== undefined);
    if (stray) throw new SettingProblem(stray, 'set MYSQL_SSL_MODE (REQUIRED, VERIFY_CA or VERIFY_IDENTITY) to use it');
    return null;
  }
  if ((env.MYSQL_SSL_CERT_FILE === undefined) !== (env.MYSQL_SSL_KEY_FILE === undefined))
    throw new SettingProblem('MYSQL_SSL_CERT_FILE', 'a client certificate needs its key (MYSQL_SSL_KEY_FILE), and the other way round');
  return {
    mode,
    ca: readSettingFile('MYSQL_SSL_CA_FILE', env.MYSQL_SSL_CA_FILE),
    cert: readSettingFile('MYSQL_SSL_CERT_FILE', env.MYSQL_SSL_CERT_FILE),
    key: readKeyFile('MYSQL_SSL_KEY_FILE', env.MYSQL_SSL_KEY_FILE),
  };
}

interface RedisEnv {
  REDIS_HOST: string;
  REDIS_PORT: number;
  REDIS_KEY_PREFIX: string;
  REDIS_URL?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_DB?: number;
  REDIS_TLS?: boolean;
  REDIS_TLS_CA_FILE?: string;
  REDIS_TLS_SERVERNAME?: string;
  REDIS_SENTINELS?: { host: string; port: number }[];
  REDIS_SENTINEL_NAME?: string;
  REDIS_SENTINEL_PASSWORD?: string;
}

/**
 * Redis from REDIS_URL (`redis://` or `rediss://`, user, password and database in it) or from the
 * separate variables. The URL's host and port win over REDIS_HOST/REDIS_PORT (which default to the
 * local stack); REDIS_USERNAME, REDIS_PASSWORD, REDIS_DB and REDIS_TLS win over the URL's parts.
 * Sentinel replaces host and port.
 */
export function redisSettings(env: RedisEnv): RedisSettings {
  const url = env.REDIS_URL === undefined ? null : new URL(env.REDIS_URL);
  const fromUrl = {
    host: url?.hostname.replace(/^\[|\]$/g, '') || undefined,
    port: url?.port ? Number(url.port) : url ? 6379 : undefined,
    username: url?.username ? decodeURIComponent(url.username) : undefined,
    password: url?.password ? decodeURIComponent(url.password) : undefined,
    db: url && url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    tls: url ? url.protocol === 'rediss:' : undefined,
  };
  if (fromUrl.db !== undefined && !(Number.isInteger(fromUrl.db) && fromUrl.db >= 0))
    throw new SettingProblem('REDIS_URL', 'the database (its path) must be a number');
  const tlsOn = env.REDIS_TLS ?? fromUrl.tls ?? false;
  if (!tlsOn) {
    const stray = (['REDIS_TLS_CA_FILE', 'REDIS_TLS_SERVERNAME'] as const).find((name) => env[name] !== undefined);
    if (stray) throw new SettingProblem(stray, 'set REDIS_TLS=true (or a rediss:// REDIS_URL) to use it');
  }
  if ((env.REDIS_SENTINELS === undefined) !== (env.REDIS_SENTINEL_NAME === undefined))
    throw new SettingProblem('REDIS_SENTINEL_NAME', 'Sentinel needs both REDIS_SENTINELS and REDIS_SENTINEL_NAME');
  return {
    host: fromUrl.host ?? env.REDIS_HOST,
    port: fromUrl.port ?? env.REDIS_PORT,
    keyPrefix: env.REDIS_KEY_PREFIX,
    username: env.REDIS_USERNAME ?? fromUrl.username ?? null,
    password: env.REDIS_PASSWORD ?? fromUrl.password ?? null,
    db: env.REDIS_DB ?? fromUrl.db ?? 0,
    tls: tlsOn ? { ca: readSettingFile('REDIS_TLS_CA_FILE', env.REDIS_TLS_CA_FILE), servername: env.REDIS_TLS_SERVERNAME ?? null } : null,
    sentinel:
      env.REDIS_SENTINELS && env.REDIS_SENTINEL_NAME
        ? { nodes: env.REDIS_SENTINELS, name: env.REDIS_SENTINEL_NAME, password: env.REDIS_SENTINEL_PASSWORD ?? null }
        : null,
  };
}

interface ElasticsearchEnv {
  ELASTICSEARCH_PORT: number;
  ELASTICSEARCH_URL?: string[];
  ELASTICSEARCH_INDEX_PREFIX: string;
  ELASTICSEARCH_API_KEY?: string;
  ELASTICSEARCH_USERNAME?: string;
  ELASTICSEARCH_PASSWORD?: string;
  ELASTICSEARCH_CLOUD_ID?: string;
  ELASTICSEARCH_CA_FILE?: string;
  ELASTICSEARCH_CA_FINGERPRINT?: string;
}

export function elasticsearchSettings(env: ElasticsearchEnv): ElasticsearchSettings {
  if (env.ELASTICSEARCH_CLOUD_ID !== undefined && env.ELASTICSEARCH_URL !== undefined)
    throw new SettingProblem('ELASTICSEARCH_CLOUD_ID', 'set ELASTICSEARCH_CLOUD_ID or ELASTICSEARCH_URL, not both');
  if (env.ELASTICSEARCH_API_KEY !== undefined && (env.ELASTICSEARCH_USERNAME ?? env.ELASTICSEARCH_PASSWORD) !== undefined)
    throw new SettingProblem('ELASTICSEARCH_API_KEY', 'set an API key or ELASTICSEARCH_USERNAME/ELASTICSEARCH_PASSWORD, not both');
  if ((env.ELASTICSEARCH_USERNAME === undefined) !== (env.ELASTICSEARCH_PASSWORD === undefined))
    throw new SettingProblem('ELASTICSEARCH_USERNAME', 'a user name needs its password (ELASTICSEARCH_PASSWORD), and the other way round');
  if (env.ELASTICSEARCH_CA_FILE !== undefined && env.ELASTICSEARCH_CA_FINGERPRINT !== undefined)
    throw new SettingProblem('ELASTICSEARCH_CA_FINGERPRINT', 'set ELASTICSEARCH_CA_FILE or ELASTICSEARCH_CA_FINGERPRINT, not both');
  const nodes = env.ELASTICSEARCH_URL ?? (env.ELASTICSEARCH_CLOUD_ID ? [] : [`http://127.0.0.1:${env.ELASTICSEARCH_PORT}`]);
  if (env.ELASTICSEARCH_CA_FINGERPRINT !== undefined && nodes.some((node) => node.startsWith('http:')))
    throw new SettingProblem('ELASTICSEARCH_CA_FINGERPRINT', 'a fingerprint needs https:// nodes in ELASTICSEARCH_URL');
  const auth =
    env.ELASTICSEARCH_API_KEY !== undefined
      ? { apiKey: env.ELASTICSEARCH_API_KEY }
      : env.ELASTICSEARCH_USERNAME !== undefined && env.ELASTICSEARCH_PASSWORD !== undefined
        ? { username: env.ELASTICSEARCH_USERNAME, password: env.ELASTICSEARCH_PASSWORD }
        : null;
  return {
    url: nodes[0] ?? `elastic cloud ${env.ELASTICSEARCH_CLOUD_ID!.split(':')[0]}`,
    nodes,
    cloudId: env.ELASTICSEARCH_CLOUD_ID ?? null,
    auth,
    tls: {
      ca: readSettingFile('ELASTICSEARCH_CA_FILE', env.ELASTICSEARCH_CA_FILE),
      caFingerprint: env.ELASTICSEARCH_CA_FINGERPRINT ?? null,
    },
    indexPrefix: env.ELASTICSEARCH_INDEX_PREFIX,
  };
}

/**
 * Temporal's own environment configuration (@temporalio/envconfig, as the `temporal` CLI and every
 * SDK read it): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*,
 * TEMPORAL_GRPC_META_*, and a profile of TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE. What it leaves
 * unset takes the local stack's values.
 */
export function temporalSettings(env: Record<string, string>, defaults: { port: number; uiUrl: string }): TemporalSettings {
  const keyPath = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (keyPath !== undefined) readKeyFile('TEMPORAL_TLS_CLIENT_KEY_PATH', keyPath);
  // envconfig reads a missing default file as "no file"; one named explicitly must exist.
  if (env.TEMPORAL_CONFIG_FILE !== undefined) readSettingFile('TEMPORAL_CONFIG_FILE', env.TEMPORAL_CONFIG_FILE);
  // The TypeScript SDK has no switch for it (other SDKs do): refused rather than silently ignored.
  if (env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === 'true' || env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === '1')
    throw new SettingProblem(
      'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
      'not supported by the TypeScript SDK: set TEMPORAL_TLS_SERVER_NAME to the name in the certificate',
    );
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: env });
  } catch (error) {
    const variable =
      env.TEMPORAL_PROFILE !== undefined
        ? 'TEMPORAL_PROFILE'
        : env.TEMPORAL_CONFIG_FILE !== undefined
          ? 'TEMPORAL_CONFIG_FILE'
          : 'TEMPORAL_TLS';
    throw new SettingProblem(variable, (error as Error).message);
  }
  const { connectionOptions } = loaded;
  const tls = connectionOptions.tls;
  if (
    typeof tls === 'object' &&
    tls !== null &&
    tls.clientCertPair === undefined &&
    (env.TEMPORAL_TLS_CLIENT_CERT_PATH ?? keyPath) !== undefined
  )
    throw new SettingProblem(
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'a client certificate needs its key (TEMPORAL_TLS_CLIENT_KEY_PATH), and the other way round',
    );
  return {
    address: connectionOptions.address ?? `127.0.0.1:${defaults.port}`,
    namespace: loaded.namespace ?? 'default',
    uiUrl: defaults.uiUrl,
    tls: tls as TLSConfig | boolean | undefined,
    apiKey: typeof connectionOptions.apiKey === 'string' ? connectionOptions.apiKey : undefined,
    metadata: connectionOptions.metadata as Record<string, string> | undefined,
  };
}

/** A Temporal Cloud address: search attributes are made with `tcld` or the Cloud UI there, not `temporal operator`. */
export function isTemporalCloud(address: string): boolean {
  return /\.tmprl\.cloud(:\d+)?$/i.test(address) || /\.api\.temporal\.io(:\d+)?$/i.test(address);
}
