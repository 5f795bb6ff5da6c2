import { z } from 'zod';

/** The fields of a `/ranking/paginado` response before its list (specification: total after filters, page, size, total_pages). */
export const rankingPageFieldsSchema = z.object({
  total: z.number().int().min(0).meta({ description: 'Entries matching the filters' }),
  page: z.number().int().min(1),
  size: z.number().int().min(1),
  total_pages: z.number().int().min(0).meta({ description: 'ceil(total / size)' }),
});
export type RankingPageFields = z.infer<typeof rankingPageFieldsSchema>;

export function rankingPageFields(total: number, page: number, size: number): RankingPageFields {
  return { total, page, size, total_pages: Math.ceil(total / size) };
}
