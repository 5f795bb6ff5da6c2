/**
 * Every number of the five-block score, in one table: a change of weights is one edit here.
 * docs/scoring.md explains each formula with these values; the tests pin the results.
 *
 * The file also holds the shape of a block result and the two rules every block applies with
 * these numbers (rounding and caps), so that no block rounds or caps on its own.
 */

import { z } from 'zod';
import type { AgencyCoordinationType } from '../person-document';

/** One line of the explanation of a block: where `pontos` came from. A cap is a negative line. */
export const scoreItemSchema = z
  .object({
    codigo: z.string().meta({ description: 'What the line counts (`CA`, `CONS_ATIVO`, `RETORNO`, ...; a cap has its own code)' }),
    descricao: z.string(),
    pontos: z.number().meta({ description: 'Points, 2 decimals; negative for a cap' }),
  })
  .meta({ id: 'ScoreItem' });
export type ScoreItem = z.infer<typeof scoreItemSchema>;

/** A block's points and their explanation; `pontos` is always the sum of the items' `pontos`. */
export const blockScoreSchema = z
  .object({ pontos: z.number().meta({ description: "The block's points: the sum of the items'" }), itens: z.array(scoreItemSchema) })
  .meta({ id: 'BlockScore' });
export type BlockScore = z.infer<typeof blockScoreSchema>;

/** Points of one grant modality while current; a finished grant is worth `pastFactor` of it. */
type GrantTable = Readonly<Record<string, number>>;

export interface ScoringParameters {
  /** Stored in each breakdown, so a stored score says which weights produced it. */
  readonly version: string;
  /** Decimals of every item, block and total (half away from zero). */
  readonly decimals: number;
  /**
   * Minimum interruption that makes a later period a return (blocks A and B) and that keeps two
   * terms of the same PPG apart (block E): the later period starts on or after the anniversary,
   * `gapYears` later, of the day after the earlier one ended.
   */
  readonly gapYears: number;

  readonly blockA: {
    readonly cap: number;
    readonly maxByType: Readonly<Record<AgencyCoordinationType, number>>;
    /** Shares of the type's maximum. base + perYear × maxYears + currency + return = 1. */
    readonly baseShare: number;
    readonly perYearShare: number;
    readonly maxYears: number;
    readonly currencyShare: number;
    readonly returnShare: number;
    /** Each coordination other than the best adds this fraction of its own points. */
    readonly othersFactor: number;
  };

  readonly blockB: {
    readonly cap: number;
    readonly base: { readonly CONS_ATIVO: number; readonly CONS_HIST: number; readonly CONS_FALECIDO: number };
    /** Highest threshold reached wins (not cumulative), in descending order of years. */
    readonly continuity: ReadonlyArray<{ readonly years: number; readonly points: number; readonly code: string }>;
    readonly returnBonus: number;
  };

  readonly blockC: {
    readonly cap: number;
    readonly inscriptions: { readonly cap: number; readonly INSC_AUTOR: number; readonly INSC_INST: number };
    readonly committees: {
      readonly cap: number;
      readonly AVAL_COMIS_PREMIO: number;
      readonly AVAL_COMIS_GP: number;
      readonly COORD_COMIS_PREMIO: number;
      readonly COORD_COMIS_GP: number;
    };
    readonly awards: {
      readonly cap: number;
      readonly PREMIACAO_GP: number;
      readonly PREMIACAO: number;
      readonly MENCAO: number;
      /** Factor of a co-supervisor's award (author and supervisor count in full). */
      readonly coSupervisorFactor: number;
    };
  };

  readonly blockD: {
    readonly cap: number;
    readonly grants: {
      readonly cap: number;
      readonly byModality: GrantTable;
      /** A PQ-* or DT-* modality not in the table is worth its family's value. */
      readonly pqDefault: number;
      readonly dtDefault: number;
      readonly other: number;
      readonly pastFactor: number;
    };
    readonly participations: { readonly cap: number; readonly each: number };
    readonly supervisions: {
      readonly cap: number;
      /** A concluded supervision as main supervisor, by level. */
      readonly POSDOC: number;
      readonly DOUT: number;
      readonly MEST: number;
      readonly coSupervisorFactor: number;
      readonly ongoingFactor: number;
    };
    readonly boards: {
      readonly cap: number;
      readonly POSDOC: number;
      readonly DOUT: number;
      readonly MEST: number;
      readonly GRAD: number;
    };
  };

