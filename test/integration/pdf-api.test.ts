import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  CONSULTANT_NOT_FOUND,
  EMPTY_TEAM,
  MAX_TEAM_MEMBERS,
  PDF_GENERATION_ERROR,
  PDF_QUEUE_FULL,
  PDF_RETRY_AFTER_SECONDS,
  TEAM_LIST_MAX,
  TEAM_TEXT_MAX,
} from '../../api/ranking/pdf-routes';
import { createDatabase, type DatabaseHandle } from '../../db';
import { SHEET_BLOCKS } from '../../domain/pdf/consultant-sheet';
import { formatInteger, formatScore } from '../../domain/pdf/format';
import { sheetDate } from '../../domain/pdf/sheet-date';
import { PAGE_MARGINS } from '../../domain/pdf/sheet-layout';
import type { PersonDocument } from '../../domain/person-document';
import { scorePerson, type ScoredPerson } from '../../domain/scoring/score-person';
import { sealCatalogueEntry } from '../../domain/seals';
import { repairEncoding } from '../../domain/text';
import { config } from '../../lib/config';
import { createElasticsearch } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import { emptyRanking, personIndex, runRankingJob, runReferenceDate, seedPersonIndex, seededDocument } from '../support/ranking';
import { unusedPort } from '../support/ports';
import { httpCall, jsonCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

const run = promisify(execFile);

const SEED = 11;
const PERSONS = 400;
const seededIds = Array.from({ length: PERSONS }, (_, i) => i + 1);

/** Persons added to the generated index: names that exercise file names and escaping. */
const ACCENTED = { id: 900_001, nome: 'José Ângelo da Conceição Araújo' };
const HOSTILE = { id: 900_002, nome: `Ana/Maria <b>&"Co"</b> D'Ávila` };
const LONG = { id: 900_003, nome: 'Maria Aparecida dos Santos Oliveira Pereira' };
/** Indexed after the ranking job: in the index, not in the ranking. */
const UNRANKED = { id: 900_004, nome: 'Carla Sem Ranking' };
const ABSENT_ID = 899_999;

let worker: QueueWorker;
let server: TestServer;
let database: DatabaseHandle;
const elasticsearch = createElasticsearch(config.elasticsearch);
const documents = new Map<number, PersonDocument>();
let ranking: ScoredPerson[];
const servers: TestServer[] = [];

/** A generated person with degrees, languages and consultancy, to give the added persons a full sheet. */
function richDocument(): PersonDocument {
  for (const id of seededIds) {
    const doc = seededDocument(SEED, id);
    if (doc.titulacoes?.length && doc.idiomas?.length && doc.consultoria?.length && doc.id_cv) return doc;
  }
  throw new Error('no generated person with degrees, languages and consultancy');
}

async function indexPerson(doc: PersonDocument): Promise<void> {
  await elasticsearch.index({ index: personIndex, id: String(doc.id_pessoa), document: doc, refresh: true });
  documents.set(doc.id_pessoa, doc);
}

/** The order of docs/ranking-storage.md: total, then blocks A..E, descending; then id. */
function rankingOf(docs: PersonDocument[], referenceDate: string): ScoredPerson[] {
  const keys = ['pontuacao_total', 'bloco_a', 'bloco_b', 'bloco_c', 'bloco_d', 'bloco_e'] as const;
  return docs
    .map((doc) => scorePerson(doc, referenceDate))
    .sort((x, y) => {
      for (const key of keys) if (x[key] !== y[key]) return y[key] - x[key];
      return x.id_pessoa - y.id_pessoa;
    });
}

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  for (const id of seededIds) documents.set(id, seededDocument(SEED, id));
  const base = richDocument();
  for (const person of [ACCENTED, HOSTILE, LONG]) await indexPerson({ ...base, id_pessoa: person.id, nome: person.nome });
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  worker = await startRankingWorker(config, logger);
  await runRankingJob({});
  ranking = rankingOf([...documents.values()], runReferenceDate());
  await indexPerson({ ...base, id_pessoa: UNRANKED.id, nome: UNRANKED.nome });
  server = await startTestServer();
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  for (const extra of servers) await extra.close();
  await server?.close();
  await database?.pool.end();
  await elasticsearch.close();
});

