import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { migrationsFolder } from '../../lib/paths';

/**
 * Migration 0028 (which CLI an agent runs; docs/agents.md): agents and execution records stored
 * before it ran Claude Code and say so after it; a pipeline run's record names no CLI.
 */

const AGENT_CLI_MIGRATION = '0028_agent_cli';

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

describe('migration 0028 gives the agents and runs stored before it Claude Code', () => {
  const database = `consultores_migrate_0028_${process.pid}`;
  const { host, port, user, password } = config.mysql;
  let admin: mysql.Connection;
  let before: string;

  beforeAll(async () => {
    admin = await mysql.createConnection({ host, port, user, password, multipleStatements: false });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    before = migrationsBefore(AGENT_CLI_MIGRATION);
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
    fs.rmSync(before, { recursive: true, force: true });
  });

  it('adds agents.cli and executions.cli: claude-code for agents and agent runs, null for pipeline runs', async () => {
    await migrateDatabase({ ...config.mysql, database }, before);
    await admin.changeUser({ database });
    const at = '2026-11-20 10:00:00.000';
    await admin.query(
      `INSERT INTO agents (id, name, description, model, instructions, working_directory, permission_mode, max_turns, version, created_at, updated_at)
       VALUES ('a1', 'Revisor', '', 'claude-sonnet-4-6', '', NULL, 'plan', 20, 1, ?, ?)`,
      [at, at],
    );
    const record = (id: string, kind: string, agentId: string | null) =>
      admin.query(
        `INSERT INTO executions (id, kind, agent_id, agent_name, status, source, task, instructions, working_directory, model, created_at)
         VALUES (?, ?, ?, 'Revisor', 'completed', 'manual', 'task', '', '/home/projetos', 'claude-sonnet-4-6', ?)`,
        [id, kind, agentId, at],
      );
    await record('e1', 'agent', 'a1');
    await record('p1', 'pipeline', null);
    await record('e2', 'agent', 'a1');

    await migrateDatabase({ ...config.mysql, database });

    const [agents] = await admin.query<mysql.RowDataPacket[]>('SELECT id, cli, permission_mode, max_turns FROM agents');
    expect(agents).toEqual([{ id: 'a1', cli: 'claude-code', permission_mode: 'plan', max_turns: 20 }]);
    const [records] = await admin.query<mysql.RowDataPacket[]>('SELECT id, cli FROM executions ORDER BY id');
    expect(records).toEqual([
      { id: 'e1', cli: 'claude-code' },
      { id: 'e2', cli: 'claude-code' },
      { id: 'p1', cli: null },
    ]);
    // A row written without naming one (an older writer) gets the columns' defaults.
    await admin.query(
      `INSERT INTO agents (id, name, description, model, instructions, working_directory, permission_mode, max_turns, version, created_at, updated_at)
       VALUES ('a2', 'Outro', '', NULL, '', NULL, '', 0, 1, ?, ?)`,
      [at, at],
    );
    const [[added]] = await admin.query<mysql.RowDataPacket[]>("SELECT cli FROM agents WHERE id = 'a2'");
    expect(added).toEqual({ cli: 'claude-code' });
  });
});
