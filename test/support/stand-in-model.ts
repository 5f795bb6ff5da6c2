// Moved to test/fixtures/stand-in-model/ (issue 14, section 3); kept for imports not yet updated.
export * from '../fixtures/stand-in-model';
