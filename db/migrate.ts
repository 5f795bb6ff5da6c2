import { drizzle } from 'drizzle-orm/mysql2';
import { migrate } from 'drizzle-orm/mysql2/migrator';
import mysql from 'mysql2/promise';
import type { Config } from '../lib/config';
import { migrationsFolder } from '../lib/paths';
import { mysqlConnectionOptions } from './connection-options';

/**
 * Creates the database when missing and applies the drizzle-kit migrations in db/migrations.
 * Safe to run on every start: drizzle records applied migrations in __drizzle_migrations.
 */
export async function migrateDatabase(mysqlConfig: Config['mysql'], folder: string = migrationsFolder): Promise<void> {
  const server = await mysql.createConnection(mysqlConnectionOptions(mysqlConfig));
  try {
    // The name is validated by the config schema (letters, digits, underscore), so quoting is enough.
    await server.query(`CREATE DATABASE IF NOT EXISTS \`${mysqlConfig.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await server.changeUser({ database: mysqlConfig.database });
    await migrate(drizzle(server), { migrationsFolder: folder });
  } finally {
    await server.end();
  }
}
