import type Redis from 'ioredis';
import { WebSocket } from 'ws';
import type { Config } from '../lib/config';
import { BROADCAST_CHANNEL_SUFFIX, CLIENT_CHANNEL_SUFFIX, LIVE_CHANNEL_SEGMENT, liveChannelPattern } from '../lib/live-output';
import type { Logger } from '../lib/logger';
import { closeRedis, createRedisSubscriber } from '../lib/redis';
import { liveOutputDelay } from '../lib/metrics';
import { ReadinessProblem } from '../lib/readiness';

/**
 * Relays live output from Redis to this process's WebSocket clients (docs/websocket.md).
 *
 * One subscriber connection per process, one PSUBSCRIBE on every live channel of the key prefix:
 * the publisher never knows which API process holds a client's sockets, so every process hears every
 * message and keeps those of the clients it holds. The connection is opened by the first socket, so a
 * process that never serves a socket (a worker, a test server of HTTP routes) holds none; it stays
 * open until `close()`.
 *
 * Messages are sent to the browser as published: parsed once to check them, never re-serialised.
 */

/**
 * Bytes a socket may have queued and unsent before it is closed with 1013. Skipping messages for a slow
 * client would leave silent holes in its output; closing makes the gap explicit, and the client
 * reconnects and catches up from the execution record. Several MiB is minutes of agent output.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** RFC 6455 1013 "Try Again Later": sent to a socket that fell too far behind. */
export const CLOSE_TRY_AGAIN_LATER = 1013;
export const SLOW_CLIENT_REASON = 'live output backlog too large';

export interface LiveRelayOptions {
  redis: Config['redis'];
  logger: Logger;
  maxBufferedBytes?: number;
  /** Observe `live_output_delay_seconds` (METRICS_ENABLED); default on. */
  timeDelays?: boolean;
}

export interface LiveRelayState {
  clients: number;
  sockets: number;
  /** `none` before the first socket; then the subscriber connection's ioredis status (`ready`, `end`, ...). */
  subscriber: string;
  closed: boolean;
}

