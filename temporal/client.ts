import { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
}

/**
 * A lazily connected client: the HTTP server starts (and reports Temporal as down)
 * even while the Temporal server is unreachable; the first call connects.
 */
export function createTemporalClient(temporalConfig: Config['temporal']): TemporalHandle {
  const connection = Connection.lazy({ address: temporalConfig.address });
  const client = new Client({ connection, namespace: temporalConfig.namespace });
  return { connection, client };
}
