/**
 * Block B: consultancy. The consultancy type by the situation of the latest period, a continuity
 * bonus by total years (the highest threshold reached), a return bonus when the periods show an
 * interruption of at least `SCORING.gapYears`; capped. docs/scoring.md has the table and examples.
 */

import type { PersonDocument } from '../person-document';
import { isRecord, listOf, mergePeriods, parseReferenceDate, readPeriod, truncateYears, unionYears, type Day, type Period } from './dates';
import { closeBlock, roundPoints, SCORING, type BlockScore, type ScoreItem } from './parameters';

export type ConsultancyType = 'CONS_ATIVO' | 'CONS_HIST' | 'CONS_FALECIDO';

/** A usable consultancy period, read once per document. */
export interface ConsultancyRecord extends Period {
  tipo: ConsultancyType;
  situacao: string;
}

/** Ativo → CONS_ATIVO, Falecido → CONS_FALECIDO; Inativo and any other or absent situation → CONS_HIST. */
function consultancyType(situacao: string): ConsultancyType {
  if (situacao === 'Ativo') return 'CONS_ATIVO';
  if (situacao === 'Inativo') return 'CONS_HIST';
  if (situacao === 'Falecido') return 'CONS_FALECIDO';
  const lower = situacao.toLowerCase();
  if (lower === 'ativo') return 'CONS_ATIVO';
  if (lower === 'falecido') return 'CONS_FALECIDO';
  return 'CONS_HIST';
}

/** The periods that count at the reference day: a readable period that has started. */
export function readConsultancyPeriods(doc: PersonDocument, ref: Day): ConsultancyRecord[] {
  const records: ConsultancyRecord[] = [];
  for (const period of listOf(doc.consultoria)) {
    if (!isRecord(period)) continue;
    const span = readPeriod(period.inicio, period.fim, ref);
    if (!span) continue;
    const situacao = typeof period.situacao === 'string' ? period.situacao.trim() : '';
    records.push({ tipo: consultancyType(situacao), situacao, start: span.start, end: span.end, current: span.current });
  }
  return records;
}

/** The latest period: the latest start; on a tie the one that ends later; then the later in the list. */
export function latestPeriod(records: readonly ConsultancyRecord[]): ConsultancyRecord | undefined {
  let latest: ConsultancyRecord | undefined;
  for (const record of records) {
    if (!latest || record.start > latest.start || (record.start === latest.start && record.end >= latest.end)) latest = record;
  }
  return latest;
}

const TYPE_TEXT: Readonly<Record<ConsultancyType, string>> = {
  CONS_ATIVO: 'Consultor ativo',
  CONS_HIST: 'Consultor com histórico',
  CONS_FALECIDO: 'Consultor falecido',
};

/** Block B from periods already read (`readConsultancyPeriods`). */
export function scoreConsultancy(records: readonly ConsultancyRecord[]): BlockScore {
  const items: ScoreItem[] = [];
  const latest = latestPeriod(records);
  if (!latest) return { pontos: 0, itens: items };
  const p = SCORING.blockB;

  items.push({
    codigo: latest.tipo,
    descricao: `${TYPE_TEXT[latest.tipo]} (situação do último período: ${latest.situacao || 'não informada'})`,
    pontos: roundPoints(p.base[latest.tipo]),
  });

  const years = unionYears(records);
  // The tiny tolerance keeps a sum of fractions such as 2.9999999999 at 3.
  const reached = p.continuity.find((threshold) => years + 1e-9 >= threshold.years);
  if (reached) {
    items.push({
      codigo: reached.code,
      descricao: `Continuidade: ${truncateYears(years)} anos de consultoria (≥ ${reached.years})`,
      pontos: roundPoints(reached.points),
    });
  }

  const spans = mergePeriods(records, true);
  if (spans.length > 1) {
    items.push({
      codigo: 'RETORNO',
      descricao: `Retorno à consultoria após interrupção de ${SCORING.gapYears} ano(s) ou mais`,
      pontos: roundPoints(p.returnBonus),
    });
  }
  return closeBlock(items, p.cap, 'B');
}

export function scoreBlockB(doc: PersonDocument, referenceDate: string): BlockScore {
  return scoreConsultancy(readConsultancyPeriods(doc, parseReferenceDate(referenceDate)));
}
