import { gunzipSync } from 'node:zlib';
import { createDatabase, type DatabaseHandle } from '../../db';
import type { PersonDocument } from '../../domain/person-document';
import { storedScore } from '../../domain/ranking-row';
import { scorePerson } from '../../domain/scoring/score-person';
import { config } from '../../lib/config';
import { createElasticsearch } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import {
  emptyRanking,
  indexPersonDocuments,
  personIndex,
  runRankingJob,
  seedPersonIndex,
  seededDocument,
  SEED_DATE,
} from '../support/ranking';
import { generatePersonFor } from '../../scripts/sample-data/generate-person';
import { startTestServer, type TestServer } from '../support/server';

/**
 * A run that leaves unchanged entries as they are (docs/ranking-job.md, "Unchanged documents")
 * leaves the same ranking as a full rebuild over the same index on the same reference date: every
 * stored row and page, and every answer of /api/v1 but those that say when or how a run went.
 */
const SEED = 23;
const PERSONS = 1_200;
/** The first run's day, and the later runs' day: 45 days on, open periods have grown. */
const FIRST_DAY = '2026-01-15';
const LATER_DAY = '2026-03-01';

let worker: QueueWorker;
let server: TestServer;
let database: DatabaseHandle;
const es = createElasticsearch(config.elasticsearch);

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  worker = await startRankingWorker(config, logger);
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await database?.pool.end();
  await es.close();
});

const query = async <T>(sql: string, values: unknown[] = []) => (await database.pool.query(sql, values))[0] as T[];

/** Every stored part of the ranking but what records which run wrote it (run_id) and its bookkeeping (pagina_pendente). */
async function storedRanking() {
  const pages = await query<{
    pagina: number;
    total: number;
    cv_base: string;
    data_referencia: string;
    resposta_gzip: Buffer;
    incompletos: string;
  }>('SELECT pagina, total, cv_base, data_referencia, resposta_gzip, incompletos FROM ranking_pages ORDER BY pagina');
  return {
    entries: await query(
      `SELECT id_pessoa, nome, nome_busca, posicao, pontuacao_total, bloco_a, bloco_b, bloco_c, bloco_d, bloco_e, ativo,
              anos_atuacao, coordenador_ppg, tipos_atuacao, selos, HEX(impressao) AS impressao
       FROM ranking_entries ORDER BY id_pessoa`,
    ),
    details: await query('SELECT * FROM ranking_entry_details ORDER BY id_pessoa'),
    seals: await query('SELECT selo, id_pessoa FROM ranking_entry_seals ORDER BY selo, id_pessoa'),
    words: await query('SELECT id_pessoa, palavra FROM ranking_name_words ORDER BY id_pessoa, palavra'),
    pages: pages.map(({ resposta_gzip, ...page }) => ({ ...page, resposta: gunzipSync(resposta_gzip).toString() })),
    // The statistics but the time of the run that computed them.
    statistics: (await query<{ dados: string; data_referencia: string }>('SELECT data_referencia, dados FROM ranking_statistics')).map(
      (row) => {
        const { ultima_atualizacao: _when, ...figures } = JSON.parse(row.dados) as Record<string, unknown>;
        return { data_referencia: row.data_referencia, figures };
      },
    ),
  };
}

/** The answers of /api/v1 that show the ranking, as bytes, with and without compression. */
async function answers(ids: number[]): Promise<Record<string, string>> {
  const paths = [
    '/ranking/paginado',
    '/ranking/paginado?page=7',
    '/ranking/paginado?page=24',
    '/ranking/paginado?page=2&size=100',
    '/ranking/paginado?ativo=true&page=2',
    '/ranking/paginado?ativo=false',
    '/ranking?limite=1000',
    '/ranking?componente=c&limite=300&offset=10',
    '/ranking/detalhado?limite=500',
    '/ranking/detalhado?componente=d&limite=200',
    '/ranking/selos',
    '/ranking/busca?nome=silva&limit=20',
    '/ranking/busca?nome=maria&limit=20',
    '/consultores/areas-avaliacao',
    ...ids.flatMap((id) => [`/ranking/posicao/${id}`, `/consultor/${id}`, `/consultor/${id}/cv`, `/consultor/${id}/raw`]),
  ];
  const seen: Record<string, string> = {};
  for (const path of paths) {
    for (const encoding of ['gzip', 'identity']) {
      const response = await fetch(`${server.url}/api/v1${path}`, { headers: { 'accept-encoding': encoding } });
      seen[`${path} (${encoding})`] = `${response.status} ${await response.text()}`;
    }
  }
  // The statistics but the time of the run that computed them.
  const response = await fetch(`${server.url}/api/v1/ranking/estatisticas`);
  const { ultima_atualizacao: _when, ...statisticsBody } = (await response.json()) as Record<string, unknown>;
  seen['/ranking/estatisticas'] = `${response.status} ${JSON.stringify(statisticsBody)}`;
  return seen;
}

const fingerprints = async () =>
  new Map(
    (await query<{ id_pessoa: number; impressao: string }>('SELECT id_pessoa, HEX(impressao) AS impressao FROM ranking_entries')).map(
      (row) => [row.id_pessoa, row.impressao],
    ),
  );

const writtenBy = async (runId: string) =>
  (await query<{ id_pessoa: number }>('SELECT id_pessoa FROM ranking_entries WHERE run_id = ? ORDER BY id_pessoa', [runId])).map(
    (row) => row.id_pessoa,
  );

