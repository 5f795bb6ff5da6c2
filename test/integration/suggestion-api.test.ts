import { createDatabase, type DatabaseHandle } from '../../db';
import type { PersonDocument } from '../../domain/person-document';
import { PERSON_INDEX_BASE, personIndexMappings, personIndexSettings } from '../../domain/person-index';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import { unusedPort } from '../support/ports';
import { emptyRanking, personIndex, runRankingJob } from '../support/ranking';
import { startTestServer, type TestServer } from '../support/server';

/**
 * GET /api/v1/consultores/sugerir against the real index and ranking store, with a hand-made set of
 * persons whose expected candidates, reasons and bonuses follow from the rules (docs/suggestion.md).
 */

interface Traits {
  ativo?: boolean;
  ies: string;
  areas: string[];
  conhecimento?: string[];
  linhas?: string[];
  coordenador?: boolean;
  premiado?: boolean;
}

function person(id: number, nome: string, traits: Traits): PersonDocument {
  const ativo = traits.ativo ?? true;
  return {
    id_pessoa: id,
    nome,
    ativo,
    anos_atuacao: 5,
    consultoria: [
      {
        situacao: ativo ? 'Ativo' : 'Inativo',
        inicio: '2015-03-01',
        fim: ativo ? null : '2020-06-30',
        ies_sigla: traits.ies,
        areas_avaliacao: traits.areas,
        areas_conhecimento: (traits.conhecimento ?? []).map((area) => ({ nome: area })),
        linhas_pesquisa: traits.linhas ?? [],
      },
    ],
    ...(traits.coordenador ? { coordenacoes_agency: [{ tipo: 'CAM' as const, inicio: '2016-01-01', fim: '2019-12-31' }] } : {}),
    ...(traits.premiado
      ? { premiacoes: [{ tipo: 'PREMIACAO' as const, papel: 'Autor' as const, premio: 'Prêmio de Tese', ano: 2018 }] }
      : {}),
  };
}

const LONG_LINE = 'Saúde urbana: vigilância epidemiológica de doenças transmissíveis';
const persons: PersonDocument[] = [
  person(101, 'Ana Souza', {
    ies: 'USP',
    areas: ['Saúde Coletiva'],
    conhecimento: ['Epidemiologia'],
    linhas: [LONG_LINE],
    coordenador: true,
  }),
  person(102, 'Jo227o Pereira', { ies: 'USP', areas: ['Saúde Coletiva'], conhecimento: ['Saúde Pública'], premiado: true }),
  person(103, 'Carla Dias', { ies: 'USP', areas: ['Saúde Coletiva'], linhas: ['Saúde do trabalhador'] }),
  person(104, 'Davi Rocha', { ies: 'UFMG', areas: ['Medicina I'], conhecimento: ['Clínica Médica'], linhas: ['Saúde cardiovascular'] }),
  person(105, 'Eva Lima', { ativo: false, ies: 'UFRJ', areas: ['Saúde Coletiva'] }),
  person(106, 'Fábio Nunes', { ies: 'UnB', areas: ['Sa250de Coletiva'] }),
  person(107, 'Gil Costa', {
    ies: 'UFC',
    areas: ['Educação'],
    conhecimento: ['Saúde Escolar'],
    linhas: ['Educa&ccedil;&atilde;o em sa&uacute;de nas escolas'],
  }),
  person(108, 'Hugo Alves', { ies: 'USP', areas: ['Ciência da Computação'], linhas: ['Aprendizado de máquina'] }),
];
/** Indexed after the ranking job: a candidate without a position while the ranking is ready. */
const late = person(109, 'Íris Mota', { ies: 'UFPE', areas: ['Saúde Coletiva'] });

/** The reasons each candidate of the theme `saúde` has (rule 3, then rule 5's two). */
const REASONS: Record<number, string[]> = {
  101: ['Area Avaliacao: Saúde Coletiva', 'Pesquisa: Saúde urbana: vigilância epidemiológica de doenças...', 'Foi Coordenador de Area'],
  102: ['Area: Saúde Pública', 'Area Avaliacao: Saúde Coletiva', 'Foi Premiado'],
  103: ['Area Avaliacao: Saúde Coletiva', 'Pesquisa: Saúde do trabalhador...'],
  104: ['Pesquisa: Saúde cardiovascular...'],
  105: ['Area Avaliacao: Saúde Coletiva'],
  106: ['Area Avaliacao: Saúde Coletiva'],
  107: ['Area: Saúde Escolar', 'Pesquisa: Educação em saúde nas escolas...'],
  109: ['Area Avaliacao: Saúde Coletiva'],
};
const IES: Record<number, string> = { 101: 'USP', 102: 'USP', 103: 'USP', 104: 'UFMG', 105: 'UFRJ', 106: 'UnB', 107: 'UFC', 109: 'UFPE' };
const COORDINATOR = new Set([101]);
const AWARDED = new Set([102]);

