import type mysql from 'mysql2/promise';
import { migrationDatabase } from '../support/migrations';

/**
 * Migration 0030 (the attempts of an agent record and what each cost; docs/executions.md, "Attempts"):
 * the records stored before it keep their cost (their last attempt's) and have no attempt rows; an
 * attempt belongs to its record, and goes with it when the history is deleted.
 */

const ATTEMPTS_MIGRATION = '0030_execution_attempts';

describe('migration 0030 adds the attempts of agent records', () => {
  const migration = migrationDatabase(ATTEMPTS_MIGRATION);

  it('keeps the records stored before it as they were; attempts go with their record', async () => {
    const admin = await migration.before();
    const at = '2026-11-20 10:00:00.000';
    const record = (id: string, attempt: number, cost: number | null) =>
      admin.query(
        `INSERT INTO executions (id, kind, agent_id, agent_name, status, source, task, instructions, working_directory, model, attempt, cost_usd, created_at, started_at, finished_at)
         VALUES (?, 'agent', 'a1', 'Revisor', 'completed', 'manual', 'task', '', '/home/projetos', 'claude-sonnet-4-6', ?, ?, ?, ?, ?)`,
        [id, attempt, cost, at, at, at],
      );
    // Retried once before the migration: its cost is its last attempt's, the first one's is lost.
    await record('e1', 2, 0.05);
    await record('e2', 1, 0.01);

    await migration.all();

    const [records] = await admin.query<mysql.RowDataPacket[]>('SELECT id, attempt, cost_usd FROM executions ORDER BY id');
    expect(records).toEqual([
      { id: 'e1', attempt: 2, cost_usd: 0.05 },
      { id: 'e2', attempt: 1, cost_usd: 0.01 },
    ]);
    const [none] = await admin.query<mysql.RowDataPacket[]>('SELECT * FROM execution_attempts');
    expect(none).toEqual([]);

    // Rows as the service writes them: an attempt retried, and the last one, of a record.
    await admin.query(
      `INSERT INTO execution_attempts (execution_id, attempt, status, error, cost_usd, counted, started_at, ended_at)
       VALUES ('e2', 1, 'error', 'falhou', 0.02, TRUE, ?, ?), ('e2', 2, 'completed', NULL, 0.01, TRUE, ?, ?)`,
      [at, at, at, at],
    );
    const [[first]] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT execution_id, attempt, status, error, cost_usd, counted, CAST(started_at AS CHAR) AS started_at, CAST(ended_at AS CHAR) AS ended_at
       FROM execution_attempts WHERE execution_id = 'e2' AND attempt = 1`,
    );
    expect(first).toEqual({
      execution_id: 'e2',
      attempt: 1,
      status: 'error',
      error: 'falhou',
      cost_usd: 0.02,
      counted: 1,
      started_at: at,
      ended_at: at,
    });
    // One row per record and attempt; none for a record that does not exist.
    await expect(admin.query("INSERT INTO execution_attempts (execution_id, attempt) VALUES ('e2', 1)")).rejects.toThrow(/Duplicate entry/);
    await expect(admin.query("INSERT INTO execution_attempts (execution_id, attempt) VALUES ('nenhum', 1)")).rejects.toThrow(
      /foreign key constraint fails/,
    );
    // Deleting the record (the history's delete and clear) deletes its attempts.
    await admin.query("DELETE FROM executions WHERE id = 'e2'");
    const [left] = await admin.query<mysql.RowDataPacket[]>('SELECT * FROM execution_attempts');
    expect(left).toEqual([]);
  });
});
