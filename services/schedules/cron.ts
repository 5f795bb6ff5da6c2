import { CronExpressionParser } from 'cron-parser';
import { InvalidInputError } from '../errors';

/**
 * The cron expressions a schedule accepts (contract 3.5; docs/tasks-schedules.md, "Cron"): five fields
 * (minute hour day-of-month month day-of-week), numbers, `*`, ranges, lists, steps and three-letter
 * names, the subset both cron-parser and Temporal's Schedule spec read alike (no seconds field, no `L`,
 * `#`, `?` or `@` macros). Checked before anything is stored.
 */

/** The contract's minimum interval: nothing may fire more often than every 5 minutes. */
export const MIN_INTERVAL_MINUTES = 5;
export const CRON_EXPRESSION_MAX = 100;

const ATOM = String.raw`(?:\*|\d{1,2}|[A-Za-z]{3})`;
const FIELD = new RegExp(String.raw`^${ATOM}(?:-${ATOM})?(?:/\d{1,2})?(?:,${ATOM}(?:-${ATOM})?(?:/\d{1,2})?)*$`);

/** The expression with single spaces; InvalidInputError when it is not a valid cron or fires too often. */
export function validCronExpression(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  const normalised = fields.join(' ');
  if (fields.length !== 5 || !fields.every((field) => FIELD.test(field))) {
    throw new InvalidInputError(`Expressão cron inválida: "${expression}" (cinco campos: minuto hora dia mês dia-da-semana)`);
  }
  let minutes: readonly number[];
  let hours: readonly number[];
  try {
    const parsed = CronExpressionParser.parse(normalised, { strict: false });
    minutes = parsed.fields.minute.values;
    hours = parsed.fields.hour.values;
  } catch (error) {
    // The parser's own words (which field, which range), marked as its own (docs/errors.md).
    const words = error instanceof Error ? error.message : String(error);
    throw new InvalidInputError(`Expressão cron inválida: "${expression}"; o analisador diz: ${words}`);
  }
  const gap = shortestGapMinutes(minutes, hours);
  if (gap < MIN_INTERVAL_MINUTES) {
    throw new InvalidInputError(
      `A expressão cron ${normalised} dispara a cada ${gap} minuto${gap === 1 ? '' : 's'}: o intervalo mínimo é de ${MIN_INTERVAL_MINUTES} minutos`,
    );
  }
  return normalised;
}

/**
 * The shortest time between two firings: between two minutes of the same hour, or from the last
 * minute of an hour to the first of the next when two consecutive hours both fire (23 → 0 counts:
 * the days are not looked at, which can only make the check stricter).
 */
export function shortestGapMinutes(minutes: readonly number[], hours: readonly number[]): number {
  const sorted = [...minutes].sort((a, b) => a - b);
  let gap = Infinity;
  for (let index = 1; index < sorted.length; index++) gap = Math.min(gap, sorted[index]! - sorted[index - 1]!);
  const hourSet = new Set(hours);
  const consecutiveHours = hours.some((hour) => hourSet.has((hour + 1) % 24));
  if (consecutiveHours && sorted.length > 0) gap = Math.min(gap, 60 - sorted[sorted.length - 1]! + sorted[0]!);
  return gap;
}
