import { request, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { createDatabase, type DatabaseHandle } from '../../db';
import { degreeItems, toRankingLanguage } from '../../domain/degrees';
import { readyComplementsJson } from '../../domain/ranking-entry';
import { storedComplements } from '../../domain/ranking-row';
import type { PersonDocument } from '../../domain/person-document';
import type { ScoredPerson } from '../../domain/scoring/score-person';
import { SEAL_CATALOGUE } from '../../domain/seals';
import { SEARCH_NAME_MAX, SEARCH_WORDS_MAX, searchWords } from '../../api/ranking/ranking-routes';
import { searchByName } from '../../db/ranking-queries';
import { foldForSearch, nameSearchKey, repairEncoding } from '../../domain/text';
import { config } from '../../lib/config';
import { createElasticsearch } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import { unusedPort } from '../support/ports';
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

const SEED = 5;
const PERSONS = 3_000;
const ids = Array.from({ length: PERSONS }, (_, i) => i + 1);

let worker: QueueWorker;
let server: TestServer;
let database: DatabaseHandle;
const elasticsearch = createElasticsearch(config.elasticsearch);
let ranking: ScoredPerson[];
const documents = new Map<number, PersonDocument>();

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  for (const id of ids) documents.set(id, seededDocument(SEED, id));
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  worker = await startRankingWorker(config, logger);
  await runRankingJob({});
  ranking = expectedRanking(SEED, ids, runReferenceDate());
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await database?.pool.end();
  await elasticsearch.close();
});

const get = (path: string) => httpCall(server.url + path);

