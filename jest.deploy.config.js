/**
 * The deploy test (docs/deploy-test.md): the image, scaled out behind a load balancer and restarted
 * under load, on the secured stack. Run by `npm run test:deploy` (scripts/deploy/test.sh builds the
 * image and starts the stack first) and by `npm test` after the serial suites; never by the other
 * configurations (their roots are test/unit and test/integration). One suite, alone, no global set-up:
 * it needs no per-worker test database, only its own (scripts/deploy/platform.ts).
 */
const { common } = require('./jest.projects');

/** @type {import('jest').Config} */
module.exports = {
  ...common,
  displayName: 'deploy',
  rootDir: __dirname,
  roots: ['<rootDir>/test/deploy'],
  setupFiles: [],
  setupFilesAfterEnv: [],
  maxWorkers: 1,
  testTimeout: 20 * 60_000,
  // Its afterAll (and scripts/deploy/cleanup.sh after it) stop everything it started; jest then waited
  // for idle keep-alive sockets (with --detectOpenHandles it named none).
  forceExit: true,
};
