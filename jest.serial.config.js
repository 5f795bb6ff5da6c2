/**
 * The integration suites that cannot share the machine (SERIAL_SUITES in jest.projects.js), one at a time
 * with nothing else running: `npx jest -c jest.serial.config.js` after the parallel run.
 */
const { integration, SERIAL_SUITES } = require('./jest.projects');

/** @type {import('jest').Config} */
module.exports = {
  ...integration,
  displayName: 'integration-serial',
  rootDir: __dirname,
  testMatch: SERIAL_SUITES.map((suite) => `**/${suite}`),
  maxWorkers: 1,
};
