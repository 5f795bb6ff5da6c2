import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type websockify from 'koa-websocket';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';

/**
 * Close code sent to WebSocket clients when the server shuts down: 1012, Service Restart (IANA's
 * registry of RFC 6455 codes), which tells a client to reconnect, as the panel does after 1 s; another
 * API process then takes it (docs/probes-and-drains.md). 1001 (going away) would read as for good.
 */
export const CLOSE_SERVICE_RESTART = 1012;

/** How long a WebSocket client has to answer the server's close before its connection is cut. */
const CLOSE_HANDSHAKE_MS = 2_000;

export interface HttpServer {
  server: Server;
  url: string;
  /** Stops accepting connections, tells WebSocket clients to reconnect (1012) and waits for in-flight requests. */
  close(): Promise<void>;
}

export async function startHttpServer(app: websockify.App, http: Config['http'], logger: Logger): Promise<HttpServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(http.port, http.host);
    listening.once('listening', () => resolve(listening));
    listening.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address}:${port}`;
  logger.info({ url }, 'http server listening');
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        const clients = [...(app.ws.server?.clients ?? [])];
        for (const client of clients) client.close(CLOSE_SERVICE_RESTART, 'server restarting: reconnect');
        // A peer that never answers the close would hold close() for ws's 30 s, past the shutdown's deadline.
        setTimeout(() => {
          for (const client of clients) if (client.readyState !== client.CLOSED) client.terminate();
        }, CLOSE_HANDSHAKE_MS).unref();
        // Keep-alive connections with no request in flight would hold close() open until they time out.
        server.closeIdleConnections();
      }),
  };
}