describe('a ranking run over a mostly unchanged index', () => {
  it('rewrites only the entries whose document or score changed, and leaves what a full rebuild leaves, on another reference date', async () => {
    const first = await runRankingJob({ limparAntes: true, referenceDate: FIRST_DAY });
    expect(first).toMatchObject({ processados: PERSONS, total: PERSONS });

    // The same day again: nothing is rewritten, nothing moves.
    const again = await runRankingJob({ referenceDate: FIRST_DAY });
    expect(again.processados).toBe(PERSONS);
    expect(await writtenBy(again.runId)).toEqual([]);

    // An import: three curricula replaced, one name corrected, one document written again as it was,
    // two persons gone, three new.
    const replaced = [5, 50, 500].map((id) => generatePersonFor(SEED + 1, id, SEED_DATE));
    const renamed = { ...seededDocument(SEED, 7), nome: 'Nome Corrigido da Silva' };
    const rewritten = seededDocument(SEED, 8);
    const added = [PERSONS + 1, PERSONS + 2, PERSONS + 3].map((id) => seededDocument(SEED, id));
    await indexPersonDocuments([...replaced, renamed, rewritten, ...added]);
    for (const id of [9, 900]) await es.delete({ index: personIndex, id: String(id), refresh: true });
    const present = new Map<number, PersonDocument>();
    for (let id = 1; id <= PERSONS + 3; id += 1) if (id !== 9 && id !== 900) present.set(id, seededDocument(SEED, id));
    for (const doc of [...replaced, renamed, rewritten]) present.set(doc.id_pessoa, doc);

    // How an unchanged document is recognised: same revision in the same index, and the same score
    // on the new day but for the date itself (docs/ranking-job.md).
    const changedDocuments = [5, 7, 8, 50, 500, PERSONS + 1, PERSONS + 2, PERSONS + 3];
    const scoreMoved = [...present.values()]
      .filter(
        (doc) => JSON.stringify(storedScore(scorePerson(doc, FIRST_DAY))) !== JSON.stringify(storedScore(scorePerson(doc, LATER_DAY))),
      )
      .map((doc) => doc.id_pessoa);
    expect(scoreMoved.length).toBeGreaterThan(0);
    expect(scoreMoved.length).toBeLessThan(PERSONS / 2);

    const before = await fingerprints();
    const incremental = await runRankingJob({ referenceDate: LATER_DAY });
    expect(incremental).toMatchObject({ processados: PERSONS + 1, total: PERSONS + 1 });
    // Rewritten: exactly the changed documents and the persons whose score the new day changed.
    const after = await fingerprints();
    const rewrittenIds = [...after.keys()].filter((id) => after.get(id) !== before.get(id)).sort((a, b) => a - b);
    expect(rewrittenIds).toEqual([...new Set([...changedDocuments, ...scoreMoved])].sort((a, b) => a - b));
    // The run's mark is on those and on the entries it moved; the others keep an earlier run's.
    expect(await writtenBy(incremental.runId)).toEqual(expect.arrayContaining(rewrittenIds));
    expect((await writtenBy(first.runId)).length).toBeGreaterThan(0);

    const stored = await storedRanking();
    expect(stored.entries).toHaveLength(PERSONS + 1);
    expect(stored.pages).toHaveLength(Math.ceil((PERSONS + 1) / 50));
    expect(stored.statistics).toEqual([expect.objectContaining({ data_referencia: LATER_DAY })]);
    await expectSameAsFullRebuild(LATER_DAY, [1, 5, 7, 8, 50, 500, PERSONS + 2, ...scoreMoved.slice(0, 5)]);
  }, 300_000);

  it('renders again only the pages where entries changed or moved, on the same day, and they are those of a full rebuild', async () => {
    await runRankingJob({ referenceDate: LATER_DAY });
    const before = await storedRanking();
    // Three curricula replaced: their entries move, and the entries between their old and new places move by one.
    await indexPersonDocuments([11, 111, 1111].map((id) => generatePersonFor(SEED + 2, id, SEED_DATE)));
    const run = await runRankingJob({ referenceDate: LATER_DAY });
    const after = await storedRanking();
    const changedPages = after.pages.filter((page, i) => page.resposta !== before.pages[i]?.resposta).map((page) => page.pagina);
    expect(changedPages.length).toBeGreaterThan(0);
    expect(changedPages.length).toBeLessThan(after.pages.length);
    // Every page but the changed ones kept its bytes; all carry the new run.
    expect(await query('SELECT DISTINCT run_id FROM ranking_pages')).toEqual([{ run_id: run.runId }]);
    await expectSameAsFullRebuild(LATER_DAY, [11, 111, 1111, 12]);
  }, 300_000);
});

/** What the ranking is now, stored and answered, equals what a full rebuild over the same index on `referenceDate` leaves. */
async function expectSameAsFullRebuild(referenceDate: string, sample: number[]): Promise<void> {
  const incremental = { stored: await storedRanking(), answers: await answers(sample) };
  const persons = incremental.stored.entries.length;
  const full = await runRankingJob({ limparAntes: true, referenceDate });
  expect(full).toMatchObject({ processados: persons, total: persons });
  const rebuilt = { stored: await storedRanking(), answers: await answers(sample) };
  expect(incremental.answers[`/consultor/${sample[0]} (gzip)`]).toContain(`"data_referencia":"${referenceDate}"`);
  for (const part of ['entries', 'details', 'seals', 'pages', 'statistics'] as const) {
    expect({ part, rows: incremental.stored[part] }).toEqual({ part, rows: rebuilt.stored[part] });
  }
  // Every answer byte for byte, the statistics but their time.
  expect(Object.keys(incremental.answers)).toHaveLength(Object.keys(rebuilt.answers).length);
  for (const [path, body] of Object.entries(rebuilt.answers)) {
    expect({ path, body: incremental.answers[path] }).toEqual({ path, body });
  }
}
