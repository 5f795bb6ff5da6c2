import type { Services } from './services';
import { withTimeout } from './timeout';

export type DependencyName = 'mysql' | 'redis' | 'elasticsearch' | 'temporal';

export interface DependencyStatus {
  status: 'up' | 'down';
  /** Round-trip time of the check in milliseconds (two decimals). */
  latencyMs: number;
  /** Why the check failed; present only when down. */
  error?: string;
}

type Probe = (services: Services) => Promise<unknown>;

/** The cheapest real round trip each dependency offers. */
const probes: Record<DependencyName, Probe> = {
  mysql: (services) => services.database.pool.query('SELECT 1'),
  redis: (services) => services.redis.ping(),
  elasticsearch: async (services) => {
    const ok = await services.elasticsearch.ping();
    if (!ok) throw new Error('ping answered false');
  },
  temporal: (services) => services.temporal.connection.healthService.check({}),
};

async function measure(name: DependencyName, services: Services): Promise<DependencyStatus> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 10_000) / 100;
  try {
    await withTimeout(probes[name](services), services.config.dependencyTimeoutMs, name);
    return { status: 'up', latencyMs: elapsed() };
  } catch (error) {
    return { status: 'down', latencyMs: elapsed(), error: error instanceof Error ? error.message : String(error) };
  }
}

/** Checks every dependency at once; never throws, each check is bounded by DEPENDENCY_TIMEOUT_MS. */
export async function checkDependencies(services: Services): Promise<Record<DependencyName, DependencyStatus>> {
  const names = Object.keys(probes) as DependencyName[];
  const results = await Promise.all(names.map((name) => measure(name, services)));
  return Object.fromEntries(names.map((name, i) => [name, results[i]])) as Record<DependencyName, DependencyStatus>;
}
