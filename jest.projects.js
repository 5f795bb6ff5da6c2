/** The jest projects of jest.config.js and jest.serial.config.js (issue 38). */

/** Suites that must run with nothing else: why, next to each. */
const SERIAL_SUITES = [
  // Restarts Temporal, MariaDB and Redis (scripts/faults/injectors.ts): every suite running meanwhile fails.
  'test/integration/faults.test.ts',
  // A run prefers the pool user that owns its working copy; when another worker's suite holds that user,
  // the run gets another one and git refuses the copy (seen in 2 of 4 parallel runs): alone until runs
  // on a shared working copy wait for its owner.
  'test/integration/repos-runs.test.ts',
];

/** @type {import('jest').Config} */
const common = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type-checking is done once by `tsc --noEmit` in scripts/test.sh; ts-jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  // Each test process's environment, per jest worker (explicit variables win).
  setupFiles: ['<rootDir>/test/test-env.ts'],
  // Every answer of a test server is checked against the OpenAPI documents (docs/openapi.md).
  setupFilesAfterEnv: ['<rootDir>/test/openapi-setup.ts'],
  testTimeout: 60_000,
};

/** @type {import('jest').Config} */
const unit = { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'] };

/** @type {import('jest').Config} */
const integration = {
  ...common,
  displayName: 'integration',
  roots: ['<rootDir>/test/integration'],
  globalSetup: '<rootDir>/test/global-setup.ts',
};

module.exports = { SERIAL_SUITES, common, unit, integration };
