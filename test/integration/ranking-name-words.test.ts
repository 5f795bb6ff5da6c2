import { createDatabase, type DatabaseHandle } from '../../db';
import { searchByName } from '../../db/ranking-queries';
import { nameSearchKey, nameWords, NAME_WORD_MAX } from '../../domain/text';
import { searchWords } from '../../api/ranking/ranking-routes';
import { config } from '../../lib/config';
import { createElasticsearch } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import { httpCall } from '../support/json-api';
import { emptyRanking, indexPersonDocuments, personIndex, runRankingJob, seedPersonIndex, seededDocument } from '../support/ranking';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Issue 43 §10: a name made only of short words (`Li Wu`) is found. The search's rule
 * (docs/ranking-api.md, "GET /ranking/busca"): accents and case ignored, every word of the query
 * must start a word of the name, best-ranked first; the whole query has at least 3 characters.
 * FULLTEXT leaves out words under 3 characters, so the job stores every entry's name words
 * (`ranking_name_words`) and the search looks short words up there (docs/ranking-storage.md).
 */
const SEED = 43;
const PERSONS = 1_500;
/** Names the generator never makes (none of its words starts with `wu`, `xu`, `bo` or `yu`), given to generated persons. */
const NAMED: Record<number, string> = {
  11: 'Li Wu',
  12: 'LÍ WÚ Ferreira',
  13: 'Wu Li',
  14: 'Lin Wuang',
  15: 'Ana Liu',
  16: 'Bo Yu',
  // Encoding damage (`Jo227o`) is repaired before folding, as everywhere in the search.
  17: 'Jo227o Wu',
  18: `Wu ${'x'.repeat(NAME_WORD_MAX + 6)}`,
};

let worker: QueueWorker;
let server: TestServer;
let database: DatabaseHandle;
const es = createElasticsearch(config.elasticsearch);

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  await indexPersonDocuments(Object.entries(NAMED).map(([id, nome]) => ({ ...seededDocument(SEED, Number(id)), nome })));
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  worker = await startRankingWorker(config, logger);
  await runRankingJob({});
  server = await startTestServer();
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await database?.pool.end();
  await es.close();
});

const query = async <T>(sql: string, values: unknown[] = []) => (await database.pool.query(sql, values))[0] as T[];
const search = (nome: string, limit = 20) => httpCall(`${server.url}/api/v1/ranking/busca?nome=${encodeURIComponent(nome)}&limit=${limit}`);

interface Stored {
  id_pessoa: number;
  nome: string;
  posicao: number;
  pontuacao_total: number;
}

/** The documented rule, applied to every stored name: each query word starts a word of the folded name. */
async function expectedMatches(nome: string, limit = 20): Promise<Stored[]> {
  const entries = await query<Stored>('SELECT id_pessoa, nome, posicao, pontuacao_total FROM ranking_entries ORDER BY posicao');
  const words = nameSearchKey(nome).split(' ');
  return entries
    .filter((entry) => {
      const name = nameSearchKey(entry.nome).split(' ');
      return words.every((word) => name.some((part) => part.startsWith(word)));
    })
    .slice(0, limit)
    .map((entry) => ({ ...entry, pontuacao_total: Number(entry.pontuacao_total) }));
}

/** The stored name words, by person, against the words of each stored name. */
async function expectWordsOfEveryName(): Promise<void> {
  const entries = await query<{ id_pessoa: number; nome: string }>('SELECT id_pessoa, nome FROM ranking_entries ORDER BY id_pessoa');
  const stored = await query<{ id_pessoa: number; palavra: string }>('SELECT id_pessoa, palavra FROM ranking_name_words');
  const byPerson = new Map<number, string[]>();
  for (const row of stored) byPerson.set(row.id_pessoa, [...(byPerson.get(row.id_pessoa) ?? []), row.palavra]);
  expect(new Map([...byPerson].map(([id, words]) => [id, words.sort()]))).toEqual(
    new Map(entries.map((entry) => [entry.id_pessoa, nameWords(nameSearchKey(entry.nome)).sort()])),
  );
}

