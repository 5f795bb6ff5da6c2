import { z } from 'zod';

/** GET /notifications: the contract's list is the newest 50 (admin-panel.md 3.10); `page` and `pageSize` are our addition. */
export const NOTIFICATIONS_PAGE_SIZE = { min: 1, max: 100, default: 50 } as const;

/** A query value given once, as in the history's query (executions-input.ts). */
const integerIn = (min: number, max: number, fallback: number) =>
  z
    .string({ error: 'Informe uma única vez, como texto' })
    .regex(/^\d+$/, 'Deve ser um número inteiro')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((value) => value ?? fallback);

export const notificationsQuery = z.strictObject({
  page: integerIn(1, 1_000_000, 1).meta({ description: 'A página, a partir de 1 (padrão 1)' }),
  pageSize: integerIn(NOTIFICATIONS_PAGE_SIZE.min, NOTIFICATIONS_PAGE_SIZE.max, NOTIFICATIONS_PAGE_SIZE.default).meta({
    description: `Notificações por página, ${NOTIFICATIONS_PAGE_SIZE.min} a ${NOTIFICATIONS_PAGE_SIZE.max} (padrão ${NOTIFICATIONS_PAGE_SIZE.default})`,
  }),
});
