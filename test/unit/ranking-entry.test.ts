import type { StoredEntry, StoredEntryWithDetails } from '../../db/ranking-queries';
import { degreeItems } from '../../domain/degrees';
import {
  cvUrl,
  needsIndexDocument,
  rankingEntryJson,
  readyComplementsJson,
  resolveComplements,
  resolveCv,
  storedCv,
  toRankingSummary,
  type EntryCv,
} from '../../domain/ranking-entry';
import { passThroughDetailsJson, STORED_DETAILS, storedComplements } from '../../domain/ranking-row';
import { generatePersonFor } from '../../scripts/sample-data/generate-person';

const BASE = 'https://cv.example.org/curriculo';

const doutorado = { grau: 'Doutorado', hierarquia: '2', ano: '2010', programa: 'Física', area_avaliacao: 'Astronomia / Física' };
const mestrado = { grau: 'Mestrado', hierarquia: '3', ano: '2005', programa: 'Física', area_avaliacao: 'Astronomia / Física' };
const graduacao = { grau: 'Graduação', hierarquia: '4', ano: 's/d' };

const completeCv: EntryCv = { id_cv: 'OLD', url: `${BASE}/OLD`, titulacoes: degreeItems([doutorado]) };
const incompleteCv: EntryCv = { id_cv: 'OLD', url: `${BASE}/OLD`, titulacoes: degreeItems([graduacao]) };

describe('resolveCv (rule 4)', () => {
  it('keeps a stored cv whose first degree has programa and area_avaliacao', () => {
    expect(resolveCv(completeCv, { id_cv: 'NEW', titulacoes: [mestrado] }, BASE)).toBe(completeCv);
  });

  it('rebuilds an absent cv from a document with a curriculum id, degrees ordered', () => {
    expect(resolveCv(undefined, { id_cv: 'K123', titulacoes: [graduacao, mestrado, doutorado] }, BASE)).toEqual({
      id_cv: 'K123',
      url: `${BASE}/K123`,
      titulacoes: degreeItems([doutorado, mestrado, graduacao]),
    });
  });

  it('rebuilds a stored cv whose first degree lacks programa or area_avaliacao', () => {
    expect(resolveCv(incompleteCv, { id_cv: 'K9', titulacoes: [doutorado] }, BASE)).toEqual({
      id_cv: 'K9',
      url: `${BASE}/K9`,
      titulacoes: degreeItems([doutorado]),
    });
    const noArea = { ...completeCv, titulacoes: [{ ...completeCv.titulacoes[0]!, area_avaliacao: null }] };
    expect(resolveCv(noArea, { id_cv: 'K9', titulacoes: [doutorado] }, BASE)?.id_cv).toBe('K9');
  });

  it('builds nothing without a curriculum id: the stored cv stays, or null', () => {
    expect(resolveCv(incompleteCv, { titulacoes: [doutorado] }, BASE)).toBe(incompleteCv);
    expect(resolveCv(undefined, { id_cv: null, titulacoes: [doutorado] }, BASE)).toBeNull();
    expect(resolveCv(undefined, undefined, BASE)).toBeNull();
  });

  it('keeps an existing cv when the document has no degrees', () => {
    expect(resolveCv(incompleteCv, { id_cv: 'K1', titulacoes: [] }, BASE)).toBe(incompleteCv);
    expect(resolveCv(incompleteCv, { id_cv: 'K1' }, BASE)).toBe(incompleteCv);
    expect(resolveCv(undefined, { id_cv: 'K1' }, BASE)).toEqual({ id_cv: 'K1', url: `${BASE}/K1`, titulacoes: [] });
  });

  it('encodes the curriculum id in the url and tolerates a trailing slash in the base', () => {
    expect(cvUrl(`${BASE}/`, 'a b/c')).toBe(`${BASE}/a%20b%2Fc`);
  });
});

const stored: StoredEntry = {
  id_pessoa: 7,
  nome: 'Inês Araújo',
  posicao: 3,
  pontuacao_total: 512.5,
  bloco_a: 0,
  bloco_b: 165,
  bloco_c: 40,
  bloco_d: 307.5,
  bloco_e: 0,
  ativo: true,
  anos_atuacao: 12,
  coordenador_ppg: false,
  tipos_atuacao: ['Consultor'],
  selos: ['BPQ'],
};
const detailsText = passThroughDetailsJson({ consultoria: [{ situacao: 'Ativo' }] as never }, { total: 512.5 });
const withDetails: StoredEntryWithDetails = { ...stored, detalhes: Buffer.from(detailsText), complementos: {}, revisao_documento: '1:42' };
const ingles = { idioma: 'Inglês', proficiencia_leitura: 'Bem' };
const inglesEntry = { idioma: 'Inglês', nivel_leitura: 'Bem', nivel_escrita: null, nivel_fala: null, nivel_compreensao: null };

