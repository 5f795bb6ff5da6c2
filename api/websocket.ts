import type { Middleware } from 'koa';
import type { WebSocket } from 'ws';
import type { Logger } from '../lib/logger';

export const WEBSOCKET_PATH = '/ws';

/** Close code for a connection without a client id (RFC 6455 1008: policy violation). */
export const CLOSE_POLICY_VIOLATION = 1008;

/**
 * Browsers cannot set headers on a WebSocket, so the client id comes from the `clientId`
 * query parameter; the `X-Client-Id` header is accepted for other clients.
 */
export function clientIdOf(query: Record<string, string | string[] | undefined>, header: string | undefined): string | null {
  const fromQuery = query.clientId;
  const value = (Array.isArray(fromQuery) ? fromQuery[0] : fromQuery) ?? header;
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, 128) : null;
}

/** Accepts a connection, greets it with its client id, and keeps it open (later issues relay output to it). */
export function websocketHandler(logger: Logger): Middleware {
  return async (ctx) => {
    const socket = (ctx as unknown as { websocket: WebSocket }).websocket;
    // A socket's middleware chain is outside the HTTP error envelope: its failures are handled here.
    try {
      const clientId = clientIdOf(ctx.query, ctx.get('x-client-id') || undefined);
      if (!clientId) {
        socket.close(CLOSE_POLICY_VIOLATION, 'clientId query parameter or X-Client-Id header required');
        return;
      }
      socket.on('error', (error) => logger.warn({ err: error, clientId }, 'websocket error'));
      socket.send(JSON.stringify({ type: 'connected', clientId }));
    } catch (error) {
      logger.error({ err: error }, 'websocket handler failed');
      socket.terminate();
    }
  };
}
