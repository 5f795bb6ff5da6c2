import Redis, { type RedisOptions } from 'ioredis';
import type { Config } from './config';

/**
 * The options of every Redis connection of the service (commands, the live relay's subscriber, the
 * rate limiters): a single server or Sentinel, ACL user and password, database, TLS. One place, so a
 * setting reaches each construction site (docs/connections.md).
 */
export function redisOptions(settings: Config['redis'], name: string): RedisOptions {
  const tls = settings.tls
    ? {
        tls: {
          ...(settings.tls.ca ? { ca: settings.tls.ca } : {}),
          ...(settings.tls.servername ? { servername: settings.tls.servername } : {}),
        },
      }
    : {};
  const credentials = {
    ...(settings.username ? { username: settings.username } : {}),
    ...(settings.password ? { password: settings.password } : {}),
    db: settings.db,
  };
  if (settings.sentinel) {
    return {
      sentinels: settings.sentinel.nodes,
      name: settings.sentinel.name,
      ...(settings.sentinel.password ? { sentinelPassword: settings.sentinel.password } : {}),
      // The sentinels are reached like the data nodes: with TLS when TLS is on.
      ...(settings.tls ? { enableTLSForSentinelMode: true, sentinelTLS: tls.tls } : {}),
      ...tls,
      ...credentials,
      connectionName: name,
    };
  }
  return { host: settings.host, port: settings.port, ...tls, ...credentials, connectionName: name };
}

/**
 * A Redis connection. Pub/sub needs a connection of its own (a subscribed connection
 * cannot run other commands), so callers create one for commands and one per subscriber.
 * Keys carry the configured prefix; channel names are prefixed by the caller with `channelName`,
 * because ioredis's keyPrefix does not apply to pub/sub channels.
 */
export function createRedis(settings: Config['redis'], name: string): Redis {
  return new Redis({
    ...redisOptions(settings, name),
    keyPrefix: settings.keyPrefix,
    // Fail commands fast while disconnected instead of queueing them forever.
    maxRetriesPerRequest: 2,
    lazyConnect: false,
  });
}

/** A connection for a subscription: it waits out an outage (no retry limit per command); ioredis subscribes again after a reconnect. */
export function createRedisSubscriber(settings: Config['redis'], name: string): Redis {
  return new Redis({ ...redisOptions(settings, name), maxRetriesPerRequest: null });
}

export function channelName(redisConfig: Config['redis'], channel: string): string {
  return `${redisConfig.keyPrefix}${channel}`;
}

/** Closes politely when connected; otherwise stops the reconnect loop at once (QUIT would wait for it). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit();
  else redis.disconnect();
}
