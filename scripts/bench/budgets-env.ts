/**
 * bench:budgets's own database, apart from the other benchmarks' (bench-env.ts) and the tests'.
 * Imported first by budgets.ts; a value already set in the environment is kept.
 */
if (!process.env.MYSQL_DATABASE) process.env.MYSQL_DATABASE = 'consultores_bench_budgets';

// A require, not an import: imports are hoisted, and bench-env's defaults must come after the value above.
require('./bench-env');

export {};