const es = createElasticsearch(config.elasticsearch);
let database: DatabaseHandle;
let server: TestServer;
let worker: QueueWorker | undefined;

async function indexPersons(documents: PersonDocument[]): Promise<void> {
  const operations = documents.flatMap((doc) => [{ index: { _index: personIndex, _id: String(doc.id_pessoa) } }, doc]);
  await es.bulk({ refresh: true, operations });
}

beforeAll(async () => {
  await es.indices.delete({ index: personIndex, ignore_unavailable: true });
  await es.indices.create({ index: personIndex, settings: personIndexSettings, mappings: personIndexMappings });
  await indexPersons(persons);
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  server = await startTestServer();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await database?.pool.end();
  await es.close();
});

async function suggest(query: string, target: TestServer = server) {
  const response = await fetch(`${target.url}/api/v1/consultores/sugerir?${query}`);
  return { status: response.status, body: (await response.json()) as any };
}

/**
 * The index's match score of each person for the theme `saúde`, by a request written out here: the
 * three consultancy texts, the theme as typed plus its damaged spelling (`sa250de`), the filters.
 */
async function indexScores(filter: object[]): Promise<Map<number, number>> {
  const text = 'saúde sa250de';
  const response = await es.search({
    index: personIndex,
    size: 100,
    query: {
      bool: {
        should: [
          { match: { 'consultoria.areas_avaliacao': text } },
          { match: { 'consultoria.areas_conhecimento.nome': text } },
          { match: { 'consultoria.linhas_pesquisa': text } },
        ],
        minimum_should_match: 1,
        filter,
      },
    },
  });
  return new Map(response.hits.hits.map((hit) => [Number(hit._id), hit._score as number]));
}
const ACTIVE = [{ term: { ativo: true } }];

type Place = { posicao: number; pontuacao_total: number };

async function storedPlaces(): Promise<Map<number, Place>> {
  const [rows] = await database.pool.query('SELECT id_pessoa, posicao, pontuacao_total FROM ranking_entries WHERE posicao IS NOT NULL');
  const places = rows as Array<{ id_pessoa: number } & Place>;
  return new Map(places.map((row) => [row.id_pessoa, { posicao: row.posicao, pontuacao_total: row.pontuacao_total }]));
}

/** Rule 5 from the parts: index score + position bonus + 20 coordinator + 10 awarded. */
function expectedScore(id: number, indexScore: number, place: Place | undefined): number {
  const positionBonus = place ? Math.max(0, (10_000 - place.posicao) / 100) : 0;
  return indexScore + positionBonus + (COORDINATOR.has(id) ? 20 : 0) + (AWARDED.has(id) ? 10 : 0);
}

/** Checks every record against its expected values; returns the ids in answer order. */
function checkRecords(records: any[], scores: Map<number, number>, places: Map<number, Place>): number[] {
  for (const record of records) {
    const id = record.id_pessoa as number;
    expect(scores.has(id)).toBe(true);
    expect(record.score_match).toBeCloseTo(expectedScore(id, scores.get(id) as number, places.get(id)), 6);
    expect(record.posicao_ranking).toBe(places.get(id)?.posicao ?? null);
    expect(record.pontuacao_ranking).toBe(places.get(id)?.pontuacao_total ?? 0);
    expect(record.motivos_match).toEqual(REASONS[id]);
    expect(record.ies).toBe(IES[id]);
    expect(record.foi_coordenador).toBe(COORDINATOR.has(id));
    expect(record.foi_premiado).toBe(AWARDED.has(id));
  }
  return records.map((record) => record.id_pessoa as number);
}

const byScore = (records: any[]) => [...records].sort((a, b) => b.score_match - a.score_match || a.id_pessoa - b.id_pessoa);

describe('GET /api/v1/consultores/sugerir before the ranking is processed', () => {
  it('answers 200 with the active candidates and every position null: an absent ranking is no error', async () => {
    const { status, body } = await suggest('tema=sa%C3%BAde');
    expect(status).toBe(200);
    expect(body.tema_buscado).toBe('saúde');
    const scores = await indexScores(ACTIVE);
    const ids = checkRecords(body.consultores, scores, new Map());
    expect(ids.sort()).toEqual([101, 102, 103, 104, 106, 107]);
    expect(body.total_encontrados).toBe(6);
    for (const record of body.consultores) {
      expect(record.posicao_ranking).toBeNull();
      expect(record.pontuacao_ranking).toBe(0);
    }
  });
});

