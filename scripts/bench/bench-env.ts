import { applyEnvironmentDefaults } from '../../lib/env-defaults';

/**
 * The benchmark's own database, index prefix and Temporal namespace, so it never touches development
 * or test data. Imported first by every benchmark (the config module reads the environment on import).
 */
/**
 * A person count other than the default (300 000) gets its own index and database, so a run at
 * 1 000 000 never regenerates the 300 000 index (and the reverse).
 */
const persons = process.env.BENCH_PERSONS && Number(process.env.BENCH_PERSONS) !== 300_000 ? `p${Number(process.env.BENCH_PERSONS)}_` : '';

const benchDefaults: Record<string, string> = {
  LOG_LEVEL: 'warn',
  MYSQL_DATABASE: persons ? `consultores_bench_${persons.slice(0, -1)}` : 'consultores_bench',
  ELASTICSEARCH_INDEX_PREFIX: `bench_${persons}`,
  REDIS_KEY_PREFIX: 'bench:',
  TEMPORAL_NAMESPACE: 'bench',
  // The benchmarks call /api far beyond a person's rate; the budget is not what they measure.
  RATE_LIMIT_REQUESTS: '1000000',
  // The same for the /api/v1 budgets: bench:consultants renders hundreds of sheets from one address.
  PDF_RATE_LIMIT_REQUESTS: '1000000',
  RANKING_JOB_RATE_LIMIT_REQUESTS: '1000000',
  // A fixed key for the benchmark's agent secrets (bench data only).
  AGENT_SECRETS_KEY: 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210',
};

applyEnvironmentDefaults(benchDefaults);
