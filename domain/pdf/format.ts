/** Numbers and flags as the sheets print them (Brazilian Portuguese). */

const SCORE = new Intl.NumberFormat('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const INTEGER = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 0 });
const YEARS = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 });

/** `1234.5` → `1.234,50` */
export function formatScore(value: number): string {
  return SCORE.format(value);
}

/** `300000` → `300.000` */
export function formatInteger(value: number): string {
  return INTEGER.format(value);
}

/** `12.25` → `12,3` */
export function formatYears(value: number): string {
  return YEARS.format(value);
}

export function yesNo(value: boolean): string {
  return value ? 'Sim' : 'Não';
}
