/**
 * Block C: evaluations and awards. Points per inscription in an award call, per work in an award
 * committee and per award received, each group capped, then the block capped.
 * Every item needs a year from 1900 to the reference year. docs/scoring.md has the table and examples.
 */

import type { AwardType, CommitteeEvaluationType, InscriptionType, PersonDocument } from '../person-document';
import { isRecord, listOf, parseReferenceDate, parseYear, textOf, yearOfDay } from './dates';
import { capItems, closeBlock, roundPoints, SCORING, type BlockScore, type ScoreItem } from './parameters';

export type AwardRole = 'AUTOR' | 'ORIENT' | 'COORIENT';

/** A usable award: its type and the person's role. */
export interface AwardRecord {
  tipo: AwardType;
  papel: AwardRole;
}

/** What block C reads from a document, once. */
export interface EvaluationsAndAwards {
  inscriptions: Record<InscriptionType, number>;
  committees: Record<CommitteeEvaluationType, number>;
  awards: AwardRecord[];
}

const INSCRIPTION_TYPES: readonly InscriptionType[] = ['INSC_AUTOR', 'INSC_INST'];
const COMMITTEE_TYPES: readonly CommitteeEvaluationType[] = ['AVAL_COMIS_PREMIO', 'AVAL_COMIS_GP', 'COORD_COMIS_PREMIO', 'COORD_COMIS_GP'];
/** Award types from the most to the least valuable: the order of the items. */
export const AWARD_TYPES: readonly AwardType[] = ['PREMIACAO_GP', 'PREMIACAO', 'MENCAO'];

/** The code as written, or else trimmed and upper-cased, when it is one of `known`. */
function codeIn<T extends string>(value: unknown, known: readonly T[]): T | undefined {
  if (typeof value !== 'string') return undefined;
  if (known.includes(value as T)) return value as T;
  const normalised = value.trim().toUpperCase();
  return known.includes(normalised as T) ? (normalised as T) : undefined;
}

/** Autor(a) → AUTOR, Orientador(a) → ORIENT, Coorientador(a) / Co-orientador(a) → COORIENT. */
export function awardRole(papel: unknown): AwardRole | undefined {
  const lower = textOf(papel).toLowerCase();
  if (lower.startsWith('autor')) return 'AUTOR';
  if (lower.startsWith('orient')) return 'ORIENT';
  if (lower.startsWith('co')) return 'COORIENT';
  return undefined;
}

/** Reads inscriptions, committee work and awards with a known type and a year up to `refYear`. */
export function readEvaluationsAndAwards(doc: PersonDocument, refYear: number): EvaluationsAndAwards {
  const read: EvaluationsAndAwards = {
    inscriptions: { INSC_AUTOR: 0, INSC_INST: 0 },
    committees: { AVAL_COMIS_PREMIO: 0, AVAL_COMIS_GP: 0, COORD_COMIS_PREMIO: 0, COORD_COMIS_GP: 0 },
    awards: [],
  };
  for (const item of listOf(doc.inscricoes)) {
    if (!isRecord(item) || Number.isNaN(parseYear(item.ano, refYear))) continue;
    const tipo = codeIn(item.tipo, INSCRIPTION_TYPES);
    if (tipo) read.inscriptions[tipo]++;
  }
  for (const item of listOf(doc.avaliacoes_comissao)) {
    if (!isRecord(item) || Number.isNaN(parseYear(item.ano, refYear))) continue;
    const tipo = codeIn(item.tipo, COMMITTEE_TYPES);
    if (tipo) read.committees[tipo]++;
  }
  for (const item of listOf(doc.premiacoes)) {
    if (!isRecord(item) || Number.isNaN(parseYear(item.ano, refYear))) continue;
    const tipo = codeIn(item.tipo, AWARD_TYPES);
    const papel = awardRole(item.papel);
    if (tipo && papel) read.awards.push({ tipo, papel });
  }
  return read;
}

const INSCRIPTION_TEXT: Readonly<Record<InscriptionType, string>> = {
  INSC_AUTOR: 'inscrição(ões) como autor',
  INSC_INST: 'inscrição(ões) por instituição',
};

const COMMITTEE_TEXT: Readonly<Record<CommitteeEvaluationType, string>> = {
  AVAL_COMIS_PREMIO: 'avaliação(ões) em comissão de prêmio',
  AVAL_COMIS_GP: 'avaliação(ões) em comissão de grande prêmio',
  COORD_COMIS_PREMIO: 'coordenação(ões) de comissão de prêmio',
  COORD_COMIS_GP: 'coordenação(ões) de comissão de grande prêmio',
};

const AWARD_TEXT: Readonly<Record<AwardType, string>> = {
  PREMIACAO_GP: 'Grande prêmio',
  PREMIACAO: 'Prêmio',
  MENCAO: 'Menção honrosa',
};

function pushCounted(items: ScoreItem[], codigo: string, count: number, each: number, text: string): void {
  if (count > 0) items.push({ codigo, descricao: `${count} ${text} × ${each}`, pontos: roundPoints(count * each) });
}

/** Block C from what `readEvaluationsAndAwards` read. */
export function scoreEvaluationsAndAwards(read: EvaluationsAndAwards): BlockScore {
  const p = SCORING.blockC;
  const items: ScoreItem[] = [];

  let group = items.length;
  for (const tipo of INSCRIPTION_TYPES) {
    pushCounted(items, tipo, read.inscriptions[tipo], p.inscriptions[tipo], INSCRIPTION_TEXT[tipo]);
  }
  capItems(items, group, p.inscriptions.cap, 'TETO_INSCRICOES', `Teto de inscrições: ${p.inscriptions.cap}`);

  group = items.length;
  for (const tipo of COMMITTEE_TYPES) pushCounted(items, tipo, read.committees[tipo], p.committees[tipo], COMMITTEE_TEXT[tipo]);
  capItems(items, group, p.committees.cap, 'TETO_COMISSOES', `Teto de comissões: ${p.committees.cap}`);

  group = items.length;
  for (const tipo of AWARD_TYPES) {
    let full = 0;
    let co = 0;
    for (const award of read.awards) {
      if (award.tipo !== tipo) continue;
      if (award.papel === 'COORIENT') co++;
      else full++;
    }
    if (full + co === 0) continue;
    const value = p.awards[tipo];
    const coValue = roundPoints(value * p.awards.coSupervisorFactor);
    const parts: string[] = [];
    if (full > 0) parts.push(`${full} como autor ou orientador × ${value}`);
    if (co > 0) parts.push(`${co} como coorientador × ${coValue}`);
    items.push({
      codigo: tipo,
      descricao: `${AWARD_TEXT[tipo]}: ${parts.join(' + ')}`,
      pontos: roundPoints(full * value + co * coValue),
    });
  }
  capItems(items, group, p.awards.cap, 'TETO_PREMIACOES', `Teto de premiações: ${p.awards.cap}`);

  return closeBlock(items, p.cap, 'C');
}

export function scoreBlockC(doc: PersonDocument, referenceDate: string): BlockScore {
  return scoreEvaluationsAndAwards(readEvaluationsAndAwards(doc, yearOfDay(parseReferenceDate(referenceDate))));
}
