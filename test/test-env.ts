import { applyEnvironmentDefaults } from '../lib/env-defaults';
import { currentWorkerId, SHARED_TEST_DEFAULTS, workerTestDefaults } from './support/test-environment';

/**
 * The environment of every test process (a jest setupFiles entry, so before any test module reads it):
 * its own database, index prefix, Redis prefix, Temporal namespace and data area, one set per jest
 * worker (JEST_WORKER_ID), so that suites running at once on two workers never touch each other's data,
 * a developer's data, nor get their tasks picked up by a developer's running workers
 * (test/support/test-environment.ts). Explicit variables win.
 */
applyEnvironmentDefaults({ ...SHARED_TEST_DEFAULTS, ...workerTestDefaults(currentWorkerId()) });
