import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type websockify from 'koa-websocket';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';

/** Close code sent to WebSocket clients when the server goes away (RFC 6455 1001). */
const CLOSE_GOING_AWAY = 1001;

export interface HttpServer {
  server: Server;
  url: string;
  /** Stops accepting connections, says goodbye to WebSocket clients and waits for in-flight requests. */
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
        for (const client of app.ws.server?.clients ?? []) client.close(CLOSE_GOING_AWAY, 'server shutting down');
        // Keep-alive connections with no request in flight would hold close() open until they time out.
        server.closeIdleConnections();
      }),
  };
}
