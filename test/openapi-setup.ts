import { takeEnglishAnswers } from './support/answer-language';
import { takeConformanceViolations } from './support/openapi-conformance';

/**
 * After each test: the answers the test servers gave must match their description in the OpenAPI
 * documents (test/support/openapi-conformance.ts), and the texts a person reads in them must be pt-BR
 * (test/support/answer-language.ts); a mismatch fails the test that received it.
 */
afterEach(() => {
  const violations = takeConformanceViolations();
  if (violations.length > 0) throw new Error(`answers that do not match the OpenAPI documents:\n  ${violations.join('\n  ')}`);
  const english = takeEnglishAnswers();
  if (english.length > 0) throw new Error(`answers that speak English to a person (docs/errors.md):\n  ${english.join('\n  ')}`);
});
