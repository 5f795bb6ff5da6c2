import Redis from 'ioredis';
import type { Config } from './config';

/**
 * A Redis connection. Pub/sub needs a connection of its own (a subscribed connection
 * cannot run other commands), so callers create one for commands and one per subscriber.
 * Keys carry the configured prefix; channel names are prefixed by the caller with `channelName`,
 * because ioredis's keyPrefix does not apply to pub/sub channels.
 */
export function createRedis(redisConfig: Config['redis'], name: string): Redis {
  return new Redis({
    host: redisConfig.host,
    port: redisConfig.port,
    keyPrefix: redisConfig.keyPrefix,
    connectionName: name,
    // Fail commands fast while disconnected instead of queueing them forever.
    maxRetriesPerRequest: 2,
    lazyConnect: false,
  });
}

export function channelName(redisConfig: Config['redis'], channel: string): string {
  return `${redisConfig.keyPrefix}${channel}`;
}

/** Closes politely when connected; otherwise stops the reconnect loop at once (QUIT would wait for it). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit();
  else redis.disconnect();
}
