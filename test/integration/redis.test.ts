import Redis from 'ioredis';
import { config } from '../../lib/config';
import { channelName, createRedis } from '../../lib/redis';

const connections: Redis[] = [];
const open = (name: string) => {
  const connection = createRedis(config.redis, name);
  connections.push(connection);
  return connection;
};

afterAll(() => Promise.all(connections.map((connection) => connection.quit())));

describe('Redis', () => {
  it('delivers a published message to a subscriber on another connection', async () => {
    const publisher = open('test-publisher');
    const subscriber = open('test-subscriber');
    const channel = channelName(config.redis, `probe:${Date.now()}`);
    const received = new Promise<{ channel: string; message: string }>((resolve) => {
      subscriber.on('message', (from: string, message: string) => resolve({ channel: from, message }));
    });
    await subscriber.subscribe(channel);

    const listeners = await publisher.publish(channel, JSON.stringify({ type: 'output', text: 'olá' }));

    expect(listeners).toBe(1);
    expect(await received).toEqual({ channel, message: '{"type":"output","text":"olá"}' });
    expect(channel.startsWith(config.redis.keyPrefix)).toBe(true);
  });

  it('stores keys under the configured prefix', async () => {
    const prefixed = open('test-prefixed');
    const raw = new Redis({ host: config.redis.host, port: config.redis.port });
    connections.push(raw);
    const key = `probe-key:${Date.now()}`;

    await prefixed.set(key, 'valor', 'EX', 60);

    expect(await raw.get(`${config.redis.keyPrefix}${key}`)).toBe('valor');
    expect(await raw.get(key)).toBeNull();
  });
});
