import { Client } from '@elastic/elasticsearch';
import type { Config } from './config';

/** One Elasticsearch client per process (it keeps its own connection pool). */
export function createElasticsearch(esConfig: Config['elasticsearch'], requestTimeoutMs = 30_000): Client {
  return new Client({ node: esConfig.url, requestTimeout: requestTimeoutMs, maxRetries: 2 });
}

/** Index names carry the configured prefix so tests and development never share an index. */
export function indexName(esConfig: Config['elasticsearch'], base: string): string {
  return `${esConfig.indexPrefix}${base}`;
}
