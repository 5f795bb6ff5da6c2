import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import mysql from 'mysql2/promise';
import type { Config } from '../lib/config';
import { mysqlConnectionOptions } from './connection-options';
import * as schema from './schema';

export type Database = MySql2Database<typeof schema>;

export interface DatabaseHandle {
  pool: mysql.Pool;
  db: Database;
}

/** One pool per process; every repository module receives `db` from here. */
export function createDatabase(mysqlConfig: Config['mysql']): DatabaseHandle {
  const pool = mysql.createPool({
    ...mysqlConnectionOptions(mysqlConfig),
    database: mysqlConfig.database,
    connectionLimit: mysqlConfig.poolSize,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    // Large multi-row inserts are sized by the caller; keep the socket alive between batches.
    enableKeepAlive: true,
  });
  return { pool, db: drizzle(pool, { schema, mode: 'default' }) };
}