interface PdfResponse {
  status: number;
  type: string | null;
  disposition: string | null;
  bytes: Buffer;
  detail?: string;
}

async function request(base: string, pathName: string, body?: unknown): Promise<PdfResponse> {
  const answer = body === undefined ? await httpCall(base + pathName) : await jsonCall(base, 'POST', pathName, body);
  return {
    status: answer.status,
    type: answer.headers.get('content-type'),
    disposition: answer.headers.get('content-disposition'),
    bytes: answer.bytes,
    detail: answer.body?.detail,
  };
}

const consultantPdf = (id: number | string, base = server.url) => request(base, `/api/v1/consultor/${id}/pdf`);
const teamPdf = (body: unknown, base = server.url) => request(base, '/api/v1/equipe/pdf', body);

/**
 * The text of a PDF as pdftotext reads it, whitespace runs collapsed to one space. `layout` keeps
 * the rows of the page (a card row's labels, then its values; a table row's cells in order);
 * `boxes` keeps the order the page paints its text in, so a wrapped cell comes out whole.
 */
async function pdfText(pdf: Buffer, mode: 'layout' | 'boxes' = 'layout'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-test-'));
  try {
    const file = path.join(dir, 'sheet.pdf');
    await writeFile(file, pdf);
    const { stdout } = await run('pdftotext', [mode === 'layout' ? '-layout' : '-raw', '-enc', 'UTF-8', file, '-']);
    return stdout.replace(/\s+/g, ' ');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Text without any whitespace: long unbroken values may be wrapped anywhere on the page. */
const compact = (text: string) => text.replace(/\s+/g, '');

/** The file name a client saves: `filename*` when present (RFC 6266), else `filename`. */
function savedFileName(disposition: string): string {
  const extended = /filename\*=UTF-8''([^;]+)/.exec(disposition);
  if (extended?.[1]) return decodeURIComponent(extended[1]);
  const plain = /filename=(?:"([^"]*)"|([^;\s]+))/.exec(disposition);
  return plain?.[1] ?? plain?.[2] ?? '';
}

/** The ASCII `filename` parameter alone. */
function plainFileName(disposition: string): string {
  const plain = /filename=(?:"([^"]*)"|([^;\s]+))/.exec(disposition);
  return plain?.[1] ?? plain?.[2] ?? '';
}

/** Today in the service's time zone, before and after a request (a run across midnight accepts both). */
async function withDays<T>(work: () => Promise<T>): Promise<{ result: T; days: string[] }> {
  const before = sheetDate(new Date(), config.ranking.scheduleTimezone).day;
  const result = await work();
  const after = sheetDate(new Date(), config.ranking.scheduleTimezone).day;
  return { result, days: [...new Set([before, after])] };
}

