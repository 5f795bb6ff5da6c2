/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type-checking is done once by `tsc --noEmit` in scripts/test.sh; ts-jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  setupFiles: ['<rootDir>/test/test-env.ts'],
  // Every answer of a test server is checked against the OpenAPI documents (docs/openapi.md).
  setupFilesAfterEnv: ['<rootDir>/test/openapi-setup.ts'],
  // Integration suites share one database and one Temporal namespace: run them one at a time.
  maxWorkers: 1,
  testTimeout: 60_000,
};
