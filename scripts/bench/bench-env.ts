import { applyEnvironmentDefaults } from '../../lib/env-defaults';

/**
 * The benchmark's own database, index prefix and Temporal namespace, so it never touches development
 * or test data. Imported first by every benchmark (the config module reads the environment on import).
 */
const benchDefaults: Record<string, string> = {
  LOG_LEVEL: 'warn',
  MYSQL_DATABASE: 'consultores_bench',
  ELASTICSEARCH_INDEX_PREFIX: 'bench_',
  REDIS_KEY_PREFIX: 'bench:',
  TEMPORAL_NAMESPACE: 'bench',
};

applyEnvironmentDefaults(benchDefaults);
