import type mysql from 'mysql2/promise';
import { migrationDatabase } from '../support/migrations';

/**
 * Migration 0029 (issue 43 §1; domain/agent-changelog.ts): the changelogs stored in English before it
 * read as the panel's pt-BR versions modal shows the new ones; anything else is kept as written.
 */

describe('migration 0029 puts the stored changelogs into the words the service writes now', () => {
  const migration = migrationDatabase('0029_agent_changelogs_pt');

  it('translates each English shape, keeps the others', async () => {
    const admin = await migration.before();
    const at = '2026-11-20 10:00:00.000';
    await admin.query(
      `INSERT INTO agents (id, name, description, model, instructions, working_directory, permission_mode, max_turns, version, created_at, updated_at)
       VALUES ('a1', 'Revisor', '', 'claude-sonnet-4-6', '', NULL, 'plan', 20, 9, ?, ?)`,
      [at, at],
    );
    const stored = [
      'created',
      'updated: model, systemPrompt',
      'updated (no changes)',
      'restored version 1',
      'imported',
      'duplicated from "Revisor (cópia)"',
      'updated',
      'Restaurado para versão 2',
      'restored version one',
    ];
    for (const [index, changelog] of stored.entries()) {
      await admin.query(
        "INSERT INTO agent_versions (agent_id, version, data, changelog, changed_fields, created_at) VALUES ('a1', ?, '{}', ?, '[]', ?)",
        [index + 1, changelog, at],
      );
    }

    await migration.all();

    const [rows] = await admin.query<mysql.RowDataPacket[]>('SELECT changelog FROM agent_versions ORDER BY version');
    expect(rows.map((row) => row.changelog)).toEqual([
      'Criado',
      'Atualizado: model, systemPrompt',
      'Atualizado (sem alterações)',
      'Restaurado para versão 1',
      'Importado',
      'Duplicado de "Revisor (cópia)"',
      'Atualizado',
      'Restaurado para versão 2',
      // Not a shape the service wrote: as it was.
      'restored version one',
    ]);
  });
});
