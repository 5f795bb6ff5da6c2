import { Client, type ClientOptions } from '@elastic/elasticsearch';
import type { Config } from './config';

/**
 * The Elasticsearch client's options from the configuration: one node or several or an Elastic Cloud
 * ID, an API key or a user and password, the CA certificate or its fingerprint (docs/connections.md).
 */
export function elasticsearchOptions(settings: Config['elasticsearch']): ClientOptions {
  // A fingerprint pins the CA that signed the server's certificate (Elastic's way for a private CA):
  // the client checks it after the handshake, so the usual chain check, which that CA would fail, is off.
  const tls = settings.tls.ca ? { tls: { ca: settings.tls.ca } } : settings.tls.caFingerprint ? { tls: { rejectUnauthorized: false } } : {};
  return {
    ...(settings.cloudId ? { cloud: { id: settings.cloudId } } : { nodes: settings.nodes }),
    ...(settings.auth ? { auth: settings.auth } : {}),
    ...(settings.tls.caFingerprint ? { caFingerprint: settings.tls.caFingerprint } : {}),
    ...tls,
  };
}

/** One Elasticsearch client per process (it keeps its own connection pool). */
export function createElasticsearch(settings: Config['elasticsearch'], requestTimeoutMs = 30_000): Client {
  return new Client({ ...elasticsearchOptions(settings), requestTimeout: requestTimeoutMs, maxRetries: 2 });
}

/** Index names carry the configured prefix so tests and development never share an index. */
export function indexName(esConfig: Config['elasticsearch'], base: string): string {
  return `${esConfig.indexPrefix}${base}`;
}
