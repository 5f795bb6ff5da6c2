import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { migrateDatabase } from './migrate';

migrateDatabase(config.mysql).then(
  () => logger.info({ database: config.mysql.database }, 'migrations applied'),
  (error: unknown) => {
    logger.fatal({ err: error }, 'migrations failed');
    process.exitCode = 1;
  },
);
