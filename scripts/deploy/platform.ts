import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { Client as TemporalClient } from '@temporalio/client';
import Redis from 'ioredis';
import mysql from 'mysql2/promise';
import { mysqlConnectionOptions } from '../../db/connection-options';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { loadConfig, type Config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { securePortsEnv, secureServiceEnv } from '../../test/support/secure-stack';
import { connectTemporal } from '../../temporal/connection';
import { ensureNamespace } from '../../temporal/namespace';
import { ensureSearchAttributes } from '../../temporal/search-attributes';
import { terminateOpenWorkflows } from '../faults/service';
import { generatePersons } from '../generate-persons';

const run = promisify(execFile);

/**
 * What a platform operator prepares on the secured stack (docs/secure-stack.md) before the deploy test
 * (docs/deploy-test.md) runs the image there, with the stack's administrator credentials, so the test
 * touches no other data: a MariaDB database and a user allowed that database only (TLS required), a
 * Redis ACL user allowed the keys and channels of its prefix only, an Elasticsearch person index and an
 * API key that may read that index only, a Temporal namespace with the runs' search attributes. Then
 * the secret files each container gets, owned and moded as lib/secret-files.ts accepts for its user.
 */

export const DEPLOY_DIR = path.join(repoRoot, '.stack', 'deploy');
export const DEPLOY_LOG_DIR = path.join(repoRoot, '.stack', 'logs', 'deploy');
export const DEPLOY_DATABASE = 'consultores_deploy';
const DEPLOY_MYSQL_USER = 'deploy';
const DEPLOY_REDIS_USER = 'deploy';
const DEPLOY_REDIS_PREFIX = 'deploy:';
const DEPLOY_INDEX_PREFIX = 'deploy_';
const DEPLOY_ES_KEY_NAME = 'consultores-deploy';
export const DEPLOY_NAMESPACE = 'deploy';
/** The image's unprivileged user (Dockerfile): the API and the ranking workers run as it. */
export const APP_UID = 10001;

/** Where the containers find what is mounted into them. */
export const IN_CONTAINER = {
  secrets: '/run/secrets',
  certs: '/run/certs',
  /** The agents workers' git mirrors, in each container's own file system (the volumes: cluster.ts). */
  shared: '/var/lib/consultores',
  /** An agents host's working-directory volume: `/srv/work/<host>`. */
  work: '/srv/work',
  panel: '/srv/panel',
  starts: '/run/deploy-starts',
} as const;

/** The secret files, by the setting that names them. */
const SECRET_FILES = {
  MYSQL_PASSWORD_FILE: 'mysql-password',
  REDIS_PASSWORD_FILE: 'redis-password',
  ELASTICSEARCH_API_KEY_FILE: 'elasticsearch-api-key',
  AUTH_TOKEN_FILE: 'auth-token',
  AGENT_SECRETS_KEY_FILE: 'agent-secrets-key',
} as const;
const TEMPORAL_CLIENT_KEY = 'temporal-client.key';

export interface Platform {
  /** The settings every container gets (container paths), before its role's own. */
  containerEnv: Record<string, string>;
  /** Host directories mounted into the containers: secrets per owner, certificates, volumes. */
  mounts: {
    appSecrets: string;
    rootSecrets: string;
    certs: string;
    shared: string;
    work: (host: string) => string;
    starts: string;
  };
  /** The token every call presents. */
  token: string;
  /** The test's own connection to the deploy database (the deploy user, TLS). */
  pool: mysql.Pool;
  temporal: TemporalClient;
  persons: number;
  /** The agents hosts' working-directory roots, as the containers see them. */
  workRoot: (host: string) => string;
  close(): Promise<void>;
}

export interface PlatformOptions {
  persons: number;
  hosts: readonly string[];
  log(line: string): void;
}

const secret = (bytes: number) => crypto.randomBytes(bytes).toString('hex');

export async function preparePlatform(options: PlatformOptions): Promise<Platform> {
  const service = secureServiceEnv();
  const ports = securePortsEnv();
  const dirs = {
    appSecrets: path.join(DEPLOY_DIR, 'secrets', 'app'),
    rootSecrets: path.join(DEPLOY_DIR, 'secrets', 'root'),
    certs: path.join(DEPLOY_DIR, 'certs'),
    shared: path.join(DEPLOY_DIR, 'volumes', 'shared'),
    work: path.join(DEPLOY_DIR, 'volumes', 'work'),
    starts: path.join(DEPLOY_DIR, 'starts'),
  };
  fs.mkdirSync(DEPLOY_LOG_DIR, { recursive: true });
  // Every run from nothing: an earlier run's volumes hold its runs' files.
  for (const dir of [dirs.appSecrets, dirs.rootSecrets, dirs.certs, dirs.shared, dirs.work, dirs.starts])
    fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(DEPLOY_DIR, { recursive: true, mode: 0o755 });

  const values: Record<keyof typeof SECRET_FILES, string> = {
    MYSQL_PASSWORD_FILE: secret(24),
    REDIS_PASSWORD_FILE: secret(24),
    ELASTICSEARCH_API_KEY_FILE: '',
    AUTH_TOKEN_FILE: secret(32),
    AGENT_SECRETS_KEY_FILE: secret(32),
  };

  options.log(`MariaDB: database ${DEPLOY_DATABASE}, user ${DEPLOY_MYSQL_USER} (TLS required, that database only)`);
  await prepareMysql(ports.SECURE_MYSQL_ADMIN_SOCKET!, values.MYSQL_PASSWORD_FILE);
  options.log(`Redis: ACL user ${DEPLOY_REDIS_USER}, keys and channels ${DEPLOY_REDIS_PREFIX}* only`);
  await prepareRedis(ports, values.REDIS_PASSWORD_FILE);
  options.log(`Elasticsearch: index ${DEPLOY_INDEX_PREFIX}${PERSON_INDEX_BASE}, API key ${DEPLOY_ES_KEY_NAME} (read it only)`);
  values.ELASTICSEARCH_API_KEY_FILE = await prepareElasticsearch(ports, options);

  // The secret files: the API's and ranking workers' (uid 10001, 0400 in a 0500 directory of theirs),
  // the agents workers' (root's, 0400 in a 0700 directory): no agent pool user may open either.
  writeSecrets(dirs.appSecrets, APP_UID, values, service.TEMPORAL_TLS_CLIENT_KEY_PATH!);
  writeSecrets(dirs.rootSecrets, 0, values, service.TEMPORAL_TLS_CLIENT_KEY_PATH!);
  fs.mkdirSync(dirs.certs, { mode: 0o755 });
  fs.copyFileSync(ports.SECURE_CA_FILE!, path.join(dirs.certs, 'ca.pem'));
  fs.copyFileSync(service.TEMPORAL_TLS_CLIENT_CERT_PATH!, path.join(dirs.certs, 'temporal-client.pem'));
  for (const file of fs.readdirSync(dirs.certs)) fs.chmodSync(path.join(dirs.certs, file), 0o644);

  // The volumes. The shared one is the API's (uid 10001) with the agents' group able to enter it
  // (docs/image.md decides the owners); each agents host's working directories are its worker's (root).
  fs.mkdirSync(dirs.shared, { recursive: true, mode: 0o755 });
  fs.chownSync(dirs.shared, APP_UID, APP_UID);
  for (const host of options.hosts) fs.mkdirSync(path.join(dirs.work, host), { recursive: true, mode: 0o755 });
  // The tagged agent command notes each agent start here: a file every pool user may append to.
  fs.mkdirSync(dirs.starts, { mode: 0o1777 });
  fs.chmodSync(dirs.starts, 0o1777);
  fs.writeFileSync(path.join(dirs.starts, 'starts.log'), '', { mode: 0o666 });
  fs.chmodSync(path.join(dirs.starts, 'starts.log'), 0o666);

  const containerEnv: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    TEMPORAL_ADDRESS: service.TEMPORAL_ADDRESS!,
    TEMPORAL_NAMESPACE: DEPLOY_NAMESPACE,
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: `${IN_CONTAINER.certs}/ca.pem`,
    TEMPORAL_TLS_SERVER_NAME: service.TEMPORAL_TLS_SERVER_NAME!,
    TEMPORAL_TLS_CLIENT_CERT_PATH: `${IN_CONTAINER.certs}/temporal-client.pem`,
    TEMPORAL_TLS_CLIENT_KEY_PATH: `${IN_CONTAINER.secrets}/${TEMPORAL_CLIENT_KEY}`,
    MYSQL_HOST: service.MYSQL_HOST!,
    MYSQL_PORT: service.MYSQL_PORT!,
    MYSQL_USER: DEPLOY_MYSQL_USER,
    MYSQL_DATABASE: DEPLOY_DATABASE,
    MYSQL_SSL_MODE: 'VERIFY_IDENTITY',
    MYSQL_SSL_CA_FILE: `${IN_CONTAINER.certs}/ca.pem`,
    REDIS_HOST: service.REDIS_HOST!,
    REDIS_PORT: service.REDIS_PORT!,
    REDIS_USERNAME: DEPLOY_REDIS_USER,
    REDIS_TLS: 'true',
    REDIS_TLS_CA_FILE: `${IN_CONTAINER.certs}/ca.pem`,
    REDIS_KEY_PREFIX: DEPLOY_REDIS_PREFIX,
    ELASTICSEARCH_URL: service.ELASTICSEARCH_URL!,
    ELASTICSEARCH_CA_FILE: `${IN_CONTAINER.certs}/ca.pem`,
    ELASTICSEARCH_INDEX_PREFIX: DEPLOY_INDEX_PREFIX,
    ...Object.fromEntries(Object.entries(SECRET_FILES).map(([setting, file]) => [setting, `${IN_CONTAINER.secrets}/${file}`])),
    // AGENT_DATA_DIR, AGENT_REPORTS_DIR and AGENT_UPLOADS_DIR are the image's own (/data, /reports,
    // /uploads), where cluster.ts mounts the volumes, as docs/image.md runs the roles.
    GIT_MIRRORS_DIR: `${IN_CONTAINER.shared}/git-mirrors`,
    // The test polls and starts runs faster than a person would.
    RATE_LIMIT_REQUESTS: '1000000',
    HOOK_RATE_LIMIT_REQUESTS: '1000000',
    RANKING_JOB_RATE_LIMIT_REQUESTS: '1000000',
    WEBSOCKET_MAX_SOCKETS_PER_CLIENT: '100',
  };

  // The test's own view: the same settings with the host's paths (the root-owned copies of the secrets).
  const hostEnv: Record<string, string> = {
    ...containerEnv,
    NODE_ENV: 'development',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: ports.SECURE_CA_FILE!,
    TEMPORAL_TLS_CLIENT_CERT_PATH: service.TEMPORAL_TLS_CLIENT_CERT_PATH!,
    TEMPORAL_TLS_CLIENT_KEY_PATH: service.TEMPORAL_TLS_CLIENT_KEY_PATH!,
    MYSQL_SSL_CA_FILE: ports.SECURE_CA_FILE!,
    REDIS_TLS_CA_FILE: ports.SECURE_CA_FILE!,
    ELASTICSEARCH_CA_FILE: ports.SECURE_CA_FILE!,
    ...Object.fromEntries(Object.entries(SECRET_FILES).map(([setting, file]) => [setting, path.join(dirs.rootSecrets, file)])),
  };
  const hostConfig: Config = loadConfig(hostEnv);

  options.log(`Temporal: namespace ${DEPLOY_NAMESPACE} with the runs' search attributes`);
  await ensureNamespace(hostConfig.temporal, DEPLOY_NAMESPACE);
  const connection = await connectTemporal(hostConfig.temporal);
  await ensureSearchAttributes(connection, DEPLOY_NAMESPACE);
  const temporal = new TemporalClient({ connection, namespace: DEPLOY_NAMESPACE });
  const ended = await terminateOpenWorkflows(temporal, 'the deploy test starts again from nothing');
  if (ended > 0) options.log(`terminated ${ended} workflow(s) an earlier run left open`);

  const pool = mysql.createPool({ ...mysqlConnectionOptions(hostConfig.mysql), database: DEPLOY_DATABASE, connectionLimit: 4 });
  return {
    containerEnv,
    mounts: {
      ...dirs,
      work: (host) => path.join(dirs.work, host),
    },
    token: values.AUTH_TOKEN_FILE,
    pool,
    temporal,
    persons: options.persons,
    workRoot: (host) => `${IN_CONTAINER.work}/${host}`,
    async close() {
      await pool.end().catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

function writeSecrets(dir: string, uid: number, values: Record<keyof typeof SECRET_FILES, string>, temporalKey: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [setting, file] of Object.entries(SECRET_FILES)) {
    const target = path.join(dir, file);
    fs.writeFileSync(target, values[setting as keyof typeof SECRET_FILES], { mode: 0o400 });
  }
  fs.copyFileSync(temporalKey, path.join(dir, TEMPORAL_CLIENT_KEY));
  for (const file of fs.readdirSync(dir)) {
    fs.chownSync(path.join(dir, file), uid, uid);
    fs.chmodSync(path.join(dir, file), 0o400);
  }
  fs.chownSync(dir, uid, uid);
  fs.chmodSync(dir, uid === 0 ? 0o700 : 0o500);
}

/** Root through the stack's admin socket (unix_socket authentication), as secure-up.sh makes its own user; SQL on stdin, never on a command line. */
async function prepareMysql(socket: string, password: string): Promise<void> {
  const sql = [
    `DROP DATABASE IF EXISTS ${DEPLOY_DATABASE};`,
    `CREATE DATABASE ${DEPLOY_DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`,
    `CREATE USER IF NOT EXISTS '${DEPLOY_MYSQL_USER}'@'127.0.0.1' IDENTIFIED BY '${password}' REQUIRE SSL;`,
    `ALTER USER '${DEPLOY_MYSQL_USER}'@'127.0.0.1' IDENTIFIED BY '${password}' REQUIRE SSL;`,
    `GRANT ALL PRIVILEGES ON \`${DEPLOY_DATABASE}\`.* TO '${DEPLOY_MYSQL_USER}'@'127.0.0.1';`,
    'FLUSH PRIVILEGES;',
  ].join('\n');
  await new Promise<void>((resolve, reject) => {
    const child = execFile('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot'], (error, _stdout, stderr) =>
      error ? reject(new Error(`MariaDB (root through ${socket}): ${stderr || error.message}`)) : resolve(),
    );
    child.stdin?.end(sql);
  });
}

async function prepareRedis(ports: Record<string, string>, password: string): Promise<void> {
  const admin = new Redis({
    host: '127.0.0.1',
    port: Number(ports.SECURE_REDIS_PORT),
    username: ports.SECURE_REDIS_ADMIN_USER,
    password: fs.readFileSync(ports.SECURE_REDIS_ADMIN_PASSWORD_FILE!, 'utf8').trim(),
    tls: { ca: fs.readFileSync(ports.SECURE_CA_FILE!), servername: ports.SECURE_SERVER_NAME },
    lazyConnect: true,
    maxRetriesPerRequest: 2,
  });
  try {
    await admin.connect();
    // The service's commands as the stack's `app` user has them (secure-up.sh), on the prefix's keys and
    // channels only. PSUBSCRIBE's pattern must be one of the user's channel patterns word for word (Redis
    // ACL rules): the live relay's `<prefix>live:*` (lib/live-output.ts) is listed as such.
    const hash = crypto.createHash('sha256').update(password).digest('hex');
    await admin.call(
      'ACL',
      'SETUSER',
      DEPLOY_REDIS_USER,
      'reset',
      'on',
      `#${hash}`,
      `~${DEPLOY_REDIS_PREFIX}*`,
      `&${DEPLOY_REDIS_PREFIX}*`,
      `&${DEPLOY_REDIS_PREFIX}live:*`,
      '+@all',
      '-@admin',
      '-@dangerous',
      '+info',
    );
    // An earlier run's keys (sessions, rate limits, ranking state).
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${DEPLOY_REDIS_PREFIX}*`, 'COUNT', 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
}

/** The person index (kept between runs when it holds the count asked for) and a key that may read it only; the encoded key. */
async function prepareElasticsearch(ports: Record<string, string>, options: PlatformOptions): Promise<string> {
  const es = new ElasticsearchClient({
    node: ports.SECURE_ELASTICSEARCH_URL!,
    auth: { username: ports.SECURE_ELASTIC_USER!, password: fs.readFileSync(ports.SECURE_ELASTIC_PASSWORD_FILE!, 'utf8').trim() },
    tls: { ca: fs.readFileSync(ports.SECURE_CA_FILE!) },
    requestTimeout: 120_000,
  });
  try {
    const index = `${DEPLOY_INDEX_PREFIX}${PERSON_INDEX_BASE}`;
    const existing = (await es.indices.exists({ index })) ? (await es.count({ index })).count : 0;
    if (existing !== options.persons) {
      const generated = await generatePersons({ es, index, count: options.persons, seed: 4040, recreate: true });
      options.log(`generated ${options.persons} persons into ${index} in ${generated.seconds.toFixed(1)} s`);
    }
    await es.security.invalidateApiKey({ name: DEPLOY_ES_KEY_NAME }).catch(() => undefined);
    const key = await es.security.createApiKey({
      name: DEPLOY_ES_KEY_NAME,
      role_descriptors: {
        [DEPLOY_ES_KEY_NAME]: { cluster: [], indices: [{ names: [index], privileges: ['read', 'view_index_metadata'] }] },
      },
    });
    return key.encoded;
  } finally {
    await es.close();
  }
}

/** The Docker server's version; throws, saying what to do, when there is none to talk to. */
export async function dockerAvailable(): Promise<string> {
  try {
    const { stdout } = await run('docker', ['version', '--format', '{{.Server.Version}}']);
    return stdout.trim();
  } catch (error) {
    throw new Error(
      `Docker is not usable here (docker version: ${(error as Error).message.trim()}): npm run test:deploy builds the image first (npm run image:build installs docker.io and starts dockerd)`,
      { cause: error },
    );
  }
}
