import { type Random, dayOfYearStart, yearOf } from './random';
import { ASSESSMENT_AREAS, INSTITUTIONS, type AssessmentArea, type Institution } from './vocabulary';

/**
 * How much a person has done. The shares make the ranking skewed like the real one: most persons
 * score little, few score a lot.
 */
export type Tier = 'minimal' | 'middling' | 'strong' | 'veryStrong';

export const TIER_SHARES: ReadonlyArray<readonly [Tier, number]> = [
  ['minimal', 55],
  ['middling', 25],
  ['strong', 15],
  ['veryStrong', 5],
];

type Range = readonly [min: number, max: number];

/** Per tier: chances of having each kind of activity, and ranges of counts. */
export interface TierTraits {
  ages: Range;
  activeChance: number;
  consultancyPeriods: { active: Range; inactive: Range };
  agencyCoordinationChance: number;
  agencyCoordinations: Range;
  inscriptionChance: number;
  committeeChance: number;
  awardChance: number;
  grantChance: number;
  participations: Range;
  supervisions: Range;
  examinationBoards: Range;
  teachingChance: number;
  teachings: Range;
  ppgCoordinationChance: number;
  projects: Range;
  employments: Range;
  doctorateChance: number;
  postdocChance: number;
}

export const TIER_TRAITS: Readonly<Record<Tier, TierTraits>> = {
  minimal: {
    ages: [28, 72],
    activeChance: 0.6,
    consultancyPeriods: { active: [1, 1], inactive: [0, 1] },
    agencyCoordinationChance: 0,
    agencyCoordinations: [0, 0],
    inscriptionChance: 0.03,
    committeeChance: 0.01,
    awardChance: 0.01,
    grantChance: 0.02,
    participations: [0, 1],
    supervisions: [0, 2],
    examinationBoards: [0, 3],
    teachingChance: 0.25,
    teachings: [1, 1],
    ppgCoordinationChance: 0.01,
    projects: [0, 1],
    employments: [0, 1],
    doctorateChance: 0.7,
    postdocChance: 0.05,
  },
  middling: {
    ages: [32, 75],
    activeChance: 0.68,
    consultancyPeriods: { active: [1, 2], inactive: [1, 2] },
    agencyCoordinationChance: 0.01,
    agencyCoordinations: [1, 1],
    inscriptionChance: 0.15,
    committeeChance: 0.08,
    awardChance: 0.05,
    grantChance: 0.12,
    participations: [0, 4],
    supervisions: [1, 5],
    examinationBoards: [1, 8],
    teachingChance: 0.6,
    teachings: [1, 1],
    ppgCoordinationChance: 0.05,
    projects: [0, 2],
    employments: [1, 2],
    doctorateChance: 0.92,
    postdocChance: 0.2,
  },
  strong: {
    ages: [38, 78],
    activeChance: 0.72,
    consultancyPeriods: { active: [1, 3], inactive: [1, 3] },
    agencyCoordinationChance: 0.08,
    agencyCoordinations: [1, 2],
    inscriptionChance: 0.4,
    committeeChance: 0.3,
    awardChance: 0.25,
    grantChance: 0.5,
    participations: [2, 10],
    supervisions: [4, 12],
    examinationBoards: [5, 20],
    teachingChance: 1,
    teachings: [1, 2],
    ppgCoordinationChance: 0.2,
    projects: [1, 4],
    employments: [1, 2],
    doctorateChance: 0.99,
    postdocChance: 0.45,
  },
  veryStrong: {
    ages: [45, 80],
    activeChance: 0.8,
    consultancyPeriods: { active: [2, 4], inactive: [1, 4] },
    agencyCoordinationChance: 0.7,
    agencyCoordinations: [1, 3],
    inscriptionChance: 0.7,
    committeeChance: 0.7,
    awardChance: 0.6,
    grantChance: 0.9,
    participations: [5, 20],
    supervisions: [10, 30],
    examinationBoards: [15, 40],
    teachingChance: 1,
    teachings: [1, 2],
    ppgCoordinationChance: 0.6,
    projects: [3, 8],
    employments: [1, 3],
    doctorateChance: 1,
    postdocChance: 0.7,
  },
};

/** Share of inactive persons (with a consultancy) who are deceased: rare, as in the source. */
const DECEASED_SHARE_OF_INACTIVE = 0.02;

export type Situation = 'active' | 'inactive' | 'deceased';

/** What the sections of one document share, so they agree with each other. */
export interface PersonProfile {
  tier: Tier;
  traits: TierTraits;
  situation: Situation;
  area: AssessmentArea;
  secondaryArea: AssessmentArea | null;
  institution: Institution;
  /** Day numbers (days since 1970-01-01). */
  today: number;
  birthDay: number;
  /** Calendar years of the degrees (null: degree not obtained). */
  graduationYear: number;
  masterYear: number | null;
  doctorateYear: number | null;
  postdocYear: number | null;
  /** First day the person could act as a consultant or supervisor (end of the highest degree). */
  careerStartDay: number;
}

const AREA_WEIGHTS = ASSESSMENT_AREAS.map((area) => [area, area.weight] as const);

export function personProfile(rng: Random, today: number): PersonProfile {
  const tier = rng.weighted(TIER_SHARES);
  const traits = TIER_TRAITS[tier];
  const area = rng.weighted(AREA_WEIGHTS);
  const secondaryArea = rng.chance(0.2) ? rng.weighted(AREA_WEIGHTS) : null;

  const todayYear = yearOf(today);
  const age = rng.int(traits.ages[0], traits.ages[1]);
  const birthDay = dayOfYearStart(todayYear - age) + rng.int(0, 364);
  const birthYear = todayYear - age;

  // Degrees in sequence; each capped at this year so nobody graduates in the future.
  const graduationYear = Math.min(todayYear, birthYear + rng.int(21, 25));
  const hasMaster = rng.chance(0.95);
  const masterYear = hasMaster ? Math.min(todayYear, graduationYear + rng.int(2, 5)) : null;
  const hasDoctorate = hasMaster && rng.chance(traits.doctorateChance);
  const doctorateYear = hasDoctorate && masterYear !== null ? Math.min(todayYear, masterYear + rng.int(4, 7)) : null;
  const postdocYear =
    doctorateYear !== null && rng.chance(traits.postdocChance) ? Math.min(todayYear, doctorateYear + rng.int(1, 3)) : null;
  const highestYear = postdocYear ?? doctorateYear ?? masterYear ?? graduationYear;
  const careerStartDay = Math.min(today - 365, dayOfYearStart(highestYear) + rng.int(0, 364));

  const active = rng.chance(traits.activeChance);
  const situation: Situation = active ? 'active' : rng.chance(DECEASED_SHARE_OF_INACTIVE * (age > 60 ? 2 : 0.5)) ? 'deceased' : 'inactive';

  return {
    tier,
    traits,
    situation,
    area,
    secondaryArea,
    institution: rng.pick(INSTITUTIONS),
    today,
    birthDay,
    graduationYear,
    masterYear,
    doctorateYear,
    postdocYear,
    careerStartDay,
  };
}

/** A count in a tier's range. */
export function countIn(rng: Random, range: Range): number {
  return rng.int(range[0], range[1]);
}