describe('storedComplements (what the job stores for rules 3 and 4)', () => {
  it('stores languages as entries carry them, degrees ordered, and the curriculum id; absent fields stay absent', () => {
    expect(storedComplements({ idiomas: [ingles], titulacoes: [mestrado, doutorado], id_cv: 'K1' })).toEqual({
      idiomas: [inglesEntry],
      titulacao: degreeItems([doutorado, mestrado]),
      id_cv: 'K1',
    });
    expect(storedComplements({ idiomas: [], titulacoes: [], id_cv: null })).toEqual({ idiomas: [], titulacao: [] });
    expect(storedComplements({})).toEqual({});
  });

  it('writes every pass-through field, null when absent, in response order, then the score breakdown', () => {
    expect(Object.entries(JSON.parse(detailsText) as object)).toEqual([
      ['consultoria', [{ situacao: 'Ativo' }]],
      ...STORED_DETAILS.slice(1).map((field) => [field, null]),
      ['pontuacao', { total: 512.5 }],
    ]);
  });
});

describe('resolveComplements (rules 3 and 4)', () => {
  it('fills languages, and degrees missing too, from the document when languages are not stored', () => {
    expect(resolveComplements({}, { id_cv: 'K7', idiomas: [ingles], titulacoes: [doutorado] }, BASE)).toEqual({
      idiomas: [inglesEntry],
      titulacao: degreeItems([doutorado]),
      cv: { id_cv: 'K7', url: `${BASE}/K7`, titulacoes: degreeItems([doutorado]) },
    });
  });

  it('keeps stored languages and degrees; with languages stored, missing degrees are not filled', () => {
    const stored = { idiomas: [{ ...inglesEntry, idioma: 'Francês' }], titulacao: degreeItems([mestrado]) };
    const doc = { idiomas: [ingles], titulacoes: [doutorado] };
    expect(resolveComplements(stored, doc, BASE)).toMatchObject(stored);
    expect(resolveComplements({ idiomas: stored.idiomas }, doc, BASE).titulacao).toBeNull();
    expect(resolveComplements({}, undefined, BASE)).toEqual({ idiomas: null, titulacao: null, cv: null });
  });

  it('gives the stored cv from the stored curriculum id and degrees, kept when complete', () => {
    const complete = { idiomas: [inglesEntry], titulacao: degreeItems([doutorado]), id_cv: 'OLD' };
    expect(storedCv(complete, BASE)).toEqual(completeCv);
    expect(resolveComplements(complete, { id_cv: 'NEW', titulacoes: [mestrado] }, BASE).cv).toEqual(completeCv);
    expect(storedCv({ id_cv: 'X' }, BASE)).toEqual({ id_cv: 'X', url: `${BASE}/X`, titulacoes: [] });
  });

  it('asks for the document only when stored languages or the stored cv are incomplete', () => {
    const complete = { idiomas: [inglesEntry], titulacao: degreeItems([doutorado]), id_cv: 'OLD' };
    expect(needsIndexDocument(complete)).toBe(false);
    expect(needsIndexDocument({ ...complete, idiomas: undefined })).toBe(true);
    expect(needsIndexDocument({ ...complete, id_cv: undefined })).toBe(true);
    expect(needsIndexDocument({ ...complete, titulacao: degreeItems([graduacao]) })).toBe(true);
    expect(needsIndexDocument({})).toBe(true);
  });
});

describe('an unchanged document adds nothing to what the job stored', () => {
  // Why a page reads only documents changed since the job (services/persons.ts).
  it('resolves to the stored complements for 2 000 generated persons, incomplete ones included', () => {
    let incomplete = 0;
    for (let id = 1; id <= 2000; id += 1) {
      const doc = generatePersonFor(5, id, new Date(Date.UTC(2026, 0, 15)));
      const complements = storedComplements(doc);
      if (needsIndexDocument(complements)) incomplete += 1;
      expect(resolveComplements(complements, doc, BASE)).toEqual(resolveComplements(complements, undefined, BASE));
    }
    // The generator leaves a share incomplete on purpose, so the rules were exercised.
    expect(incomplete).toBeGreaterThan(200);
  });
});

