import type { AgencyCoordination, AgencyCoordinationType, ConsultancyPeriod, KnowledgeArea } from '../../domain/person-document';
import { countIn, type PersonProfile } from './person-profile';
import { type Random, formatDay } from './random';
import { institutionSpelling, otherInstitution, researchLine, sourceAreaText } from './texts';

const YEAR = 365;

/** A period as day numbers; `end` null = still open. */
interface DayPeriod {
  start: number;
  end: number | null;
}

/** Blocks A and B: consultancy periods (with gaps and returns) and agency coordinations inside them. */
export function consultancyPeriods(rng: Random, profile: PersonProfile): DayPeriod[] {
  const { traits, situation, today } = profile;
  const range = situation === 'active' ? traits.consultancyPeriods.active : traits.consultancyPeriods.inactive;
  const count = Math.max(situation === 'deceased' ? 1 : 0, countIn(rng, range));
  if (count === 0) return [];

  // Persons with little activity started recently; the others up to 35 years ago.
  const horizon = profile.tier === 'minimal' ? today - 12 * YEAR : today - 35 * YEAR;
  const earliest = Math.min(today - 120, Math.max(profile.careerStartDay, horizon));
  const first = rng.dayBetween(earliest, today - 90);
  const open = situation === 'active';
  const last = open ? today : rng.dayBetween(Math.min(first + 60, today - 1), today - 1);

  // Split [first, last] into period, gap, period, ... with random weights; gaps shorter than periods.
  const weights: number[] = [];
  for (let i = 0; i < 2 * count - 1; i += 1) weights.push(i % 2 === 0 ? 1 + 2 * rng.next() : 0.3 + 1.2 * rng.next());
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const span = last - first;
  const periods: DayPeriod[] = [];
  let cursor = first;
  weights.forEach((weight, i) => {
    const next = i === weights.length - 1 ? last : cursor + Math.max(1, Math.round((span * weight) / total));
    if (i % 2 === 0 && next > cursor) periods.push({ start: cursor, end: next });
    cursor = Math.min(next, last);
  });
  if (periods.length === 0) periods.push({ start: first, end: last });
  const lastPeriod = periods[periods.length - 1];
  if (open && lastPeriod) lastPeriod.end = null;
  return periods;
}

/** Whole years of consultancy up to today (the source's `anos_atuacao`). */
export function yearsOfActivity(periods: readonly DayPeriod[], today: number): number {
  const days = periods.reduce((sum, period) => sum + (Math.min(period.end ?? today, today) - period.start), 0);
  return Math.floor(days / 365.25);
}

export function consultancyDocuments(rng: Random, profile: PersonProfile, periods: readonly DayPeriod[]): ConsultancyPeriod[] {
  const { area, secondaryArea } = profile;
  const knowledge = rng.sample(area.knowledgeAreas, rng.int(1, 3)).map((nome) => ({ nome, area: area.nome }));
  if (secondaryArea) knowledge.push({ nome: rng.pick(secondaryArea.knowledgeAreas), area: secondaryArea.nome });
  const lines = Array.from({ length: rng.int(1, 3) }, () => researchLine(rng, area));
  const assessmentAreas = secondaryArea && secondaryArea !== area ? [area.nome, secondaryArea.nome] : [area.nome];

  return periods.map((period, index) => {
    const isLast = index === periods.length - 1;
    const document: ConsultancyPeriod = {
      situacao: period.end === null ? 'Ativo' : isLast && profile.situation === 'deceased' ? 'Falecido' : 'Inativo',
      inicio: formatDay(period.start),
    };
    if (period.end !== null) document.fim = formatDay(period.end);
    else if (rng.chance(0.7)) document.fim = null;

    if (rng.chance(0.95)) {
      const spelling = institutionSpelling(rng, rng.chance(0.8) ? profile.institution : otherInstitution(rng));
      document.ies_nome = spelling.nome;
      document.ies_sigla = spelling.sigla;
    }
    document.areas_avaliacao = assessmentAreas.map((name) => sourceAreaText(rng, name));
    if (rng.chance(0.95)) {
      document.areas_conhecimento = knowledge.map(({ nome, area: assessment }): KnowledgeArea => ({
        nome: sourceAreaText(rng, nome),
        area_avaliacao: sourceAreaText(rng, assessment),
      }));
    }
    // Later periods sometimes add a research line (interests grow).
    if (index > 0 && rng.chance(0.3)) lines.push(researchLine(rng, area));
    if (rng.chance(0.9)) document.linhas_pesquisa = lines.map((line) => sourceAreaText(rng, line));
    return document;
  });
}

/** CA is the rarest role; adjunct (CAJ) and chamber (CAM) roles are the common ones. */
const COORDINATION_TYPES: ReadonlyArray<readonly [AgencyCoordinationType, number]> = [
  ['CAM', 37],
  ['CAJ', 35],
  ['CAJ_MP', 20],
  ['CA', 8],
];

/** Block A: terms of 2–4 years inside the consultancy; the last one may be current for an active person. */
export function agencyCoordinations(rng: Random, profile: PersonProfile, periods: readonly DayPeriod[]): AgencyCoordination[] {
  const firstPeriod = periods[0];
  const lastPeriod = periods[periods.length - 1];
  if (!firstPeriod || !lastPeriod || !rng.chance(profile.traits.agencyCoordinationChance)) return [];
  const { today } = profile;
  const latestEnd = lastPeriod.end ?? today;
  const terms: AgencyCoordination[] = [];
  let start = rng.dayBetween(firstPeriod.start, Math.max(firstPeriod.start, latestEnd - 2 * YEAR));
  for (let i = countIn(rng, profile.traits.agencyCoordinations); i > 0 && start < latestEnd - 90; i -= 1) {
    const tipo = rng.weighted(COORDINATION_TYPES);
    const plannedEnd = start + rng.int(2, 4) * YEAR;
    const current = plannedEnd >= today && lastPeriod.end === null;
    const end = current ? null : Math.min(plannedEnd, latestEnd);
    const term: AgencyCoordination = {
      tipo,
      area_avaliacao: profile.area.nome,
      inicio: formatDay(start),
      fim: end === null ? null : formatDay(end),
    };
    if (tipo === 'CAM') term.funcao = rng.chance(0.3) ? 'Presidente' : 'Membro';
    else if (rng.chance(0.5)) term.funcao = 'Coordenador';
    terms.push(term);
    if (end === null) break;
    start = end + rng.int(1, 2 * YEAR);
  }
  return terms;
}
