import type { StoredEntryWithDetails } from '../../db/ranking-queries';
import { assessmentAreaList, rankedDetailJson, unrankedDetailJson } from '../../domain/consultant-detail';
import { toRankingRow } from '../../domain/ranking-row';
import { scorePerson } from '../../domain/scoring/score-person';
import { generatePersonFor } from '../../scripts/sample-data/generate-person';

const BASE = 'https://cv.example.org/curriculo';
const REFERENCE = '2026-01-15';

describe('the detailed record of a person outside the ranking', () => {
  it.each([1, 2, 3, 17, 40])('is the ranked record of the same document with posicao and rank null (person %p)', (id) => {
    const doc = generatePersonFor(9, id, new Date(Date.UTC(2026, 0, 15)));
    const {
      id_pessoa,
      nome,
      nome_busca: _key,
      run_id: _run,
      impressao: _fingerprint,
      chave_documento: _documentKey,
      verificada_em: _verified,
      detalhes,
      ...row
    } = toRankingRow(scorePerson(doc, REFERENCE), doc, 'run', '1:7');
    // In the column order of the ranking reads (db/ranking-queries.ts): the position third.
    const stored: StoredEntryWithDetails = { id_pessoa, nome, posicao: 12, ...row, detalhes: Buffer.from(detalhes) };
    const ranked = JSON.parse(rankedDetailJson(stored, doc, BASE).toString());
    const unranked = JSON.parse(unrankedDetailJson(doc, REFERENCE, BASE).toString());
    expect(ranked).toMatchObject({ posicao: 12, rank: 12 });
    expect(unranked).toEqual({ ...ranked, posicao: null, rank: null });
    // Same keys in the same order: one shape.
    expect(Object.keys(unranked)).toEqual(Object.keys(ranked));
    expect(Object.keys(unranked).slice(0, 4)).toEqual(['id_pessoa', 'nome', 'posicao', 'pontuacao_total']);
    expect(Object.keys(unranked).slice(-4)).toEqual(['idiomas', 'titulacao', 'cv', 'rank']);
  });

  it('carries the score computed at the reference date and the details of the document', () => {
    const doc = generatePersonFor(9, 5, new Date(Date.UTC(2026, 0, 15)));
    const scored = scorePerson(doc, REFERENCE);
    expect(JSON.parse(unrankedDetailJson(doc, REFERENCE, BASE).toString())).toMatchObject({
      id_pessoa: 5,
      nome: doc.nome,
      pontuacao_total: scored.pontuacao_total,
      bloco_e: scored.bloco_e,
      selos: scored.selos,
      pontuacao: scored.pontuacao,
      consultoria: doc.consultoria ?? null,
      orientacoes: doc.orientacoes ?? null,
    });
    const record = JSON.parse(unrankedDetailJson(doc, REFERENCE, BASE).toString()) as object;
    expect('nome_busca' in record).toBe(false);
    expect('revisao_documento' in record).toBe(false);
  });
});

describe('assessmentAreaList', () => {
  it('merges spellings of one area (damage, case, accents), sums counts, names it by its most frequent spelling', () => {
    expect(
      assessmentAreaList([
        { spelling: 'Educação', persons: 90, active: 60 },
        { spelling: 'Saúde Coletiva', persons: 50, active: 40 },
        { spelling: 'Educa231227o', persons: 4, active: 1 },
        { spelling: 'Sa250de Coletiva', persons: 3, active: 3 },
        { spelling: 'EDUCAÇÃO', persons: 1, active: 0 },
        { spelling: 'Ciência da Computação', persons: 7, active: 2 },
      ]),
    ).toEqual([
      { nome: 'Ciência da Computação', total_consultores: 7, total_ativos: 2 },
      { nome: 'Educação', total_consultores: 95, total_ativos: 61 },
      { nome: 'Saúde Coletiva', total_consultores: 53, total_ativos: 43 },
    ]);
  });

  it('repairs the chosen spelling; on equal counts prefers the one with fewer digits, then alphabetical', () => {
    expect(assessmentAreaList([{ spelling: 'Qu237mica', persons: 2, active: 1 }])).toEqual([
      { nome: 'Química', total_consultores: 2, total_ativos: 1 },
    ]);
    expect(
      assessmentAreaList([
        { spelling: 'Educa231227o', persons: 2, active: 0 },
        { spelling: 'educação', persons: 2, active: 0 },
        { spelling: 'Educação', persons: 2, active: 0 },
      ]),
    ).toEqual([{ nome: 'Educação', total_consultores: 6, total_ativos: 0 }]);
  });

  it('sorts by name in Portuguese collation (accents and case do not decide), drops blank spellings', () => {
    const names = assessmentAreaList(
      ['Zootecnia', 'Ética', 'enfermagem', 'Economia', 'Área Nova', 'Administração', ' ', ''].map((spelling) => ({
        spelling,
        persons: 1,
        active: 1,
      })),
    ).map((area) => area.nome);
    expect(names).toEqual(['Administração', 'Área Nova', 'Economia', 'enfermagem', 'Ética', 'Zootecnia']);
  });

  it('is empty for no spellings', () => {
    expect(assessmentAreaList([])).toEqual([]);
  });
});
