import type mysql from 'mysql2/promise';
import { migrationDatabase } from '../support/migrations';

/**
 * Migration 0013 (the admin panel's contract) keeps the data stored before it: a database holding
 * agents, versions, executions and notifications written under migration 0012 is migrated, and every
 * row is still there with the new columns' defaults and the panel's status values.
 */

const PANEL_CONTRACT_MIGRATION = '0013_panel_contract';

describe('migration 0013 keeps the data stored before it', () => {
  const migration = migrationDatabase(PANEL_CONTRACT_MIGRATION);

  it('migrates agents, versions, executions and notifications written under 0012', async () => {
    const admin = await migration.before();
    const at = '2026-11-20 10:00:00.000';
    await admin.query(
      `INSERT INTO agents (id, name, description, model, instructions, working_directory, permission_mode, max_turns, version, created_at, updated_at)
       VALUES ('a1', 'Revisor', 'reviews', 'claude-sonnet-4-6', 'be brief', NULL, 'plan', 20, 2, ?, ?)`,
      [at, at],
    );
    const v1 = JSON.stringify({
      name: 'Revisor',
      description: '',
      model: null,
      instructions: '',
      workingDirectory: null,
      permissionMode: 'bypassPermissions',
      maxTurns: 50,
    });
    const v2 = JSON.stringify({
      name: 'Revisor',
      description: 'reviews',
      model: 'claude-sonnet-4-6',
      instructions: 'be brief',
      workingDirectory: null,
      permissionMode: 'plan',
      maxTurns: 20,
    });
    await admin.query('INSERT INTO agent_versions (agent_id, version, data, created_at) VALUES (?, 1, ?, ?), (?, 2, ?, ?)', [
      'a1',
      v1,
      at,
      'a1',
      v2,
      at,
    ]);
    const execution = (id: string, status: string, source: string, parent: string | null, session: string | null) => [
      id,
      'agent',
      'a1',
      'Revisor',
      status,
      source,
      'task',
      '',
      '/home/projetos',
      'claude-sonnet-4-6',
      session,
      parent,
      at,
    ];
    for (const row of [
      execution('e1', 'completed', 'manual', null, 'session-1'),
      execution('e2', 'failed', 'manual', null, null),
      execution('e3', 'cancelled', 'manual', null, null),
      execution('e4', 'completed', 'continue', 'e1', 'session-1'),
    ]) {
      await admin.query(
        `INSERT INTO executions (id, kind, agent_id, agent_name, status, source, task, instructions, working_directory, model, session_id, parent_execution_id, created_at)
         VALUES (${row.map(() => '?').join(', ')})`,
        row,
      );
    }
    await admin.query(
      `INSERT INTO notifications (id, kind, title, message, created_at) VALUES ('n1', 'execution.failed', 'Revisor failed', 'exit 1', ?), ('n2', 'execution.cancelled', 'Revisor was cancelled', 't', ?)`,
      [at, at],
    );

    await migration.all();

    const [agents] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT name, instructions, permission_mode, max_turns, tags, status, allowed_tools, retry_on_failure, max_retries, delegate_to, version FROM agents',
    );
    expect(agents).toEqual([
      {
        name: 'Revisor',
        instructions: 'be brief',
        permission_mode: 'plan',
        max_turns: 20,
        tags: '[]',
        status: 'active',
        allowed_tools: '',
        retry_on_failure: 0,
        max_retries: 3,
        delegate_to: null,
        version: 2,
      },
    ]);
    const [versions] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT version, changelog, changed_fields, data FROM agent_versions ORDER BY version',
    );
    expect(versions.map((row) => [row.version, row.changelog, row.changed_fields, JSON.parse(String(row.data)).instructions])).toEqual([
      // Migration 0029 put them into pt-BR (migration-agent-changelogs.test.ts).
      [1, 'Criado', '[]', ''],
      [2, 'Atualizado', '[]', 'be brief'],
    ]);
    const [records] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT id, status, parent_session_id, delegated_from, delegation_depth, result, exit_code, attempt FROM executions ORDER BY id',
    );
    expect(records.map((row) => [row.id, row.status, row.parent_session_id])).toEqual([
      ['e1', 'completed', null],
      ['e2', 'error', null],
      ['e3', 'canceled', null],
      ['e4', 'completed', 'session-1'],
    ]);
    for (const row of records)
      expect(row).toMatchObject({ delegated_from: null, delegation_depth: 0, result: null, exit_code: null, attempt: 1 });
    const [notifications] = await admin.query<mysql.RowDataPacket[]>('SELECT id, kind FROM notifications ORDER BY id');
    expect(notifications).toEqual([
      { id: 'n1', kind: 'execution.error' },
      { id: 'n2', kind: 'execution.canceled' },
    ]);
  });
});
