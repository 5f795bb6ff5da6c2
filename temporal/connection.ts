import { Connection, type ConnectionOptions, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from '../lib/config';

/**
 * What every Temporal connection of the service is given (clients, each worker's native connection,
 * the namespace helpers): address, TLS (server CA, name, client certificate), API key and extra gRPC
 * metadata, as @temporalio/envconfig read them (lib/connection-settings.ts, docs/connections.md).
 */
export function temporalConnectionOptions(settings: Config['temporal']): {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  return {
    address: settings.address,
    ...(settings.tls !== undefined ? { tls: settings.tls } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.metadata !== undefined ? { metadata: settings.metadata } : {}),
  };
}

/** A client connection, connected now. */
export function connectTemporal(settings: Config['temporal'], extra: Partial<ConnectionOptions> = {}): Promise<Connection> {
  return Connection.connect({ ...temporalConnectionOptions(settings), ...extra });
}

/** A client connection that connects on its first call. */
export function lazyTemporal(settings: Config['temporal'], extra: Partial<ConnectionOptions> = {}): Connection {
  return Connection.lazy({ ...temporalConnectionOptions(settings), ...extra });
}

/** A worker's native connection. */
export function connectNativeTemporal(settings: Config['temporal']): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(settings));
}
