import { z } from 'zod';

/** The query of the statistics routes (docs/statistics.md): `days`, a whole number of UTC days up to today. */

export const STATS_DAYS = { min: 1, max: 365, chartsDefault: 7, costsDefault: 30 } as const;

const daysIn = (fallback: number) =>
  z
    .string({ error: 'Informe uma única vez, como texto' })
    .regex(/^\d+$/, 'Deve ser um número inteiro')
    .transform(Number)
    .pipe(z.number().int().min(STATS_DAYS.min).max(STATS_DAYS.max))
    .optional()
    .transform((value) => value ?? fallback);

const daysDescription = (fallback: number) => `Dias UTC até hoje, ${STATS_DAYS.min} a ${STATS_DAYS.max} (padrão ${fallback})`;
export const chartsQuery = z.strictObject({
  days: daysIn(STATS_DAYS.chartsDefault).meta({ description: daysDescription(STATS_DAYS.chartsDefault) }),
});
export const costsQuery = z.strictObject({
  days: daysIn(STATS_DAYS.costsDefault).meta({ description: daysDescription(STATS_DAYS.costsDefault) }),
});
