/**
 * Seals (selos): the catalogue of the specification and the rules that give a person each seal.
 * Codes are upper case in every layer (`normaliseSealCode`), so any comparison is case-insensitive.
 * docs/scoring.md lists the rules.
 */

import { z } from 'zod';
import type { PersonDocument } from './person-document';
import { readAgencyCoordinations, type AgencyCoordinationRecord } from './scoring/block-a';
import { readEvaluationsAndAwards, type AwardRecord } from './scoring/block-c';
import { readIndicators, type GrantRecord, type SupervisionRecord } from './scoring/block-d';
import { readPpgCoordinations, type PpgCoordinationRecord } from './scoring/block-e';
import { parseReferenceDate, yearOfDay } from './scoring/dates';

/** The seals' groups; `outros` holds the codes the catalogue does not know. */
export const SEAL_GROUPS = ['funcoes', 'premiacoes', 'orientacoes', 'coorientacoes', 'outros'] as const;

export const sealCatalogueEntrySchema = z
  .object({
    codigo: z.string().meta({ description: 'The seal code, upper case' }),
    label: z.string().meta({ description: 'The code itself for a code the catalogue does not know' }),
    icone: z.string().meta({ description: 'A symbol (an emoji)' }),
    grupo: z.enum(SEAL_GROUPS),
  })
  .meta({ id: 'SealCatalogueEntry' });
export type SealCatalogueEntry = z.infer<typeof sealCatalogueEntrySchema>;

/** The known seals, in the order of the specification. */
export const SEAL_CATALOGUE: readonly SealCatalogueEntry[] = Object.freeze(
  [
    { codigo: 'PRESID_CAMARA', label: 'Presidente Câmara', icone: '🏛️', grupo: 'funcoes' },
    { codigo: 'COORD_PPG', label: 'Coord. PPG', icone: '🎓', grupo: 'funcoes' },
    { codigo: 'BPQ', label: 'Bolsista PQ', icone: '🔬', grupo: 'funcoes' },
    { codigo: 'AUTOR_GP', label: 'Autor Grande Prêmio', icone: '🏆', grupo: 'premiacoes' },
    { codigo: 'AUTOR_PREMIO', label: 'Autor Prêmio', icone: '🥇', grupo: 'premiacoes' },
    { codigo: 'AUTOR_MENCAO', label: 'Autor Menção', icone: '🎖️', grupo: 'premiacoes' },
    { codigo: 'ORIENT_GP', label: 'Orientador GP', icone: '🏆', grupo: 'premiacoes' },
    { codigo: 'ORIENT_PREMIO', label: 'Orientador Prêmio', icone: '🥇', grupo: 'premiacoes' },
    { codigo: 'ORIENT_MENCAO', label: 'Orientador Menção', icone: '🎖️', grupo: 'premiacoes' },
    { codigo: 'COORIENT_GP', label: 'Coorientador GP', icone: '🏆', grupo: 'premiacoes' },
    { codigo: 'COORIENT_PREMIO', label: 'Coorientador Prêmio', icone: '🥇', grupo: 'premiacoes' },
    { codigo: 'COORIENT_MENCAO', label: 'Coorientador Menção', icone: '🎖️', grupo: 'premiacoes' },
    { codigo: 'ORIENT_POS_DOC', label: 'Orient. Pós-Doc', icone: '🔭', grupo: 'orientacoes' },
    { codigo: 'ORIENT_TESE', label: 'Orient. Tese', icone: '📘', grupo: 'orientacoes' },
    { codigo: 'ORIENT_DISS', label: 'Orient. Dissertação', icone: '📗', grupo: 'orientacoes' },
    { codigo: 'CO_ORIENT_POS_DOC', label: 'Coorient. Pós-Doc', icone: '🔭', grupo: 'coorientacoes' },
    { codigo: 'CO_ORIENT_TESE', label: 'Coorient. Tese', icone: '📘', grupo: 'coorientacoes' },
    { codigo: 'CO_ORIENT_DISS', label: 'Coorient. Dissertação', icone: '📗', grupo: 'coorientacoes' },
  ].map((entry) => Object.freeze(entry as SealCatalogueEntry)),
);

