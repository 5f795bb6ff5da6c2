import type { IncomingMessage } from 'node:http';
import { HANDSHAKE_REFUSALS } from '../domain/run-messages';
import { websocketClients } from '../lib/metrics';
import type Koa from 'koa';
import type { Middleware, ParameterizedContext } from 'koa';
import type { VerifyClientCallbackAsync, WebSocket } from 'ws';
import type { Logger } from '../lib/logger';
import { withTimeout } from '../lib/timeout';
import type { LiveRelay } from './live-relay';
import {
  bearerTokenOf,
  hostAllowed,
  hostnameOf,
  SessionsUnavailableError,
  sessionCookieOf,
  socketOriginAllowed,
  tokenMatches,
  type PanelSessions,
} from './orchestration/security';

/**
 * Where the WebSocket is accepted: `/`, where the admin panel connects (contract 4.1), and `/ws`,
 * this service's own address since the start. Matched on the path as sent, exactly.
 */
export const WEBSOCKET_PATHS: readonly string[] = ['/', '/ws'];

/** Close code for a connection without a client id (RFC 6455 1008: policy violation). */
export const CLOSE_POLICY_VIOLATION = 1008;

/** Clients send nothing but pongs; a frame larger than this closes the socket with 1009 (ws's own check). */
export const MAX_INCOMING_FRAME_BYTES = 4 * 1024;

// The refusals' texts are the catalogue's (domain/run-messages.ts, pt-BR); the names stay for their readers.
export const TOKEN_REQUIRED_REASON = HANDSHAKE_REFUSALS.tokenRequired;
export const TOKEN_INVALID_REASON = HANDSHAKE_REFUSALS.tokenInvalid;
/** With the panel's sign-in (api/sign-in.ts): nothing presented, or a session cookie that names no live session. */
export const CREDENTIAL_REQUIRED_REASON = HANDSHAKE_REFUSALS.credentialRequired;
export const SESSION_INVALID_REASON = HANDSHAKE_REFUSALS.sessionInvalid;
export const SESSIONS_UNAVAILABLE_REASON = HANDSHAKE_REFUSALS.sessionsUnavailable;
export const ORIGIN_REFUSED_REASON = HANDSHAKE_REFUSALS.originRefused;
export const HOST_REFUSED_REASON = HANDSHAKE_REFUSALS.hostRefused;
export const TOO_MANY_SOCKETS_REASON = HANDSHAKE_REFUSALS.tooManySockets;
export const NO_SOCKET_HERE_REASON = HANDSHAKE_REFUSALS.noSocketHere;

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
  /** ALLOWED_HOSTS: the host names the service answers to. */
  allowedHosts: string[];
  /** The panel's sign-in sessions (AUTH_TOKEN and PANEL_DIR set), accepted besides the token; else null. */
  sessions: PanelSessions | null;
  maxSocketsPerClient: number;
  pingIntervalMs: number;
}

/** Open sockets per client address, so one address cannot hold every file descriptor. */
export class SocketsByAddress {
  private readonly open = new Map<string, number>();

  count(address: string): number {
    return this.open.get(address) ?? 0;
  }

  /** Counts the socket until it closes. */
  add(address: string, socket: WebSocket): void {
    this.open.set(address, this.count(address) + 1);
    websocketClients.inc();
    socket.once('close', () => {
      websocketClients.dec();
      const left = this.count(address) - 1;
      if (left > 0) this.open.set(address, left);
      else this.open.delete(address);
    });
  }
}

interface Refusal {
  status: number;
  reason: string;
}

/** The path of an upgrade request as sent, without its query. */
function requestPathOf(request: IncomingMessage): string {
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The handshake's checks, before the upgrade (ws's verifyClient): the path (the ws server has no
 * `path` option, since it takes one path and the socket has two), the host (DNS rebinding), the
 * page's origin (CORS does not cover WebSockets), the token, and the cap on sockets per address. A
 * refused handshake gets an HTTP status and a JSON `{"error"}` body; no socket is ever opened.
 * The Koa context gives the same reading of proxy headers, client address and query as HTTP requests.
 */
