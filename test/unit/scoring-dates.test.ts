import {
  addYears,
  dayFromCivil,
  describePeriod,
  formatDay,
  isReturnAfter,
  mergePeriods,
  parseDay,
  parseReferenceDate,
  parseYear,
  readPeriod,
  referenceDateOf,
  truncateYears,
  unionYears,
  wholeYearsBetween,
  yearOfDay,
  yearsBetween,
  type Period,
} from '../../domain/scoring/dates';
import { capItems, closeBlock, roundPoints, type ScoreItem } from '../../domain/scoring/parameters';

const d = (text: string): number => {
  const day = parseDay(text);
  if (Number.isNaN(day)) throw new Error(`bad test date ${text}`);
  return day;
};

describe('parseDay (strict YYYY-MM-DD)', () => {
  it('reads real dates as days since 1970-01-01', () => {
    expect(parseDay('1970-01-01')).toBe(0);
    expect(parseDay('1970-01-02')).toBe(1);
    expect(parseDay('2000-03-01')).toBe(11_017);
    expect(parseDay('2024-02-29')).toBe(parseDay('2024-02-28') + 1);
    expect(parseDay('1900-01-01')).toBe(dayFromCivil(1900, 1, 1));
  });

  it.each([
    ['2023-02-29'], // not a leap year
    ['2024-04-31'],
    ['2024-13-01'],
    ['2024-00-10'],
    ['2024-01-00'],
    ['2024-1-01'],
    ['2024/01/01'],
    ['2024-01-01T00:00:00Z'],
    [' 2024-01-01'],
    ['1899-12-31'],
    ['0000-01-01'],
    ['abcd-ef-gh'],
    [''],
  ])('rejects %j', (text) => {
    expect(parseDay(text)).toBeNaN();
  });

  it('rejects values that are not strings', () => {
    for (const value of [null, undefined, 20240101, new Date(), {}, ['2024-01-01']]) expect(parseDay(value)).toBeNaN();
  });

  it('formats back to the same text', () => {
    for (const text of ['1900-01-01', '1970-01-01', '1999-12-31', '2000-02-29', '2024-02-29', '2100-03-01', '9999-12-31']) {
      expect(formatDay(d(text))).toBe(text);
    }
  });

  it('a bad reference date is a caller bug: it throws', () => {
    expect(parseReferenceDate('2024-06-01')).toBe(d('2024-06-01'));
    expect(() => parseReferenceDate('2024-06-31')).toThrow(RangeError);
    expect(() => parseReferenceDate('01/06/2024')).toThrow('referenceDate must be a date YYYY-MM-DD');
  });

  it('referenceDateOf takes the UTC calendar date of an instant', () => {
    expect(referenceDateOf(new Date('2024-06-01T03:00:00-03:00'))).toBe('2024-06-01');
    expect(referenceDateOf(new Date('2024-06-01T23:30:00-03:00'))).toBe('2024-06-02');
  });
});

describe('years', () => {
  it('counts whole years by anniversaries, whatever the leap days', () => {
    expect(wholeYearsBetween(d('2021-01-01'), d('2024-01-01'))).toBe(3); // no leap day inside: 1095 days
    expect(wholeYearsBetween(d('2021-01-01'), d('2023-12-31'))).toBe(2);
    expect(wholeYearsBetween(d('2024-06-01'), d('2024-06-01'))).toBe(0);
    expect(wholeYearsBetween(d('2024-06-01'), d('2020-06-01'))).toBe(0);
  });

  it('has a fraction of the running year', () => {
    expect(yearsBetween(d('2021-01-01'), d('2024-01-01'))).toBe(3);
    expect(yearsBetween(d('2020-01-01'), d('2020-07-01'))).toBeCloseTo(182 / 366, 12);
    expect(yearsBetween(d('2021-06-01'), d('2024-05-28'))).toBeCloseTo(2 + 362 / 366, 12);
    expect(yearsBetween(d('2024-06-01'), d('2024-01-01'))).toBe(0);
  });

  it('29 February has its anniversary on 28 February in common years', () => {
    expect(formatDay(addYears(d('2024-02-29'), 1))).toBe('2025-02-28');
    expect(formatDay(addYears(d('2024-02-29'), 4))).toBe('2028-02-29');
    expect(wholeYearsBetween(d('2024-02-29'), d('2025-02-28'))).toBe(1);
    expect(yearOfDay(d('2024-12-31'))).toBe(2024);
  });

  it('truncates years shown to people to 1 decimal', () => {
    expect(truncateYears(2.99)).toBe(2.9);
    expect(truncateYears(3)).toBe(3);
    expect(truncateYears(13.25)).toBe(13.2);
    expect(truncateYears(0.3)).toBe(0.3);
  });
});