export class LiveRelay {
  private readonly socketsByClient = new Map<string, Set<WebSocket>>();
  private readonly channelStart: string;
  private readonly maxBufferedBytes: number;
  private readonly timeDelays: boolean;
  private subscriber: Redis | null = null;
  private subscribed: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: LiveRelayOptions) {
    this.channelStart = `${options.redis.keyPrefix}${LIVE_CHANNEL_SEGMENT}`;
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.timeDelays = options.timeDelays ?? true;
  }

  /**
   * Delivers the client's messages to this socket until it closes. Resolves when the subscription is
   * in place (at once after the first socket), so a greeted client misses nothing published after.
   */
  register(clientId: string, socket: WebSocket): Promise<void> {
    if (this.closed) return Promise.reject(new Error('live relay closed'));
    let sockets = this.socketsByClient.get(clientId);
    if (!sockets) this.socketsByClient.set(clientId, (sockets = new Set()));
    sockets.add(socket);
    socket.once('close', () => this.unregister(clientId, socket));
    return this.subscription();
  }

  /**
   * The API's readiness (api/probes.ts): the subscription in place (made now when no socket has made
   * it yet) and its connection ready. An API whose subscription Redis refuses (an ACL without the
   * `live:*` pattern) would greet sockets and relay nothing: it is not ready.
   */
  async ready(): Promise<void> {
    if (this.closed) throw new ReadinessProblem('o relé de saída ao vivo está fechado');
    await this.subscription();
    if (this.subscriber?.status !== 'ready') throw new ReadinessProblem('a assinatura da saída ao vivo no Redis não está pronta');
  }

  private subscription(): Promise<void> {
    this.subscribed ??= this.subscribe().catch((error: unknown) => {
      // Refused for good (not an outage, which is waited out): the next socket (or probe) tries afresh.
      this.subscribed = null;
      throw error;
    });
    return this.subscribed;
  }

  /** The sockets currently registered for a client (a copy). */
  socketsOf(clientId: string): WebSocket[] {
    return [...(this.socketsByClient.get(clientId) ?? [])];
  }

  get state(): LiveRelayState {
    let sockets = 0;
    for (const set of this.socketsByClient.values()) sockets += set.size;
    return {
      clients: this.socketsByClient.size,
      sockets,
      subscriber: this.subscriber?.status ?? 'none',
      closed: this.closed,
    };
  }

  /** Releases the subscriber connection; the sockets are left to the HTTP server, which closes them with 1012 (reconnect). */
  async close(): Promise<void> {
    this.closed = true;
    this.socketsByClient.clear();
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await closeRedis(subscriber);
  }

  private async subscribe(): Promise<void> {
    const { redis, logger } = this.options;
    // Channels are not prefixed by ioredis (the pattern carries the prefix).
    const subscriber = createRedisSubscriber(redis, `live-relay:${redis.keyPrefix.replace(/[^\w:.-]/g, '_')}`);
    this.subscriber = subscriber;
    subscriber.on('error', (error: Error) => logger.debug({ err: error }, 'live relay redis connection error'));
    subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => this.relay(channel, message));
    try {
      await subscriber.psubscribe(liveChannelPattern(redis.keyPrefix));
    } catch (error) {
      if (this.subscriber === subscriber) this.subscriber = null;
      subscriber.disconnect();
      throw error;
    }
  }

  private unregister(clientId: string, socket: WebSocket): void {
    const sockets = this.socketsByClient.get(clientId);
    if (!sockets?.delete(socket)) return;
    if (sockets.size === 0) this.socketsByClient.delete(clientId);
  }

  /** Runs inside ioredis's event loop: it must never throw, whatever arrives. */
  private relay(channel: string, message: string): void {
    try {
      const suffix = channel.slice(this.channelStart.length);
      if (suffix === BROADCAST_CHANNEL_SUFFIX) {
        if (this.socketsByClient.size === 0) return;
        const parsed = this.liveMessageOf(channel, message);
        if (!parsed) return;
        const frame = Buffer.from(message);
        let sent = 0;
        for (const [clientId, sockets] of this.socketsByClient) sent += this.sendToAll(clientId, sockets, frame);
        if (sent > 0 && this.timeDelays) observeOutputDelay(parsed);
      } else if (suffix.startsWith(CLIENT_CHANNEL_SUFFIX)) {
        const clientId = suffix.slice(CLIENT_CHANNEL_SUFFIX.length);
        // Most messages are for clients of other processes: dropped before any parsing.
        const sockets = this.socketsByClient.get(clientId);
        if (!sockets) return;
        const parsed = this.liveMessageOf(channel, message);
        if (parsed && this.sendToAll(clientId, sockets, Buffer.from(message)) > 0 && this.timeDelays) observeOutputDelay(parsed);
      } else {
        this.options.logger.warn({ channel }, 'live message on an unknown channel dropped');
      }
    } catch (error) {
      this.options.logger.error({ err: error, channel }, 'live message relay failed');
    }
  }

  /** A JSON object with a string `type`, else null: anything else would break the clients' parsing. */
  private liveMessageOf(channel: string, message: string): ParsedLiveMessage | null {
    try {
      const parsed = JSON.parse(message) as unknown;
      if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { type?: unknown }).type === 'string')
        return parsed as ParsedLiveMessage;
    } catch {
      // Reported below with the other malformed messages.
    }
    this.options.logger.warn({ channel, length: message.length }, 'malformed live message dropped');
    return null;
  }

  /** Sends the frame to each open socket of the client; returns how many it was written to. */
  private sendToAll(clientId: string, sockets: Set<WebSocket>, frame: Buffer): number {
    let sent = 0;
    // A copy: closing a slow socket changes the set.
    for (const socket of [...sockets]) {
      try {
        if (this.send(clientId, socket, frame)) sent += 1;
      } catch (error) {
        this.options.logger.warn({ err: error, clientId }, 'live message not sent to a socket');
      }
    }
    return sent;
  }

  private send(clientId: string, socket: WebSocket, frame: Buffer): boolean {
    if (socket.readyState !== WebSocket.OPEN) {
      this.unregister(clientId, socket);
      return false;
    }
    if (socket.bufferedAmount > this.maxBufferedBytes) {
      this.unregister(clientId, socket);
      this.options.logger.warn({ clientId, bufferedAmount: socket.bufferedAmount }, 'slow live client closed');
      socket.close(CLOSE_TRY_AGAIN_LATER, SLOW_CLIENT_REASON);
      return false;
    }
    // The same buffer for every socket: encoded once; text frame as published.
    socket.send(frame, { binary: false });
    return true;
  }
}

type ParsedLiveMessage = { type: string; at?: unknown };

/** An output line written to a socket: its delay since the worker read it (`live_output_delay_seconds`). */
function observeOutputDelay(message: ParsedLiveMessage): void {
  if (message.type !== 'execution_output' && message.type !== 'pipeline_step_output') return;
  const readAt = typeof message.at === 'string' ? Date.parse(message.at) : Number.NaN;
  // A line published before `at` existed (a worker of the previous version) has no delay to report.
  if (Number.isNaN(readAt)) return;
  liveOutputDelay.observe(Math.max(0, (Date.now() - readAt) / 1000));
}
