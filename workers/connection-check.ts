import net from 'node:net';
import { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import Redis from 'ioredis';
import mysql from 'mysql2/promise';
import { mysqlConnectionOptions } from '../db/connection-options';
import type { Config } from '../lib/config';
import { describeConnectionFailure, PLAIN_SERVER, type BackendPart, type ConnectionFailure } from '../lib/connection-failures';
import { elasticsearchOptions, indexName } from '../lib/elasticsearch';
import type { Logger } from '../lib/logger';
import { redisOptions } from '../lib/redis';
import { PERSON_INDEX_BASE } from '../domain/person-index';
import { withTimeout } from '../lib/timeout';
import { connectNativeTemporal } from '../temporal/connection';
import { createNamespaceHint, describeNamespaceOnce, type NamespaceState } from '../temporal/namespace';

/** The longest a first contact may take before it counts as "not reachable yet". */
const CHECK_TIMEOUT_MS = 10_000;

type Attempt = (config: Config, timeoutMs: number) => Promise<void>;

/** One real round trip per part, with the settings the service will use, no retry. */
const ATTEMPTS: Record<BackendPart, Attempt> = {
  MySQL: async (config, timeoutMs) => {
    const connection = await mysql.createConnection({ ...mysqlConnectionOptions(config.mysql), connectTimeout: timeoutMs });
    await connection.end();
  },
  Redis: async (config, timeoutMs) => {
    const redis = new Redis({
      ...redisOptions(config.redis, 'connection-check'),
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      sentinelRetryStrategy: () => null,
    });
    // The connect() promise says only "Connection is closed."; the cause came as an 'error' event before.
    let cause: unknown;
    redis.on('error', (error: unknown) => (cause ??= error));
    try {
      await redis.connect();
      await redis.ping();
    } catch (error) {
      // A TLS handshake a plain server never answers only times out: ask the port in plain text.
      if (config.redis.tls && !config.redis.sentinel && (await answersPlainPing(config.redis.host, config.redis.port)))
        throw Object.assign(new Error('the server answered a plain PING'), { code: PLAIN_SERVER });
      throw cause ?? error;
    } finally {
      redis.disconnect();
    }
  },
  Elasticsearch: async (config, timeoutMs) => {
    const client = new ElasticsearchClient({ ...elasticsearchOptions(config.elasticsearch), requestTimeout: timeoutMs, maxRetries: 0 });
    try {
      await client.indices.exists({ index: indexName(config.elasticsearch, PERSON_INDEX_BASE) });
    } finally {
      await client.close();
    }
  },
  // The worker's native connection: it names the transport's cause (grpc-js says only "before the deadline").
  Temporal: async (config, timeoutMs) => {
    const connection = await withTimeout(connectNativeTemporal(config.temporal), timeoutMs, 'Temporal');
    await connection.close();
  },
};

/** True when a Redis server answers `PING` in plain text on that port within a second. */
function answersPlainPing(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data: Buffer) => done(/^[+-]/.test(data.toString('latin1'))));
  });
}

const tlsOn = (part: BackendPart, config: Config): boolean =>
  ({
    MySQL: config.mysql.tls !== null,
    Redis: config.redis.tls !== null,
    Elasticsearch: config.elasticsearch.cloudId !== null || config.elasticsearch.nodes.some((node) => node.startsWith('https:')),
    Temporal: Boolean(config.temporal.tls) || config.temporal.apiKey !== undefined,
  })[part];

/** Each part's first contact: null when it answered, else what its failure means. */
export async function checkConnections(config: Config, parts: readonly BackendPart[] = Object.keys(ATTEMPTS) as BackendPart[]) {
  const outcomes = await Promise.all(
    parts.map(async (part): Promise<[BackendPart, ConnectionFailure | null]> => {
      try {
        await ATTEMPTS[part](config, CHECK_TIMEOUT_MS);
        return [part, null];
      } catch (error) {
        return [part, describeConnectionFailure(part, error, tlsOn(part, config))];
      }
    }),
  );
  return Object.fromEntries(outcomes) as Partial<Record<BackendPart, ConnectionFailure | null>>;
}

/**
 * At start: the configuration's warnings, then each part reached once. A failure waiting will not
 * mend ends the process (exit code 1) with one line naming the part, the cause and the variable; a
 * part not reachable yet is logged and waited for, as the clients reconnect by themselves. Then, when
 * Temporal answered, its namespace.
 */
export async function verifyConnectionsAtStart(config: Config, logger: Logger): Promise<void> {
  for (const warning of config.warnings) logger.warn(warning);
  const outcomes = await checkConnections(config);
  const fatal = Object.values(outcomes).filter((failure): failure is ConnectionFailure => failure?.permanent === true);
  for (const failure of Object.values(outcomes)) if (failure && !failure.permanent) logger.warn(failure.line);
  if (fatal.length > 0) {
    for (const failure of fatal) process.stderr.write(`${failure.line}\n`);
    process.exit(1);
  }
  // Only once Temporal answered: one not reachable yet is waited for as above.
  if (outcomes.Temporal === null) await verifyNamespaceAtStart(config, logger);
}

/**
 * The namespace (TEMPORAL_NAMESPACE) asked for once (docs/connections.md, "The namespace"): the service
 * never creates it. Missing, a process with a worker role ends (exit code 1) with one log line saying how
 * to create it; the API alone warns in that line and serves on (what it starts in Temporal fails until then).
 * Not allowed to ask (PERMISSION_DENIED) or no answer: one warning, and the start goes on.
 */
async function verifyNamespaceAtStart(config: Config, logger: Logger): Promise<void> {
  const { namespace, address } = config.temporal;
  const where = { namespace, temporalAddress: address };
  let state: NamespaceState;
  try {
    state = await describeNamespaceOnce(config.temporal, CHECK_TIMEOUT_MS);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    logger.warn(where, `Temporal namespace "${namespace}" not checked at start (${reason})`);
    return;
  }
  if (state === 'present') return;
  if (state === 'refused') {
    logger.warn(
      where,
      `Temporal namespace "${namespace}" not checked at start: describing it was refused (PERMISSION_DENIED); if the workers then fail, it is missing or these credentials have no access to it`,
    );
    return;
  }
  const missing = `Temporal namespace "${namespace}" does not exist on ${address}`;
  const hint = createNamespaceHint(namespace, address);
  if (config.roles.some((role) => role !== 'api')) {
    logger.fatal(where, `${missing}: create it, then start again; ${hint}`);
    process.exit(1);
  }
  logger.warn(where, `${missing}: what the API starts in Temporal fails until it is created; ${hint}`);
}
