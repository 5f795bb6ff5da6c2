import type { ApiResources } from './resources';
import { PERSON_INDEX_BASE } from '../domain/person-index';
import { indexName } from '../lib/elasticsearch';
import { withTimeout } from '../lib/timeout';

export type DependencyName = 'mysql' | 'redis' | 'elasticsearch' | 'temporal';

export interface DependencyStatus {
  status: 'up' | 'down';
  /** Round-trip time of the check in milliseconds (two decimals). */
  latencyMs: number;
  /** Why the check failed; present only when down. */
  error?: string;
}

type Probe = (resources: ApiResources, timeoutMs: number) => Promise<unknown>;

/** The cheapest real round trip each dependency offers. */
const probes: Record<DependencyName, Probe> = {
  mysql: (resources) => resources.database.pool.query('SELECT 1'),
  redis: (resources) => resources.redis.ping(),
  // The person index's existence: what a least-privilege key may ask (`view_index_metadata` on that index,
  // docs/connections.md); cluster health needs a cluster privilege the service does not otherwise need.
  elasticsearch: (resources, timeoutMs) =>
    resources.elasticsearch.indices.exists(
      { index: indexName(resources.config.elasticsearch, PERSON_INDEX_BASE) },
      { requestTimeout: timeoutMs, maxRetries: 0 },
    ),
  temporal: (resources, timeoutMs) => {
    const { healthConnection } = resources.temporal;
    return healthConnection.withDeadline(Date.now() + timeoutMs, () => healthConnection.healthService.check({}));
  },
};

/** One round trip to `name` (the readiness probe's check; api/probes.ts): rejects when it fails, not bounded here. */
export function pingDependency(name: DependencyName, resources: ApiResources): Promise<unknown> {
  return probes[name](resources, resources.config.dependencyTimeoutMs);
}

async function measure(name: DependencyName, resources: ApiResources): Promise<DependencyStatus> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 10_000) / 100;
  try {
    const timeoutMs = resources.config.dependencyTimeoutMs;
    await withTimeout(probes[name](resources, timeoutMs), timeoutMs, name);
    return { status: 'up', latencyMs: elapsed() };
  } catch (error) {
    return { status: 'down', latencyMs: elapsed(), error: error instanceof Error ? error.message : String(error) };
  }
}

/** Checks every dependency at once; never throws, each check is bounded by DEPENDENCY_TIMEOUT_MS. */
export async function checkDependencies(resources: ApiResources): Promise<Record<DependencyName, DependencyStatus>> {
  const names = Object.keys(probes) as DependencyName[];
  const results = await Promise.all(names.map((name) => measure(name, resources)));
  return Object.fromEntries(names.map((name, i) => [name, results[i]])) as Record<DependencyName, DependencyStatus>;
}
