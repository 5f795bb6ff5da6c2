import { Client, type Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import { lazyTemporal } from './connection';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  /**
   * A second connection for health checks, without the SDK's retry interceptor: one check is one
   * attempt, and no retry timer outlives the check (a pending retry would fire after close()).
   */
  healthConnection: Connection;
}

/**
 * Lazily connected: the HTTP server starts (and reports Temporal as down) even while the
 * Temporal server is unreachable; the first call connects.
 */
export function createTemporalClient(temporalConfig: Config['temporal']): TemporalHandle {
  const connection = lazyTemporal(temporalConfig);
  const client = new Client({ connection, namespace: temporalConfig.namespace });
  const healthConnection = lazyTemporal(temporalConfig, { interceptors: [] });
  return { connection, client, healthConnection };
}

export async function closeTemporalClient(handle: TemporalHandle): Promise<void> {
  await Promise.allSettled([handle.connection.close(), handle.healthConnection.close()]);
}