describe('GET /api/v1/consultores/sugerir with the ranking computed by the job', () => {
  let places: Map<number, Place>;

  beforeAll(async () => {
    worker = await startRankingWorker(config, logger);
    await runRankingJob({});
    await indexPersons([late]);
    places = await storedPlaces();
  }, 120_000);

  it('looks the positions up in the ranking store; a person indexed after the run has none', async () => {
    expect([...places.keys()].sort()).toEqual(persons.map((p) => p.id_pessoa));
    const { status, body } = await suggest('tema=sa%C3%BAde&quantidade=100');
    expect(status).toBe(200);
    const ids = checkRecords(body.consultores, await indexScores(ACTIVE), places);
    expect([...ids].sort()).toEqual([101, 102, 103, 104, 106, 107, 109]);
    expect(body.total_encontrados).toBe(7);
    expect(body.consultores.find((record: any) => record.id_pessoa === 109)).toMatchObject({ posicao_ranking: null, pontuacao_ranking: 0 });
    expect(body.consultores.find((record: any) => record.id_pessoa === 101).posicao_ranking).toEqual(expect.any(Number));
  });

  it('answers every field of the suggestion record, texts repaired and entities decoded', async () => {
    const { body } = await suggest('tema=sa%C3%BAde&quantidade=100');
    const joao = body.consultores.find((record: any) => record.id_pessoa === 102);
    expect(joao).toEqual({
      id_pessoa: 102,
      nome: 'João Pereira',
      score_match: expect.any(Number),
      areas_avaliacao: ['Saúde Coletiva'],
      areas_conhecimento: ['Saúde Pública'],
      linhas_pesquisa: [],
      situacao: 'Ativo',
      ies: 'USP',
      foi_coordenador: false,
      foi_premiado: true,
      posicao_ranking: places.get(102)?.posicao,
      pontuacao_ranking: places.get(102)?.pontuacao_total,
      motivos_match: ['Area: Saúde Pública', 'Area Avaliacao: Saúde Coletiva', 'Foi Premiado'],
    });
    // `Sa250de Coletiva` in the index: found by its damaged spelling, shown repaired.
    expect(body.consultores.find((record: any) => record.id_pessoa === 106).areas_avaliacao).toEqual(['Saúde Coletiva']);
    expect(body.consultores.find((record: any) => record.id_pessoa === 107).linhas_pesquisa).toEqual(['Educação em saúde nas escolas']);
  });

  it('sorts by final score: the coordinator and the awarded first, then the index score among close positions', async () => {
    const { body } = await suggest('tema=sa%C3%BAde&quantidade=100');
    // 101 (+20) and 102 (+10) lead; 103, 104, 106 and 107 hold positions 3 to 6 (bonuses 99.97 to
    // 99.94), so their index scores decide: 106 (the rare damaged term `sa250de`), 103, 104, 107;
    // 109 has no position, hence no bonus.
    expect(byScore(body.consultores).map((record) => record.id_pessoa)).toEqual([101, 102, 106, 103, 104, 107, 109]);
  });

  it('quantidade 100 (half 50 never reached): every repeated institution waits and fills the end, in order', async () => {
    const { body } = await suggest('tema=sa%C3%BAde&quantidade=100');
    // 102 and 103 (USP, like 101) are skipped, then appended in their order.
    expect(body.consultores.map((record: any) => record.id_pessoa)).toEqual([101, 106, 104, 107, 109, 102, 103]);
  });

  it('quantidade 4: a repeated institution is skipped only while fewer than 2 are selected', async () => {
    const { body } = await suggest('tema=sa%C3%BAde&quantidade=4');
    // 101 (USP) selected; 102 (USP) skipped; 106 (UnB) selected: 2 selected, so 103 (USP) is taken,
    // then 104: the list is full and 102, the second best, stays out.
    expect(body.consultores.map((record: any) => record.id_pessoa)).toEqual([101, 106, 103, 104]);
    expect(body.total_encontrados).toBe(4);
  });

  it('refills with the skipped candidates in order when the others run out', async () => {
    const { body } = await suggest(`tema=sa%C3%BAde&area_avaliacao=${encodeURIComponent('Saúde Coletiva')}&quantidade=10`);
    // Candidates 101, 102, 106, 103, 109 (score order); half = 5 is never reached: 102 and 103 (USP)
    // are skipped, then fill the list after 101, 106, 109.
    expect(body.consultores.map((record: any) => record.id_pessoa)).toEqual([101, 106, 109, 102, 103]);
    expect(body.total_encontrados).toBe(5);
  });

  it('apenas_ativos=false adds inactive persons', async () => {
    const { body } = await suggest('tema=sa%C3%BAde&apenas_ativos=false&quantidade=100');
    const ids = checkRecords(body.consultores, await indexScores([]), places);
    expect([...ids].sort()).toEqual([101, 102, 103, 104, 105, 106, 107, 109]);
    expect(body.consultores.find((record: any) => record.id_pessoa === 105).situacao).toBe('Inativo');
  });

  it('filters by assessment area in any case, also persons whose area is stored damaged', async () => {
    const { body } = await suggest(`tema=sa%C3%BAde&area_avaliacao=${encodeURIComponent('saúde coletiva')}&quantidade=100`);
    const filter = [
      ...ACTIVE,
      {
        bool: {
          should: ['saúde coletiva', 'sa250de coletiva'].map((value) => ({
            term: { 'consultoria.areas_avaliacao.keyword': { value, case_insensitive: true } },
          })),
          minimum_should_match: 1,
        },
      },
    ];
    const ids = checkRecords(body.consultores, await indexScores(filter), places);
    expect([...ids].sort()).toEqual([101, 102, 103, 106, 109]);
    expect(body.total_encontrados).toBe(5);
  });

  it('finds nobody for a theme no text has', async () => {
    const { status, body } = await suggest('tema=astronomia');
    expect(status).toBe(200);
    expect(body).toEqual({ tema_buscado: 'astronomia', total_encontrados: 0, consultores: [] });
  });
});

