import { AREA_LIST_ERROR_PREFIX, CONSULTANT_NOT_FOUND_DETAIL, INDEX_ERROR_PREFIX } from '../../api/ranking/consultant-routes';
import { createDatabase, type DatabaseHandle } from '../../db';
import { assessmentAreaList, type AreaSpelling } from '../../domain/consultant-detail';
import { curriculumAnswer } from '../../domain/curriculum';
import { degreeItems, toRankingLanguage } from '../../domain/degrees';
import type { PersonDocument } from '../../domain/person-document';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { scorePerson, type ScoredPerson } from '../../domain/scoring/score-person';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import { ASSESSMENT_AREAS } from '../../scripts/sample-data/vocabulary';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import {
  emptyRanking,
  expectedRanking,
  personIndex,
  runRankingJob,
  runReferenceDate,
  seedPersonIndex,
  seededDocument,
} from '../support/ranking';
import { httpCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

const SEED = 23;
const PERSONS = 400;
const ids = Array.from({ length: PERSONS }, (_, i) => i + 1);
/** Indexed after the ranking job ran: in the index, not in the ranking. */
const UNRANKED_ID = PERSONS + 1;
const UNKNOWN_ID = 999_999;

let worker: QueueWorker;
let server: TestServer;
let database: DatabaseHandle;
const elasticsearch = createElasticsearch(config.elasticsearch);
let ranking: ScoredPerson[];
const documents = new Map<number, PersonDocument>();
const cvBaseUrl = config.ranking.cvBaseUrl;

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  for (const id of ids) documents.set(id, seededDocument(SEED, id));
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  worker = await startRankingWorker(config, logger);
  await runRankingJob({});
  ranking = expectedRanking(SEED, ids, runReferenceDate());
  const unranked = seededDocument(SEED, UNRANKED_ID);
  documents.set(UNRANKED_ID, unranked);
  await elasticsearch.index({ index: personIndex, id: String(UNRANKED_ID), document: unranked, refresh: 'wait_for' });
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await database?.pool.end();
  await elasticsearch.close();
});

async function get(path: string, base: TestServer = server) {
  const answer = await httpCall(base.url + path);
  return { status: answer.status, type: answer.headers.get('content-type'), body: answer.body };
}