describe('rankingEntryJson (rules 3-5)', () => {
  it('is the columns, the stored details as stored, then the resolved complements and extra fields', () => {
    const text = rankingEntryJson(withDetails, { id_cv: 'K7', idiomas: [ingles], titulacoes: [doutorado] }, BASE, { rank: 3 }).toString();
    const entry = JSON.parse(text) as Record<string, unknown>;
    expect(entry).toEqual({
      ...stored,
      consultoria: [{ situacao: 'Ativo' }],
      ...Object.fromEntries(STORED_DETAILS.slice(1).map((field) => [field, null])),
      pontuacao: { total: 512.5 },
      idiomas: [inglesEntry],
      titulacao: degreeItems([doutorado]),
      cv: { id_cv: 'K7', url: `${BASE}/K7`, titulacoes: degreeItems([doutorado]) },
      rank: 3,
    });
    expect(Object.keys(entry).slice(0, 3)).toEqual(['id_pessoa', 'nome', 'posicao']);
    expect(text).toContain(detailsText.slice(1, -1));
    expect(text).not.toContain('revisao_documento');
  });

  it('splices details written by MariaDB (spaced) and tolerates an empty details object', () => {
    const spaced = '{"consultoria": [{"situacao": "Ativo"}], "pontuacao": null}';
    expect(JSON.parse(rankingEntryJson({ ...withDetails, detalhes: Buffer.from(spaced) }, undefined, BASE).toString())).toMatchObject({
      consultoria: [{ situacao: 'Ativo' }],
      cv: null,
    });
    expect(JSON.parse(rankingEntryJson({ ...withDetails, detalhes: Buffer.from('{ }') }, undefined, BASE).toString())).toMatchObject({
      id_pessoa: 7,
      idiomas: null,
    });
    // Multi-byte text in the stored bytes passes through intact.
    const accented = Buffer.from('{"consultoria": [{"situacao": "Licença — São Paulo"}]}');
    expect(JSON.parse(rankingEntryJson({ ...withDetails, detalhes: accented }, undefined, BASE).toString())).toMatchObject({
      consultoria: [{ situacao: 'Licença — São Paulo' }],
    });
  });
});

describe('complements in response form (complete entries)', () => {
  const complete = { idiomas: [inglesEntry], titulacao: degreeItems([doutorado]), id_cv: 'K 7' };
  const ready = (complements: typeof complete) => ({ json: Buffer.from(readyComplementsJson(complements) ?? ''), idCv: complements.id_cv });

  it('are stored only for complete entries, and such an entry never asks for its document', () => {
    expect(readyComplementsJson({ ...complete, idiomas: undefined })).toBeNull();
    expect(readyComplementsJson({ ...complete, titulacao: degreeItems([graduacao]) })).toBeNull();
    expect(JSON.parse(`{${readyComplementsJson(complete) ?? ''}}}`)).toEqual({
      idiomas: [inglesEntry],
      titulacao: degreeItems([doutorado]),
      cv: { id_cv: 'K 7', titulacoes: degreeItems([doutorado]) },
    });
    expect(needsIndexDocument(ready(complete))).toBe(false);
  });

  it('render the entry the parsed complements render, the url built from CV_BASE_URL at read time, extra fields after', () => {
    const parsed = rankingEntryJson({ ...withDetails, complementos: complete }, undefined, BASE, { rank: 3 });
    const spliced = rankingEntryJson({ ...withDetails, complementos: ready(complete) }, undefined, BASE, { rank: 3 });
    expect(JSON.parse(spliced.toString())).toEqual(JSON.parse(parsed.toString()));
    expect(JSON.parse(spliced.toString())).toMatchObject({ cv: { url: `${BASE}/K%207` }, rank: 3 });
    const otherBase = JSON.parse(
      rankingEntryJson({ ...withDetails, complementos: ready(complete) }, undefined, 'https://cv.test/p').toString(),
    );
    expect(otherBase.cv.url).toBe('https://cv.test/p/K%207');
  });

  it('render the same entries as the parsed complements for 2 000 generated persons', () => {
    let completeEntries = 0;
    for (let id = 1; id <= 2000; id += 1) {
      const complements = storedComplements(generatePersonFor(5, id, new Date(Date.UTC(2026, 0, 15))));
      const json = readyComplementsJson(complements);
      if (json === null || !complements.id_cv) continue;
      completeEntries += 1;
      const parsed = rankingEntryJson({ ...withDetails, complementos: complements }, undefined, BASE);
      const spliced = rankingEntryJson(
        { ...withDetails, complementos: { json: Buffer.from(json), idCv: complements.id_cv } },
        undefined,
        BASE,
      );
      expect(JSON.parse(spliced.toString())).toEqual(JSON.parse(parsed.toString()));
    }
    expect(completeEntries).toBeGreaterThan(1000);
  });
});

describe('toRankingSummary', () => {
  it('marks veterans from 10 years of activity', () => {
    expect(toRankingSummary(stored, 3)).toEqual({
      id_pessoa: 7,
      nome: 'Inês Araújo',
      anos_atuacao: 12,
      ativo: true,
      veterano: true,
      pontuacao_total: 512.5,
      bloco_a: 0,
      bloco_c: 40,
      bloco_d: 307.5,
      rank: 3,
    });
    expect(toRankingSummary({ ...stored, anos_atuacao: 9.9 }, 1).veterano).toBe(false);
  });
});