describe('GET /api/v1/consultores/sugerir validation', () => {
  it.each([
    ['tema missing', '', 'query.tema'],
    ['tema of 1 character', 'tema=a', 'query.tema'],
    ['tema of 1 character after trimming', 'tema=%20a%20', 'query.tema'],
    ['quantidade 0', 'tema=saude&quantidade=0', 'query.quantidade'],
    ['quantidade 101', 'tema=saude&quantidade=101', 'query.quantidade'],
    ['quantidade not an integer', 'tema=saude&quantidade=2.5', 'query.quantidade'],
    ['apenas_ativos not a boolean', 'tema=saude&apenas_ativos=talvez', 'query.apenas_ativos'],
  ])('answers 422 for %s', async (_case, query, field) => {
    const { status, body } = await suggest(query);
    expect(status).toBe(422);
    expect(body.detail.startsWith(`${field}: `)).toBe(true);
  });

  it('accepts the bounds: tema of 2 characters, quantidade 1 and 100', async () => {
    for (const query of ['tema=sa', 'tema=saude&quantidade=1', 'tema=saude&quantidade=100']) {
      expect((await suggest(query)).status).toBe(200);
    }
    expect((await suggest('tema=sa%C3%BAde&quantidade=1')).body.total_encontrados).toBe(1);
  });
});

describe('GET /api/v1/consultores/sugerir failures (rule 7)', () => {
  it('answers 500 with the suggestion-error text and the cause when the index cannot be searched', async () => {
    const prefix = 'test_closed_';
    const closedIndex = indexName({ ...config.elasticsearch, indexPrefix: prefix }, PERSON_INDEX_BASE);
    await es.indices.delete({ index: closedIndex, ignore_unavailable: true });
    await es.indices.create({ index: closedIndex, settings: personIndexSettings, mappings: personIndexMappings });
    await es.indices.close({ index: closedIndex });
    const broken = await startTestServer((c) => ({ ...c, elasticsearch: { ...c.elasticsearch, indexPrefix: prefix } }));
    try {
      const { status, body } = await suggest('tema=sa%C3%BAde', broken);
      expect(status).toBe(500);
      expect(body.detail).toBe('Erro ao sugerir consultores: index_closed_exception Root causes: index_closed_exception: closed');
    } finally {
      await broken.close();
      await es.indices.delete({ index: closedIndex, ignore_unavailable: true });
    }
  });

  it("answers 500 (not the ranking reads' 503) when the ranking store cannot be reached", async () => {
    const port = await unusedPort();
    const broken = await startTestServer((c) => ({ ...c, mysql: { ...c.mysql, port } }));
    try {
      const { status, body } = await suggest('tema=sa%C3%BAde', broken);
      expect(status).toBe(500);
      expect(body.detail).toMatch(/^Erro ao sugerir consultores: .*ECONNREFUSED/);
    } finally {
      await broken.close();
    }
  });
});
