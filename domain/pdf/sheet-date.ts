/**
 * The date a sheet carries, in the service's time zone (RANKING_SCHEDULE_TIMEZONE, the zone of the
 * users and of the daily run): a sheet made at 22:00 in São Paulo on the 14th is dated the 14th,
 * although it is already the 15th in UTC (docs/pdf.md).
 */

export interface SheetDate {
  /** `YYYYMMDD`, for the file name. */
  day: string;
  /** `DD/MM/YYYY HH:MM`, printed on the sheet. */
  printed: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar date and time of `instant` in `timeZone` (an IANA name, validated by the config). */
export function sheetDate(instant: Date, timeZone: string): SheetDate {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  const { year, month, day, hour, minute } = parts;
  return { day: `${year}${month}${day}`, printed: `${day}/${month}/${year} ${hour}:${minute}` };
}