describe('periods', () => {
  const ref = d('2024-06-01');

  it('reads an open period up to the reference day, current', () => {
    expect(readPeriod('2020-06-01', null, ref)).toEqual({ start: d('2020-06-01'), end: ref, current: true });
    expect(readPeriod('2020-06-01', undefined, ref)).toEqual({ start: d('2020-06-01'), end: ref, current: true });
    expect(readPeriod('2020-06-01', '', ref)).toEqual({ start: d('2020-06-01'), end: ref, current: true });
  });

  it('includes the last day of a closed period', () => {
    expect(readPeriod('2019-03-01', '2022-02-28', ref)).toEqual({ start: d('2019-03-01'), end: d('2022-03-01'), current: false });
  });

  it('a period ending on or after the reference day is current and cut at it', () => {
    expect(readPeriod('2019-03-01', '2024-06-01', ref)).toEqual({ start: d('2019-03-01'), end: ref, current: true });
    expect(readPeriod('2019-03-01', '9999-12-31', ref)).toEqual({ start: d('2019-03-01'), end: ref, current: true });
    expect(readPeriod('2019-03-01', '2024-05-31', ref)?.current).toBe(false);
  });

  it('skips what cannot be used', () => {
    expect(readPeriod('2024-06-02', null, ref)).toBeNull(); // not started yet
    expect(readPeriod('2020-02-30', null, ref)).toBeNull();
    expect(readPeriod(null, '2020-01-01', ref)).toBeNull();
    expect(readPeriod('2020-01-01', 'ontem', ref)).toBeNull();
    expect(readPeriod('2020-01-01', '2019-12-31', ref)).toBeNull();
  });

  it('describes a period for explanations', () => {
    expect(describePeriod(readPeriod('2019-03-01', '2022-02-28', ref) as Period)).toBe('2019-03-01 a 2022-02-28');
    expect(describePeriod(readPeriod('2019-03-01', null, ref) as Period)).toBe('2019-03-01 a atual');
  });

  it('a return needs an interruption of at least one year', () => {
    const end = d('2016-01-01'); // the day after fim 2015-12-31
    expect(isReturnAfter(end, d('2016-12-31'))).toBe(false);
    expect(isReturnAfter(end, d('2017-01-01'))).toBe(true);
  });

  const p = (inicio: string, fim: string | null): Period => readPeriod(inicio, fim, ref) as Period;

  it('merges overlapping and touching periods, in order, without changing the input', () => {
    const periods = [
      p('2015-01-01', '2016-12-31'),
      p('2010-01-01', '2012-12-31'),
      p('2012-06-01', '2013-12-31'),
      p('2014-01-01', '2014-06-30'),
    ];
    const copy = structuredClone(periods);
    expect(mergePeriods(periods, false).map(describePeriod)).toEqual(['2010-01-01 a 2014-06-30', '2015-01-01 a 2016-12-31']);
    expect(periods).toEqual(copy);
  });

  it('optionally joins periods across interruptions shorter than a return', () => {
    const periods = [p('2010-01-01', '2012-12-31'), p('2013-12-31', '2014-12-31'), p('2016-01-01', null)];
    expect(mergePeriods(periods, true).map(describePeriod)).toEqual(['2010-01-01 a 2014-12-31', '2016-01-01 a atual']);
    expect(mergePeriods(periods, true)[1]?.current).toBe(true);
  });

  it('counts the union of the periods once', () => {
    expect(unionYears([p('2010-01-01', '2012-12-31'), p('2011-01-01', '2013-12-31')])).toBe(4);
    expect(unionYears([])).toBe(0);
  });
});

describe('parseYear', () => {
  it('reads integers and four-digit strings up to the maximum year', () => {
    expect(parseYear(2019, 2024)).toBe(2019);
    expect(parseYear('2019', 2024)).toBe(2019);
    expect(parseYear(2024, 2024)).toBe(2024);
  });

  it.each([[2025], [1899], [2019.5], ['s/d'], ['19'], [null], [undefined], [Number.NaN], [Infinity]])('rejects %p', (value) => {
    expect(parseYear(value, 2024)).toBeNaN();
  });
});

describe('rounding and caps', () => {
  it('rounds half away from zero to 2 decimals, without binary noise', () => {
    expect(roundPoints(1.005)).toBe(1.01);
    expect(roundPoints(2.345)).toBe(2.35);
    expect(roundPoints(-2.345)).toBe(-2.35);
    expect(roundPoints(0.1 + 0.2)).toBe(0.3);
    expect(roundPoints(22.5 * 3)).toBe(67.5);
    expect(Object.is(roundPoints(-0.001), 0)).toBe(true);
    expect(roundPoints(Number.NaN)).toBe(0);
    expect(roundPoints(Infinity)).toBe(0);
  });

  it('a cap is a negative item that brings the group down to the cap', () => {
    const items: ScoreItem[] = [
      { codigo: 'X', descricao: 'x', pontos: 10 },
      { codigo: 'Y', descricao: 'y', pontos: 25 },
      { codigo: 'Z', descricao: 'z', pontos: 12.5 },
    ];
    capItems(items, 1, 30, 'TETO_YZ', 'Teto de YZ: 30');
    expect(items[3]).toEqual({ codigo: 'TETO_YZ', descricao: 'Teto de YZ: 30 (37.5 → 30)', pontos: -7.5 });
    capItems(items, 0, 100, 'TETO_NADA', 'não atingido');
    expect(items).toHaveLength(4);
    expect(closeBlock(items, 35, 'X')).toEqual({
      pontos: 35,
      itens: [...items.slice(0, 4), { codigo: 'TETO_BLOCO', descricao: 'Teto do bloco X: 35 (40 → 35)', pontos: -5 }],
    });
  });
});
