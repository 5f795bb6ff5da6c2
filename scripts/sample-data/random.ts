/**
 * A small seeded PRNG (mulberry32) with the helpers the sample-data generator needs.
 * Every person gets its own generator derived from (seed, id_pessoa), so a document depends on
 * nothing else: any id range can be regenerated alone, in any order, in parallel.
 */

const DAY_MS = 86_400_000;

/** Finaliser of MurmurHash3: spreads every input bit over the whole 32-bit word. */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** 32-bit state of one person's generator: neighbouring ids and seeds give unrelated streams. */
export function personSeed(seed: number, idPessoa: number): number {
  return mix32(mix32(seed ^ 0x9e3779b9) ^ Math.imul(idPessoa >>> 0, 0x27d4eb2d) ^ Math.floor(idPessoa / 2 ** 32));
}

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks a value with probability proportional to its weight. */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, weight] of entries) total += weight;
    let target = this.next() * total;
    for (const [value, weight] of entries) {
      target -= weight;
      if (target < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('weighted pick from an empty list');
    return last[0];
  }

  /** Up to `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = items.slice();
    const taken: T[] = [];
    while (taken.length < count && pool.length > 0) {
      taken.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0] as T);
    }
    return taken;
  }

  /** A day number (days since 1970-01-01, UTC) in [fromDay, toDay]. */
  dayBetween(fromDay: number, toDay: number): number {
    return this.int(fromDay, Math.max(fromDay, toDay));
  }

  /** A `YYYY-MM-DD` date between two dates (inclusive). */
  dateBetween(from: Date, to: Date): string {
    return formatDay(this.dayBetween(dayOf(from), dayOf(to)));
  }
}

/** Day number (days since 1970-01-01) of a date, UTC. */
export function dayOf(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

/**
 * Year, month, day of a day number, by arithmetic (H. Hinnant's civil_from_days): a document has
 * dozens of dates and going through `Date` objects was the generator's hottest spot.
 */
function civilFromDays(day: number): [year: number, month: number, dayOfMonth: number] {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth];
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  const [year, month, dayOfMonth] = civilFromDays(day);
  return `${year}-${month < 10 ? '0' : ''}${month}-${dayOfMonth < 10 ? '0' : ''}${dayOfMonth}`;
}

/** Calendar year of a day number. */
export function yearOf(day: number): number {
  return civilFromDays(day)[0];
}

/** Day number of 1 January of a year. */
export function dayOfYearStart(year: number): number {
  return Date.UTC(year, 0, 1) / DAY_MS;
}