describe('GET /api/v1/ranking/busca with short words', () => {
  it('finds `Li Wu`: every short word starts a word of the name, best-ranked first', async () => {
    const { status, body } = await search('Li Wu');
    expect(status).toBe(200);
    // Only the names given above have a word starting with `wu`; `Lin Wuang` matches too (prefixes).
    expect(body.map((match: Stored) => match.id_pessoa).sort()).toEqual([11, 12, 13, 14]);
    expect(body).toEqual(await expectedMatches('Li Wu'));
  });

  it('folds accents and case in the query and in the names', async () => {
    const expected = await expectedMatches('li wu');
    for (const nome of ['LÍ WÚ', 'li wu', 'Lí wU', '  li   WU  ']) expect((await search(nome)).body).toEqual(expected);
    expect((await search('João Wu')).body.map((match: Stored) => match.id_pessoa)).toEqual([17]);
  });

  it('narrows a long word with a short one, and a one-letter word counts too', async () => {
    const ferreira = await expectedMatches('Ferreira', 1_000);
    const liFerreira = await expectedMatches('Li Ferreira', 1_000);
    expect(liFerreira.map((match) => match.id_pessoa)).toContain(12);
    expect(liFerreira.length).toBeLessThan(ferreira.length);
    expect((await search('Li Ferreira')).body).toEqual(liFerreira.slice(0, 20));
    expect((await search('Wu Ferreira')).body.map((match: Stored) => match.id_pessoa)).toEqual([12]);
    expect((await search('W Lin')).body.map((match: Stored) => match.id_pessoa)).toEqual([14]);
    expect((await search('Bo Yu')).body.map((match: Stored) => match.id_pessoa)).toEqual([16]);
  });

  it('keeps the 3-character minimum on the whole query', async () => {
    expect(await search('Li')).toMatchObject({ status: 422, body: { detail: 'query.nome: deve ter pelo menos 3 caracteres' } });
    expect(await search('  Wu  ')).toMatchObject({ status: 422 });
    expect(await search('Bo Yu')).toMatchObject({ status: 200 });
  });

  it('answers the same through the position walk and through the index, short words and long', async () => {
    const samples = (await query<{ nome: string }>('SELECT nome FROM ranking_entries ORDER BY posicao LIMIT 40')).map((row) =>
      nameSearchKey(row.nome).split(' '),
    );
    const queries = [
      'li wu',
      'wu',
      'li ferreira',
      'j',
      'w lin',
      'bo yu',
      `wu ${'x'.repeat(NAME_WORD_MAX + 6)}`,
      `wu ${'x'.repeat(NAME_WORD_MAX)}y`,
      'zz',
      ...samples.map((name) => `${name[0]!.slice(0, 2)} ${name.at(-1)!.slice(0, 1)}`),
      ...samples.map((name) => `${name[0]!.slice(0, 4)} ${name.at(-1)!.slice(0, 2)}`),
    ];
    for (const nome of queries) {
      const words = searchWords(nome);
      const walked = await searchByName(database.pool, words, 20, PERSONS);
      const indexed = await searchByName(database.pool, words, 20, 0);
      expect({ nome, matches: indexed }).toEqual({ nome, matches: walked });
      expect({ nome, matches: walked }).toEqual({ nome, matches: await expectedMatches(nome) });
    }
    // The person with a word longer than the table keeps: found by it whole, not by a longer one.
    expect((await searchByName(database.pool, searchWords(NAMED[18]!), 20, 0)).map((match) => match.id_pessoa)).toEqual([18]);
  });

  it('is what the search could not do before: short words were dropped, and FULLTEXT has no word under 3 characters', async () => {
    // Before issue 43 §10 searchWords kept words of 3+ characters: `Li Wu` searched with none, answered [].
    expect(searchWords('Li Wu')).toEqual(['li', 'wu']);
    // The FULLTEXT index alone (the earlier index plan) finds `Lin Wuang`, whose words it holds, and
    // none of the names whose words have 2 letters.
    const fulltext = await query("SELECT id_pessoa FROM ranking_entries WHERE MATCH(nome_busca) AGAINST ('+li* +wu*' IN BOOLEAN MODE)");
    expect(fulltext).toEqual([{ id_pessoa: 14 }]);
  });
});

describe('the name words the job stores', () => {
  it('are the words of every stored name, and follow renamed, removed and cleared entries', async () => {
    await expectWordsOfEveryName();

    // A person renamed and one gone from the index: the next run writes the one, deletes the other.
    await indexPersonDocuments([{ ...seededDocument(SEED, 16), nome: 'Xu Li' }]);
    await es.delete({ index: personIndex, id: '15', refresh: true });
    await runRankingJob({});
    await expectWordsOfEveryName();
    expect(await query('SELECT palavra FROM ranking_name_words WHERE id_pessoa = 15')).toEqual([]);
    expect((await search('Bo Yu')).body).toEqual([]);
    expect((await search('Xu Li')).body.map((match: Stored) => match.id_pessoa)).toEqual([16]);
    expect((await searchByName(database.pool, ['xu', 'li'], 20, 0)).map((match) => match.id_pessoa)).toEqual([16]);

    // A run that clears the ranking first stores the same words again.
    await runRankingJob({ limparAntes: true });
    await expectWordsOfEveryName();
    expect((await search('Li Wu')).body).toEqual(await expectedMatches('Li Wu'));
  }, 240_000);
});
