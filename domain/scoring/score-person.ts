/**
 * The score of one person: five blocks, the total, the derived profile (years, kinds of activity,
 * PPG coordinator flag) and the seals, from the index document alone. Pure: no I/O, no clock; the
 * same document and reference date always give the same result. docs/scoring.md is the reference.
 */

import type { PersonDocument } from '../person-document';
import { sealsFromEvidence } from '../seals';
import { readAgencyCoordinations, scoreAgencyCoordinations } from './block-a';
import { readConsultancyPeriods, scoreConsultancy } from './block-b';
import { readEvaluationsAndAwards, scoreEvaluationsAndAwards } from './block-c';
import { readIndicators, scoreIndicators } from './block-d';
import { readPpgCoordinations, scorePpgCoordinations } from './block-e';
import { isRecord, listOf, parseReferenceDate, textOf, truncateYears, unionYears, yearOfDay } from './dates';
import { z } from 'zod';
import { blockScoreSchema, roundPoints, SCORING } from './parameters';

/** The detail of a score, stored and returned as the ranking entry's `pontuacao`. */
export const scoreBreakdownSchema = z
  .object({
    bloco_a: blockScoreSchema,
    bloco_b: blockScoreSchema,
    bloco_c: blockScoreSchema,
    bloco_d: blockScoreSchema,
    bloco_e: blockScoreSchema,
    total: z.number(),
    /** The reference date the score was computed at (`YYYY-MM-DD`). */
    data_referencia: z.iso.date().meta({ description: "The day the score was computed at (the run's start, UTC)" }),
    /** `SCORING.version`: which weights produced the score. */
    versao: z.string().meta({ description: 'Which weights produced the score (e.g. `5-blocos-v1`)' }),
  })
  .meta({ id: 'ScoreBreakdown' });
export type ScoreBreakdown = z.infer<typeof scoreBreakdownSchema>;

export interface ScoredPerson {
  id_pessoa: number;
  nome: string;
  ativo: boolean;
  /** `doc.anos_atuacao` when a finite number >= 0 (rounded to 2 decimals), else the consultancy years, truncated to 1 decimal. */
  anos_atuacao: number;
  bloco_a: number;
  bloco_b: number;
  bloco_c: number;
  bloco_d: number;
  bloco_e: number;
  pontuacao_total: number;
  /** Kinds of activity, in the order of `ACTIVITY_KINDS`. */
  tipos_atuacao: string[];
  /** The person coordinated a PPG in a period counted by block E. */
  coordenador_ppg: boolean;
  /** Seal codes, upper case, unique, sorted. */
  selos: string[];
  pontuacao: ScoreBreakdown;
}

/** The vocabulary of `tipos_atuacao`, in its fixed order; docs/scoring.md says when each applies. */
export const ACTIVITY_KINDS = [
  'Consultor',
  'Coordenador de Área',
  'Presidente de Câmara',
  'Coordenador de PPG',
  'Docente de PPG',
  'Bolsista PQ',
  'Bolsista DT',
  'Premiado',
  'Avaliador de Prêmio',
  'Inscrito em Prêmio',
  'Orientador',
  'Coorientador',
  'Membro de Banca',
  'Participante de Atividades',
] as const;

export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

function hasPpgTeaching(doc: PersonDocument): boolean {
  for (const teaching of listOf(doc.docencias)) if (isRecord(teaching) && textOf(teaching.programa) !== '') return true;
  return false;
}

function sum(counts: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const key in counts) total += counts[key] as number;
  return total;
}

/**
 * Scores one person at `referenceDate` (`YYYY-MM-DD`; the ranking job passes its run's start date).
 * Never throws on document content: what cannot be read is skipped, and a person with nothing usable
 * scores 0 everywhere. Throws a RangeError only when `referenceDate` itself is not a date.
 */
export function scorePerson(doc: PersonDocument, referenceDate: string): ScoredPerson {
  const ref = parseReferenceDate(referenceDate);
  const refYear = yearOfDay(ref);

  const agencyCoordinations = readAgencyCoordinations(doc, ref);
  const consultancy = readConsultancyPeriods(doc, ref);
  const evaluations = readEvaluationsAndAwards(doc, refYear);
  const indicators = readIndicators(doc, ref);
  const ppgCoordinations = readPpgCoordinations(doc, ref);

  const blockA = scoreAgencyCoordinations(agencyCoordinations);
  const blockB = scoreConsultancy(consultancy);
  const blockC = scoreEvaluationsAndAwards(evaluations);
  const blockD = scoreIndicators(indicators);
  const blockE = scorePpgCoordinations(ppgCoordinations);
  const total = roundPoints(blockA.pontos + blockB.pontos + blockC.pontos + blockD.pontos + blockE.pontos);

  const kinds: ActivityKind[] = [];
  if (consultancy.length > 0) kinds.push('Consultor');
  if (agencyCoordinations.length > 0) kinds.push('Coordenador de Área');
  if (agencyCoordinations.some((coordination) => coordination.presidente)) kinds.push('Presidente de Câmara');
  if (ppgCoordinations.length > 0) kinds.push('Coordenador de PPG');
  if (hasPpgTeaching(doc)) kinds.push('Docente de PPG');
  if (indicators.grants.some((grant) => grant.familia === 'PQ')) kinds.push('Bolsista PQ');
  if (indicators.grants.some((grant) => grant.familia === 'DT')) kinds.push('Bolsista DT');
  if (evaluations.awards.length > 0) kinds.push('Premiado');
  if (sum(evaluations.committees) > 0) kinds.push('Avaliador de Prêmio');
  if (sum(evaluations.inscriptions) > 0) kinds.push('Inscrito em Prêmio');
  if (indicators.supervisions.some((supervision) => supervision.papel === 'ORIENT')) kinds.push('Orientador');
  if (indicators.supervisions.some((supervision) => supervision.papel === 'COORIENT')) kinds.push('Coorientador');
  if (sum(indicators.boards) > 0) kinds.push('Membro de Banca');
  if (indicators.participations > 0) kinds.push('Participante de Atividades');

  const declaredYears = doc.anos_atuacao;
  const anosAtuacao =
    typeof declaredYears === 'number' && Number.isFinite(declaredYears) && declaredYears >= 0
      ? roundPoints(declaredYears)
      : truncateYears(unionYears(consultancy));

  return {
    id_pessoa: doc.id_pessoa,
    nome: typeof doc.nome === 'string' ? doc.nome : '',
    ativo: doc.ativo === true,
    anos_atuacao: anosAtuacao,
    bloco_a: blockA.pontos,
    bloco_b: blockB.pontos,
    bloco_c: blockC.pontos,
    bloco_d: blockD.pontos,
    bloco_e: blockE.pontos,
    pontuacao_total: total,
    tipos_atuacao: kinds,
    coordenador_ppg: ppgCoordinations.length > 0,
    selos: sealsFromEvidence({
      agencyCoordinations,
      ppgCoordinations,
      grants: indicators.grants,
      awards: evaluations.awards,
      supervisions: indicators.supervisions,
    }),
    pontuacao: {
      bloco_a: blockA,
      bloco_b: blockB,
      bloco_c: blockC,
      bloco_d: blockD,
      bloco_e: blockE,
      total,
      data_referencia: referenceDate,
      versao: SCORING.version,
    },
  };
}