  readonly blockE: {
    readonly cap: number;
    readonly base: number;
    readonly perYear: number;
    readonly maxYears: number;
    readonly currency: number;
  };
}

export const SCORING = {
  version: '5-blocos-v1',
  decimals: 2,
  gapYears: 1,

  blockA: {
    cap: 500,
    maxByType: { CA: 450, CAJ: 370, CAJ_MP: 315, CAM: 280 },
    baseShare: 0.6,
    perYearShare: 0.05,
    maxYears: 4,
    currencyShare: 0.1,
    returnShare: 0.1,
    othersFactor: 0.1,
  },

  blockB: {
    cap: 180,
    base: { CONS_ATIVO: 150, CONS_HIST: 100, CONS_FALECIDO: 100 },
    continuity: [
      { years: 8, points: 15, code: 'CONT_8_ANOS' },
      { years: 5, points: 10, code: 'CONT_5_ANOS' },
      { years: 3, points: 5, code: 'CONT_3_ANOS' },
    ],
    returnBonus: 15,
  },

  blockC: {
    cap: 200,
    inscriptions: { cap: 30, INSC_AUTOR: 5, INSC_INST: 3 },
    committees: { cap: 90, AVAL_COMIS_PREMIO: 10, AVAL_COMIS_GP: 15, COORD_COMIS_PREMIO: 20, COORD_COMIS_GP: 30 },
    awards: { cap: 150, PREMIACAO_GP: 60, PREMIACAO: 40, MENCAO: 20, coSupervisorFactor: 0.5 },
  },

  blockD: {
    cap: 200,
    grants: {
      cap: 80,
      byModality: {
        'PQ-SR': 50,
        'PQ-1A': 50,
        'PQ-1B': 45,
        'PQ-1C': 40,
        'PQ-1D': 35,
        'PQ-1': 35,
        'PQ-2': 30,
        'DT-1A': 40,
        'DT-1B': 36,
        'DT-1C': 32,
        'DT-1D': 28,
        'DT-1': 28,
        'DT-2': 24,
      },
      pqDefault: 30,
      dtDefault: 24,
      other: 10,
      pastFactor: 0.5,
    },
    participations: { cap: 20, each: 2 },
    supervisions: { cap: 80, POSDOC: 6, DOUT: 8, MEST: 4, coSupervisorFactor: 0.5, ongoingFactor: 0.5 },
    boards: { cap: 30, POSDOC: 3, DOUT: 3, MEST: 2, GRAD: 1 },
  },

  blockE: {
    cap: 150,
    base: 40,
    perYear: 10,
    maxYears: 4,
    currency: 20,
  },
} as const satisfies ScoringParameters;

const SCALE = 10 ** SCORING.decimals;

/**
 * Rounds to `SCORING.decimals` decimals, half away from zero (2.345 → 2.35, -2.345 → -2.35).
 * The tiny offset absorbs binary noise (1.005 is stored as 1.00499…); non-finite values give 0.
 */
export function roundPoints(value: number): number {
  if (!Number.isFinite(value)) return 0;
  const rounded = Math.round(Math.abs(value) * SCALE + 1e-7) / SCALE;
  return value < 0 && rounded !== 0 ? -rounded : rounded;
}

/** Sum of the items' points from index `from` on, rounded. */
export function sumItems(items: readonly ScoreItem[], from = 0): number {
  let sum = 0;
  for (let i = from; i < items.length; i++) sum += (items[i] as ScoreItem).pontos;
  return roundPoints(sum);
}

/**
 * Applies a cap to the items from index `from` on: when they add up to more than `cap`, appends a
 * negative item `codigo` that brings them down to exactly `cap`.
 */
export function capItems(items: ScoreItem[], from: number, cap: number, codigo: string, descricao: string): void {
  const sum = sumItems(items, from);
  if (sum > cap) items.push({ codigo, descricao: `${descricao} (${sum} → ${cap})`, pontos: roundPoints(cap - sum) });
}

/** Closes a block: applies the block cap (item `TETO_BLOCO`) and sums the items. */
export function closeBlock(items: ScoreItem[], cap: number, blockName: string): BlockScore {
  capItems(items, 0, cap, 'TETO_BLOCO', `Teto do bloco ${blockName}: ${cap}`);
  return { pontos: sumItems(items), itens: items };
}
