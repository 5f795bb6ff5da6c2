import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { migrationsFolder } from '../../lib/paths';

/** A copy of the migrations folder holding only the migrations before `tag`, with their journal. */
function migrationsBefore(tag: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-before-'));
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number; tag: string }>;
  };
  const stop = journal.entries.findIndex((entry) => entry.tag === tag);
  if (stop < 0) throw new Error(`migration ${tag} is not in the journal`);
  const kept = journal.entries.slice(0, stop);
  fs.mkdirSync(path.join(folder, 'meta'));
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: kept }));
  for (const entry of kept) fs.copyFileSync(path.join(migrationsFolder, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  return folder;
}

/**
 * The database of a suite that proves what migration `tag` (e.g. `0028_agent_cli`) does to the rows
 * stored before it: `consultores_migrate_<number>_<pid>`, dropped before and after the suite (its
 * beforeAll and afterAll are registered here). A test calls `before()`, writes rows as the older code
 * did, then `all()`, and reads them again.
 */
export function migrationDatabase(tag: string) {
  const database = `consultores_migrate_${tag.split('_')[0]}_${process.pid}`;
  const { host, port, user, password } = config.mysql;
  let admin: mysql.Connection | undefined;
  let before: string | undefined;

  beforeAll(async () => {
    admin = await mysql.createConnection({ host, port, user, password, multipleStatements: false });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    before = migrationsBefore(tag);
  });

  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
    if (before) fs.rmSync(before, { recursive: true, force: true });
  });

  return {
    /** Creates the database with the migrations before `tag`; the connection returned uses it. */
    async before(): Promise<mysql.Connection> {
      if (admin === undefined || before === undefined) throw new Error(`${database}: used before its beforeAll ran`);
      await migrateDatabase({ ...config.mysql, database }, before);
      await admin.changeUser({ database });
      return admin;
    },
    /** Runs the migrations left: `tag` and those after it. */
    all: () => migrateDatabase({ ...config.mysql, database }),
  };
}
