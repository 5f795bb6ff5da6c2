/** The fields of a `/ranking/paginado` response before its list (specification: total after filters, page, size, total_pages). */
export interface RankingPageFields {
  total: number;
  page: number;
  size: number;
  total_pages: number;
}

export function rankingPageFields(total: number, page: number, size: number): RankingPageFields {
  return { total, page, size, total_pages: Math.ceil(total / size) };
}