function expectPdf(response: PdfResponse): void {
  expect(response.status).toBe(200);
  expect(response.type).toBe('application/pdf');
  expect(response.bytes.subarray(0, 5).toString()).toBe('%PDF-');
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** This process's browser directories: a suite on another jest worker renders PDFs meanwhile. */
async function userDataDirs(): Promise<string[]> {
  return (await readdir(os.tmpdir())).filter((name) => name.startsWith(`pdf-chromium-${process.pid}-`)).sort();
}

function member(id: number, fields: Record<string, unknown> = {}) {
  return { id_pessoa: id, nome: `Pessoa ${id}`, ...fields };
}

describe('GET /api/v1/consultor/{id_pessoa}/pdf', () => {
  it('prints identity, position, total and block scores, seals, degrees and languages of the best-ranked person', async () => {
    const best = ranking[0] as ScoredPerson;
    const doc = documents.get(best.id_pessoa) as PersonDocument;
    const { result: response, days } = await withDays(() => consultantPdf(best.id_pessoa));
    expectPdf(response);
    const text = await pdfText(response.bytes);

    expect(text).toContain('FICHA DO CONSULTOR');
    expect(text).toContain(repairEncoding(best.nome));
    expect(text).toContain(`ID ${best.id_pessoa} · ${best.ativo ? 'Ativo' : 'Inativo'} ·`);
    expect(text).toContain(
      `POSIÇÃO NO RANKING PONTUAÇÃO TOTAL 1º ${formatScore(best.pontuacao_total)} de ${formatInteger(ranking.length)} consultores`,
    );
    const blocks = SHEET_BLOCKS.map((block) => [`BLOCO ${block.letter}`, formatScore(best[block.key]), block.label]);
    expect(text).toContain([0, 1, 2].map((part) => blocks.map((block) => block[part]).join(' ')).join(' '));
    expect(best.selos.length).toBeGreaterThan(0);
    for (const seal of best.selos) expect(text).toContain(sealCatalogueEntry(seal).label);
    for (const kind of best.tipos_atuacao) expect(text).toContain(kind);
    const boxes = await pdfText(response.bytes, 'boxes');
    for (const degree of doc.titulacoes ?? []) if (degree.grau) expect(boxes).toContain(repairEncoding(degree.grau));
    for (const language of doc.idiomas ?? []) expect(text).toContain(language.idioma);
    expect(text).toContain('Principais atividades');
    expect(text).toContain(`Consultoria (${doc.consultoria?.length ?? 0})`);

    const expectedName = `ficha_consultor_${best.id_pessoa}_${repairEncoding(best.nome).slice(0, 30)}_`;
    expect(days.map((day) => `${expectedName}${day}.pdf`)).toContain(savedFileName(response.disposition ?? ''));
  });

  it('matches the position and scores of GET /ranking/posicao for an added person', async () => {
    const position = ranking.findIndex((person) => person.id_pessoa === ACCENTED.id) + 1;
    const scored = ranking[position - 1] as ScoredPerson;
    const response = await consultantPdf(ACCENTED.id);
    expectPdf(response);
    const text = await pdfText(response.bytes);
    const record = (await (await fetch(`${server.url}/api/v1/ranking/posicao/${ACCENTED.id}`)).json()) as Record<string, number>;
    expect(record.posicao).toBe(position);
    expect(text).toContain(ACCENTED.nome);
    expect(text).toContain(
      `POSIÇÃO NO RANKING PONTUAÇÃO TOTAL ${formatInteger(position)}º ${formatScore(scored.pontuacao_total)} ` +
        `de ${formatInteger(ranking.length)} consultores`,
    );
    expect(text).toContain(`BLOCO E ${SHEET_BLOCKS.map((block) => formatScore(scored[block.key])).join(' ')}`);
  });

  it('names the file with the sanitised name: accents kept (filename* in UTF-8, ASCII filename without them), cut to 30', async () => {
    const { result: response, days } = await withDays(() => consultantPdf(ACCENTED.id));
    const disposition = response.disposition ?? '';
    expect(disposition).toMatch(/^attachment; filename="[^"]+"; filename\*=UTF-8''\S+$/);
    expect(disposition).toMatch(/^[\x20-\x7e]+$/);
    const name = 'José Ângelo da Conceição Araúj'; // 31 characters cut to 30
    expect(days.map((day) => `ficha_consultor_${ACCENTED.id}_${name}_${day}.pdf`)).toContain(savedFileName(disposition));
    expect(days.map((day) => `ficha_consultor_${ACCENTED.id}_Jose Angelo da Conceicao Arauj_${day}.pdf`)).toContain(
      plainFileName(disposition),
    );
  });

  it('replaces slashes, markup and quotes in the file name and prints the name as text', async () => {
    const { result: response, days } = await withDays(() => consultantPdf(HOSTILE.id));
    expectPdf(response);
    expect(days.map((day) => `ficha_consultor_${HOSTILE.id}_Ana_Maria _b___Co___b_ D_Ávila_${day}.pdf`)).toContain(
      savedFileName(response.disposition ?? ''),
    );
    expect(compact(await pdfText(response.bytes, 'boxes'))).toContain(compact(HOSTILE.nome));
  });

  it('cuts a long ASCII name to 30 characters and sends the specified bare filename form when it can', async () => {
    const { result: response, days } = await withDays(() => consultantPdf(LONG.id));
    const disposition = response.disposition ?? '';
    expect(days.map((day) => `attachment; filename="ficha_consultor_${LONG.id}_Maria Aparecida dos Santos Oli_${day}.pdf"`)).toContain(
      disposition,
    );
  });

  it('gives a person in the index but not in the ranking a sheet without position or scores', async () => {
    const response = await consultantPdf(UNRANKED.id);
    expectPdf(response);
    const text = await pdfText(response.bytes);
    expect(text).toContain(UNRANKED.nome);
    expect(text).toContain('Não consta do último ranking processado: sem posição nem pontuação.');
    expect(text).not.toContain('PONTUAÇÃO TOTAL');
    expect(text).toContain('Nenhum selo.');
    expect(savedFileName(response.disposition ?? '')).toMatch(
      new RegExp(`^ficha_consultor_${UNRANKED.id}_Carla Sem Ranking_\\d{8}\\.pdf$`),
    );
  });

  it('answers 500 with the generation-error text and the cause when the person index cannot be read', async () => {
    const closedPort = await unusedPort();
    const noIndex = await startTestServer((base) => ({
      ...base,
      elasticsearch: { ...base.elasticsearch, url: `http://127.0.0.1:${closedPort}`, nodes: [`http://127.0.0.1:${closedPort}`] },
    }));
    servers.push(noIndex);
    const response = await consultantPdf(ACCENTED.id, noIndex.url);
    expect(response.status).toBe(500);
    expect(response.detail).toMatch(new RegExp(`^${PDF_GENERATION_ERROR}: índice de pessoas indisponível: \\S`));
    expect(response.detail).toContain('ECONNREFUSED');
    expect(response.disposition).toBeNull();
    // Nothing was rendered: the sheet failed before it reached the browser.
    expect(await noIndex.resources.pdf.status()).toMatchObject({ launches: 0, documents: 0 });
  });

  it('answers 404 for a person in neither the ranking nor the index, 422 for an id that is not one', async () => {
    expect(await consultantPdf(ABSENT_ID)).toMatchObject({ status: 404, detail: CONSULTANT_NOT_FOUND, disposition: null });
    const bad = await consultantPdf('abc');
    expect(bad.status).toBe(422);
    expect(bad.detail).toMatch(/^path\.id_pessoa: /);
    expect((await consultantPdf(2_147_483_648)).status).toBe(422);
  });
});

describe('POST /api/v1/equipe/pdf', () => {
  const team = {
    tema: 'Inteligência Artificial/Saúde & Ética',
    area_avaliacao: 'Ciência da Computação',
    consultores: [
      member(1, {
        nome: 'Ana Lima',
        situacao: 'Ativo',
        ies: 'UnB',
        foi_coordenador: true,
        foi_premiado: true,
        posicao_ranking: 12,
        pontuacao_ranking: 845.5,
      }),
      member(2, { nome: 'Bruno Reis', situacao: 'Inativo', ies: 'UNB', foi_coordenador: true, score_match: 12.5 }),
      member(3, { nome: 'Célia Prado', situacao: 'ativo', ies: 'USP', motivos_match: ['Area: Computação'] }),
      member(4, { nome: 'Davi Souza', situacao: 'Falecido', ies: null }),
      member(5, { nome: 'Eva Nunes', situacao: 'Ativo', ies: 'Universidade Federal de Minas Gerais', foi_premiado: true }),
      member(1, { nome: 'Ana Lima de novo', situacao: 'Inativo' }),
    ],
  };

  it('prints theme, area, statistics and one row per member', async () => {
    const { result: response, days } = await withDays(() => teamPdf(team));
    expectPdf(response);
    const text = await pdfText(response.bytes);
    expect(text).toContain(team.tema);
    expect(text).toContain('Área de avaliação: Ciência da Computação');
    // Five people (the repeated id 1 counts once); active: Ana, Célia, Eva; coordinators: Ana, Bruno;
    // awarded: Ana, Eva; institutions: UnB (= UNB), USP, UFMG's full name.
    expect(text).toContain('CONSULTORES ATIVOS COORDENADORES PREMIADOS INSTITUIÇÕES 5 3 2 2 3');
    expect(text).toContain('1 Ana Lima UnB Ativo 12º 845,50 Sim Sim');
    expect(text).toContain('2 Bruno Reis UNB Inativo — 0,00 Sim Não');
    expect(text).toContain('3 Célia Prado USP ativo — 0,00 Não Não');
    expect(text).toContain('4 Davi Souza — Falecido — 0,00 Não Não');
    expect(text).toContain('Eva Nunes');
    expect(text).not.toContain('Ana Lima de novo');
    expect(text).toContain('Area: Computação');
    expect(days.map((day) => `equipe_Inteligência Artificial_Saúde _${day}.pdf`)).toContain(savedFileName(response.disposition ?? ''));
    expect(days.map((day) => `equipe_Inteligencia Artificial_Saude _${day}.pdf`)).toContain(plainFileName(response.disposition ?? ''));
  });

  it('applies the defaults of a member and leaves the assessment area out when it is null', async () => {
    const response = await teamPdf({ tema: 'IA', area_avaliacao: null, consultores: [{ id_pessoa: 9, nome: 'Só Nome' }] });
    expectPdf(response);
    const text = await pdfText(response.bytes);
    expect(text).toContain('CONSULTORES ATIVOS COORDENADORES PREMIADOS INSTITUIÇÕES 1 0 0 0 0');
    expect(text).toContain('1 Só Nome — — — 0,00 Não Não');
    expect(text).not.toContain('Área de avaliação');
    expect(response.disposition).toMatch(/^attachment; filename=equipe_IA_\d{8}\.pdf$/);
  });

  it('prints hostile texts as text and fetches nothing from the network', async () => {
    let hits = 0;
    const probe = http.createServer((_req, res) => {
      hits += 1;
      res.end('x');
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    try {
      const nome = `<img src="http://127.0.0.1:${port}/a.png"><link rel="stylesheet" href="http://127.0.0.1:${port}/b.css">`;
      const area = `<iframe src="http://127.0.0.1:${port}/c"></iframe> & "Co"`;
      const tema = `<script>fetch('http://127.0.0.1:${port}/d')</script>`;
      const ies = `<i>&"</i>`;
      const response = await teamPdf({ tema, area_avaliacao: area, consultores: [member(1, { nome, ies })] });
      expectPdf(response);
      const text = compact(await pdfText(response.bytes, 'boxes'));
      for (const value of [nome, area, tema, ies]) expect(text).toContain(compact(value));
      expect(hits).toBe(0);
    } finally {
      await new Promise((resolve) => probe.close(resolve));
    }
  });

  it('takes any integer position, 0 included (the specification: integer or null), and prints it', async () => {
    const response = await teamPdf({ tema: 'IA', consultores: [member(1, { nome: 'Zé Zero', posicao_ranking: 0 })] });
    expectPdf(response);
    expect(await pdfText(response.bytes)).toContain('0º');
  });

  it('answers 400 for an empty team', async () => {
    expect(await teamPdf({ tema: 'IA', consultores: [] })).toMatchObject({ status: 400, detail: EMPTY_TEAM, disposition: null });
  });

  it.each([
    [{}, /^body\.tema: .*; body\.consultores: /],
    [{ tema: 'IA' }, /^body\.consultores: /],
    [{ tema: '   ', consultores: [member(1)] }, /^body\.tema: /],
    [{ tema: 42, consultores: [member(1)] }, /^body\.tema: /],
    [{ tema: 'IA', consultores: [{ nome: 'Sem id' }] }, /^body\.consultores\.0\.id_pessoa: /],
    [{ tema: 'IA', consultores: [member(1), { id_pessoa: 2.5, nome: 'x' }] }, /^body\.consultores\.1\.id_pessoa: /],
    [{ tema: 'IA', consultores: [member(1, { foi_premiado: 'sim' })] }, /^body\.consultores\.0\.foi_premiado: /],
    [{ tema: 'IA', consultores: [member(1, { areas_avaliacao: 'Química' })] }, /^body\.consultores\.0\.areas_avaliacao: /],
    [{ tema: 'IA', consultores: [member(1, { posicao_ranking: 2.5 })] }, /^body\.consultores\.0\.posicao_ranking: /],
    [{ tema: 'IA', consultores: 'todos' }, /^body\.consultores: /],
    [{ tema: 'IA', consultores: Array.from({ length: MAX_TEAM_MEMBERS + 1 }, (_, i) => member(i + 1)) }, /^body\.consultores: /],
  ])('answers 422 for the bad body %#', async (body, detail) => {
    const response = await teamPdf(body);
    expect(response.status).toBe(422);
    expect(response.detail).toMatch(detail);
    expect(response.disposition).toBeNull();
  });

  const long = 'x'.repeat(TEAM_TEXT_MAX + 1);
  const tooMany = Array.from({ length: TEAM_LIST_MAX + 1 }, (_, i) => `Item ${i}`);
  it.each([
    [
      'tema',
      { tema: long, consultores: [member(1)] },
      `body.tema: Grande demais: esperava que o texto tivesse <= ${TEAM_TEXT_MAX} caracteres`,
    ],
    [
      'area_avaliacao',
      { tema: 'IA', area_avaliacao: long, consultores: [member(1)] },
      `body.area_avaliacao: Grande demais: esperava que o texto tivesse <= ${TEAM_TEXT_MAX} caracteres`,
    ],
    [
      'nome',
      { tema: 'IA', consultores: [member(1, { nome: long })] },
      `body.consultores.0.nome: Grande demais: esperava que o texto tivesse <= ${TEAM_TEXT_MAX} caracteres`,
    ],
    [
      'ies',
      { tema: 'IA', consultores: [member(1), member(2, { ies: long })] },
      `body.consultores.1.ies: Grande demais: esperava que o texto tivesse <= ${TEAM_TEXT_MAX} caracteres`,
    ],
    [
      'situacao',
      { tema: 'IA', consultores: [member(1, { situacao: long })] },
      `body.consultores.0.situacao: Grande demais: esperava que o texto tivesse <= ${TEAM_TEXT_MAX} caracteres`,
    ],
    [
      'an item of linhas_pesquisa',
      { tema: 'IA', consultores: [member(1, { linhas_pesquisa: ['ok', long] })] },
      `body.consultores.0.linhas_pesquisa.1: Grande demais: esperava que o texto tivesse <= ${TEAM_TEXT_MAX} caracteres`,
    ],
    [
      'areas_avaliacao',
      { tema: 'IA', consultores: [member(1, { areas_avaliacao: tooMany })] },
      `body.consultores.0.areas_avaliacao: Grande demais: esperava que o vetor tivesse <= ${TEAM_LIST_MAX} elementos`,
    ],
    [
      'areas_conhecimento',
      { tema: 'IA', consultores: [member(1, { areas_conhecimento: tooMany })] },
      `body.consultores.0.areas_conhecimento: Grande demais: esperava que o vetor tivesse <= ${TEAM_LIST_MAX} elementos`,
    ],
    [
      'linhas_pesquisa',
      { tema: 'IA', consultores: [member(1, { linhas_pesquisa: tooMany })] },
      `body.consultores.0.linhas_pesquisa: Grande demais: esperava que o vetor tivesse <= ${TEAM_LIST_MAX} elementos`,
    ],
    [
      'motivos_match',
      { tema: 'IA', consultores: [member(1, { motivos_match: tooMany })] },
      `body.consultores.0.motivos_match: Grande demais: esperava que o vetor tivesse <= ${TEAM_LIST_MAX} elementos`,
    ],
  ])('answers 422 naming the field when %s is beyond its bound, before any render', async (_field, body, detail) => {
    const before = (await server.resources.pdf.status()).documents;
    const response = await teamPdf(body);
    expect(response).toMatchObject({ status: 422, detail, disposition: null });
    expect((await server.resources.pdf.status()).documents).toBe(before);
  });

  it('prints a member whose texts and lists are at their bounds', async () => {
    const atBound = 'y'.repeat(TEAM_TEXT_MAX);
    const list = Array.from({ length: TEAM_LIST_MAX }, (_, i) => `Linha ${i}`);
    const response = await teamPdf({ tema: 'IA', consultores: [member(1, { nome: atBound, linhas_pesquisa: list, motivos_match: list })] });
    expectPdf(response);
  });
});

describe('the browser behind the sheets', () => {
  it('renders every sheet with one browser and closes each document page', async () => {
    expectPdf(await consultantPdf(ACCENTED.id));
    const before = await server.resources.pdf.status();
    expect(before.pid).not.toBeNull();
    for (const response of [
      await consultantPdf(LONG.id),
      await teamPdf({ tema: 'IA', consultores: [member(1)] }),
      await consultantPdf(UNRANKED.id),
    ]) {
      expectPdf(response);
    }
    const after = await server.resources.pdf.status();
    expect(after).toMatchObject({ launches: before.launches, pid: before.pid, documents: before.documents + 3, pages: 0, browsers: 1 });
    expect(isAlive(before.pid as number)).toBe(true);
  });

  it('replaces a killed browser on the next request and removes its directory', async () => {
    expectPdf(await consultantPdf(LONG.id));
    const before = await server.resources.pdf.status();
    const pid = before.pid as number;
    process.kill(pid, 'SIGKILL');
    const response = await consultantPdf(LONG.id);
    expectPdf(response);
    expect(await pdfText(response.bytes)).toContain(LONG.nome);
    const after = await server.resources.pdf.status();
    expect(after.launches).toBe(before.launches + 1);
    expect(after.pid).not.toBe(pid);
    await waitFor(() => !existsSync(before.userDataDir as string), 'the dead browser directory to be removed');
    expect(isAlive(pid)).toBe(false);
  });

  it('launches one browser for concurrent first requests and renders at most PDF_CONCURRENCY at once', async () => {
    const pool = await startTestServer((base) => ({ ...base, pdf: { ...base.pdf, concurrency: 2 } }));
    servers.push(pool);
    let maxRunning = 0;
    let maxWaiting = 0;
    let done = false;
    const watching = (async () => {
      while (!done) {
        const status = await pool.resources.pdf.status();
        maxRunning = Math.max(maxRunning, status.running);
        maxWaiting = Math.max(maxWaiting, status.waiting);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => teamPdf({ tema: `Equipe ${i}`, consultores: [member(i)] }, pool.url)),
    );
    done = true;
    await watching;
    for (const response of responses) expectPdf(response);
    expect(maxRunning).toBe(2);
    expect(maxWaiting).toBeGreaterThan(0);
    expect(await pool.resources.pdf.status()).toMatchObject({ launches: 1, documents: 6, running: 0, waiting: 0, pages: 0 });
  });

  it('answers 503 with a detail and Retry-After, without waiting, when PDF_QUEUE_LIMIT sheets already wait; serves again once the line moves', async () => {
    // The occupying document loads an image from a local server that answers only when released, so
    // its render holds the one place for as long as the test needs, without any timing.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = http.createServer((_req, res) => void released.then(() => res.end()));
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const pool = await startTestServer((base) => ({ ...base, pdf: { ...base.pdf, concurrency: 1, queueLimit: 1 } }));
    servers.push(pool);
    try {
      const holding = { html: `<img src="http://127.0.0.1:${port}/hold.png">`, footerHtml: '<span></span>', margin: PAGE_MARGINS };
      const occupying = pool.resources.pdf.render(holding);
      const waiting = pool.resources.pdf.render(holding);
      expect(await pool.resources.pdf.status()).toMatchObject({ running: 1, waiting: 1 });

      const detail = `${PDF_QUEUE_FULL}: 1 já aguardam a vez; tente novamente em ${PDF_RETRY_AFTER_SECONDS} s`;
      for (const refused of [
        await fetch(`${pool.url}/api/v1/equipe/pdf`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tema: 'IA', consultores: [member(1)] }),
        }),
        await fetch(`${pool.url}/api/v1/consultor/${LONG.id}/pdf`),
      ]) {
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe(String(PDF_RETRY_AFTER_SECONDS));
        expect(await refused.json()).toEqual({ detail });
      }
      // Refused, not queued: the line holds what it held.
      expect(await pool.resources.pdf.status()).toMatchObject({ running: 1, waiting: 1 });

      release();
      await Promise.all([occupying, waiting]);
      expectPdf(await teamPdf({ tema: 'IA', consultores: [member(1)] }, pool.url));
    } finally {
      release();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('restarts the browser after PDF_RESTART_AFTER documents and closes it on shutdown', async () => {
    const pool = await startTestServer((base) => ({ ...base, pdf: { ...base.pdf, concurrency: 1, restartAfter: 2 } }));
    expectPdf(await teamPdf({ tema: 'A', consultores: [member(1)] }, pool.url));
    const first = await pool.resources.pdf.status();
    expectPdf(await teamPdf({ tema: 'B', consultores: [member(1)] }, pool.url));
    // Two documents: the first browser is retired and closed once idle.
    await waitFor(() => !isAlive(first.pid as number), 'the retired browser to exit');
    await waitFor(() => !existsSync(first.userDataDir as string), 'the retired browser directory to be removed');
    expectPdf(await teamPdf({ tema: 'C', consultores: [member(1)] }, pool.url));
    const second = await pool.resources.pdf.status();
    expect(second).toMatchObject({ launches: 2, documents: 3, browsers: 1 });
    expect(second.pid).not.toBe(first.pid);

    await pool.close();
    expect(isAlive(second.pid as number)).toBe(false);
    expect(existsSync(second.userDataDir as string)).toBe(false);
    expect(await pool.resources.pdf.status()).toMatchObject({ browsers: 0, pid: null });
  });

  it('removes user-data directories orphaned by a dead process on its first launch, and no others', async () => {
    const child = execFile('true');
    await new Promise((resolve) => child.once('exit', resolve));
    const orphan = path.join(os.tmpdir(), `pdf-chromium-${child.pid}-orphan`);
    const alive = path.join(os.tmpdir(), 'pdf-chromium-1-alive'); // pid 1 always runs
    for (const dir of [orphan, alive]) await mkdir(path.join(dir, 'Default'), { recursive: true });
    const pool = await startTestServer();
    servers.push(pool);
    try {
      expect(existsSync(orphan)).toBe(true);
      expectPdf(await teamPdf({ tema: 'IA', consultores: [member(1)] }, pool.url));
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(alive)).toBe(true);
    } finally {
      await rm(alive, { recursive: true, force: true });
      await rm(orphan, { recursive: true, force: true });
    }
  });

  it('answers 500 with the generation-error text and the cause when the browser cannot start', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-test-'));
    const notExecutable = path.join(dir, 'chromium');
    await writeFile(notExecutable, '#!/bin/sh\n');
    await chmod(notExecutable, 0o644);
    const broken = await startTestServer((base) => ({ ...base, pdf: { ...base.pdf, chromiumPath: notExecutable } }));
    servers.push(broken);
    const dirsBefore = await userDataDirs();
    try {
      for (const response of [
        await consultantPdf(ACCENTED.id, broken.url),
        await teamPdf({ tema: 'IA', consultores: [member(1)] }, broken.url),
      ]) {
        expect(response.status).toBe(500);
        expect(response.disposition).toBeNull();
        expect(response.detail?.startsWith(`${PDF_GENERATION_ERROR}: `)).toBe(true);
        expect(response.detail).toBe(
          `${PDF_GENERATION_ERROR}: o Chromium em ${notExecutable} não pode ser executado (EACCES); verifique CHROMIUM_PATH`,
        );
      }
      // A failed launch is not kept: each request tried again, and left no directory behind.
      await waitFor(async () => (await broken.resources.pdf.status()).browsers === 0, 'the failed launches to be cleaned up');
      expect(await broken.resources.pdf.status()).toMatchObject({ launches: 2, documents: 0, pid: null });
      expect(await userDataDirs()).toEqual(dirsBefore);
      // 404 is still decided before any rendering.
      expect((await consultantPdf(ABSENT_ID, broken.url)).status).toBe(404);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
