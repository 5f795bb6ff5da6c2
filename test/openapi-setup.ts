import { takeConformanceViolations } from './support/openapi-conformance';

/**
 * After each test: the answers the test servers gave must match their description in the OpenAPI
 * documents (test/support/openapi-conformance.ts); a mismatch fails the test that received it.
 */
afterEach(() => {
  const violations = takeConformanceViolations();
  if (violations.length > 0) throw new Error(`answers that do not match the OpenAPI documents:\n  ${violations.join('\n  ')}`);
});
