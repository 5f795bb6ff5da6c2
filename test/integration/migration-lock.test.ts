import fs from 'node:fs';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { mysqlConnectionOptions } from '../../db/connection-options';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { migrationsFolder } from '../../lib/paths';

/**
 * Migrations under a database lock (db/migrate.ts): several migrators started at once on an empty
 * database (replicas or init containers starting together) all succeed, each migration applied once.
 */

const database = `consultores_miglock_${process.pid}`;
const target = { ...config.mysql, database };
let server: mysql.Connection;

beforeAll(async () => {
  server = await mysql.createConnection(mysqlConnectionOptions(config.mysql));
  await server.query(`DROP DATABASE IF EXISTS \`${database}\``);
});

afterAll(async () => {
  await server.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await server.end();
});

it('lets four migrators started at once on an empty database all succeed, each migration applied once', async () => {
  const journal = JSON.parse(fs.readFileSync(`${migrationsFolder}/meta/_journal.json`, 'utf8')) as { entries: unknown[] };
  const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => migrateDatabase(target)));
  expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
  const [rows] = await server.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM \`${database}\`.__drizzle_migrations`);
  expect(Number(rows[0]?.n)).toBe(journal.entries.length);
  const [tables] = await server.query<RowDataPacket[]>(
    'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = ?',
    [database, 'executions'],
  );
  expect(Number(tables[0]?.n)).toBe(1);
}, 180_000);