export function socketHandshakeGuard(
  app: Koa,
  access: SocketAccess,
  sockets: SocketsByAddress,
): VerifyClientCallbackAsync<IncomingMessage> {
  const refusalOf = async (request: IncomingMessage): Promise<Refusal | null> => {
    if (!WEBSOCKET_PATHS.includes(requestPathOf(request))) return { status: 404, reason: NO_SOCKET_HERE_REASON };
    const ctx = app.createContext(request, undefined as never);
    if (!hostAllowed(access.allowedHosts, hostnameOf(ctx.host))) return { status: 403, reason: HOST_REFUSED_REASON };
    if (!socketOriginAllowed(access.corsOrigins, ctx.get('origin') || undefined, ctx.host)) {
      return { status: 403, reason: ORIGIN_REFUSED_REASON };
    }
    if (access.authToken !== null) {
      const refusal = await credentialRefusal(access.authToken, access.sessions, ctx);
      if (refusal !== null) return refusal;
    }
    if (sockets.count(ctx.ip) >= access.maxSocketsPerClient) return { status: 429, reason: TOO_MANY_SOCKETS_REASON };
    return null;
  };
  return (info, accept) => {
    void refusalOf(info.req).then(answer, () => answer({ status: 500, reason: HANDSHAKE_REFUSALS.internal }));
    function answer(refusal: Refusal | null): void {
      if (refusal === null) {
        accept(true);
        return;
      }
      const body = JSON.stringify({ error: refusal.reason });
      const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
      if (refusal.status === 401) headers['WWW-Authenticate'] = 'Bearer';
      accept(false, refusal.status, body, headers);
    }
  };
}

/**
 * The token (query parameter or bearer header) when one is presented, which then decides alone;
 * else, with the panel's sign-in, the session cookie (the panel's own socket: browsers send the
 * cookie with the handshake, SameSite=Strict keeps it off handshakes other sites' pages start).
 */
async function credentialRefusal(authToken: string, sessions: PanelSessions | null, ctx: ParameterizedContext): Promise<Refusal | null> {
  const presented = socketTokenOf(ctx.query, ctx.get('authorization') || undefined);
  if (presented !== null) return tokenMatches(authToken, presented) ? null : { status: 401, reason: TOKEN_INVALID_REASON };
  if (sessions === null) return { status: 401, reason: TOKEN_REQUIRED_REASON };
  try {
    if (await sessions.requestHasSession(ctx)) return null;
  } catch (error) {
    if (error instanceof SessionsUnavailableError) return { status: 503, reason: SESSIONS_UNAVAILABLE_REASON };
    throw error;
  }
  return { status: 401, reason: sessionCookieOf(ctx) !== undefined ? SESSION_INVALID_REASON : CREDENTIAL_REQUIRED_REASON };
}

/**
 * Pings the socket every `intervalMs` and ends it when the previous ping got no pong: a client that
 * vanished without closing (a sleeping laptop, a dropped network) stops counting against its cap.
 */
function keepAlive(socket: WebSocket, intervalMs: number): void {
  let answered = true;
  socket.on('pong', () => {
    answered = true;
  });
  const timer = setInterval(() => {
    if (!answered) {
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  }, intervalMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}

/**
 * Accepts a connection that passed the handshake guard, counts it against its address, registers it
 * for its client's live output, greets it with its client id, and keeps it alive with pings.
 */
export function websocketHandler(logger: Logger, access: SocketAccess, sockets: SocketsByAddress, live: LiveDelivery): Middleware {
  return async (ctx) => {
    const socket = (ctx as unknown as { websocket: WebSocket }).websocket;
    // A socket's middleware chain is outside the HTTP error envelope: its failures are handled here.
    try {
      sockets.add(ctx.ip, socket);
      keepAlive(socket, access.pingIntervalMs);
      const clientId = clientIdOf(ctx.query, ctx.get('x-client-id') || undefined);
      if (!clientId) {
        socket.close(CLOSE_POLICY_VIOLATION, 'clientId query parameter or X-Client-Id header required');
        return;
      }
      socket.on('error', (error) => logger.warn({ err: error, clientId }, 'websocket error'));
      // The greeting waits for the subscription, so nothing published after it is missed.
      await withTimeout(live.relay.register(clientId, socket), live.readyTimeoutMs, 'live output subscription').catch((error: unknown) =>
        logger.warn({ err: error, clientId }, 'live output not subscribed yet'),
      );
      socket.send(JSON.stringify({ type: 'connected', clientId }));
    } catch (error) {
      logger.error({ err: error }, 'websocket handler failed');
      socket.terminate();
    }
  };
}
