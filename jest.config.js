/**
 * Two jest projects (issue 38):
 * - `unit` (test/unit): no service, no global set-up; `npm run test:unit` runs them alone in seconds.
 * - `integration` (test/integration): the real stack. Its global set-up starts or reuses the stack and
 *   prepares one database and Temporal namespace per jest worker; each worker's suites get their own
 *   names (test/support/test-environment.ts, applied by test/test-env.ts), so suites run on both cores.
 * The suites that cannot share the machine with others (SERIAL_SUITES) are left out of this
 * configuration and run alone afterwards with jest.serial.config.js.
 */

const { SERIAL_SUITES, common, unit, integration } = require('./jest.projects');

/** @type {import('jest').Config} */
module.exports = {
  projects: [unit, { ...integration, testPathIgnorePatterns: ['/node_modules/', ...SERIAL_SUITES.map((suite) => `<rootDir>/${suite}`)] }],
  // Two cores: each worker has its own database, prefixes, namespace and data area.
  maxWorkers: 2,
  // A global option: jest ignores it in a project.
  testTimeout: common.testTimeout,
};
