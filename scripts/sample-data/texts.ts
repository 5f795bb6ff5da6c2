import { damageEncoding } from '../../domain/text';
import type { Random } from './random';
import {
  FIRST_NAMES,
  INSTITUTIONS,
  NAME_PARTICLES,
  RESEARCH_LINE_PREFIXES,
  RESEARCH_LINE_SUFFIXES,
  SURNAMES,
  WORK_TITLE_PREFIXES,
  type AssessmentArea,
  type Institution,
  type InstitutionSpelling,
} from './vocabulary';

/** Share of persons whose name carries encoding damage, and of area / research-line texts. */
export const DAMAGED_NAME_SHARE = 0.03;
export const DAMAGED_AREA_TEXT_SHARE = 0.05;

/** Share of mentions of an institution that use one of its other spellings. */
const VARIANT_SPELLING_SHARE = 0.15;

export function personName(rng: Random): string {
  const parts = [rng.pick(FIRST_NAMES)];
  if (rng.chance(0.35)) parts.push(rng.pick(FIRST_NAMES));
  const surnames = rng.int(1, 3);
  for (let i = 0; i < surnames; i += 1) {
    if (i > 0 && rng.chance(0.3)) parts.push(rng.pick(NAME_PARTICLES));
    parts.push(rng.pick(SURNAMES));
  }
  return parts.join(' ');
}

/** An area or research-line text as the source stores it: sometimes with encoding damage. */
export function sourceAreaText(rng: Random, text: string): string {
  return rng.chance(DAMAGED_AREA_TEXT_SHARE) ? damageEncoding(text) : text;
}

export function researchLine(rng: Random, area: AssessmentArea): string {
  const line = `${rng.pick(RESEARCH_LINE_PREFIXES)} ${rng.pick(area.topics)}`;
  return rng.chance(0.4) ? `${line} ${rng.pick(RESEARCH_LINE_SUFFIXES)}` : line;
}

export function workTitle(rng: Random, area: AssessmentArea): string {
  return `${rng.pick(WORK_TITLE_PREFIXES)} ${rng.pick(area.topics)} ${rng.pick(RESEARCH_LINE_SUFFIXES)}`;
}

export function otherInstitution(rng: Random): Institution {
  return rng.pick(INSTITUTIONS);
}

/** How one mention of an institution is written: usually canonical, sometimes a duplicate spelling. */
export function institutionSpelling(rng: Random, institution: Institution): InstitutionSpelling {
  if (institution.variants.length === 0 || !rng.chance(VARIANT_SPELLING_SHARE)) {
    return { nome: institution.nome, sigla: institution.sigla };
  }
  return rng.pick(institution.variants);
}

/** Programme name of a knowledge area, as institutions name them. */
export function programmeName(knowledgeArea: string): string {
  return `Programa de Pós-Graduação em ${knowledgeArea}`;
}

/** Programme code in the agency's shape: institution code + 3 digits + `P` + 1 digit. */
export function programmeCode(rng: Random, institution: Institution): string {
  return `${institution.codigo}${String(rng.int(1, 60)).padStart(3, '0')}P${rng.int(0, 9)}`;
}

export function digits(rng: Random, count: number): string {
  let text = '';
  for (let i = 0; i < count; i += 1) text += String(rng.int(0, 9));
  return text;
}
