/**
 * bench:files's own database, namespace, Redis and index prefixes and directories, apart from the
 * other benchmarks' (bench-env.ts) and the tests': it runs while they run. Imported first by files.ts;
 * a value already set in the environment is kept.
 */
export const FILES_BENCH_ENV: Record<string, string> = {
  MYSQL_DATABASE: 'consultores_bench_files',
  TEMPORAL_NAMESPACE: 'bench_files',
  REDIS_KEY_PREFIX: 'bench_files:',
  ELASTICSEARCH_INDEX_PREFIX: 'bench_files_',
  AGENT_DATA_DIR: '.data/bench-files',
  AGENT_REPORTS_DIR: '.data/bench-files/external-reports',
  AGENT_UPLOADS_DIR: '.data/bench-files-uploads',
  AGENT_WORKDIR_ROOTS: '/home/projetos/bench-files',
};

for (const [name, value] of Object.entries(FILES_BENCH_ENV)) {
  if (!process.env[name]) process.env[name] = value;
}

// A require, not an import: imports are hoisted, and bench-env's defaults must come after the values above.
require('./bench-env');
