import { drizzle } from 'drizzle-orm/mysql2';
import { migrate } from 'drizzle-orm/mysql2/migrator';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import type { Config } from '../lib/config';
import { migrationsFolder } from '../lib/paths';
import { mysqlConnectionOptions } from './connection-options';

/** The longest a migrator waits for another one's lock (a long migration of another replica), in seconds. */
const MIGRATION_LOCK_WAIT_SECONDS = 600;

/**
 * Creates the database when missing and applies the drizzle-kit migrations in db/migrations.
 * Safe to run on every start: drizzle records applied migrations in __drizzle_migrations. Under a
 * named lock of the database (GET_LOCK, held by this connection until it ends): replicas or init
 * containers that start together wait for each other instead of racing on the same DDL.
 */
export async function migrateDatabase(mysqlConfig: Config['mysql'], folder: string = migrationsFolder): Promise<void> {
  const server = await mysql.createConnection(mysqlConnectionOptions(mysqlConfig));
  try {
    // The name is validated by the config schema (letters, digits, underscore), so quoting is enough.
    await server.query(`CREATE DATABASE IF NOT EXISTS \`${mysqlConfig.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await server.changeUser({ database: mysqlConfig.database });
    // A lock name is at most 64 characters: the database's name hashed.
    const [rows] = await server.query<RowDataPacket[]>("SELECT GET_LOCK(CONCAT('migrations:', SHA1(DATABASE())), ?) AS taken", [
      MIGRATION_LOCK_WAIT_SECONDS,
    ]);
    if (Number(rows[0]?.taken) !== 1)
      throw new Error(`another migration of ${mysqlConfig.database} held its lock for over ${MIGRATION_LOCK_WAIT_SECONDS} s`);
    await migrate(drizzle(server), { migrationsFolder: folder });
  } finally {
    // Ending the connection releases the lock.
    await server.end();
  }
}
