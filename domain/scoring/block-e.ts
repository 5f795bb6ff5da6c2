/**
 * Block E: coordination of graduate programmes (PPG). Per coordination: base + time + currency;
 * the block is their sum, capped. Terms of the same programme separated by less than a return gap
 * are one coordination. docs/scoring.md has the table and examples.
 */

import type { PersonDocument } from '../person-document';
import {
  byStart,
  describePeriod,
  isRecord,
  listOf,
  mergePeriods,
  parseReferenceDate,
  readPeriod,
  textOf,
  wholeYearsBetween,
  type Day,
  type Period,
} from './dates';
import { closeBlock, roundPoints, SCORING, type BlockScore, type ScoreItem } from './parameters';

/** One coordination of one programme (its terms merged). */
export interface PpgCoordinationRecord extends Period {
  programa: string;
}

/**
 * Reads every `docencias[].coordenacoes[]` period that is readable and has started, groups them by
 * programme (`codigo_programa`, else the name ignoring case, else the teaching entry itself) and
 * merges each programme's terms; the result is in order of start.
 */
export function readPpgCoordinations(doc: PersonDocument, ref: Day): PpgCoordinationRecord[] {
  let groups: Map<string, { programa: string; periods: Period[] }> | undefined;
  let index = 0;
  for (const teaching of listOf(doc.docencias)) {
    index++;
    if (!isRecord(teaching)) continue;
    const terms = listOf(teaching.coordenacoes);
    if (terms.length === 0) continue;
    const programa = textOf(teaching.programa);
    const key = textOf(teaching.codigo_programa) || programa.toLowerCase() || `#${index}`;
    for (const term of terms) {
      if (!isRecord(term)) continue;
      const period = readPeriod(term.inicio, term.fim, ref);
      if (!period) continue;
      groups ??= new Map();
      const group = groups.get(key);
      if (group) group.periods.push(period);
      else groups.set(key, { programa, periods: [period] });
    }
  }
  const records: PpgCoordinationRecord[] = [];
  if (!groups) return records;
  for (const { programa, periods } of groups.values()) {
    for (const span of mergePeriods(periods, true)) {
      records.push({ programa, start: span.start, end: span.end, current: span.current });
    }
  }
  return records.sort(byStart);
}

/** Block E from coordinations already read (`readPpgCoordinations`). */
export function scorePpgCoordinations(records: readonly PpgCoordinationRecord[]): BlockScore {
  const p = SCORING.blockE;
  const items: ScoreItem[] = [];
  for (const record of records) {
    const years = Math.min(wholeYearsBetween(record.start, record.end), p.maxYears);
    const currency = record.current ? p.currency : 0;
    items.push({
      codigo: 'COORD_PPG',
      descricao:
        `Coordenação de PPG${record.programa ? ` — ${record.programa}` : ''} (${describePeriod(record)}): ` +
        `base ${p.base} + ${years} ano(s) × ${p.perYear}${currency ? ` + vigente ${currency}` : ''}`,
      pontos: roundPoints(p.base + years * p.perYear + currency),
    });
  }
  return closeBlock(items, p.cap, 'E');
}

export function scoreBlockE(doc: PersonDocument, referenceDate: string): BlockScore {
  return scorePpgCoordinations(readPpgCoordinations(doc, parseReferenceDate(referenceDate)));
}
