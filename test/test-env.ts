import { applyEnvironmentDefaults } from '../lib/env-defaults';

/**
 * The environment of every test process (and of the global set-up): its own database,
 * index prefix, Redis prefix and Temporal namespace, so tests never touch a developer's data
 * nor get their tasks picked up by a developer's running workers. Explicit variables win.
 */
const testDefaults: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  MYSQL_DATABASE: 'consultores_test',
  ELASTICSEARCH_INDEX_PREFIX: 'test_',
  REDIS_KEY_PREFIX: 'test:',
  TEMPORAL_NAMESPACE: 'test',
  // Reports and working directories of tests stay out of a developer's data area.
  AGENT_DATA_DIR: '.data/test',
  AGENT_REPORTS_DIR: '.data/test/external-reports',
  // Suites call /api far more often than a person would; the rate-limit tests set their own budget.
  RATE_LIMIT_REQUESTS: '1000000',
  PDF_RATE_LIMIT_REQUESTS: '1000000',
  RANKING_JOB_RATE_LIMIT_REQUESTS: '1000000',
  // The public /hook budget counts every caller on 127.0.0.1 across suites; its own test sets a small one.
  HOOK_RATE_LIMIT_REQUESTS: '1000000',
  // A fixed key for the tests' encrypted agent secrets (never used outside tests).
  AGENT_SECRETS_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
};

applyEnvironmentDefaults(testDefaults);
