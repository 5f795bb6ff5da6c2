import type {
  Award,
  AwardRole,
  AwardType,
  CommitteeEvaluation,
  CommitteeEvaluationType,
  ExaminationBoard,
  FundingGrant,
  Inscription,
  Participation,
  Supervision,
  SupervisionLevel,
  SupervisionRole,
} from '../../domain/person-document';
import { countIn, type PersonProfile } from './person-profile';
import { type Random, formatDay, yearOf } from './random';
import { personName, programmeName, workTitle } from './texts';
import { AWARD_EVENTS, AWARD_NAMES, GRANT_MODALITIES, PARTICIPATION_TYPES, type AssessmentArea } from './vocabulary';

/** Blocks C (inscriptions, committee work, awards) and D (grants, participations, supervisions, boards). */

const YEAR = 365;

function careerYear(rng: Random, profile: PersonProfile): number {
  return rng.int(yearOf(profile.careerStartDay), yearOf(profile.today));
}

function areaPrize(area: AssessmentArea): string {
  return `${AWARD_NAMES.areaPrize} – ${area.nome}`;
}

function grandPrize(area: AssessmentArea): string {
  return `${AWARD_NAMES.grandPrize} ${area.colegio}`;
}

export function inscriptions(rng: Random, profile: PersonProfile): Inscription[] {
  if (!rng.chance(profile.traits.inscriptionChance)) return [];
  return Array.from({ length: rng.int(1, 3) }, () => ({
    tipo: rng.chance(0.7) ? 'INSC_AUTOR' : 'INSC_INST',
    premio: rng.chance(0.85) ? areaPrize(profile.area) : grandPrize(profile.area),
    ano: careerYear(rng, profile),
  }));
}

const COMMITTEE_TYPES: ReadonlyArray<readonly [CommitteeEvaluationType, number]> = [
  ['AVAL_COMIS_PREMIO', 60],
  ['COORD_COMIS_PREMIO', 18],
  ['AVAL_COMIS_GP', 15],
  ['COORD_COMIS_GP', 7],
];

export function committeeEvaluations(rng: Random, profile: PersonProfile): CommitteeEvaluation[] {
  if (!rng.chance(profile.traits.committeeChance)) return [];
  return Array.from({ length: rng.int(1, 4) }, () => {
    const tipo = rng.weighted(COMMITTEE_TYPES);
    return { tipo, premio: tipo.endsWith('_GP') ? grandPrize(profile.area) : areaPrize(profile.area), ano: careerYear(rng, profile) };
  });
}

const AWARD_TYPES: ReadonlyArray<readonly [AwardType, number]> = [
  ['PREMIACAO', 50],
  ['MENCAO', 40],
  ['PREMIACAO_GP', 10],
];
const AWARD_ROLES: ReadonlyArray<readonly [AwardRole, number]> = [
  ['Orientador', 45],
  ['Autor', 40],
  ['Coorientador', 15],
];
const AWARD_OUTCOME: Readonly<Record<AwardType, string>> = {
  PREMIACAO: 'Premiado',
  MENCAO: 'Menção Honrosa',
  PREMIACAO_GP: 'Grande Prêmio',
};

export function awards(rng: Random, profile: PersonProfile): Award[] {
  if (!rng.chance(profile.traits.awardChance)) return [];
  const { area, institution } = profile;
  return Array.from({ length: rng.int(1, 3) }, () => {
    const tipo = rng.weighted(AWARD_TYPES);
    const papel = rng.weighted(AWARD_ROLES);
    const award: Award = {
      tipo,
      papel,
      premio: tipo === 'PREMIACAO_GP' ? grandPrize(area) : rng.chance(0.85) ? areaPrize(area) : rng.pick(AWARD_NAMES.other),
      evento: rng.chance(0.7) ? rng.pick(AWARD_EVENTS) : null,
      premiacao: AWARD_OUTCOME[tipo],
      ano: careerYear(rng, profile),
      situacao: 'Homologado',
      produto_nome: workTitle(rng, area),
      produto_tipo: 'Tese',
      produto_autor: papel === 'Autor' ? null : personName(rng),
      ies_sigla: institution.sigla,
      programa: programmeName(rng.pick(area.knowledgeAreas)),
      area: area.nome,
    };
    return award;
  });
}