const documentOf = (id: number) => documents.get(id) as PersonDocument;
/** As the index returns it: JSON, so no undefined fields. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('GET /api/v1/consultor/{id_pessoa}', () => {
  it('returns a ranked person as its /ranking/detalhado item, rank equal to its position', async () => {
    const detailed = await get('/api/v1/ranking/detalhado?limite=20');
    for (const position of [1, 5, 20]) {
      const person = ranking[position - 1] as ScoredPerson;
      const { status, type, body } = await get(`/api/v1/consultor/${person.id_pessoa}`);
      expect(status).toBe(200);
      expect(type).toMatch(/^application\/json/);
      expect(body).toEqual(detailed.body.consultores[position - 1]);
      const doc = documentOf(person.id_pessoa);
      expect(body).toMatchObject({
        id_pessoa: person.id_pessoa,
        nome: person.nome,
        posicao: position,
        rank: position,
        pontuacao_total: person.pontuacao_total,
        bloco_a: person.bloco_a,
        bloco_e: person.bloco_e,
        ativo: person.ativo,
        selos: person.selos,
        pontuacao: person.pontuacao,
        consultoria: doc.consultoria ?? null,
        orientacoes: doc.orientacoes ?? null,
        idiomas: doc.idiomas ? doc.idiomas.map(toRankingLanguage) : null,
        titulacao: doc.titulacoes ? degreeItems(doc.titulacoes) : null,
      });
    }
  });

  it('scores a person who is in the index but not ranked, in the same shape with posicao and rank null', async () => {
    const doc = documentOf(UNRANKED_ID);
    const scored = scorePerson(doc, runReferenceDate());
    const { status, body } = await get(`/api/v1/consultor/${UNRANKED_ID}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id_pessoa: UNRANKED_ID,
      nome: doc.nome,
      posicao: null,
      rank: null,
      pontuacao_total: scored.pontuacao_total,
      bloco_a: scored.bloco_a,
      bloco_b: scored.bloco_b,
      bloco_c: scored.bloco_c,
      bloco_d: scored.bloco_d,
      bloco_e: scored.bloco_e,
      ativo: scored.ativo,
      anos_atuacao: scored.anos_atuacao,
      tipos_atuacao: scored.tipos_atuacao,
      coordenador_ppg: scored.coordenador_ppg,
      selos: scored.selos,
      pontuacao: asJson(scored.pontuacao),
      consultoria: asJson(doc.consultoria ?? null),
      docencias: asJson(doc.docencias ?? null),
      idiomas: doc.idiomas ? doc.idiomas.map(toRankingLanguage) : null,
      cv: doc.id_cv ? { id_cv: doc.id_cv, url: `${cvBaseUrl}/${doc.id_cv}`, titulacoes: asJson(degreeItems(doc.titulacoes)) } : null,
    });
    const ranked = await get(`/api/v1/consultor/${(ranking[0] as ScoredPerson).id_pessoa}`);
    expect(Object.keys(body)).toEqual(Object.keys(ranked.body));
  });

  it('answers 404 when neither the ranking nor the index has the person', async () => {
    expect(await get(`/api/v1/consultor/${UNKNOWN_ID}`)).toMatchObject({ status: 404, body: { detail: CONSULTANT_NOT_FOUND_DETAIL } });
    expect(CONSULTANT_NOT_FOUND_DETAIL).toBe('Consultor não encontrado');
  });

  it.each(['abc', '1.5', '-1', '99999999999'])('answers 422 for the id %p on every consultant path', async (id) => {
    for (const path of [`/api/v1/consultor/${id}`, `/api/v1/consultor/${id}/raw`, `/api/v1/consultor/${id}/cv`]) {
      const { status, body } = await get(path);
      expect(status).toBe(422);
      expect(body.detail.startsWith('path.id_pessoa: ')).toBe(true);
    }
  });
});

describe('GET /api/v1/consultor/{id_pessoa}/raw', () => {
  it('returns the whole index document as seeded', async () => {
    for (const id of [1, 2, 3, 150, UNRANKED_ID]) {
      expect(await get(`/api/v1/consultor/${id}/raw`)).toMatchObject({ status: 200, body: asJson(documentOf(id)) });
    }
  });

  it('answers 404 for a person the index does not have', async () => {
    expect(await get(`/api/v1/consultor/${UNKNOWN_ID}/raw`)).toMatchObject({ status: 404, body: { detail: CONSULTANT_NOT_FOUND_DETAIL } });
  });
});

describe('GET /api/v1/consultor/{id_pessoa}/cv', () => {
  it('returns the curriculum record of every person with a curriculum id (first 60 persons)', async () => {
    let withCurriculum = 0;
    for (const id of ids.slice(0, 60)) {
      const doc = documentOf(id);
      if (!doc.id_cv) continue;
      withCurriculum += 1;
      const { status, body } = await get(`/api/v1/consultor/${id}/cv`);
      expect(status).toBe(200);
      expect(body).toEqual(asJson(curriculumAnswer(doc, cvBaseUrl)));
      expect(body).toMatchObject({ encontrado: true, id_cv: doc.id_cv, url: `${cvBaseUrl}/${doc.id_cv}`, data_atualizacao_cv: null });
      expect(body.total_orientacoes).toBe((doc.orientacoes ?? []).filter((o) => o.tipo === 'Orientação Concluída').length);
      expect(body.total_projetos).toBe((doc.projetos ?? []).filter((p) => p.nome).length);
    }
    expect(withCurriculum).toBeGreaterThan(40);
  });

  it('answers 200 encontrado false "no curriculum registered" for a person without id_cv', async () => {
    const withoutCv = ids.filter((id) => !documentOf(id).id_cv).slice(0, 3);
    expect(withoutCv.length).toBeGreaterThan(0);
    for (const id of withoutCv) {
      expect(await get(`/api/v1/consultor/${id}/cv`)).toMatchObject({
        status: 200,
        body: { encontrado: false, motivo: 'Currículo não cadastrado' },
      });
    }
  });

  it('answers 200 encontrado false "person not found" for an unknown id', async () => {
    const { status, body } = await get(`/api/v1/consultor/${UNKNOWN_ID}/cv`);
    expect(status).toBe(200);
    expect(body).toEqual({ encontrado: false, motivo: 'Pessoa não encontrada' });
  });
});

describe('GET /api/v1/consultores/areas-avaliacao', () => {
  it('lists the assessment areas with the persons and active persons of each, as counted from the documents', async () => {
    // What the terms aggregation counts: per stored spelling, the persons having it in any period.
    const spellings = new Map<string, AreaSpelling>();
    for (const doc of documents.values()) {
      const own = new Set((doc.consultoria ?? []).flatMap((period) => period.areas_avaliacao ?? []));
      for (const spelling of own) {
        const counted = spellings.get(spelling) ?? { spelling, persons: 0, active: 0 };
        counted.persons += 1;
        if (doc.ativo) counted.active += 1;
        spellings.set(spelling, counted);
      }
    }
    const { status, body } = await get('/api/v1/consultores/areas-avaliacao');
    expect(status).toBe(200);
    expect(body).toEqual(assessmentAreaList([...spellings.values()]));
    // Damaged spellings were merged into the areas of the vocabulary, each listed once, by name.
    const names = body.map((area: { nome: string }) => area.nome);
    const vocabulary = ASSESSMENT_AREAS.map((area) => area.nome);
    expect(names.every((name: string) => vocabulary.includes(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b, 'pt-BR', { sensitivity: 'base' })));
    expect(spellings.size).toBeGreaterThan(names.length);
    for (const area of body) expect(area.total_ativos).toBeLessThanOrEqual(area.total_consultores);
  });
});

describe('an index that answers errors', () => {
  const brokenPrefix = 'broken_consultant_';
  const brokenIndex = indexName({ ...config.elasticsearch, indexPrefix: brokenPrefix }, PERSON_INDEX_BASE);
  let broken: TestServer;

  beforeAll(async () => {
    await elasticsearch.indices.delete({ index: brokenIndex }, { ignore: [404] });
    await elasticsearch.indices.create({ index: brokenIndex });
    await elasticsearch.indices.close({ index: brokenIndex });
    broken = await startTestServer((c) => ({ ...c, elasticsearch: { ...c.elasticsearch, indexPrefix: brokenPrefix } }));
  });

  afterAll(async () => {
    await broken?.close();
    await elasticsearch.indices.delete({ index: brokenIndex }, { ignore: [404] });
  });

  it('answers the curriculum 200 with the reason and the cause (the specification: always 200)', async () => {
    const { status, body } = await get('/api/v1/consultor/1/cv', broken);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['encontrado', 'motivo']);
    expect(body.encontrado).toBe(false);
    expect(body.motivo).toMatch(/^Não foi possível ler o currículo no índice: .*index_closed_exception/);
  });

  it('answers 500 with the cause for the raw document and an unranked detail', async () => {
    for (const path of [`/api/v1/consultor/1/raw`, `/api/v1/consultor/${UNRANKED_ID}`]) {
      const { status, body } = await get(path, broken);
      expect(status).toBe(500);
      expect(body.detail.startsWith(INDEX_ERROR_PREFIX)).toBe(true);
      expect(body.detail).toContain('index_closed_exception');
    }
  });

  it('answers 500 with the area-list error text and the cause for the area list', async () => {
    const { status, body } = await get('/api/v1/consultores/areas-avaliacao', broken);
    expect(status).toBe(500);
    expect(body.detail.startsWith('Erro ao listar as áreas de avaliação: ')).toBe(true);
    expect(AREA_LIST_ERROR_PREFIX).toBe('Erro ao listar as áreas de avaliação: ');
    expect(body.detail).toContain('index_closed_exception');
  });

  it('still serves a ranked person from the ranking store (as a page does)', async () => {
    const id = (ranking[2] as ScoredPerson).id_pessoa;
    const healthy = await get(`/api/v1/consultor/${id}`);
    expect(await get(`/api/v1/consultor/${id}`, broken)).toMatchObject({ status: 200, body: healthy.body });
  });
});