/** The known seals as fresh objects (the caller may change them), in the order of the specification. */
export function sealCatalogue(): SealCatalogueEntry[] {
  return SEAL_CATALOGUE.map((entry) => ({ ...entry }));
}

/** Symbol of a code without catalogue metadata. */
export const UNKNOWN_SEAL_ICON = '🏷️';

const BY_CODE: ReadonlyMap<string, SealCatalogueEntry> = new Map(SEAL_CATALOGUE.map((entry) => [entry.codigo, entry]));

/** The one form of a seal code in every layer: trimmed, upper case. */
export function normaliseSealCode(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * The catalogue entry of a code, compared in upper case. A code without metadata gets its own
 * (normalised) code as label, the icon `UNKNOWN_SEAL_ICON` and the group `outros`.
 */
export function sealCatalogueEntry(code: string): SealCatalogueEntry {
  const codigo = normaliseSealCode(code);
  return BY_CODE.get(codigo) ?? { codigo, label: codigo, icone: UNKNOWN_SEAL_ICON, grupo: 'outros' };
}

/** What the seal rules look at, as the scoring reads it from a document. */
export interface SealEvidence {
  agencyCoordinations: readonly AgencyCoordinationRecord[];
  ppgCoordinations: readonly PpgCoordinationRecord[];
  grants: readonly GrantRecord[];
  awards: readonly AwardRecord[];
  supervisions: readonly SupervisionRecord[];
}

const AWARD_SEAL_PREFIX = { AUTOR: 'AUTOR_', ORIENT: 'ORIENT_', COORIENT: 'COORIENT_' } as const;
const AWARD_SEAL_SUFFIX = { PREMIACAO_GP: 'GP', PREMIACAO: 'PREMIO', MENCAO: 'MENCAO' } as const;
const SUPERVISION_SEAL_PREFIX = { ORIENT: 'ORIENT_', COORIENT: 'CO_ORIENT_' } as const;
const SUPERVISION_SEAL_SUFFIX = { POSDOC: 'POS_DOC', DOUT: 'TESE', MEST: 'DISS' } as const;

/** Seals from evidence already read: codes in upper case, unique, sorted. */
export function sealsFromEvidence(evidence: SealEvidence): string[] {
  const seals: string[] = [];
  const add = (code: string): void => {
    if (!seals.includes(code)) seals.push(code);
  };
  if (evidence.agencyCoordinations.some((coordination) => coordination.presidente)) add('PRESID_CAMARA');
  if (evidence.ppgCoordinations.length > 0) add('COORD_PPG');
  if (evidence.grants.some((grant) => grant.familia === 'PQ' && grant.current)) add('BPQ');
  for (const award of evidence.awards) add(AWARD_SEAL_PREFIX[award.papel] + AWARD_SEAL_SUFFIX[award.tipo]);
  for (const supervision of evidence.supervisions) {
    if (supervision.concluida) add(SUPERVISION_SEAL_PREFIX[supervision.papel] + SUPERVISION_SEAL_SUFFIX[supervision.nivel]);
  }
  return seals.sort();
}

/**
 * The seals of a person at the reference date (`YYYY-MM-DD`):
 * - PRESID_CAMARA: an agency coordination (counted by block A) whose `funcao` starts with "Presidente";
 * - COORD_PPG: a PPG coordination period (counted by block E);
 * - BPQ: a PQ-* grant current at the reference date;
 * - AUTOR_/ORIENT_/COORIENT_ × GP/PREMIO/MENCAO: an award (counted by block C) by role and type;
 * - ORIENT_/CO_ORIENT_ × POS_DOC/TESE/DISS: a concluded supervision (counted by block D) by role and level.
 */
export function deriveSeals(doc: PersonDocument, referenceDate: string): string[] {
  const ref = parseReferenceDate(referenceDate);
  const indicators = readIndicators(doc, ref);
  return sealsFromEvidence({
    agencyCoordinations: readAgencyCoordinations(doc, ref),
    ppgCoordinations: readPpgCoordinations(doc, ref),
    grants: indicators.grants,
    awards: readEvaluationsAndAwards(doc, yearOfDay(ref)).awards,
    supervisions: indicators.supervisions,
  });
}
