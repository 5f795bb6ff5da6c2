import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import mysql from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { migrateDatabase } from '../../db/migrate';
import { settings } from '../../db/schema';
import { STORED_DETAILS } from '../../domain/ranking-row';
import { config } from '../../lib/config';
import { migrationsFolder } from '../../lib/paths';

let handle: DatabaseHandle;

beforeAll(() => {
  handle = createDatabase(config.mysql);
});

afterAll(() => handle.pool.end());

describe('MariaDB through drizzle', () => {
  it('writes, updates and reads back a row with accented text', async () => {
    const name = `test.mysql.${Date.now()}`;
    await handle.db.insert(settings).values({ name, value: { texto: 'Avaliação São João', n: 42 } });
    await handle.db
      .insert(settings)
      .values({ name, value: { texto: 'Avaliação São João', n: 43 } })
      .onDuplicateKeyUpdate({ set: { value: { texto: 'Avaliação São João', n: 43 } } });

    const rows = await handle.db.select().from(settings).where(eq(settings.name, name));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.value).toEqual({ texto: 'Avaliação São João', n: 43 });
    expect(rows[0]?.updatedAt).toBeInstanceOf(Date);

    await handle.db.delete(settings).where(eq(settings.name, name));
    expect(await handle.db.select().from(settings).where(eq(settings.name, name))).toHaveLength(0);
  });

  it('creates a missing database and applies every migration once, however often it runs', async () => {
    const database = `consultores_migrate_probe_${process.pid}`;
    const migrationCount = fs.readdirSync(migrationsFolder).filter((file) => file.endsWith('.sql')).length;
    const { host, port, user, password } = config.mysql;
    const admin = await mysql.createConnection({ host, port, user, password });
    try {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await migrateDatabase({ ...config.mysql, database });
      await migrateDatabase({ ...config.mysql, database });

      const [applied] = await admin.query(`SELECT COUNT(*) AS n FROM \`${database}\`.__drizzle_migrations`);
      expect((applied as Array<{ n: number }>)[0]?.n).toBe(migrationCount);
      const [tables] = await admin.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?', [database]);
      const names = (tables as Array<{ name: string }>).map((table) => table.name).sort();
      expect(names).toEqual([
        '__drizzle_migrations',
        'agent_daily_costs',
        'agent_hosts',
        'agent_secrets',
        'agent_versions',
        'agents',
        'execution_attempts',
        'executions',
        'notifications',
        'pipelines',
        'ranking_entries',
        'ranking_entry_details',
        'ranking_entry_seals',
        'ranking_job_runs',
        'ranking_name_words',
        'ranking_pages',
        'ranking_run_persons',
        'ranking_statistics',
        'schedules',
        'settings',
        'tasks',
        'uploads',
        'webhook_deliveries',
        'webhooks',
      ]);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    }
  });

  it('finds the run an execution delegated to through an index, not a scan of every record', async () => {
    await migrateDatabase(config.mysql);
    // The query of db/executions-store.ts#delegatedExecutionOf, asked of the optimiser.
    const [plan] = await handle.pool.query(
      "EXPLAIN SELECT id FROM executions WHERE delegated_from = '00000000-0000-0000-0000-000000000000' LIMIT 1",
    );
    expect(plan).toEqual([expect.objectContaining({ table: 'executions', type: 'ref', key: 'executions_delegated_from' })]);
  });

  it('migration 0004 rewrites stored details into the spliced form and keeps rules 3 and 4 reading the index', async () => {
    const database = `consultores_migrate_0004_${process.pid}`;
    const { host, port, user, password } = config.mysql;
    const admin = await mysql.createConnection({ host, port, user, password });
    // The migrations as they were before 0004: same files, journal cut after 0003.
    const before = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.cpSync(migrationsFolder, before, { recursive: true });
    const journalPath = path.join(before, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    journal.entries = journal.entries.filter((entry) => entry.tag < '0004');
    fs.writeFileSync(journalPath, JSON.stringify(journal));
    try {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await migrateDatabase({ ...config.mysql, database }, before);
      const oldDetails = { pontuacao: { total: 10 }, premiacoes: [{ premio: 'Prêmio "Capes" \\ tese' }], consultoria: [] };
      await admin.query(`INSERT INTO \`${database}\`.ranking_entry_details (id_pessoa, detalhes) VALUES (1, ?)`, [
        JSON.stringify(oldDetails),
      ]);
      await migrateDatabase({ ...config.mysql, database });

      const [rows] = await admin.query(`SELECT detalhes, complementos FROM \`${database}\`.ranking_entry_details`);
      const row = (rows as Array<{ detalhes: string; complementos: string }>)[0];
      expect(Object.entries(JSON.parse(row?.detalhes ?? '') as object)).toEqual([
        ...STORED_DETAILS.map((field) => [field, (oldDetails as Record<string, unknown>)[field] ?? null]),
        ['pontuacao', { total: 10 }],
      ]);
      expect(JSON.parse(row?.complementos ?? '')).toEqual({});
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
});
