import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Brings the local stack up (or reuses it: seconds when it runs), then proves each part answers
 * and prepares the test database and namespace. Any missing part fails the whole run loudly.
 */
export default async function globalSetup(): Promise<void> {
  require('./test-env');
  const root = path.resolve(__dirname, '..');
  try {
    execFileSync('bash', [path.join(root, 'scripts/stack/up.sh')], { stdio: 'inherit' });
  } catch {
    throw new Error('the local stack did not start (scripts/stack/up.sh failed; its message names the part and log)');
  }

  // Loaded only now: the config module reads the environment set above when it is imported.
  const { config } = await import('../lib/config');
  const { logger } = await import('../lib/logger');
  const { createApiResources, closeApiResources } = await import('../api/resources');
  const { checkDependencies } = await import('../api/dependency-status');
  const { migrateDatabase } = await import('../db/migrate');
  const { ensureNamespace } = await import('../temporal/namespace');
  const { ensureSearchAttributes } = await import('../temporal/search-attributes');
  const { Connection } = await import('@temporalio/client');

  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal.address, config.temporal.namespace);
  // The runs' custom search attributes (docs/observability.md): a suite may start runs before any worker registered them.
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    await ensureSearchAttributes(connection, config.temporal.namespace);
  } finally {
    await connection.close();
  }

  const resources = createApiResources(config, logger);
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
