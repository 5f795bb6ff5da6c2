import { statsWindow } from '../../services/stats';

/** The statistics' window (docs/statistics.md): the last N UTC days up to today's, as [first day 00:00, tomorrow 00:00). */
describe('statsWindow', () => {
  it('days=1 is today alone, from its first to its last millisecond', () => {
    expect(statsWindow(1, new Date('2026-11-25T23:59:59.999Z'))).toEqual({
      start: new Date('2026-11-25T00:00:00.000Z'),
      end: new Date('2026-11-26T00:00:00.000Z'),
      labels: ['2026-11-25'],
    });
    expect(statsWindow(1, new Date('2026-11-25T00:00:00.000Z')).labels).toEqual(['2026-11-25']);
  });

  it('counts back across a month end and a leap day, oldest first', () => {
    expect(statsWindow(3, new Date('2028-03-01T08:00:00.000Z'))).toEqual({
      start: new Date('2028-02-28T00:00:00.000Z'),
      end: new Date('2028-03-02T00:00:00.000Z'),
      labels: ['2028-02-28', '2028-02-29', '2028-03-01'],
    });
  });

  it('365 days end today and start 364 days before', () => {
    const { labels, start } = statsWindow(365, new Date('2027-01-01T12:00:00.000Z'));
    expect(labels).toHaveLength(365);
    expect([labels[0], labels[364]]).toEqual(['2026-01-02', '2027-01-01']);
    expect(start).toEqual(new Date('2026-01-02T00:00:00.000Z'));
  });
});
