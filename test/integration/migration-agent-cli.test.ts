import type mysql from 'mysql2/promise';
import { migrationDatabase } from '../support/migrations';

/**
 * Migration 0028 (which CLI an agent runs; docs/agents.md): agents and execution records stored
 * before it ran Claude Code and say so after it; a pipeline run's record names no CLI.
 */

const AGENT_CLI_MIGRATION = '0028_agent_cli';

describe('migration 0028 gives the agents and runs stored before it Claude Code', () => {
  const migration = migrationDatabase(AGENT_CLI_MIGRATION);

  it('adds agents.cli and executions.cli: claude-code for agents and agent runs, null for pipeline runs', async () => {
    const admin = await migration.before();
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

    await migration.all();

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
