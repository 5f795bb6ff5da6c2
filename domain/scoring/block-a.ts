/**
 * Block A: coordination roles at agency level (CA, CAJ, CAJ_MP, CAM).
 *
 * Per coordination: base + time + currency + return, each a share of the type's maximum, the sum
 * capped at that maximum. The block is the best coordination plus a fraction of each other one,
 * capped. docs/scoring.md has the table and examples.
 */

import type { AgencyCoordinationType, PersonDocument } from '../person-document';
import {
  byStart,
  describePeriod,
  isRecord,
  isReturnAfter,
  listOf,
  parseReferenceDate,
  readPeriod,
  textOf,
  wholeYearsBetween,
  type Day,
  type Period,
} from './dates';
import { closeBlock, roundPoints, SCORING, type BlockScore, type ScoreItem } from './parameters';

/** A usable agency coordination, read once per document. */
export interface AgencyCoordinationRecord extends Period {
  tipo: AgencyCoordinationType;
  area: string;
  /** `funcao` starts with "Presidente" (any case): drives the PRESID_CAMARA seal. */
  presidente: boolean;
}

function knownType(code: string): AgencyCoordinationType | undefined {
  switch (code) {
    case 'CA':
    case 'CAJ':
    case 'CAJ_MP':
    case 'CAM':
      return code;
    default:
      return undefined;
  }
}

function coordinationType(value: unknown): AgencyCoordinationType | undefined {
  if (typeof value !== 'string') return undefined;
  return knownType(value) ?? knownType(value.trim().toUpperCase());
}

function isPresident(funcao: unknown): boolean {
  return typeof funcao === 'string' && funcao.trim().toLowerCase().startsWith('presidente');
}

/**
 * The coordinations that count at the reference day: a known `tipo` and a readable period that has
 * started (see `readPeriod`). Anything else is skipped.
 */
export function readAgencyCoordinations(doc: PersonDocument, ref: Day): AgencyCoordinationRecord[] {
  const records: AgencyCoordinationRecord[] = [];
  for (const coordination of listOf(doc.coordenacoes_agency)) {
    if (!isRecord(coordination)) continue;
    const tipo = coordinationType(coordination.tipo);
    if (!tipo) continue;
    const period = readPeriod(coordination.inicio, coordination.fim, ref);
    if (!period) continue;
    records.push({
      tipo,
      start: period.start,
      end: period.end,
      current: period.current,
      area: textOf(coordination.area_avaliacao),
      presidente: isPresident(coordination.funcao),
    });
  }
  return records;
}

interface ScoredCoordination {
  record: AgencyCoordinationRecord;
  points: number;
  explanation: string;
}

function scoreCoordination(record: AgencyCoordinationRecord, isReturn: boolean): ScoredCoordination {
  const p = SCORING.blockA;
  const max = p.maxByType[record.tipo];
  const base = roundPoints(max * p.baseShare);
  const perYear = roundPoints(max * p.perYearShare);
  const years = Math.min(wholeYearsBetween(record.start, record.end), p.maxYears);
  const time = roundPoints(perYear * years);
  const currency = record.current ? roundPoints(max * p.currencyShare) : 0;
  const returnBonus = isReturn ? roundPoints(max * p.returnShare) : 0;
  const raw = roundPoints(base + time + currency + returnBonus);
  const points = Math.min(raw, max);

  const label = record.area ? `${record.tipo} ${record.area}` : record.tipo;
  let explanation = `${label} (${describePeriod(record)}): base ${base} + ${years} ano(s) × ${perYear}`;
  if (currency) explanation += ` + vigente ${currency}`;
  if (returnBonus) explanation += ` + retorno ${returnBonus}`;
  if (raw > max) explanation += ` = ${raw}, máximo do tipo ${max}`;
  return { record, points, explanation };
}

function byPointsThenStart(a: ScoredCoordination, b: ScoredCoordination): number {
  return b.points - a.points || a.record.start - b.record.start || a.record.end - b.record.end;
}

/** Block A from coordinations already read (`readAgencyCoordinations`). */
export function scoreAgencyCoordinations(records: readonly AgencyCoordinationRecord[]): BlockScore {
  const items: ScoreItem[] = [];
  if (records.length === 0) return { pontos: 0, itens: items };

  // A coordination is a return when it starts at least `gapYears` after every earlier one ended.
  const chronological = records.slice().sort(byStart);
  const scored: ScoredCoordination[] = [];
  let latestEnd = Number.NEGATIVE_INFINITY;
  for (const record of chronological) {
    const isReturn = latestEnd !== Number.NEGATIVE_INFINITY && isReturnAfter(latestEnd, record.start);
    scored.push(scoreCoordination(record, isReturn));
    if (record.end > latestEnd) latestEnd = record.end;
  }

  scored.sort(byPointsThenStart);
  const factor = SCORING.blockA.othersFactor;
  scored.forEach((coordination, index) => {
    if (index === 0) {
      items.push({ codigo: coordination.record.tipo, descricao: coordination.explanation, pontos: coordination.points });
    } else {
      items.push({
        codigo: coordination.record.tipo,
        descricao: `${coordination.explanation}; conta ${roundPoints(factor * 100)}% de ${coordination.points}`,
        pontos: roundPoints(coordination.points * factor),
      });
    }
  });
  return closeBlock(items, SCORING.blockA.cap, 'A');
}

export function scoreBlockA(doc: PersonDocument, referenceDate: string): BlockScore {
  return scoreAgencyCoordinations(readAgencyCoordinations(doc, parseReferenceDate(referenceDate)));
}
