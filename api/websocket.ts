import type { Middleware } from 'koa';
import type { WebSocket } from 'ws';
import type { Logger } from '../lib/logger';
import { withTimeout } from '../lib/timeout';
import type { LiveRelay } from './live-relay';
import { bearerTokenOf, socketOriginAllowed, tokenMatches } from './orchestration/security';

export const WEBSOCKET_PATH = '/ws';

/** Close code for a connection without a client id or without the token (RFC 6455 1008: policy violation). */
export const CLOSE_POLICY_VIOLATION = 1008;

export const TOKEN_REQUIRED_REASON = 'token query parameter or Authorization: Bearer header required';
export const TOKEN_INVALID_REASON = 'invalid token';
export const ORIGIN_REFUSED_REASON = 'origin not allowed';

type Query = Record<string, string | string[] | undefined>;

/** Like the client id, the token comes from the `token` query parameter (browsers) or the `Authorization` header. */
export function socketTokenOf(query: Query, authorization: string | undefined): string | null {
  const fromQuery = query.token;
  const value = Array.isArray(fromQuery) ? fromQuery[0] : fromQuery;
  return value?.trim() || bearerTokenOf(authorization);
}

/**
 * Browsers cannot set headers on a WebSocket, so the client id comes from the `clientId`
 * query parameter; the `X-Client-Id` header is accepted for other clients.
 */
export function clientIdOf(query: Query, header: string | undefined): string | null {
  const fromQuery = query.clientId;
  const value = (Array.isArray(fromQuery) ? fromQuery[0] : fromQuery) ?? header;
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, 128) : null;
}

export interface LiveDelivery {
  relay: LiveRelay;
  /** How long a greeting waits for the live subscription (Redis down: greeted anyway, output follows when it is back). */
  readyTimeoutMs: number;
}

export interface SocketAccess {
  /** AUTH_TOKEN, or null when not configured. */
  authToken: string | null;
  /** CORS_ORIGINS: which pages of other origins may open a socket. */
  corsOrigins: string[];
}

/**
 * Accepts a connection, registers it for its client's live output, greets it with its client id, and
 * keeps it open. A browser page of an origin CORS_ORIGINS does not allow, and with a configured token
 * (`AUTH_TOKEN`) a connection without it, are closed with 1008 before anything is sent: browsers see
 * the close code and reason, never the status of a refused handshake.
 */
export function websocketHandler(logger: Logger, access: SocketAccess, live: LiveDelivery): Middleware {
  const { authToken, corsOrigins } = access;
  return async (ctx) => {
    const socket = (ctx as unknown as { websocket: WebSocket }).websocket;
    // A socket's middleware chain is outside the HTTP error envelope: its failures are handled here.
    try {
      if (!socketOriginAllowed(corsOrigins, ctx.get('origin') || undefined, ctx.host)) {
        socket.close(CLOSE_POLICY_VIOLATION, ORIGIN_REFUSED_REASON);
        return;
      }
      if (authToken !== null) {
        const presented = socketTokenOf(ctx.query, ctx.get('authorization') || undefined);
        if (!tokenMatches(authToken, presented)) {
          socket.close(CLOSE_POLICY_VIOLATION, presented === null ? TOKEN_REQUIRED_REASON : TOKEN_INVALID_REASON);
          return;
        }
      }
      const clientId = clientIdOf(ctx.query, ctx.get('x-client-id') || undefined);
      if (!clientId) {
        socket.close(CLOSE_POLICY_VIOLATION, 'clientId query parameter or X-Client-Id header required');
        return;
      }
      socket.on('error', (error) => logger.warn({ err: error, clientId }, 'websocket error'));
      // The greeting waits for the subscription, so nothing published after it is missed.
      await withTimeout(live.relay.register(clientId, socket), live.readyTimeoutMs, 'live output subscription').catch(
        (error: unknown) => logger.warn({ err: error, clientId }, 'live output not subscribed yet'),
      );
      socket.send(JSON.stringify({ type: 'connected', clientId }));
    } catch (error) {
      logger.error({ err: error }, 'websocket handler failed');
      socket.terminate();
    }
  };
}
