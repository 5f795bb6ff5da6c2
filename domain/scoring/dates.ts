/**
 * The small readers of the scoring: dates, periods and years, and (at the end) the guards that read
 * dirty documents.
 *
 * Dates are day numbers: whole days since 1970-01-01 in the proleptic Gregorian
 * calendar, with no time of day and no time zone. A date that cannot be read is `NaN`; callers skip it.
 *
 * Only the exact form `YYYY-MM-DD` is a date (years 1900..9999, a real day of a real month). No
 * `new Date(string)`: it accepts many other forms and reads some of them in the local time zone.
 */

import { SCORING } from './parameters';

/** Days since 1970-01-01; `NaN` when unknown. */
export type Day = number;

const MIN_YEAR = 1900;
const DASH = 45;
const ZERO = 48;

/** Value of `length` decimal digits of `text` from `start`, or -1 when one is not a digit. */
function digitsAt(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Day number of a valid civil date (H. Hinnant's `days_from_civil`). */
export function dayFromCivil(year: number, month: number, day: number): Day {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const shiftedMonth = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The civil date of a day number packed as `year * 10000 + month * 100 + day` (no allocation). */
function packedCivil(dayNumber: Day): number {
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return year * 10_000 + month * 100 + day;
}

/** Reads a strict `YYYY-MM-DD`; anything else (other types, other forms, 2023-02-30, years < 1900) is `NaN`. */
export function parseDay(value: unknown): Day {
  if (typeof value !== 'string' || value.length !== 10) return NaN;
  if (value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH) return NaN;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  if (year < MIN_YEAR || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NaN;
  return dayFromCivil(year, month, day);
}

/**
 * Reads the reference date of a scoring call. Unlike document dates, a bad reference date is a bug
 * of the caller, not dirty data: it throws.
 */
export function parseReferenceDate(referenceDate: string): Day {
  const day = parseDay(referenceDate);
  if (Number.isNaN(day)) throw new RangeError(`referenceDate must be a date YYYY-MM-DD, got ${JSON.stringify(referenceDate)}`);
  return day;
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(dayNumber: Day): string {
  const packed = packedCivil(dayNumber);
  const year = Math.floor(packed / 10_000);
  const monthDay = packed % 10_000;
  const month = Math.floor(monthDay / 100);
  const day = monthDay % 100;
  return `${year}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/**
 * The reference date of a run that starts at `instant`: its calendar date in UTC. The ranking job
 * computes it once at the start of a run and passes the string to every batch.
 */
export function referenceDateOf(instant: Date): string {
  return formatDay(Math.floor(instant.getTime() / 86_400_000));
}

export function yearOfDay(dayNumber: Day): number {
  return Math.floor(packedCivil(dayNumber) / 10_000);
}

/** The same calendar day `years` later; 29 February becomes 28 February in a common year. */
export function addYears(dayNumber: Day, years: number): Day {
  const packed = packedCivil(dayNumber);
  const year = Math.floor(packed / 10_000) + years;
  const month = Math.floor((packed % 10_000) / 100);
  const day = packed % 100;
  return dayFromCivil(year, month, month === 2 && day === 29 && !isLeapYear(year) ? 28 : day);
}

/** Whole years from `start` to `end` (anniversaries of `start` reached on or before `end`); 0 when end <= start. */
export function wholeYearsBetween(start: Day, end: Day): number {
  if (!(end > start)) return 0;
  const years = yearOfDay(end) - yearOfDay(start);
  return addYears(start, years) > end ? years - 1 : years;
}

/**
 * Years from `start` to `end` with a fraction: whole years, plus the elapsed part of the year that
 * runs from the last anniversary to the next one. Exactly 3.0 on the third anniversary, whatever the
 * leap days in between. 0 when end <= start.
 */
export function yearsBetween(start: Day, end: Day): number {
  const whole = wholeYearsBetween(start, end);
  if (whole === 0 && !(end > start)) return 0;
  const from = addYears(start, whole);
  const to = addYears(start, whole + 1);
  return whole + (end - from) / (to - from);
}

/**
 * A span of days: `start` included, `end` excluded. `end` never passes the reference day: an open
 * period (or one ending on or after the reference day) runs up to the reference day and is current.
 */
export interface Period {
  start: Day;
  end: Day;
  current: boolean;
}

/**
 * Reads `inicio`/`fim` as a period seen at the reference day `ref`. `fim` is the last day in the role
 * (included); an absent, null or empty `fim` means still open. `null` when the period cannot be used:
 * `inicio` unreadable or after the reference day, `fim` present but unreadable, or `fim` before `inicio`.
 */
export function readPeriod(inicio: unknown, fim: unknown, ref: Day): Period | null {
  const start = parseDay(inicio);
  if (Number.isNaN(start) || start > ref) return null;
  if (fim === null || fim === undefined || fim === '') return { start, end: ref, current: true };
  const last = parseDay(fim);
  if (Number.isNaN(last) || last < start) return null;
  if (last >= ref) return { start, end: ref, current: true };
  return { start, end: last + 1, current: false };
}

/** `2020-03-01 a 2022-02-28`, or `2020-03-01 a atual` for a current period: for explanations. */
export function describePeriod(period: Period): string {
  return `${formatDay(period.start)} a ${period.current ? 'atual' : formatDay(period.end - 1)}`;
}

/**
 * True when a period starting at `start` is a return after one that ended at `previousEnd`
 * (excluded): the interruption lasted at least `SCORING.gapYears` years.
 */
export function isReturnAfter(previousEnd: Day, start: Day): boolean {
  return start >= addYears(previousEnd, SCORING.gapYears);
}

/** Orders periods by start, then by end. */
export function byStart(a: Period, b: Period): number {
  return a.start - b.start || a.end - b.end;
}

/**
 * Merges periods into disjoint spans, in order of start. With `joinAcrossShortGaps` false only
 * overlapping or touching periods merge (the union of the days); with true, periods separated by an
 * interruption shorter than a return (see `isReturnAfter`) merge too. A merged span is current when
 * one of its periods is. The input is not modified.
 */
export function mergePeriods(periods: readonly Period[], joinAcrossShortGaps: boolean): Period[] {
  const sorted = periods.slice().sort(byStart);
  const merged: Period[] = [];
  let last: Period | undefined;
  for (const period of sorted) {
    if (last && (period.start <= last.end || (joinAcrossShortGaps && !isReturnAfter(last.end, period.start)))) {
      if (period.end > last.end) last.end = period.end;
      if (period.current) last.current = true;
    } else {
      last = { start: period.start, end: period.end, current: period.current };
      merged.push(last);
    }
  }
  return merged;
}

/** Total years covered by the union of the periods (overlaps counted once). */
export function unionYears(periods: readonly Period[]): number {
  let years = 0;
  for (const span of mergePeriods(periods, false)) years += yearsBetween(span.start, span.end);
  return years;
}

/** Years as shown to people: truncated to 1 decimal, so 2.99 shows as 2.9, never as a 3 not reached. */
export function truncateYears(years: number): number {
  return Math.floor(years * 10 + 1e-7) / 10;
}

/**
 * Reads a year: an integer number, or a string of exactly four digits, from 1900 to `maxYear`.
 * `NaN` otherwise (absent, `"s/d"`, a future year).
 */
export function parseYear(value: unknown, maxYear: number): number {
  let year: number;
  if (typeof value === 'number') year = value;
  else if (typeof value === 'string' && value.length === 4) year = digitsAt(value, 0, 4);
  else return NaN;
  return Number.isInteger(year) && year >= MIN_YEAR && year <= maxYear ? year : NaN;
}

// Reading dirty documents: lists may be absent or not lists, items may be null or not objects.

const NO_ITEMS: readonly unknown[] = Object.freeze([]);

/** The list itself when it is an array, else an empty list. */
export function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : NO_ITEMS;
}

/** True for a non-null, non-array object whose fields can be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A trimmed string, or '' for anything that is not a string. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}