/** A GET with node:http, which neither asks for nor decodes compression unless told: the bytes as sent. */
function rawGet(path: string, acceptEncoding?: string): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    request(server.url + path, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const byId = (id: number) => ranking.find((person) => person.id_pessoa === id) as ScoredPerson;

describe('GET /api/v1/ranking/paginado', () => {
  it('serves the first page in position order with every field of the entry', async () => {
    const { status, body } = await get('/api/v1/ranking/paginado');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: PERSONS, page: 1, size: 50, total_pages: 60 });
    expect(body.consultores.map((entry: any) => entry.posicao)).toEqual(ids.slice(0, 50));
    expect(body.consultores.map((entry: any) => entry.id_pessoa)).toEqual(ranking.slice(0, 50).map((p) => p.id_pessoa));
    for (const entry of body.consultores) {
      const scored = byId(entry.id_pessoa);
      const doc = documents.get(entry.id_pessoa) as PersonDocument;
      expect(entry).toMatchObject({
        nome: scored.nome,
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
        pontuacao: scored.pontuacao,
        consultoria: doc.consultoria ?? null,
        coordenacoes_agency: doc.coordenacoes_agency ?? null,
        premiacoes: doc.premiacoes ?? null,
        docencias: doc.docencias ?? null,
      });
    }
  });

  it('fills languages and degrees from the index (rule 3) and builds the cv when there is a curriculum id (rule 4)', async () => {
    const { body } = await get('/api/v1/ranking/paginado?size=1000');
    let withCv = 0;
    let withoutCv = 0;
    for (const entry of body.consultores) {
      const doc = documents.get(entry.id_pessoa) as PersonDocument;
      expect(entry.idiomas).toEqual(doc.idiomas ? doc.idiomas.map(toRankingLanguage) : null);
      expect(entry.titulacao).toEqual(doc.titulacoes ? degreeItems(doc.titulacoes) : null);
      if (doc.id_cv) {
        withCv += 1;
        expect(entry.cv).toEqual({
          id_cv: doc.id_cv,
          url: `${config.ranking.cvBaseUrl}/${encodeURIComponent(doc.id_cv)}`,
          titulacoes: degreeItems(doc.titulacoes),
        });
      } else {
        withoutCv += 1;
        expect(entry.cv).toBeNull();
      }
    }
    expect(withCv).toBeGreaterThan(0);
    expect(withoutCv).toBeGreaterThan(0);
  });

  it('stores with each entry the revision of the index document it was built from', async () => {
    const sample = ids.slice(0, 40);
    const [rows] = await database.pool.query('SELECT id_pessoa, revisao_documento FROM ranking_entry_details WHERE id_pessoa IN (?)', [
      sample,
    ]);
    const stored = new Map(
      (rows as Array<{ id_pessoa: number; revisao_documento: string }>).map((row) => [row.id_pessoa, row.revisao_documento]),
    );
    const current = await elasticsearch.mget({ index: personIndex, ids: sample.map(String), _source: false });
    expect(current.docs).toHaveLength(40);
    for (const doc of current.docs as Array<{ _id: string; _seq_no: number; _primary_term: number }>) {
      expect(stored.get(Number(doc._id))).toBe(`${doc._primary_term}:${doc._seq_no}`);
    }
  });

  it('stores the complements of complete entries in response form too, with the curriculum id their url needs', async () => {
    const [rows] = await database.pool.query('SELECT id_pessoa, complementos_prontos, id_cv FROM ranking_entry_details');
    const stored = rows as Array<{ id_pessoa: number; complementos_prontos: string | null; id_cv: string | null }>;
    expect(stored).toHaveLength(PERSONS);
    let ready = 0;
    for (const row of stored) {
      const complements = storedComplements(documents.get(row.id_pessoa) as PersonDocument);
      expect(row.complementos_prontos).toBe(readyComplementsJson(complements));
      expect(row.id_cv).toBe(row.complementos_prontos === null ? null : complements.id_cv);
      if (row.complementos_prontos !== null) ready += 1;
    }
    // Both kinds are on the pages the other tests read.
    expect(ready).toBeGreaterThan(PERSONS / 4);
    expect(ready).toBeLessThan(PERSONS);
  });

  it('reads the index at request time only for what the job did not store (rules 3 and 4)', async () => {
    const cvOf = (idCv: string, degrees: PersonDocument['titulacoes']) => ({
      id_cv: idCv,
      url: `${config.ranking.cvBaseUrl}/${encodeURIComponent(idCv)}`,
      titulacoes: degreeItems(degrees),
    });
    const completeDegree = (doc: PersonDocument) => {
      const first = degreeItems(doc.titulacoes)[0];
      return Boolean(first?.programa && first?.area_avaliacao);
    };
    const top = ranking.slice(0, 1000).map((person) => documents.get(person.id_pessoa) as PersonDocument);
    const noLanguages = top.find((doc) => !doc.idiomas && doc.titulacoes && doc.titulacoes.length > 0) as PersonDocument;
    const noCv = top.find((doc) => !doc.id_cv && doc.idiomas) as PersonDocument;
    const complete = top.find((doc) => doc.idiomas && doc.id_cv && completeDegree(doc)) as PersonDocument;
    expect([noLanguages, noCv, complete].every(Boolean)).toBe(true);
    const spanish = { idioma: 'Espanhol', proficiencia_leitura: 'Bem', proficiencia_fala: 'Pouco' };
    const doutorado = { grau: 'Doutorado', hierarquia: '2', ano: '2019', programa: 'Química', area_avaliacao: 'Química', pais: 'Chile' };
    // The index changes after the job: only entries whose stored data is incomplete see it.
    const changes: Array<[PersonDocument, Partial<PersonDocument>]> = [
      [noLanguages, { idiomas: [spanish], titulacoes: [doutorado] }],
      [noCv, { id_cv: 'NOVO-1', titulacoes: [doutorado] }],
      [complete, { id_cv: 'NOVO-2', idiomas: [spanish], titulacoes: [doutorado] }],
    ];
    const update = (doc: PersonDocument, fields: Partial<PersonDocument>) =>
      elasticsearch.update({ index: personIndex, id: String(doc.id_pessoa), doc: fields, refresh: true });
    // Both ways a page is served: built per request (size 1000) and rendered by the job (default size).
    const fromBuiltPage = async (doc: PersonDocument) => {
      const { body } = await get('/api/v1/ranking/paginado?size=1000');
      return body.consultores.find((item: any) => item.id_pessoa === doc.id_pessoa);
    };
    const fromStoredPage = async (doc: PersonDocument) => {
      const position = ranking.findIndex((person) => person.id_pessoa === doc.id_pessoa) + 1;
      const { body } = await get(`/api/v1/ranking/paginado?page=${Math.ceil(position / 50)}`);
      const found = body.consultores.find((item: any) => item.id_pessoa === doc.id_pessoa);
      expect(found.posicao).toBe(position);
      return found;
    };
    try {
      for (const [doc, fields] of changes) await update(doc, fields);
      for (const entry of [fromBuiltPage, fromStoredPage]) {
        // Rule 3: languages were not stored, so they and the missing degrees come from the index now.
        expect((await entry(noLanguages)).idiomas).toEqual([toRankingLanguage(spanish)]);
        expect((await entry(noLanguages)).titulacao).toEqual(degreeItems(noLanguages.titulacoes));
        // Rule 4: no cv was stored, so it is built from the document's curriculum id and degrees.
        expect((await entry(noCv)).cv).toEqual(cvOf('NOVO-1', [doutorado]));
        expect((await entry(noCv)).idiomas).toEqual(noCv.idiomas?.map(toRankingLanguage));
        // Complete stored data is served as stored.
        expect(await entry(complete)).toMatchObject({
          idiomas: complete.idiomas?.map(toRankingLanguage),
          titulacao: degreeItems(complete.titulacoes),
          cv: cvOf(complete.id_cv as string, complete.titulacoes),
        });
      }
    } finally {
      for (const [doc, fields] of changes) {
        const restore = Object.fromEntries(Object.keys(fields).map((key) => [key, doc[key as keyof PersonDocument] ?? null]));
        await update(doc, restore);
      }
    }
  });

  it('serves the unfiltered pages of the default size as the job rendered them, equal to pages built per request', async () => {
    const [pages] = await database.pool.query(
      'SELECT COUNT(*) AS n, MIN(p.run_id = s.run_id) AS current FROM ranking_pages p JOIN ranking_statistics s ON s.id = 1',
    );
    expect(pages).toEqual([{ n: 60, current: 1 }]);
    for (const page of [1, 2, 37, 60]) {
      const stored = await get(`/api/v1/ranking/paginado?page=${page}`);
      const firstHalf = await get(`/api/v1/ranking/paginado?page=${page * 2 - 1}&size=25`);
      const secondHalf = await get(`/api/v1/ranking/paginado?page=${page * 2}&size=25`);
      expect(stored.body).toEqual({
        total: PERSONS,
        page,
        size: 50,
        total_pages: 60,
        consultores: [...firstHalf.body.consultores, ...secondHalf.body.consultores],
      });
    }

    // What is served is the stored row: swap page 60's response for page 59's and page 60 shows it.
    const [rows] = await database.pool.query(
      'SELECT pagina, resposta_gzip, incompletos FROM ranking_pages WHERE pagina IN (59, 60) ORDER BY pagina',
    );
    const [page59, page60] = rows as Array<{ resposta_gzip: Buffer; incompletos: string }>;
    const swap = (row?: { resposta_gzip: Buffer; incompletos: string }) =>
      database.pool.query('UPDATE ranking_pages SET resposta_gzip = ?, incompletos = ? WHERE pagina = 60', [
        row?.resposta_gzip,
        row?.incompletos,
      ]);
    await swap(page59);
    try {
      const swapped = await get('/api/v1/ranking/paginado?page=60');
      expect(swapped.body.page).toBe(59);
      expect(swapped.body.consultores.map((entry: any) => entry.posicao)).toEqual(ids.slice(2900, 2950));
    } finally {
      await swap(page60);
    }
  });

  it('sends a stored page gzip-compressed to a client that accepts gzip and plain to one that does not', async () => {
    const gzipped = await rawGet('/api/v1/ranking/paginado?page=3', 'gzip, deflate, br');
    const plain = await rawGet('/api/v1/ranking/paginado?page=3', 'identity');
    const unstated = await rawGet('/api/v1/ranking/paginado?page=3');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(Number(gzipped.headers['content-length'])).toBe(gzipped.bytes.length);
    for (const response of [gzipped, plain, unstated]) {
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers.vary).toMatch(/accept-encoding/i);
    }
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(unstated.headers['content-encoding']).toBeUndefined();
    const decompressed = gunzipSync(gzipped.bytes);
    // A page of 50 entries compresses several times over.
    expect(gzipped.bytes.length * 4).toBeLessThan(decompressed.length);
    expect(decompressed.equals(plain.bytes)).toBe(true);
    expect(unstated.bytes.equals(plain.bytes)).toBe(true);
    const page = JSON.parse(plain.bytes.toString('utf8'));
    expect(page).toMatchObject({ total: PERSONS, page: 3, size: 50, total_pages: 60 });
    expect(page.consultores.map((entry: any) => entry.posicao)).toEqual(ids.slice(100, 150));
  });

  it('builds the page per request when the stored pages were rendered for another total', async () => {
    await database.pool.query('UPDATE ranking_pages SET total = total + 1 WHERE pagina = 4');
    try {
      const response = await rawGet('/api/v1/ranking/paginado?page=4', 'gzip');
      // Built per request: not the stored compressed bytes, and the total of the ranking as it is.
      expect(response.headers.vary).toMatch(/accept-encoding/i);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(response.bytes.toString('utf8'))).toMatchObject({ total: PERSONS, page: 4, total_pages: 60 });
    } finally {
      await database.pool.query('UPDATE ranking_pages SET total = total - 1 WHERE pagina = 4');
    }
  });

  it('builds the page per request when CV_BASE_URL differs from the one the stored pages were rendered with', async () => {
    const otherBase = 'https://outro-cv.example.org/perfil';
    const other = await startTestServer((base) => ({ ...base, ranking: { ...base.ranking, cvBaseUrl: otherBase } }));
    try {
      const { body } = await (await fetch(`${other.url}/api/v1/ranking/paginado?page=1`)).json().then((json) => ({ body: json as any }));
      const urls = body.consultores.flatMap((entry: any) => (entry.cv ? [entry.cv.url as string] : []));
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(url.startsWith(`${otherBase}/`)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('pages by position to the last page and past it', async () => {
    const last = await get('/api/v1/ranking/paginado?page=60&size=50');
    expect(last.body.consultores.map((entry: any) => entry.posicao)).toEqual(ids.slice(2950, 3000));
    const past = await get('/api/v1/ranking/paginado?page=61&size=50');
    expect(past.body).toMatchObject({ total: PERSONS, page: 61, size: 50, total_pages: 60, consultores: [] });
  });

  it('filters by the active flag with the count after the filter', async () => {
    for (const ativo of [true, false]) {
      const expected = ranking.filter((person) => person.ativo === ativo);
      const { body } = await get(`/api/v1/ranking/paginado?ativo=${ativo}&size=100&page=2`);
      expect(body.total).toBe(expected.length);
      expect(body.total_pages).toBe(Math.ceil(expected.length / 100));
      expect(body.consultores.map((entry: any) => entry.id_pessoa)).toEqual(expected.slice(100, 200).map((p) => p.id_pessoa));
    }
  });

  it('filters by seals in upper case, trimmed, empty items dropped, every seal required', async () => {
    const counts = new Map<string, number>();
    for (const person of ranking) for (const seal of person.selos) counts.set(seal, (counts.get(seal) ?? 0) + 1);
    const [first, second] = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([seal]) => seal);
    expect(first && second).toBeTruthy();
    const both = ranking.filter((person) => person.selos.includes(first as string) && person.selos.includes(second as string));
    expect(both.length).toBeGreaterThan(0);

    const { body } = await get(`/api/v1/ranking/paginado?size=1000&selos=${encodeURIComponent(` ${first!.toLowerCase()} ,, ${second} ,`)}`);
    expect(body.total).toBe(both.length);
    expect(body.consultores.map((entry: any) => entry.id_pessoa)).toEqual(both.slice(0, 1000).map((p) => p.id_pessoa));

    const one = await get(`/api/v1/ranking/paginado?size=5&selos=${first}`);
    expect(one.body.total).toBe(counts.get(first as string));

    const unknown = await get('/api/v1/ranking/paginado?selos=NAO_EXISTE');
    expect(unknown).toEqual({ status: 200, body: { total: 0, page: 1, size: 50, total_pages: 0, consultores: [] } });
  });

  it.each([
    ['size=0', 'query.size'],
    ['size=1001', 'query.size'],
    ['size=2.5', 'query.size'],
    ['page=0', 'query.page'],
    ['page=abc', 'query.page'],
    ['ativo=talvez', 'query.ativo'],
  ])('answers 422 for %s', async (query, field) => {
    const { status, body } = await get(`/api/v1/ranking/paginado?${query}`);
    expect(status).toBe(422);
    expect(body.detail).toMatch(new RegExp(`^${field.replace('.', '\\.')}: `));
  });
});

describe('GET /api/v1/ranking and /ranking/detalhado', () => {
  it('lists summaries in position order with rank and veterano', async () => {
    const { body } = await get('/api/v1/ranking?limite=3&offset=10');
    expect(body).toMatchObject({ total: PERSONS, limite: 3, offset: 10 });
    expect(body.consultores).toEqual(
      ranking.slice(10, 13).map((person, i) => ({
        id_pessoa: person.id_pessoa,
        nome: person.nome,
        anos_atuacao: person.anos_atuacao,
        ativo: person.ativo,
        veterano: person.anos_atuacao >= 10,
        pontuacao_total: person.pontuacao_total,
        bloco_a: person.bloco_a,
        bloco_c: person.bloco_c,
        bloco_d: person.bloco_d,
        rank: 11 + i,
      })),
    );
    expect((await get('/api/v1/ranking')).body.consultores).toHaveLength(100);
  });

  it('with componente, lists only persons scoring in that block, best in it first', async () => {
    const inBlock = ranking
      .filter((person) => person.bloco_a > 0)
      .sort((x, y) => y.bloco_a - x.bloco_a || ranking.indexOf(x) - ranking.indexOf(y));
    const { body } = await get('/api/v1/ranking?componente=A&limite=1000');
    expect(body.total).toBe(inBlock.length);
    expect(body.consultores.map((s: any) => [s.id_pessoa, s.rank])).toEqual(inBlock.slice(0, 1000).map((p, i) => [p.id_pessoa, i + 1]));
  });

  it('returns detailed records with rank', async () => {
    const { body } = await get('/api/v1/ranking/detalhado?limite=5&componente=d');
    const inBlock = ranking
      .filter((person) => person.bloco_d > 0)
      .sort((x, y) => y.bloco_d - x.bloco_d || ranking.indexOf(x) - ranking.indexOf(y));
    expect(body.total).toBe(inBlock.length);
    expect(body.limite).toBe(5);
    expect(body.consultores.map((entry: any) => [entry.id_pessoa, entry.rank, entry.bloco_d])).toEqual(
      inBlock.slice(0, 5).map((p, i) => [p.id_pessoa, i + 1, p.bloco_d]),
    );
    expect(body.consultores[0]).toHaveProperty('cv');
    expect(body.consultores[0]).toHaveProperty('pontuacao');
  });

  it.each([
    ['/api/v1/ranking?componente=b', 'query.componente'],
    ['/api/v1/ranking?limite=0', 'query.limite'],
    ['/api/v1/ranking?limite=1001', 'query.limite'],
    ['/api/v1/ranking?offset=-1', 'query.offset'],
    ['/api/v1/ranking/detalhado?limite=1001', 'query.limite'],
    ['/api/v1/ranking/detalhado?componente=x', 'query.componente'],
  ])('answers 422 for %s', async (path, field) => {
    const { status, body } = await get(path);
    expect(status).toBe(422);
    expect(body.detail.startsWith(`${field}: `)).toBe(true);
  });
});

describe('GET /api/v1/ranking/selos', () => {
  it('returns the catalogue, then stored codes without metadata as outros', async () => {
    await database.pool.query("INSERT INTO ranking_entry_seals (selo, id_pessoa) VALUES ('SELO_NOVO', 1)");
    try {
      const { body } = await get('/api/v1/ranking/selos');
      expect(body.selos.slice(0, SEAL_CATALOGUE.length)).toEqual([...SEAL_CATALOGUE]);
      expect(body.selos).toHaveLength(SEAL_CATALOGUE.length + 1);
      expect(body.selos.at(-1)).toMatchObject({ codigo: 'SELO_NOVO', label: 'SELO_NOVO', grupo: 'outros' });
      expect(body.selos.find((s: any) => s.codigo === 'PRESID_CAMARA')).toMatchObject({ label: 'Presidente Câmara', grupo: 'funcoes' });
    } finally {
      await database.pool.query("DELETE FROM ranking_entry_seals WHERE selo = 'SELO_NOVO'");
    }
  });
});

describe('GET /api/v1/ranking/busca', () => {
  const folded = (id: number) => nameSearchKey(byId(id).nome);

  it('finds by word prefixes regardless of accents and case, best-ranked first', async () => {
    const accented = ranking.find((person) => /[À-ÿ]/.test(person.nome) && !/\d/.test(person.nome)) as ScoredPerson;
    const words = foldForSearch(accented.nome)
      .split(' ')
      .filter((word) => word.length >= 3);
    const query = `${words[0]!.toUpperCase()} ${words.at(-1)!.slice(0, 4)}`;
    const matching = ranking.filter((person) => {
      const name = folded(person.id_pessoa).split(' ');
      return name.some((w) => w.startsWith(words[0]!)) && name.some((w) => w.startsWith(words.at(-1)!.slice(0, 4)));
    });
    const { status, body } = await get(`/api/v1/ranking/busca?nome=${encodeURIComponent(query)}&limit=20`);
    expect(status).toBe(200);
    expect(body).toEqual(
      matching.slice(0, 20).map((person) => ({
        id_pessoa: person.id_pessoa,
        nome: person.nome,
        posicao: ranking.indexOf(person) + 1,
        pontuacao_total: person.pontuacao_total,
      })),
    );
    expect(body.map((r: any) => r.id_pessoa)).toContain(accented.id_pessoa);
  });

  it('finds a name stored with encoding damage by its repaired spelling', async () => {
    const damaged = ranking.find((person) => /\p{L}\d{3}\p{L}/u.test(person.nome) && repairEncoding(person.nome) !== person.nome);
    expect(damaged).toBeDefined();
    const repaired = foldForSearch(repairEncoding(damaged!.nome));
    const { body } = await get(`/api/v1/ranking/busca?nome=${encodeURIComponent(repaired)}&limit=20`);
    expect(body.map((r: any) => r.id_pessoa)).toContain(damaged!.id_pessoa);
  });

  it('answers the same through the position walk and through the FULLTEXT index', async () => {
    const surnames = [...new Set(ranking.slice(0, 300).map((p) => nameSearchKey(p.nome).split(' ').at(-1) as string))]
      .filter((word) => word.length >= 3)
      .slice(0, 15);
    expect(surnames.length).toBeGreaterThan(5);
    for (const word of surnames) {
      for (const words of [[word], [word.slice(0, 3)], [nameSearchKey(ranking[0]!.nome).split(' ')[0]!.slice(0, 4), word]]) {
        const walked = await searchByName(database.pool, words, 20, PERSONS);
        const indexed = await searchByName(database.pool, words, 20, 0);
        expect(indexed).toEqual(walked);
      }
    }
  });

  it('defaults to 5 results', async () => {
    const { body } = await get('/api/v1/ranking/busca?nome=silva');
    expect(body.length).toBeLessThanOrEqual(5);
    expect(body.map((r: any) => r.posicao)).toEqual([...body.map((r: any) => r.posicao)].sort((a: number, b: number) => a - b));
  });

  it(`searches with the first ${SEARCH_WORDS_MAX} distinct words only: a word beyond them cannot narrow the answer`, async () => {
    const prefixesOf = (id: number) => [
      ...new Set(
        folded(id)
          .split(' ')
          .flatMap((word) => Array.from({ length: Math.max(0, word.length - 2) }, (_, i) => word.slice(0, i + 3))),
      ),
    ];
    const target = ranking.find((person) => prefixesOf(person.id_pessoa).length >= SEARCH_WORDS_MAX) as ScoredPerson;
    const matching = prefixesOf(target.id_pessoa).slice(0, SEARCH_WORDS_MAX);
    // Each of the first words starts a word of the name; a repeat counts once; the last word matches nobody.
    const query = [...matching, matching[0], 'zzzqqq'].join(' ');
    expect(searchWords(query)).toEqual(matching);
    const { status, body } = await get(`/api/v1/ranking/busca?nome=${encodeURIComponent(query)}&limit=20`);
    expect(status).toBe(200);
    expect(body.map((r: any) => r.id_pessoa)).toContain(target.id_pessoa);
  });

  it.each([
    ['nome=ab', 'query.nome'],
    ['nome=%20%20ab%20', 'query.nome'],
    [`nome=${'a'.repeat(SEARCH_NAME_MAX + 1)}`, 'query.nome'],
    ['', 'query.nome'],
    ['nome=silva&limit=0', 'query.limit'],
    ['nome=silva&limit=21', 'query.limit'],
  ])('answers 422 for %p', async (query, field) => {
    const { status, body } = await get(`/api/v1/ranking/busca?${query}`);
    expect(status).toBe(422);
    expect(body.detail.startsWith(`${field}: `)).toBe(true);
  });
});

describe('GET /api/v1/ranking/estatisticas', () => {
  it('returns the snapshot of the last run', async () => {
    const { status, body } = await get('/api/v1/ranking/estatisticas');
    expect(status).toBe(200);
    const totals = ranking.map((p) => p.pontuacao_total);
    const active = ranking.filter((p) => p.ativo).length;
    expect(body).toMatchObject({ total_consultores: PERSONS, total_ativos: active, total_inativos: PERSONS - active });
    expect(Date.parse(body.ultima_atualizacao)).not.toBeNaN();
    const near = (actual: number, expected: number) => expect(Math.abs(actual - round2(expected))).toBeLessThanOrEqual(0.011);
    near(body.pontuacao_media, totals.reduce((a, b) => a + b, 0) / PERSONS);
    near(body.pontuacao_maxima, Math.max(...totals));
    near(body.pontuacao_minima, Math.min(...totals));
    for (const block of ['bloco_a', 'bloco_b', 'bloco_c', 'bloco_d', 'bloco_e'] as const) {
      near(body.media_blocos[block], ranking.reduce((a, p) => a + p[block], 0) / PERSONS);
    }
    const ranges: Array<[string, number, number]> = [
      ['800+', 800, Infinity],
      ['600-799', 600, 800],
      ['400-599', 400, 600],
      ['200-399', 200, 400],
      ['0-199', -Infinity, 200],
    ];
    expect(body.distribuicao).toEqual(
      ranges.map(([faixa, min, max]) => {
        const quantidade = totals.filter((t) => t >= min && t < max).length;
        return { faixa, quantidade, percentual: round2((quantidade * 100) / PERSONS) };
      }),
    );
  });
});

describe('GET /api/v1/ranking/posicao/{id_pessoa}', () => {
  it('returns the position record of a ranked person', async () => {
    const person = ranking[9] as ScoredPerson;
    expect(await get(`/api/v1/ranking/posicao/${person.id_pessoa}`)).toEqual({
      status: 200,
      body: {
        id_pessoa: person.id_pessoa,
        nome: person.nome,
        posicao: 10,
        total_consultores: PERSONS,
        pontuacao_total: person.pontuacao_total,
        bloco_a: person.bloco_a,
        bloco_b: person.bloco_b,
        bloco_c: person.bloco_c,
        bloco_d: person.bloco_d,
        bloco_e: person.bloco_e,
        ativo: person.ativo,
        encontrado: true,
      },
    });
  });

  it('answers 200 with the not-found shape for a person outside the ranking', async () => {
    expect(await get('/api/v1/ranking/posicao/999999')).toEqual({
      status: 200,
      body: {
        id_pessoa: 999999,
        nome: '',
        posicao: null,
        total_consultores: PERSONS,
        pontuacao_total: 0,
        bloco_a: 0,
        bloco_b: 0,
        bloco_c: 0,
        bloco_d: 0,
        bloco_e: 0,
        ativo: false,
        encontrado: false,
      },
    });
  });

  it.each(['abc', '1.5', '-1', '99999999999'])('answers 422 for the id %p', async (id) => {
    const { status, body } = await get(`/api/v1/ranking/posicao/${id}`);
    expect(status).toBe(422);
    expect(body.detail.startsWith('path.id_pessoa: ')).toBe(true);
  });
});

describe('a ranking store that cannot be reached', () => {
  it('answers 503 naming the cause', async () => {
    const port = await unusedPort();
    const broken = await startTestServer((c) => ({ ...c, mysql: { ...c.mysql, port } }));
    try {
      for (const path of ['/api/v1/ranking/paginado', '/api/v1/ranking/busca?nome=silva', '/api/v1/ranking/posicao/1']) {
        const response = await fetch(broken.url + path);
        expect(response.status).toBe(503);
        expect(await response.json()).toEqual({ detail: 'Armazenamento do ranking indisponível (ECONNREFUSED)' });
      }
    } finally {
      await broken.close();
    }
  });
});
