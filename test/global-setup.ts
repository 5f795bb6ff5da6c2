import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Config as JestConfig } from '@jest/types';
import { applyEnvironmentDefaults } from '../lib/env-defaults';
import { SHARED_TEST_DEFAULTS, testEnvironmentOf } from './support/test-environment';

/**
 * The integration suites' global set-up (the unit suites have none: they need no service). Brings the
 * local stack and the secured one up (or reuses them: seconds when they run), proves each part answers, then prepares what
 * each jest worker's suites use (test/support/test-environment.ts): its database migrated, its Temporal
 * namespace registered with the runs' search attributes. Any missing part fails the whole run loudly.
 *
 * Only the defaults every worker shares go into this process's environment, which the workers inherit:
 * a per-worker value set here would count as explicit in every worker, and all would share it.
 */
export default async function globalSetup(globalConfig: JestConfig.GlobalConfig): Promise<void> {
  applyEnvironmentDefaults({ ...SHARED_TEST_DEFAULTS });
  const root = path.resolve(__dirname, '..');
  try {
    execFileSync('bash', [path.join(root, 'scripts/stack/up.sh')], { stdio: 'inherit' });
  } catch {
    throw new Error('the local stack did not start (scripts/stack/up.sh failed; its message names the part and log)');
  }
  // The secured stack beside it (docs/secure-stack.md), once here: suites started together must not race to start it.
  try {
    execFileSync('bash', [path.join(root, 'scripts/stack/secure-up.sh')], { stdio: 'inherit' });
  } catch {
    throw new Error('the secured local stack did not start (scripts/stack/secure-up.sh failed; its message names the part and log)');
  }

  // Loaded only now: modules that read the environment when they are imported see the defaults above.
  const { loadConfig } = await import('../lib/config');
  const { logger } = await import('../lib/logger');
  const { createApiResources, closeApiResources } = await import('../api/resources');
  const { checkDependencies } = await import('../api/dependency-status');
  const { migrateDatabase } = await import('../db/migrate');
  const { ensureNamespace } = await import('../temporal/namespace');
  const { ensureSearchAttributes } = await import('../temporal/search-attributes');
  const { connectTemporal } = await import('../temporal/connection');

  // Worker ids are 1..maxWorkers (in band: 1). Explicit variables may give several workers one database
  // or namespace: each is prepared once.
  const workers = Math.max(1, globalConfig.maxWorkers);
  const configs = Array.from({ length: workers }, (_, index) => loadConfig(testEnvironmentOf(String(index + 1))));
  const databases = new Map(configs.map((config) => [config.mysql.database, config.mysql]));
  const namespaces = new Set(configs.map((config) => config.temporal.namespace));
  const temporal = configs[0]!.temporal;

  for (const mysql of databases.values()) await migrateDatabase(mysql);
  // The runs' custom search attributes (docs/observability.md): a suite may start runs before any worker registered them.
  const connection = await connectTemporal(temporal);
  try {
    for (const namespace of namespaces) {
      await ensureNamespace(temporal, namespace);
      await ensureSearchAttributes(connection, namespace);
    }
  } finally {
    await connection.close();
  }

  const resources = createApiResources(configs[0]!, logger);
  try {
    const dependencies = await checkDependencies(resources);
    const down = Object.entries(dependencies).filter(([, dependency]) => dependency.status === 'down');
    if (down.length > 0) {
      throw new Error(`stack part(s) not reachable: ${down.map(([name, d]) => `${name} (${d.error})`).join(', ')}`);
    }
  } finally {
    await closeApiResources(resources);
  }
}