/** Career ladders: renewals move a grant holder up one level now and then. */
const LADDERS: Readonly<Record<string, readonly string[]>> = {
  PQ: ['PQ-2', 'PQ-1D', 'PQ-1C', 'PQ-1B', 'PQ-1A'],
  DT: ['DT-2', 'DT-1'],
};

/** Consecutive 3-year grant terms; the last may run past today (current grant). */
export function fundingGrants(rng: Random, profile: PersonProfile): FundingGrant[] {
  if (!rng.chance(profile.traits.grantChance)) return [];
  const first = rng.weighted(GRANT_MODALITIES);
  const ladder = LADDERS[first.slice(0, 2)] ?? [first];
  let level = Math.max(0, ladder.indexOf(first));
  let start = rng.dayBetween(profile.careerStartDay, profile.today - YEAR);
  const grants: FundingGrant[] = [];
  for (let terms = rng.int(1, 5); terms > 0 && start < profile.today; terms -= 1) {
    const modalidade = ladder[level] ?? first;
    const end = start + 3 * YEAR;
    grants.push({
      modalidade,
      nivel: modalidade.slice(3),
      inicio: formatDay(start),
      fim: end > profile.today && rng.chance(0.3) ? null : formatDay(end),
    });
    if (rng.chance(0.4)) level = Math.min(ladder.length - 1, level + 1);
    start = end + 1 + (rng.chance(0.3) ? rng.int(YEAR, 3 * YEAR) : 0);
  }
  return grants;
}

export function participations(rng: Random, profile: PersonProfile): Participation[] {
  return Array.from({ length: countIn(rng, profile.traits.participations) }, () => ({
    tipo: rng.pick(PARTICIPATION_TYPES),
    ano: careerYear(rng, profile),
  }));
}

const SUPERVISION_LEVELS: ReadonlyArray<readonly [SupervisionLevel, number]> = [
  ['Mestrado', 60],
  ['Doutorado', 32],
  ['Pós-Doutorado', 8],
];
const SUPERVISION_ROLES: ReadonlyArray<readonly [SupervisionRole, number]> = [
  ['Orientador', 85],
  ['Coorientador', 15],
];

export function supervisions(rng: Random, profile: PersonProfile): Supervision[] {
  const { area, institution, today } = profile;
  const thisYear = yearOf(today);
  return Array.from({ length: countIn(rng, profile.traits.supervisions) }, () => {
    const concluida = rng.chance(0.8);
    const supervision: Supervision = {
      tipo: concluida ? 'Orientação Concluída' : 'Orientação em Andamento',
      nivel: rng.weighted(SUPERVISION_LEVELS),
      papel: rng.weighted(SUPERVISION_ROLES),
      concluida,
      ano: concluida ? careerYear(rng, profile) : rng.int(Math.max(yearOf(profile.careerStartDay), thisYear - 3), thisYear),
      orientando: personName(rng),
    };
    if (rng.chance(0.7)) supervision.ies = institution.sigla;
    if (rng.chance(0.8)) supervision.titulo = workTitle(rng, area);
    if (rng.chance(0.5)) supervision.programa = programmeName(rng.pick(area.knowledgeAreas));
    return supervision;
  });
}

const BOARD_LEVELS: ReadonlyArray<readonly [ExaminationBoard['nivel'], number]> = [
  ['Mestrado', 50],
  ['Doutorado', 25],
  ['Graduação', 20],
  ['Pós-Doutorado', 5],
];

export function examinationBoards(rng: Random, profile: PersonProfile): ExaminationBoard[] {
  return Array.from({ length: countIn(rng, profile.traits.examinationBoards) }, () => ({
    nivel: rng.weighted(BOARD_LEVELS),
    ano: careerYear(rng, profile),
  }));
}
