import type { StoredEntry } from '../../db/ranking-queries';
import { degreeItems } from '../../domain/degrees';
import { cvUrl, needsIndexDocument, resolveCv, toRankingEntry, toRankingSummary, type EntryCv } from '../../domain/ranking-entry';

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
  detalhes: { consultoria: [{ situacao: 'Ativo' }], pontuacao: { total: 512.5 } },
};

describe('toRankingEntry (rules 3 and 5)', () => {
  it('passes stored details through, null when absent, and fills languages and degrees from the document', () => {
    const entry = toRankingEntry(stored, { id_cv: 'K7', idiomas: [{ idioma: 'Inglês', proficiencia_leitura: 'Bem' }], titulacoes: [doutorado] }, BASE);
    expect(entry).toMatchObject({
      id_pessoa: 7,
      posicao: 3,
      tipos_atuacao: ['Consultor'],
      consultoria: [{ situacao: 'Ativo' }],
      pontuacao: { total: 512.5 },
      premiacoes: null,
      docencias: null,
      idiomas: [{ idioma: 'Inglês', nivel_leitura: 'Bem', nivel_escrita: null, nivel_fala: null, nivel_compreensao: null }],
      titulacao: degreeItems([doutorado]),
      cv: { id_cv: 'K7', url: `${BASE}/K7`, titulacoes: degreeItems([doutorado]) },
    });
    expect(entry).not.toHaveProperty('detalhes');
  });

  it('prefers stored languages and degrees over the document, and gives null without either', () => {
    const withStored = { ...stored, detalhes: { ...stored.detalhes, idiomas: [{ idioma: 'Francês' }], titulacao: [] } };
    const entry = toRankingEntry(withStored, { idiomas: [{ idioma: 'Inglês' }], titulacoes: [doutorado] }, BASE);
    expect(entry.idiomas).toEqual([{ idioma: 'Francês' }]);
    expect(entry.titulacao).toEqual([]);
    expect(toRankingEntry(stored, undefined, BASE)).toMatchObject({ idiomas: null, titulacao: null, cv: null });
  });

  it('asks for the document only when stored data is incomplete', () => {
    expect(needsIndexDocument(stored)).toBe(true);
    const complete = { ...stored, detalhes: { idiomas: [], titulacao: [], cv: completeCv } };
    expect(needsIndexDocument(complete)).toBe(false);
    expect(needsIndexDocument({ ...complete, detalhes: { ...complete.detalhes, cv: incompleteCv } })).toBe(true);
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
