/**
 * The day the dashboard counts by (costs.today, the statistics) and the daily budgets reset at: a UTC
 * day, [00:00 UTC, the next 00:00 UTC).
 */
export function utcDay(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { start, end: new Date(start.getTime() + 24 * 60 * 60 * 1000) };
}
