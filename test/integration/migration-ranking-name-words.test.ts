import type mysql from 'mysql2/promise';
import { nameSearchKey, nameWords } from '../../domain/text';
import { migrationDatabase } from '../support/migrations';

/**
 * Migration 0031 (issue 43 §10; docs/ranking-storage.md, "Name words"): the entries stored before it
 * get their name words at once, the words the job writes for a name (domain/text.ts#nameWords), so a
 * person with a short name is found without waiting for the job to rewrite an entry it finds unchanged.
 */

describe('migration 0031 fills the name words of the entries already stored', () => {
  const migration = migrationDatabase('0031_ranking_name_words');

  it('stores the words of every nome_busca: each once, cut to 64 characters, none for an empty one', async () => {
    const admin = await migration.before();
    const names = [
      'Li Wu',
      'Maria da Silva da Costa',
      'LÍ WÚ Ferreira',
      'Jo227o Wu',
      `Wu ${'x'.repeat(70)} Yu`,
      '---',
      'Ana',
      'Bo Yu Bo Yu',
    ];
    for (const [index, nome] of names.entries()) {
      await admin.query(
        `INSERT INTO ranking_entries (id_pessoa, nome, nome_busca, posicao, pontuacao_total, bloco_a, bloco_b, bloco_c, bloco_d, bloco_e,
           ativo, anos_atuacao, tipos_atuacao, selos, run_id)
         VALUES (?, ?, ?, ?, 0, 0, 0, 0, 0, 0, TRUE, 0, '[]', '[]', 'antes')`,
        [index + 1, nome, nameSearchKey(nome), index + 1],
      );
    }

    await migration.all();

    const [rows] = await admin.query<mysql.RowDataPacket[]>('SELECT id_pessoa, palavra FROM ranking_name_words');
    const stored = names.map((_, index) =>
      rows
        .filter((row) => row.id_pessoa === index + 1)
        .map((row) => String(row.palavra))
        .sort(),
    );
    expect(stored).toEqual(names.map((nome) => nameWords(nameSearchKey(nome)).sort()));
    expect(stored).toEqual([
      ['li', 'wu'],
      ['costa', 'da', 'maria', 'silva'],
      ['ferreira', 'li', 'wu'],
      ['joao', 'wu'],
      ['wu', 'x'.repeat(64), 'yu'].sort(),
      [],
      ['ana'],
      ['bo', 'yu'],
    ]);
    const [indexes] = await admin.query<mysql.RowDataPacket[]>(
      "SHOW INDEX FROM ranking_name_words WHERE Key_name = 'ranking_name_words_palavra'",
    );
    expect(indexes).toHaveLength(1);
  });
});
