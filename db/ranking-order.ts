/**
 * The ranking's order (docs/ranking-storage.md): total score descending, then blocks A, B, C, D, E
 * descending, then id_pessoa ascending, so ties are broken the same way on every run. Positions
 * number it; the filtered lists sort by it directly, through indexes that moving an entry does not
 * touch (migration 0025).
 */
const RANK_ORDER: ReadonlyArray<readonly [column: string, direction: 'ASC' | 'DESC']> = [
  ['pontuacao_total', 'DESC'],
  ['bloco_a', 'DESC'],
  ['bloco_b', 'DESC'],
  ['bloco_c', 'DESC'],
  ['bloco_d', 'DESC'],
  ['bloco_e', 'DESC'],
  ['id_pessoa', 'ASC'],
];

/**
 * An ORDER BY list of the ranking's order on columns of `alias` (none: unqualified). With `block`,
 * that block descending first and the ranking's order after it: best in the block first, ties as
 * ranked (the order of indexes `ranking_entries_bloco_*_ordem`).
 */
export function rankOrderBy(alias?: string, block?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const order = block ? [[block, 'DESC'] as const, ...RANK_ORDER.filter(([name]) => name !== block)] : RANK_ORDER;
  return order.map(([name, direction]) => `${column(name)} ${direction}`).join(', ');
}
